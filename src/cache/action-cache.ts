// ActionCache: instructions act() and extract() resolved once with a model, kept by instruction and
// page signature so the next call on the same kind of page runs without one. It decides nothing
// about a page by itself: act.ts and extract.ts look entries up and re-check them on the page.

import { ConfigError } from '../errors';
import type { TokenUsage } from '../llm/usage';
import { actionCacheEntrySchema, memoryActionCacheStore, type ActionCacheEntry, type ActionCacheStore } from './cache-entry';

/**
 * How a call used the cache. `hit`: the entry was re-checked on the page and used, with no model
 * call. `miss`: there was no entry; the model resolved the instruction and the entry was written.
 * `healed`: there was an entry, but the page no longer matched it (the element gone, ambiguous or
 * changed); the model resolved the instruction again and the entry was replaced. `off`: no cache was given.
 * @public
 */
export type ActionCacheStatus = 'hit' | 'miss' | 'healed' | 'off';

/**
 * What `ActionCache.stats()` counts since the cache was made.
 * @public
 */
export interface ActionCacheStats {
  /** Calls served from the cache, with no model call. */
  readonly hits: number;
  /** Calls with no entry: the model resolved them. */
  readonly misses: number;
  /** Calls whose entry no longer fitted the page: the model resolved them again and the entry was replaced. */
  readonly heals: number;
}

/**
 * One use of the cache, as `ActionCacheOptions.onEvent` hears it, after the call's action ran
 * (or its data was extracted).
 * @public
 */
export interface ActionCacheEvent {
  /** `cache-hit`, `cache-miss` or `cache-heal`, as the call's status `hit`, `miss` or `healed`. */
  readonly type: 'cache-hit' | 'cache-miss' | 'cache-heal';
  /** Which call used it. */
  readonly call: 'act' | 'extract';
  /** The instruction, secret values replaced by their placeholders. */
  readonly instruction: string;
  /** The page's address without query values or fragment. */
  readonly url: string;
  /** The entry's key in the store. */
  readonly key: string;
  /** Why an entry was not used, for a heal (`index: the recorded button "Add to cart" was not found: …`). */
  readonly reason?: string | undefined;
  /** The model calls the call made: none on a hit. */
  readonly usage: TokenUsage;
  /** Why the store failed to read or write the entry, when it did (the call itself went on). */
  readonly storeError?: string | undefined;
  /** When it happened, in milliseconds since the epoch. */
  readonly timestamp: number;
}

/**
 * Options of `ActionCache`.
 * @public
 */
export interface ActionCacheOptions {
  /**
   * Where the entries are kept.
   * @defaultValue in memory, for the life of the cache
   * @example `new ActionCache({ store: fileActionCacheStore('.plannav/cache') })` (`fileActionCacheStore` is in `plannav/node`)
   */
  readonly store?: ActionCacheStore | undefined;
  /** Hears every hit, miss and heal, with its usage (none on a hit). */
  readonly onEvent?: ((event: ActionCacheEvent) => void) | undefined;
}

/** What act() and extract() use of a cache; not part of the public API. */
export interface ActionCacheAccess {
  /** The entry under `key` when it is well-formed and of `kind`; a store failure is given as `error`. */
  read(key: string, kind: ActionCacheEntry['kind']): Promise<{ readonly entry?: ActionCacheEntry | undefined; readonly error?: string | undefined }>;
  /** Writes the entry; a store failure is returned, not thrown. */
  write(key: string, entry: ActionCacheEntry): Promise<string | undefined>;
  /** Counts the outcome and tells the listener. */
  report(event: Omit<ActionCacheEvent, 'timestamp'>): void;
}

const access = new WeakMap<ActionCache, ActionCacheAccess>();

