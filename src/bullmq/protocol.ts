// What the coordinator and the workers of a BullMQ collection agree on: the queue and key names in
// Redis, the page job's data and result, the run's settings. No BullMQ or Redis calls here.

import { createHash } from 'node:crypto';
import type { RejectedItem } from '../collect/page-extraction';
import type { FoundPage } from '../collect/page-step';
import type { RedisOptions } from 'ioredis';
import type { ErrorInfo } from '../events';
import type { ResolvedPageRetry } from '../collect/page-retry';
import type { CollectionCheckRecord, PageOutcome, QueuedPage } from '../collect/store';
import type { ModelRetryOptions } from '../llm/generate-object';
import type { TokenUsage } from '../llm/usage';

/**
 * Where Redis is: a URL such as `redis://10.0.0.5:6379`, or ioredis options.
 * @public
 */
export type RedisConnection = string | RedisOptions;

/**
 * The page job: the whole queued page (fields this version does not know pass through to the page
 * step), and the attempts of it that failed for a reason that may pass.
 */
export type PageJobData = QueuedPage & {
  /** Attempts that failed transiently so far; absent before the first retry. */
  readonly failedAttempts?: number | undefined;
  /** The model calls of those attempts: they reach the coordinator with the page's last attempt. */
  readonly earlierModelCalls?: readonly PageJobModelCall[] | undefined;
};

/**
 * How one page ended, with its attempts and `abandoned` for a page of a batch given up.
 * (The Collector's `PageOutcome` gains `attempts` and `abandoned` in src/collect/store.ts; until
 * that lands this is the local shape, and afterwards it is `PageOutcome` itself.)
 */
export type CommittedPageOutcome = Omit<PageOutcome, 'status'> & {
  /** `done` (records or not), `failed` after all its attempts, or `abandoned` with its batch, unread. */
  readonly status: 'done' | 'failed' | 'abandoned';
  /** Attempts made: 0 for an abandoned page. */
  readonly attempts: number;
};

/** One model call of a worker's page step, unpriced: the coordinator prices it and reports it as a `collect-model-call`. */
export interface PageJobModelCall {
  readonly role: 'navigator' | 'extraction';
  readonly provider: string;
  readonly model: string;
  readonly usage: TokenUsage;
  readonly durationMs: number;
  readonly error: ErrorInfo | undefined;
}

/** What a worker sends back for one page, as the job's return value; the coordinator commits it. */
export type PageJobResult<TRecord = unknown> =
  | {
      readonly status: 'done';
      readonly records: readonly TRecord[];
      readonly invalid: number;
      /**
       * The records the schema rejected, with why (secret values redacted): of a listing page, those
       * the coordinator may complete from their own pages; of a record's own page, the record that
       * page could not complete. Absent from older workers: then only `invalid` counts them.
       */
      readonly rejected?: readonly RejectedItem[] | undefined;
      readonly links: readonly string[];
      /** Every page found, with the way there of a page reached by a script pager, and sub-listings; absent from older workers. */
      readonly found?: readonly FoundPage[] | undefined;
      readonly loadMore: number;
      readonly interaction: string | undefined;
      readonly modelCalls: readonly PageJobModelCall[];
      readonly durationMs: number;
      /** Attempts of the page, this one included. */
      readonly attempts: number;
    }
  | {
      readonly status: 'failed';
      readonly error: ErrorInfo;
      readonly modelCalls: readonly PageJobModelCall[];
      readonly durationMs: number;
      readonly attempts: number;
    };

/** The run's settings that workers read from Redis at each page: the coordinator writes them. */
export interface RunSettings {
  readonly instruction: string;
  readonly interactionSteps: number;
  readonly maxLoadMore: number;
  readonly pageTimeout: number;
  readonly maxChunkChars: number | undefined;
  readonly modelRetry: ModelRetryOptions;
  readonly urlPolicy: { readonly allow?: readonly string[] | undefined; readonly deny?: readonly string[] | undefined };
  /** How a page that failed transiently is tried again. */
  readonly retry: ResolvedPageRetry;
  /** Per host, across all workers: the most pages read at once and the least milliseconds between two starts. */
  readonly perHost: { readonly maxConcurrent: number | undefined; readonly delayMs: number };
  /** Records are completed from their own pages: listings are asked for the records' partial shape. Absent from older coordinators: off. */
  readonly details?: boolean | undefined;
}

