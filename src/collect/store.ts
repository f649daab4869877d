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
 * One step of the way to a page that has no address of its own: a control of the page before it
 * that the collection clicked, or a pager `<select>` whose option it chose.
 * @public
 */
export interface PageWayStep {
  /** `click` a control, or `select` an option of a pager. */
  readonly action: 'click' | 'select';
  /** How the control is found again on that page: its tag, and its text, label, name or rel as the page showed them. */
  readonly control: ControlLocator;
  /** With `select`: the option's label. */
  readonly option?: string | undefined;
}

/**
 * How a collection finds a control again on another load of a page (or on a page of the same
 * template) without a model: what the page showed of it.
 * @public
 */
export interface ControlLocator {
  /** The tag name, lower case. */
  readonly tag: string;
  /** Its visible text, whitespace collapsed. */
  readonly text?: string | undefined;
  /** Attributes that name it (`aria-label`, `title`, `name`, `rel`, `type`, `role`). */
  readonly attributes?: Readonly<Record<string, string>> | undefined;
}

/**
 * A page waiting to be read.
 * @public
 */
export interface QueuedPage {
  /**
   * The page's URL, normalised (no fragment): its identity. A page reached by clicking without a
   * change of address has its origin's URL with `#plannav-step=N` (N the steps of `way`).
   */
  readonly url: string;
  /** The batch the page belongs to (see {@link CollectionCheckpoint.batches}). */
  readonly batch: string;
  /** How many links away from its start URL or list entry it is. */
  readonly depth: number;
  /** A listing page, or the own page of a record to complete (`detail`). @defaultValue `'listing'` */
  readonly kind?: 'listing' | 'detail' | undefined;
  /** Attempts made so far that failed for a reason that may pass. @defaultValue 0 */
  readonly attempts?: number | undefined;
  /** The last of those failures. */
  readonly lastError?: string | undefined;
  /** How often it was queued again after it failed or was abandoned. @defaultValue 0 */
  readonly requeued?: number | undefined;
  /** For a page reached by clicking: the address to load, and the steps from there. */
  readonly way?: { readonly from: string; readonly steps: readonly PageWayStep[] } | undefined;
  /** For a detail page: the record as the listing gave it, which the page completes. */
  readonly partial?: Readonly<Record<string, unknown>> | undefined;
  /** For a detail page: the listing page the record was found on. */
  readonly listedOn?: string | undefined;
}

/**
 * A record that failed its schema, kept with the reason, instead of being only counted.
 * @public
 */
export interface RejectedRecord {
  /** What the model read (secret values redacted), the detail page's fields merged in when one was read. */
  readonly data: unknown;
  /** Why the schema rejected it, such as `price: expected string, received undefined`. */
  readonly reason: string;
  /** The page it was found on. */
  readonly source: string;
  /** The record's own page when one was read (or could not be). */
  readonly detail?: string | undefined;
  /** When it was rejected, as an ISO 8601 timestamp. */
  readonly rejectedAt: string;
}

/**
 * How one page ended: `done` (read to the end, records or not), `failed` (every attempt failed,
 * or a failure that cannot pass), or `abandoned` (never read: its batch was given up).
 * @public
 */
export interface PageOutcome {
  readonly url: string;
  readonly batch: string;
  readonly status: 'done' | 'failed' | 'abandoned';
  /** Records kept from it (after validation and de-duplication). */
  readonly records: number;
  /** Attempts made (for an abandoned page, those made before its batch was given up). */
  readonly attempts?: number | undefined;
  /** Why it failed: the last attempt's error. */
  readonly error?: string | undefined;
  /** How a page reached by clicking was reached. */
  readonly way?: QueuedPage['way'];
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
  /** Pages never read because their batch was abandoned (and not queued again since). */
  readonly pagesAbandoned: number;
  /** Attempts of pages that failed for a reason that may pass and were made again. */
  readonly retries?: number | undefined;
  /** Records rejected by the schema and kept in the rejects stream (part of `invalid`). */
  readonly rejected?: number | undefined;
  /** Detail pages read to complete records. */
  readonly detailPages?: number | undefined;
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
  /** When the check queued the failed and abandoned pages again: how many. */
  readonly retried?: number | undefined;
  /** Milliseconds since the epoch. */
  readonly timestamp: number;
}

/**
 * Where a run stands: what a resumed run starts from.
 * @public
 */
export interface CollectionCheckpoint {
  /** 2 since failed and abandoned pages are kept; a checkpoint of version 1 is read too. */
  readonly version: 1 | 2;
  /** Pages not read yet, in order (pages in flight when it was saved are in it too). */
  readonly queue: readonly QueuedPage[];
  /** Pages that failed, as they were queued, with their attempts and last error: a resumed run may try them again. */
  readonly failed?: readonly QueuedPage[] | undefined;
  /** Pages of given-up batches, never read: a resumed run may queue them again. */
  readonly abandoned?: readonly QueuedPage[] | undefined;
  /** What the collection learnt of each listing template (how it paginates), so a resumed run surveys less. */
  readonly templates?: Readonly<Record<string, unknown>> | undefined;
  /** Every URL ever enqueued: none is enqueued twice. */
  readonly seenUrls: readonly string[];
  /** The keys of every record stored. */
  readonly seenKeys: readonly string[];
  /** Finished pages (done or failed): never read again, unless failed ones are retried. */
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
  /** Pages given up with a batch by this commit, each an `abandoned` outcome. */
  readonly abandoned?: readonly PageOutcome[] | undefined;
  /** Records the schema rejected on this page, kept with their reason. */
  readonly rejects?: readonly RejectedRecord[] | undefined;
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
 * await new Collector({ ...options, store, maxPages: 5 }).run();
 * await new Collector({ ...options, store }).run(); // goes on after the first 5 pages
 * ```
 * @public
 */
export function memoryCollectionStore<TRecord = unknown>(): CollectionStore<TRecord> & {
  /** The records committed so far. */
  readonly committed: readonly CollectedRecord<TRecord>[];
  /** The page outcomes committed so far (a page retried later has one per end). */
  readonly pages: readonly PageOutcome[];
  /** The rejected records committed so far. */
  readonly rejects: readonly RejectedRecord[];
} {
  const committed: CollectedRecord<TRecord>[] = [];
  const pages: PageOutcome[] = [];
  const rejects: RejectedRecord[] = [];
  let checkpoint: CollectionCheckpoint | undefined;
  return {
    committed,
    pages,
    rejects,
    load: async () => (checkpoint === undefined ? undefined : structuredClone(checkpoint)),
    commit: async (commit) => {
      committed.push(...commit.records);
      if (commit.page) pages.push(commit.page);
      pages.push(...(commit.abandoned ?? []));
      rejects.push(...(commit.rejects ?? []));
      checkpoint = structuredClone(commit.checkpoint);
    },
    records: async function* () {
      yield* [...committed];
    },
  };
}

/**
 * What a collection did, for logs and audits: every progress check and every finished page of
 * this run (a resumed run's checks include the earlier runs').
 * @public
 */
export interface CollectionHistory {
  readonly checks: readonly CollectionCheckRecord[];
  readonly pages: readonly PageOutcome[];
}
