// What the coordinator and the workers of a BullMQ collection agree on: the queue and key names in
// Redis, the page job's data and result, the run's settings. No BullMQ or Redis calls here.

import { createHash } from 'node:crypto';
import type { RedisOptions } from 'ioredis';
import type { ErrorInfo } from '../events';
import type { ModelRetryOptions } from '../llm/generate-object';
import type { TokenUsage } from '../llm/usage';

/**
 * Where Redis is: a URL such as `redis://10.0.0.5:6379`, or ioredis options.
 * @public
 */
export type RedisConnection = string | RedisOptions;

/** The page job: one page to read. */
export interface PageJobData {
  readonly url: string;
  readonly batch: string;
  readonly depth: number;
}

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
      readonly links: readonly string[];
      readonly loadMore: number;
      readonly interaction: string | undefined;
      readonly modelCalls: readonly PageJobModelCall[];
      readonly durationMs: number;
    }
  | { readonly status: 'failed'; readonly error: ErrorInfo; readonly modelCalls: readonly PageJobModelCall[]; readonly durationMs: number };

/** The run's settings that workers read from Redis at each page: the coordinator writes them. */
export interface RunSettings {
  readonly instruction: string;
  readonly interactionSteps: number;
  readonly maxLoadMore: number;
  readonly pageTimeout: number;
  readonly maxChunkChars: number | undefined;
  readonly modelRetry: ModelRetryOptions;
  readonly urlPolicy: { readonly allow?: readonly string[] | undefined; readonly deny?: readonly string[] | undefined };
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

/** The Redis keys of a collection; the hash tag keeps them on one cluster slot, for the commit script. */
export function keysOf(name: string): {
  settings: string;
  committed: string;
  records: string;
  pages: string;
  seenUrls: string;
  record: (key: string) => string;
} {
  const base = `${queuePrefix}:{collect-${name}}`;
  return {
    settings: `${base}:settings`,
    committed: `${base}:committed`,
    records: `${base}:records`,
    pages: `${base}:pages`,
    seenUrls: `${base}:seen-urls`,
    record: (key) => `${base}:record:${createHash('sha256').update(key).digest('hex')}`,
  };
}

/** The job id of a page: derived from its normalised URL, so that a page is never enqueued twice (BullMQ ids may not hold ':'). */
export const pageJobId = (url: string): string => `page-${createHash('sha256').update(url).digest('hex').slice(0, 40)}`;

/** ioredis options from a connection; BullMQ's blocking connections need `maxRetriesPerRequest: null`. */
export function redisOptions(connection: RedisConnection): RedisOptions & { url?: string } {
  return typeof connection === 'string' ? { url: connection, maxRetriesPerRequest: null } : { maxRetriesPerRequest: null, ...connection };
}