/** The act()/extract() side of `cache`. */
export function cacheAccess(cache: ActionCache): ActionCacheAccess {
  const found = access.get(cache);
  if (!found) throw new ConfigError('The `cache` option must be an ActionCache made with `new ActionCache()`.', { field: 'cache' });
  return found;
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A cache of resolved actions for {@link act} (its `instruction` form) and {@link extract}: an
 * instruction the model resolved once on a page is run again from the cache on the same kind of page,
 * with no model call.
 *
 * @remarks
 * The key is the instruction and the page signature: the address without query values or
 * fragment, and a hash of the structure of the page's interactive elements (their kinds and places,
 * not their text, so new prices or names keep the key). A hit finds the recorded element again with
 * the replay matcher and acts on it; when the element is gone, ambiguous, changed or not plainly the
 * same (another product's button in its place), the call is not a hit: the model is asked and the
 * entry is replaced (`healed`). An `extract()` entry is also keyed by the schema and a hash of the
 * page's text: any change of the text is a miss. Secrets stay placeholders in every entry.
 *
 * @example
 * ```ts
 * const cache = new ActionCache();
 * await act(browser, { instruction: 'add the blue mug to the cart' }, { llm, cache }); // cache: 'miss'
 * await act(browser, { instruction: 'add the blue mug to the cart' }, { llm, cache }); // cache: 'hit', no model call
 * console.log(cache.stats()); // { hits: 1, misses: 1, heals: 0 }
 * ```
 * @public
 */
export class ActionCache {
  /** Where the entries are kept. */
  readonly store: ActionCacheStore;
  private hits = 0;
  private misses = 0;
  private heals = 0;

  /**
   * Makes a cache over `options.store` (in memory by default).
   * @throws `ConfigError` when `store` lacks `get`, `set` or `delete`, or `onEvent` is not a function.
   */
  constructor(options: ActionCacheOptions = {}) {
    if (typeof options !== 'object' || options === null) throw new ConfigError('The options of ActionCache must be an object.', { field: 'options' });
    const unknown = Object.keys(options).find((key) => key !== 'store' && key !== 'onEvent');
    if (unknown !== undefined) throw new ConfigError(`Unknown option \`${unknown}\` of ActionCache. Check its spelling.`, { field: unknown });
    const { store, onEvent } = options;
    if (store !== undefined) {
      const missing = (['get', 'set', 'delete'] as const).filter((method) => typeof (store as unknown as Record<string, unknown>)?.[method] !== 'function');
      if (missing.length > 0) {
        throw new ConfigError(`Option \`store\` of ActionCache must have get(), set() and delete(); it lacks ${missing.join(', ')}.`, { field: 'store' });
      }
    }
    if (onEvent !== undefined && typeof onEvent !== 'function') {
      throw new ConfigError('Option `onEvent` of ActionCache must be a function.', { field: 'onEvent' });
    }
    this.store = store ?? memoryActionCacheStore();
    const cacheStore = this.store;
    access.set(this, {
      read: async (key, kind) => {
        let raw: unknown;
        try {
          raw = await cacheStore.get(key);
        } catch (error) {
          return { error: `the store could not read the entry: ${describeError(error)}` };
        }
        if (raw === undefined || raw === null) return {};
        const parsed = actionCacheEntrySchema.safeParse(raw);
        // A malformed entry (an older format, a file edited by hand) is no entry: the model resolves the instruction again.
        if (!parsed.success || parsed.data.kind !== kind) return {};
        return { entry: parsed.data as ActionCacheEntry };
      },
      write: async (key, entry) => {
        try {
          await cacheStore.set(key, entry);
          return undefined;
        } catch (error) {
          return `the store could not write the entry: ${describeError(error)}`;
        }
      },
      report: (event) => {
        if (event.type === 'cache-hit') this.hits++;
        else if (event.type === 'cache-miss') this.misses++;
        else this.heals++;
        onEvent?.({ ...event, timestamp: Date.now() });
      },
    });
  }

  /** How many calls were hits, misses and heals since the cache was made. */
  stats(): ActionCacheStats {
    return { hits: this.hits, misses: this.misses, heals: this.heals };
  }
}
