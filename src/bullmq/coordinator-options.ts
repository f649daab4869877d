// The options of a BullMQ collection's coordinator, checked: the Collector's options without the
// browsers, plus Redis, the collection's name and the page retries. Nothing here touches Redis.

import { seedPages, type SeedPage } from '../collect/collection-engine';
import { resolveCollectOptions, type CollectOptions, type ResolvedCollectOptions } from '../collect/options';
import { resolvePageRetry, type PageRetryOptions, type ResolvedPageRetry } from '../collect/page-retry';
import { stableJson } from '../collect/page-step';
import { ConfigError } from '../errors';
import type { LLMClient } from '../llm/types';
import { UrlPolicy } from '../security/url-policy';
import { checkName, redisOptions, type RedisConnection } from './protocol';

/**
 * Options of {@link createCollectionCoordinator}: the Collector's options without the browsers (the
 * workers have them) and the page-step models and secrets (the workers' too), plus Redis.
 * @public
 */
export interface CollectionCoordinatorOptions<TRecord = unknown> extends Omit<
  CollectOptions<TRecord>,
  'browser' | 'browsers' | 'concurrency' | 'store' | 'secrets' | 'actions' | 'navigatorLLM' | 'extractionLLM'
> {
  /**
   * Where Redis is: a URL or ioredis options.
   * @example `'redis://10.0.0.5:6379'`
   */
  readonly connection: RedisConnection;
  /** The collection's name: its queue and keys in Redis; workers give the same. Letters, digits, `.`, `_`, `-`. */
  readonly name: string;
  /** Milliseconds between two looks at finished pages in Redis. @defaultValue 200 */
  readonly pollInterval?: number | undefined;
  /**
   * How a page that failed for a reason that may pass (5xx, 429 with its `Retry-After`, a timeout, a
   * network error, a crashed page) is tried again: it goes back to the queue as a delayed job, on
   * any worker. Only a page that fails all its attempts is failed and counts towards `maxFailures`.
   * @defaultValue `{ attempts: 3, minDelayMs: 1000, maxDelayMs: 30000, factor: 2 }`
   * @example `{ attempts: 5, minDelayMs: 2000 }`
   */
  readonly retry?: PageRetryOptions | undefined;
}

/** Checks the `retry` option and fills in its defaults. */
function checkRetry(option: PageRetryOptions | undefined): ResolvedPageRetry {
  const retry = resolvePageRetry(option);
  const fields: [keyof ResolvedPageRetry, boolean, string][] = [
    ['attempts', Number.isInteger(retry.attempts) && retry.attempts >= 1, 'a positive integer'],
    ['minDelayMs', Number.isInteger(retry.minDelayMs) && retry.minDelayMs >= 0, 'an integer of 0 or more'],
    ['maxDelayMs', Number.isInteger(retry.maxDelayMs) && retry.maxDelayMs >= retry.minDelayMs, 'an integer of at least `retry.minDelayMs`'],
    ['factor', Number.isFinite(retry.factor) && retry.factor >= 1, 'a number of 1 or more'],
  ];
  for (const [field, valid, what] of fields)
    if (!valid) throw new ConfigError(`Option \`retry.${field}\` must be ${what}, got ${String(retry[field])}.`, { field: `retry.${field}` });
  return retry;
}

/** What the run is given, checked. */
export interface CoordinatorSetup<TRecord> {
  readonly name: string;
  readonly pollInterval: number;
  readonly retry: ResolvedPageRetry;
  readonly resolved: ResolvedCollectOptions;
  readonly details: CollectOptions<TRecord>['details'];
  readonly keyOf: (record: TRecord) => string;
  readonly urlPolicy: UrlPolicy;
  readonly seeds: readonly SeedPage[];
  readonly plannerLLM: LLMClient;
  readonly connection: ReturnType<typeof redisOptions>;
}

/** Checks the options; throws a ConfigError naming the field. */
export function setUp<TRecord>(options: CollectionCoordinatorOptions<TRecord>): CoordinatorSetup<TRecord> {
  const { connection, name, pollInterval = 200, retry, ...collectOptions } = options;
  if (!Number.isInteger(pollInterval) || pollInterval < 1)
    throw new ConfigError(`Option \`pollInterval\` must be a positive integer, got ${String(pollInterval)}.`, { field: 'pollInterval' });
  const checkedRetry = checkRetry(retry);
  // The Collector's own check of the shared options; the placeholder browser is never used.
  const resolved = resolveCollectOptions({ ...collectOptions, browsers: { create: () => Promise.reject(new Error('unused')), size: 1 } });
  if (collectOptions.resume !== undefined) {
    throw new ConfigError('Option `resume` is the Collector\u2019s: a BullMQ collection resumes when a coordinator starts again with its `name`.', {
      field: 'resume',
    });
  }
  const urlPolicy = new UrlPolicy({ allow: resolved.urlPolicy.allow, deny: resolved.urlPolicy.deny });
  return {
    name: checkName(name),
    pollInterval,
    retry: checkedRetry,
    resolved,
    details: options.details,
    keyOf: options.key ?? ((record: TRecord) => stableJson(record)),
    urlPolicy,
    seeds: seedPages(resolved, urlPolicy),
    plannerLLM: resolved.plannerLLM ?? resolved.llm,
    connection: redisOptions(connection),
  };
}