/** The BullMQ prefix of every key of plannav's collections. */
export const queuePrefix = 'plannav';

/** The name of a collection must be usable as a BullMQ queue name and inside a Redis key. */
export function checkName(name: unknown): string {
  if (typeof name !== 'string' || !/^[A-Za-z0-9_.-]{1,100}$/.test(name))
    throw new TypeError(`Option \`name\` must be 1 to 100 letters, digits, '.', '_' or '-', got ${JSON.stringify(name)}.`);
  return name;
}

/** The BullMQ queue of a collection's pages. */
export const queueName = (name: string): string => `collect-${name}`;

/**
 * The Redis keys of a collection; the hash tag keeps them on one cluster slot, for the commit script.
 * Together they are the collection's checkpoint, from which a new coordinator resumes it.
 */
export function keysOf(name: string): {
  /** The run's settings (string, JSON {@link RunSettings}): the instruction in force. */
  settings: string;
  /** The run itself (hash): `collectionId`, and `pagesSkipped` once `maxPages` refused a page. */
  run: string;
  /** Every page ever enqueued (hash, job id to the queued page as JSON): none is enqueued twice. */
  enqueued: string;
  /** The job ids of the pages committed (set). */
  committed: string;
  /** The job ids of the queued pages given up with their batch (set). */
  dropped: string;
  /** The records kept, in commit order (stream, field `record`). */
  records: string;
  /** The records the schema rejected, with why, in commit order (stream, field `reject`: a `RejectedRecord` JSON). */
  rejects: string;
  /** The page outcomes, in commit order (stream, field `page`: {@link CommittedOutcome} JSON). */
  pages: string;
  /** The progress checks (list of {@link CommittedCheck} JSON). */
  checks: string;
  /** A record's key, set once (SET NX) by the page that kept it. */
  record: (key: string) => string;
  /** The pages of a host being read now (sorted set, holder to the end of its lease in ms, Redis time). */
  hostActive: (host: string) => string;
  /** When a host's next page may start (string, ms since the epoch, Redis time). */
  hostNext: (host: string) => string;
} {
  const base = `${queuePrefix}:{collect-${name}}`;
  return {
    settings: `${base}:settings`,
    run: `${base}:run`,
    enqueued: `${base}:enqueued`,
    committed: `${base}:committed`,
    dropped: `${base}:dropped`,
    records: `${base}:records`,
    rejects: `${base}:rejects`,
    pages: `${base}:pages`,
    checks: `${base}:checks`,
    record: (key) => `${base}:record:${createHash('sha256').update(key).digest('hex')}`,
    hostActive: (host) => `${base}:host:${host}:active`,
    hostNext: (host) => `${base}:host:${host}:next`,
  };
}

/** A page outcome as committed: the Collector's outcome, plus what the counters of a resumed run are summed from. */
export type CommittedOutcome = CommittedPageOutcome & {
  readonly duplicates: number;
  readonly invalid: number;
  /** Records of the page that went to the rejects stream (part of `invalid`); absent before details. */
  readonly rejected?: number | undefined;
  /** `detail` for a record's own page; absent for a listing page. */
  readonly kind?: 'detail' | undefined;
  /** The page's model calls, priced. */
  readonly usage: TokenUsage;
};

/** A progress check as stored: its record and the usage of its model calls, priced. */
export interface CommittedCheck extends CollectionCheckRecord {
  readonly usage: TokenUsage;
}

/** The Redis key of a page job's hash: it is gone when the job was removed, or Redis lost it. */
export const jobKey = (name: string, jobId: string): string => `${queuePrefix}:${queueName(name)}:${jobId}`;

/** The job id of a page: derived from its normalised URL, so that a page is never enqueued twice (BullMQ ids may not hold ':'). */
export const pageJobId = (url: string): string => `page-${createHash('sha256').update(url).digest('hex').slice(0, 40)}`;

/** ioredis options from a connection; BullMQ's blocking connections need `maxRetriesPerRequest: null`. */
export function redisOptions(connection: RedisConnection): RedisOptions & { url?: string } {
  return typeof connection === 'string' ? { url: connection, maxRetriesPerRequest: null } : { maxRetriesPerRequest: null, ...connection };
}
