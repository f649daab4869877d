// What the action cache keeps: one JSON entry per resolved instruction, the store interface that
// holds them, and the in-memory store. Entries hold placeholders for secrets, never their values.

import { z } from 'zod';
import { elementFingerprintSchema } from '../history/schema';
import type { ElementFingerprint } from '../history/types';

/**
 * One instruction resolved once: by `kind` `act`, the action the model chose
 * and the elements it acted on; by `extract`, the data the model extracted. Plain JSON, so any
 * store can keep it.
 * @public
 */
export interface ActionCacheEntry {
  /** The entry format's version. */
  readonly version: 1;
  /** What resolved the instruction: `act()` or `extract()`. */
  readonly kind: 'act' | 'extract';
  /** The instruction as it was given (secret values replaced by their placeholders), for people reading the store. */
  readonly instruction: string;
  /** The page's address without query values or fragment, as the key holds it. */
  readonly url: string;
  /**
   * A hash of the whole address of the page it was resolved on: a page with other query values
   * (another product's page of the same shape) is checked as another page.
   */
  readonly pageHash: string;
  /**
   * What the entry was resolved on: for `act`, a hash of the structure of the page's interactive
   * elements (another structure is a changed page: the model resolves the instruction again); for
   * `extract`, a hash of the page's text (other text is a miss).
   */
  readonly signature: string;
  /** When it was written first, in milliseconds since the epoch. */
  readonly createdAt: number;
  /** When it was last replaced by a fresh resolution, in milliseconds since the epoch. */
  readonly updatedAt: number;
  /** For `act`: the action to run again. */
  readonly action?: CachedAction | undefined;
  /** For `extract`: the extracted data, as the schema returned it. */
  readonly data?: unknown;
}

/**
 * An action as the cache replays it: its name, its parameters without element indexes (they mean
 * nothing on another reading of the page) and the fingerprint of each element it acted on.
 * @public
 */
export interface CachedAction {
  /** The action's name, such as `click_element`. */
  readonly name: string;
  /** The parameters, with `<secret>name</secret>` placeholders where the model wrote them, and no element index. */
  readonly params: Readonly<Record<string, unknown>>;
  /**
   * The elements the action acted on, by the parameter that held their index (`index`, `targetIndex`):
   * found again on the page by the replay matcher before the action runs.
   */
  readonly elements: Readonly<Record<string, ElementFingerprint>>;
  /**
   * The page text just above each element (numbers and prices left out), by parameter: an element
   * whose record the page does not name is taken only where the page still says the same.
   */
  readonly context: Readonly<Record<string, string>>;
}

/**
 * Where an `ActionCache` keeps its entries: in memory by default, in files with
 * `fileActionCacheStore(dir)` of `plannav/node`, or anywhere else (Redis, a database) by
 * implementing these three methods. Keys are hex strings (a SHA-256 of the instruction and the page
 * signature); entries are plain JSON. A store may return what it holds unchecked: the cache checks
 * every entry it reads and ignores one that is malformed.
 * @public
 */
export interface ActionCacheStore {
  /** The entry under `key`, or `undefined`. */
  get(key: string): Promise<ActionCacheEntry | undefined> | ActionCacheEntry | undefined;
  /** Writes (or replaces) the entry under `key`. */
  set(key: string, entry: ActionCacheEntry): Promise<void> | void;
  /** Removes the entry under `key`, if any. */
  delete(key: string): Promise<void> | void;
}

const cachedActionSchema = z.object({
  name: z.string().min(1).max(200),
  params: z.record(z.string(), z.unknown()),
  elements: z.record(z.string(), elementFingerprintSchema),
  context: z.record(z.string(), z.string()),
});

/** What an entry read from a store must be; anything else is ignored, as a miss. */
export const actionCacheEntrySchema = z.object({
  version: z.literal(1),
  kind: z.enum(['act', 'extract']),
  instruction: z.string(),
  url: z.string(),
  pageHash: z.string(),
  signature: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  action: cachedActionSchema.optional(),
  data: z.unknown().optional(),
});

/** A store in a Map: entries live as long as the cache. Entries are copied in and out, so no caller can change one in place. */
export function memoryActionCacheStore(): ActionCacheStore {
  const entries = new Map<string, string>();
  return {
    get: (key) => {
      const text = entries.get(key);
      return text === undefined ? undefined : (JSON.parse(text) as ActionCacheEntry);
    },
    set: (key, entry) => {
      entries.set(key, JSON.stringify(entry));
    },
    delete: (key) => {
      entries.delete(key);
    },
  };
}
