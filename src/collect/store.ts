// Where a collection keeps what it found and where it stands: the CollectionStore contract (one
// atomic commit per finished page, a checkpoint to resume from) and its in-memory default.

import type { CallOptions } from '../browser/types';
import type { TokenUsage } from '../llm/usage';

/**
 * One record as the collection yields and stores it: the data the schema validated, where and
 * when it was found, and its de-duplication key.
 * @public
 */
export interface CollectedRecord<TRecord = unknown> {
  /** The record, of the schema's output type (secret values redacted). */
  readonly data: TRecord;
  /** The URL of the page it was found on. */
  readonly source: string;
  /** When it was found, as an ISO 8601 timestamp. */
  readonly collectedAt: string;
  /** Its de-duplication key: the `key` option's, or its JSON. */
  readonly key: string;
}

/**
 * A page waiting to be read.
 * @public
 */
export interface QueuedPage {
  /** The page's URL, normalised (no fragment). */
  readonly url: string;
  /** The batch the page belongs to (see {@link CollectionCheckpoint.batches}). */
  readonly batch: string;
  /** How many links away from its start URL or list entry it is. */
  readonly depth: number;
}

/**
 * How one page ended.
 * @public
 */
export interface PageOutcome {
  readonly url: string;
  readonly batch: string;
  /** `done` (records or not) or `failed`. */
  readonly status: 'done' | 'failed';
  /** Records kept from it (after validation and de-duplication). */
  readonly records: number;
  /** Why it failed. */
  readonly error?: string | undefined;
}

/**
 * The counters of a run, as the summary and the checkpoint carry them.
 * @public
 */
export interface CollectionCounters {
  /** Pages read to the end. */
  readonly pagesDone: number;
  /** Pages that failed. */
  readonly pagesFailed: number;
  /** Pages read to the end that gave no new record. */
  readonly pagesEmpty: number;
  /** Records kept. */
  readonly records: number;
  /** Records dropped because their key was seen. */
  readonly duplicates: number;
  /** Records dropped because the schema rejected them. */
  readonly invalid: number;
  /** Pages never read because their batch was abandoned. */
  readonly pagesAbandoned: number;
}

/**
 * One progress check, as the history and the checkpoint keep it.
 * @public
 */
export interface CollectionCheckRecord {
  /** Finished pages when it ran. */
  readonly pages: number;
  readonly decision: 'continue' | 'adjust' | 'stop';
  /** The model's reason. */
  readonly reason: string;
  /** With `adjust`: the instruction for the next pages. */
  readonly instruction?: string | undefined;
  /** Milliseconds since the epoch. */
  readonly timestamp: number;
}

/**
 * Where a run stands: what a resumed run starts from.
 * @public
 */
export interface CollectionCheckpoint {
  readonly version: 1;
  /** Pages not read yet, in order (pages in flight when it was saved are in it too). */
  readonly queue: readonly QueuedPage[];
  /** Every URL ever enqueued: none is enqueued twice. */
  readonly seenUrls: readonly string[];
  /** The keys of every record stored. */
  readonly seenKeys: readonly string[];
  /** Finished pages (done or failed): never read again. */
  readonly finished: readonly string[];
  /** Per batch: consecutive failures so far, and whether it was abandoned. */
  readonly batches: Readonly<Record<string, { readonly failures: number; readonly abandoned: boolean }>>;
  readonly counters: CollectionCounters;
  /** Pages started, for `maxPages`. */
  readonly pagesStarted: number;
  /** The instruction in force (a check may have adjusted it). */
  readonly instruction: string;
  /** The progress checks so far. */
  readonly checks: readonly CollectionCheckRecord[];
  /** Tokens used so far. */
  readonly usage: TokenUsage;
}

/**
 * What one finished page adds to the store: its records, its outcome and the checkpoint after
 * it. A store applies a commit all or nothing, so a run killed at any moment neither loses a
 * record nor writes one twice when it resumes.
 * @public
 */
export interface CollectionCommit<TRecord = unknown> {
  readonly records: readonly CollectedRecord<TRecord>[];
  /** The page that finished; absent for a commit of the checkpoint alone (a check, an abandoned batch). */
  readonly page?: PageOutcome | undefined;
  readonly checkpoint: CollectionCheckpoint;
}

/**
 * Storage of a collection: records, page outcomes and the checkpoint. Implement it for your own
 * storage (a database, Redis); `fileCollectionStore(dir)` of `plannav/node` writes files.
 * Commits come one at a time, in order, never concurrently.
 * @public
 */
export interface CollectionStore<TRecord = unknown> {
  /** The checkpoint of an earlier run, or undefined for a fresh store. */
  load(options?: CallOptions): Promise<CollectionCheckpoint | undefined>;
  /** Applies one commit, all or nothing. */
  commit(commit: CollectionCommit<TRecord>, options?: CallOptions): Promise<void>;
  /** Every record committed so far, in order. */
  records(): AsyncIterable<CollectedRecord<TRecord>>;
  /** Releases what the store holds (files, connections). Idempotent. */
  close?(): Promise<void>;
}

/**
 * A store in memory: the default. A second run given the same object resumes the first.
 * @example
 * ```ts
 * const store = memoryCollectionStore();
 * await collect({ ...options, store, maxPages: 5 }).done;
 * await collect({ ...options, store }).done; // goes on after the first 5 pages
 * ```
 * @public
 */
export function memoryCollectionStore<TRecord = unknown>(): CollectionStore<TRecord> & {
  /** The records committed so far. */
  readonly committed: readonly CollectedRecord<TRecord>[];
  /** The page outcomes committed so far. */
  readonly pages: readonly PageOutcome[];
} {
  const committed: CollectedRecord<TRecord>[] = [];
  const pages: PageOutcome[] = [];
  let checkpoint: CollectionCheckpoint | undefined;
  return {
    committed,
    pages,
    load: async () => (checkpoint === undefined ? undefined : structuredClone(checkpoint)),
    commit: async (commit) => {
      committed.push(...commit.records);
      if (commit.page) pages.push(commit.page);
      checkpoint = structuredClone(commit.checkpoint);
    },
    records: async function* () {
      yield* [...committed];
    },
  };
}
