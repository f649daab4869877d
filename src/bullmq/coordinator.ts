// The coordinator of a BullMQ collection: enqueues pages as jobs, commits each page's result once
// (Redis, atomically), runs the progress checks and the failure budget. It reads no page itself.

import { Queue, type ConnectionOptions, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { CollectionEndReason, CollectionSummary, CollectorEventBase, CollectorEventMap, CollectorEventName, CollectorListener } from '../collect/events';
import { normalizePageUrl } from '../collect/frontier';
import { resolvePageRetry, type PageRetryOptions, type ResolvedPageRetry } from '../collect/page-retry';
import { resolveCollectOptions, type CollectOptions } from '../collect/options';
import { stableJson, type FoundPage } from '../collect/page-step';
import { checkProgress } from '../collect/progress-check';
import { createPushStream, type PushStream } from '../collect/record-stream';
import { ownPageOf } from '../collect/own-page';
import type { CollectedRecord, CollectionCheckRecord, CollectionCounters, QueuedPage, RejectedRecord } from '../collect/store';
import type { ErrorInfo } from '../events';
import { ConfigError, isFatalError, PlannavError } from '../errors';
import { toErrorInfo } from '../history/error-info';
import type { LLMClient } from '../llm/types';
import { addUsage, emptyUsage, priceUsage, type TokenUsage } from '../llm/usage';
import { UrlPolicy } from '../security/url-policy';
import { sleep } from '../util/abort';
import { describeThrown } from '../util/describe-thrown';
import { EventHub } from '../util/event-hub';
import { isConnectionError, watchRedis } from './redis-health';
import {
  checkName,
  jobKey,
  keysOf,
  pageJobId,
  queueName,
  queuePrefix,
  redisOptions,
  type CommittedCheck,
  type CommittedOutcome,
  type CommittedPageOutcome,
  type PageJobData,
  type PageJobResult,
  type RedisConnection,
  type RunSettings,
} from './protocol';

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

/**
 * A BullMQ collection's coordinator: {@link createCollectionCoordinator}.
 * @public
 */
export interface CollectionCoordinator<TRecord = unknown> {
  /** Runs the collection to its end (once: later calls return the same promise); never rejects for what happens during the run. */
  run(): Promise<CollectionSummary>;
  /** The records as they are committed, from now until the run ends; starts the run. */
  records(): AsyncIterableIterator<CollectedRecord<TRecord>>;
  /** Listens to an event (the Collector's events); returns this. */
  on<K extends CollectorEventName>(name: K, listener: CollectorListener<K, TRecord>): this;
  /** Stops listening. */
  off<K extends CollectorEventName>(name: K, listener: CollectorListener<K, TRecord>): this;
  /** Every page outcome committed so far, in commit order, from Redis: done, failed (its attempts, its last error) or abandoned. */
  pages(): Promise<CommittedPageOutcome[]>;
  /** Pauses the run: workers take no new page (the BullMQ queue is paused); pages in flight end and are committed. */
  pause(): void;
  /** Resumes a paused run. */
  resume(): void;
  /** Cancels the run: queued pages are taken off the queue, it ends `cancelled`; a coordinator started again with the `name` reads them. */
  cancel(reason?: string): void;
  /** Cancels a running collection, waits for its end, closes the connections. Idempotent. The collection's keys stay in Redis, to resume it. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Commits one page's result, all or nothing: nothing if the page (its job id) was committed before;
 * else each record whose key is new (SET NX) is appended to the records stream, each reject to the
 * rejects stream, each record's own page not enqueued before to the enqueued hash (one enqueued before
 * is a duplicate: the record was listed twice), and the page outcome to the pages stream, with its
 * records and duplicates counted here. KEYS: committed set, records stream, pages stream, rejects
 * stream, enqueued hash, then one key per record. ARGV: job id, outcome JSON (without `records` and
 * `duplicates`), most records to keep (-1: no limit), most own pages to enqueue (-1: no limit), the
 * numbers of records, rejects and own pages, then each record's JSON, each reject's JSON, and each
 * own page's job id and queued page JSON.
 * Returns the duplicates, 1 if the own-page limit left some out (else 0), the number of records kept,
 * their 0-based indices, then the 0-based indices of the own pages enqueued; or -1 for a page
 * committed before. Past `maxRecords` the page's other records are neither kept nor duplicates, as in the Collector.
 */
const commitScript = `
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return -1 end
local limit = tonumber(ARGV[3])
local pageLimit = tonumber(ARGV[4])
local recordCount = tonumber(ARGV[5])
local rejectCount = tonumber(ARGV[6])
local pageCount = tonumber(ARGV[7])
local kept = {}
local duplicates = 0
for i = 1, recordCount do
  if limit >= 0 and #kept >= limit then break end
  if redis.call('SET', KEYS[5 + i], ARGV[1], 'NX') then
    redis.call('XADD', KEYS[2], '*', 'record', ARGV[7 + i])
    kept[#kept + 1] = i - 1
  else
    duplicates = duplicates + 1
  end
end
for i = 1, rejectCount do
  redis.call('XADD', KEYS[4], '*', 'reject', ARGV[7 + recordCount + i])
end
local queued = {}
local skipped = 0
local base = 7 + recordCount + rejectCount
for i = 1, pageCount do
  local id = ARGV[base + 2 * i - 1]
  if redis.call('HEXISTS', KEYS[5], id) == 1 then
    duplicates = duplicates + 1
  elseif pageLimit >= 0 and #queued >= pageLimit then
    skipped = 1
  else
    redis.call('HSET', KEYS[5], id, ARGV[base + 2 * i])
    queued[#queued + 1] = i - 1
  end
end
local outcome = cjson.decode(ARGV[2])
outcome['records'] = #kept
outcome['duplicates'] = duplicates
redis.call('XADD', KEYS[3], '*', 'page', cjson.encode(outcome), 'job', ARGV[1])
local reply = {duplicates, skipped, #kept}
for _, index in ipairs(kept) do reply[#reply + 1] = index end
for _, index in ipairs(queued) do reply[#reply + 1] = index end
return reply
`;

/**
 * Gives up one queued page of an abandoned batch, once. KEYS: dropped set, pages stream. ARGV: job
 * id, the `abandoned` outcome JSON. Returns 1, or 0 for a page given up before.
 */
const abandonScript = `
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('XADD', KEYS[2], '*', 'page', ARGV[2], 'job', ARGV[1])
return 1
`;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
const recentFailureCount = 5;
const sampleSize = 5;

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

/** The error of a run whose keys Redis no longer holds. */
function lostStateError(name: string, what: string): PlannavError {
  return new PlannavError(
    'CONFIG_ERROR',
    `Redis lost the collection "${name}"'s state (${what}): it restarted without persistence, was flushed, or evicted keys. ` +
      'The pages in the queue and the records committed there are gone, so the run cannot go on. Give Redis persistence ' +
      '(AOF with `appendfsync everysec`) and `maxmemory-policy noeviction`, then start again with a new `name`, or with the same ' +
      'one to resume from what a restored Redis holds.',
    { retryable: false },
  );
}

/** How often, at most, the coordinator checks that Redis still holds the run and its pages' jobs, while nothing finishes. */
const stateCheckInterval = 1000;

/** Page and check entries of the streams and list, parsed. */
const parseEntries = <T>(entries: [string, string[]][]): T[] => entries.map(([, fields]) => JSON.parse(fields[1] as string) as T);

/**
 * Creates the coordinator of a collection run as BullMQ jobs on Redis: one job per page (its id from
 * the normalised URL, so no page is enqueued twice), read by any number of
 * {@link createCollectionWorker | workers}. It commits each finished page once, atomically, in Redis
 * (records de-duplicated by key with SET NX, and by the page's job id), runs the progress check every
 * `checkEvery` finished pages (workers take no new page meanwhile), and abandons a batch after
 * `maxFailures` failed pages in a row.
 *
 * Resuming: everything the run needs lives in Redis under its `name`, so a coordinator started again
 * with that name (after a crash, `cancel()`, `close()` or a timeout) continues it: the counters, usage
 * and batches are summed again from the committed outcomes, the instruction is the one in force, the
 * pages enqueued but not committed are read (those whose job was lost are enqueued again, those of an
 * abandoned batch dropped), pages committed are never read again and no record is written twice.
 * A run that ended `stopped` or `max-records` stays so; to collect afresh, give a new `name`.
 * @example
 * ```ts
 * const coordinator = createCollectionCoordinator({
 *   connection: 'redis://10.0.0.5:6379', name: 'jobs', llm,
 *   start: 'https://jobs.example/list', instruction: 'every job posting', schema: Job, key: (job) => job.link,
 * });
 * for await (const { data } of coordinator.records()) console.log(data.title);
 * console.log(await coordinator.run());
 * ```
 * @public
 */
export function createCollectionCoordinator<TRecord>(options: CollectionCoordinatorOptions<TRecord>): CollectionCoordinator<TRecord> {
  const { connection: connectionOption, name: nameOption, pollInterval: pollOption, retry: retryOption, ...collectOptions } = options;
  const name = checkName(nameOption);
  const pollInterval = pollOption ?? 200;
  if (!Number.isInteger(pollInterval) || pollInterval < 1)
    throw new ConfigError(`Option \`pollInterval\` must be a positive integer, got ${String(pollInterval)}.`, { field: 'pollInterval' });
  const retry = checkRetry(retryOption);
  // The Collector's own check of the shared options; the placeholder browser is never used.
  const resolved = resolveCollectOptions({
    ...collectOptions,
    browsers: { create: () => Promise.reject(new Error('unused')), size: 1 },
  });
  if (collectOptions.resume !== undefined) {
    throw new ConfigError('Option `resume` is the Collector\u2019s: a BullMQ collection resumes when a coordinator starts again with its `name`.', {
      field: 'resume',
    });
  }
  const keyOf = options.key ?? ((record: TRecord) => stableJson(record));
  const urlPolicy = new UrlPolicy({ allow: resolved.urlPolicy.allow, deny: resolved.urlPolicy.deny });
  const starts = resolved.start === undefined ? [] : typeof resolved.start === 'string' ? [resolved.start] : resolved.start;
  const seeds: QueuedPage[] = [
    ...starts.map((url) => ({ url: normalizePageUrl(url), batch: `start:${normalizePageUrl(url)}`, depth: 0 })),
    ...(resolved.urls ?? []).map((url) => ({ url: normalizePageUrl(url), batch: `urls:${new URL(url).host}`, depth: 0 })),
  ];
  for (const seed of seeds) {
    const decision = urlPolicy.check(seed.url);
    if (!decision.allowed)
      throw new ConfigError(`Option \`start\` or \`urls\` holds ${seed.url}, which the URL policy denies: ${decision.reason}.`, { field: 'start' });
  }
  const plannerLLM: LLMClient = resolved.plannerLLM ?? resolved.llm;
  const keys = keysOf(name);
  const connection = redisOptions(connectionOption);
  // A resumed run keeps the id it started with (read from Redis at its start).
  let collectionId: string = globalThis.crypto.randomUUID();

  const hub = new EventHub(() => undefined);
  const streams = new Set<PushStream<CollectedRecord<TRecord>>>();
  const emit = <K extends CollectorEventName>(event: K, payload: Omit<CollectorEventMap<TRecord>[K], keyof CollectorEventBase>): void =>
    hub.emit(event, { collectionId, timestamp: Date.now(), ...payload });

  const counters: Mutable<CollectionCounters> & { rejected: number; detailPages: number } = {
    pagesDone: 0,
    pagesFailed: 0,
    pagesEmpty: 0,
    records: 0,
    duplicates: 0,
    invalid: 0,
    pagesAbandoned: 0,
    rejected: 0,
    detailPages: 0,
  };
  // Listing pages finished: the progress check comes every `checkEvery` of them (records' own pages do not count, as in the Collector).
  let listingPagesFinished = 0;
  const batches = new Map<string, { failures: number; abandoned: boolean }>();
  const outstanding = new Map<string, QueuedPage>();
  const checks: CollectionCheckRecord[] = [];
  const recentFailures: { url: string; error: string }[] = [];
  const sample: unknown[] = [];
  let instruction = resolved.instruction;
  let usage: TokenUsage = emptyUsage;
  let enqueuedTotal = 0;
  let pagesSkipped = false;
  let stopping: { reason: 'stopped' | 'max-records'; message: string | undefined } | undefined;
  let failure: PlannavError | undefined;
  let cancelled: string | undefined;
  let running: Promise<CollectionSummary> | undefined;
  let active = false;
  let wake: (() => void) | undefined;
  // The queue is paused while a check runs or while the caller paused the run: each ends only its own.
  let pausedByCaller = false;
  let checking = false;
  let queueState: Promise<void> = Promise.resolve();

  const redis = connection.url === undefined ? new Redis(connection) : new Redis(connection.url, connection);
  const queue = new Queue(queueName(name), { connection: connection as ConnectionOptions, prefix: queuePrefix });
  const runController = new AbortController();
  // When the coordinator last made sure Redis still holds the run; 0: at the next idle look.
  let stateCheckedAt = Date.now();
  // An outage is a warning when it starts and when it ends, and the state is checked once Redis is back.
  const health = watchRedis(
    redis,
    (code, message) => emit('collect-warning', { code, message }),
    () => {
      stateCheckedAt = 0;
      wake?.();
    },
  );
  queue.on('error', (error) => {
    if (isConnectionError(error)) health.down(error);
    else emit('collect-warning', { code: 'BULLMQ_ERROR', message: error.message });
  });

  /** Pauses or resumes the queue as the run needs it now; one change at a time, in call order. */
  const syncQueue = (): Promise<void> => {
    const change = queueState.then(() => (pausedByCaller || checking ? queue.pause() : queue.resume()));
    queueState = change.catch(() => undefined);
    return change;
  };

  const batchOf = (batch: string): { failures: number; abandoned: boolean } => {
    let found = batches.get(batch);
    if (!found) batches.set(batch, (found = { failures: 0, abandoned: false }));
    return found;
  };

  const settings = (): RunSettings => ({
    instruction,
    interactionSteps: resolved.interactionSteps,
    maxLoadMore: resolved.maxLoadMore,
    pageTimeout: resolved.pageTimeout,
    maxChunkChars: resolved.maxChunkChars,
    modelRetry: resolved.modelRetry,
    urlPolicy: { allow: resolved.urlPolicy.allow, deny: resolved.urlPolicy.deny },
    retry,
    perHost: { maxConcurrent: resolved.perHost?.maxConcurrent, delayMs: resolved.perHost?.delayMs ?? 0 },
    details: Boolean(resolved.details),
  });

  const addJob = (jobId: string, page: QueuedPage): Promise<unknown> => {
    outstanding.set(jobId, page);
    // The whole queued page: fields this version does not know reach the workers' page step.
    return queue.add('page', page, { jobId, attempts: 1 });
  };

  /** Adds a page unless its URL was ever enqueued in this collection (the Redis hash, and the job id, say so). */
  const enqueue = async (page: QueuedPage): Promise<boolean> => {
    if (resolved.maxPages !== undefined && enqueuedTotal >= resolved.maxPages) {
      if (!pagesSkipped) await redis.hset(keys.run, 'pagesSkipped', '1');
      pagesSkipped = true;
      return false;
    }
    const jobId = pageJobId(page.url);
    if ((await redis.hsetnx(keys.enqueued, jobId, JSON.stringify(page))) === 0) return false;
    enqueuedTotal++;
    await addJob(jobId, page);
    return true;
  };

  /** Reports one model call as a `collect-model-call`; returns its usage, priced. */
  const reportModelCall = (
    role: 'planner' | 'navigator' | 'extraction',
    call: { provider: string; model: string; usage: TokenUsage; durationMs: number; error: ErrorInfo | undefined },
  ): TokenUsage => {
    const priced = priceUsage(call.usage, resolved.prices?.[call.model]);
    emit('collect-model-call', { role, provider: call.provider, model: call.model, usage: priced, durationMs: call.durationMs, error: call.error });
    return priced;
  };

  /**
   * Removes the waiting pages of a batch (or of every batch); returns how many. A page a worker took
   * meanwhile ends normally. Pages of an abandoned batch are marked dropped, so a resumed run does
   * not read them; other pages (a stop, a cancel) are not, and a resumed run reads them.
   */
  const dropQueued = async (batch: string | undefined): Promise<number> => {
    let dropped = 0;
    for (const job of await queue.getJobs(['waiting', 'prioritized', 'delayed'])) {
      if (!job?.id || (batch !== undefined && (job.data as PageJobData).batch !== batch)) continue;
      try {
        await job.remove();
      } catch {
        continue;
      }
      outstanding.delete(job.id);
      if (batch === undefined || (await abandon(job.id, job.data as PageJobData))) dropped++;
    }
    return dropped;
  };

  /**
   * Gives up a page of an abandoned batch, once: it is marked dropped and its outcome `abandoned`
   * committed with it (a resumed run counts it from there). Returns whether it was given up now.
   */
  const abandon = async (jobId: string, page: QueuedPage): Promise<boolean> => {
    const outcome: CommittedOutcome = {
      url: page.url,
      batch: page.batch,
      status: 'abandoned',
      records: 0,
      attempts: 0,
      duplicates: 0,
      invalid: 0,
      usage: emptyUsage,
    };
    const fresh = (await redis.eval(abandonScript, 2, keys.dropped, keys.pages, jobId, JSON.stringify(outcome))) === 1;
    if (fresh) apply(outcome);
    return fresh;
  };

  /**
   * Adds one committed outcome to the run's state: at its commit, and for each earlier one when a
   * coordinator resumes, so both count alike. Returns whether it gave up its batch.
   */
  const apply = (outcome: CommittedOutcome): boolean => {
    usage = addUsage(usage, outcome.usage);
    const batch = batchOf(outcome.batch);
    if (outcome.status === 'abandoned') {
      counters.pagesAbandoned++;
      return false;
    }
    if (outcome.kind !== 'detail') listingPagesFinished++;
    counters.invalid += outcome.invalid;
    counters.rejected += outcome.rejected ?? 0;
    if (outcome.status === 'done') {
      batch.failures = 0;
      counters.pagesDone++;
      if (outcome.kind === 'detail') counters.detailPages++;
      if (outcome.records === 0) counters.pagesEmpty++;
      counters.records += outcome.records;
      counters.duplicates += outcome.duplicates;
      if (resolved.maxRecords !== undefined && counters.records >= resolved.maxRecords) stopping ??= { reason: 'max-records', message: undefined };
      return false;
    }
    batch.failures++;
    counters.pagesFailed++;
    recentFailures.push({ url: outcome.url, error: outcome.error ?? '' });
    if (recentFailures.length > recentFailureCount) recentFailures.shift();
    // The batch's source looks broken: its queued pages are given up, other batches go on.
    if (batch.failures < resolved.maxFailures || batch.abandoned) return false;
    batch.abandoned = true;
    return true;
  };

  const keepSample = (data: unknown): void => {
    sample.push(data);
    if (sample.length > sampleSize) sample.shift();
  };

  /**
   * The address of a record's own page: `details.url`'s answer (a throw reads as none), else the
   * record's field that links to a page of the site, as the Collector finds it.
   */
  const ownPage = (record: unknown, pageUrl: string, rejected: readonly { readonly data: unknown }[]): string | undefined => {
    const { details } = options;
    if (typeof details === 'object' && details.url) {
      try {
        return details.url(record as Partial<TRecord>);
      } catch (error) {
        emit('collect-warning', { code: 'DETAILS_URL_FAILED', message: `details.url threw: ${describeThrown(error)}` });
        return undefined;
      }
    }
    return ownPageOf(record, pageUrl, rejected);
  };

  /**
   * What a page's result rejects, as the Collector does: of a listing page, each record the schema
   * rejected, unless `details` finds its own page (of the same site, allowed by the URL policy), which
   * is then returned to be enqueued; of a record's own page, the record it could not complete, or, when
   * the page failed, the record as its listing gave it, with why.
   */
  const rejectsOf = (page: QueuedPage, result: PageJobResult<TRecord>): { rejects: RejectedRecord[]; ownPages: QueuedPage[] } => {
    const rejectedAt = new Date().toISOString();
    const reject = (data: unknown, reason: string, source: string, detail?: string): RejectedRecord =>
      detail === undefined ? { data, reason, source, rejectedAt } : { data, reason, source, detail, rejectedAt };
    if (page.kind === 'detail') {
      const source = page.listedOn ?? page.url;
      if (result.status === 'failed')
        return {
          rejects: page.partial
            ? [reject(page.partial, `its own page failed after ${result.attempts} attempt(s): ${result.error.message}`, source, page.url)]
            : [],
          ownPages: [],
        };
      return { rejects: (result.rejected ?? []).map((item) => reject(item.data, item.reason, source, page.url)), ownPages: [] };
    }
    const rejects: RejectedRecord[] = [];
    const ownPages: QueuedPage[] = [];
    if (result.status === 'failed') return { rejects, ownPages };
    const rejected = result.rejected ?? [];
    for (const item of rejected) {
      const own = resolved.details ? ownPage(item.data, page.url, rejected) : undefined;
      if (own === undefined || !URL.canParse(own, page.url)) {
        rejects.push(reject(item.data, item.reason, page.url));
        continue;
      }
      const url = normalizePageUrl(new URL(own, page.url).href);
      // What a worker sends is checked here, as a found page is: another site's page, or one the policy denies, is never queued.
      const decision =
        new URL(url).host === new URL(page.url).host ? urlPolicy.check(url) : { allowed: false, reason: 'it is on another site than its listing' };
      if (!decision.allowed) {
        rejects.push(reject(item.data, `${item.reason}; its own page ${url} may not be loaded: ${decision.reason}`, page.url));
        continue;
      }
      const partial = typeof item.data === 'object' && item.data !== null ? (item.data as Record<string, unknown>) : {};
      ownPages.push({ url, batch: `details:${new URL(url).host}`, depth: page.depth + 1, kind: 'detail', partial, listedOn: page.url });
    }
    return { rejects, ownPages };
  };

  /**
   * Commits a finished page; returns false if it was committed before (by a coordinator that died
   * before removing its job). Its next pages are enqueued either way: that coordinator may have died
   * before it did.
   */
  const commit = async (job: Job<PageJobData, PageJobResult<TRecord>>, result: PageJobResult<TRecord>): Promise<boolean> => {
    const page = job.data;
    const jobId = job.id as string;
    const detail = page.kind === 'detail';
    const pageUsage = addUsage(emptyUsage, ...result.modelCalls.map((call) => priceUsage(call.usage, resolved.prices?.[call.model])));
    const collectedAt = new Date().toISOString();
    // A record completed from its own page is the listing's: its source is the page it was listed on.
    const source = detail ? (page.listedOn ?? page.url) : page.url;
    const candidates = result.status === 'done' ? result.records.map((data) => ({ data, source, collectedAt, key: keyOf(data) })) : [];
    const limit = resolved.maxRecords === undefined ? -1 : Math.max(0, resolved.maxRecords - counters.records);
    const { rejects, ownPages } = rejectsOf(page, result);
    const attempts = result.attempts;
    // A worker of an older version sends no `rejected`: its `invalid` counts them.
    const invalid = result.status === 'done' && result.rejected === undefined ? result.invalid : rejects.length;
    const kind = detail ? ('detail' as const) : undefined;
    const outcome =
      result.status === 'done'
        ? { url: page.url, batch: page.batch, status: 'done' as const, attempts, invalid, rejected: rejects.length, kind, usage: pageUsage }
        : {
            url: page.url,
            batch: page.batch,
            status: 'failed' as const,
            attempts,
            error: result.error.message,
            invalid,
            rejected: rejects.length,
            kind,
            usage: pageUsage,
          };
    const pageLimit = resolved.maxPages === undefined ? -1 : Math.max(0, resolved.maxPages - enqueuedTotal);
    const reply = (await redis.eval(
      commitScript,
      5 + candidates.length,
      keys.committed,
      keys.records,
      keys.pages,
      keys.rejects,
      keys.enqueued,
      ...candidates.map((record) => keys.record(record.key)),
      jobId,
      JSON.stringify(outcome),
      String(limit),
      String(pageLimit),
      String(candidates.length),
      String(rejects.length),
      String(ownPages.length),
      ...candidates.map((record) => JSON.stringify(record)),
      ...rejects.map((reject) => JSON.stringify(reject)),
      ...ownPages.flatMap((own) => [pageJobId(own.url), JSON.stringify(own)]),
    )) as number | number[];
    outstanding.delete(jobId);
    const fresh = reply !== -1;
    const [duplicates = 0, skipped = 0, keptCount = 0, ...indices] = fresh ? (reply as number[]) : [];
    const kept = indices.slice(0, keptCount).map((index) => candidates[index] as CollectedRecord<TRecord>);
    // The records' own pages the commit enqueued; a coordinator that dies before adding their jobs leaves them to the next one (see restore).
    const queuedOwn = indices.slice(keptCount).map((index) => ownPages[index] as QueuedPage);
    enqueuedTotal += queuedOwn.length;
    if (skipped === 1 && !pagesSkipped) {
      await redis.hset(keys.run, 'pagesSkipped', '1');
      pagesSkipped = true;
    }
    for (const own of queuedOwn) {
      if (batchOf(own.batch).abandoned) await abandon(pageJobId(own.url), own);
      else if (!stopping && !cancelled) await addJob(pageJobId(own.url), own);
    }
    if (fresh) for (const call of result.modelCalls) reportModelCall(call.role, call);
    const abandoned = fresh && apply({ ...outcome, records: kept.length, duplicates });
    if (result.status === 'failed') {
      if (!fresh) return false;
      const batch = batchOf(page.batch);
      const dropped = abandoned ? await dropQueued(page.batch) : 0;
      for (const reject of rejects) emit('collect-reject', { reject });
      emit('collect-failure', { url: page.url, batch: page.batch, error: result.error, consecutiveFailures: batch.failures, abandoned, dropped });
      return true;
    }
    let enqueued = queuedOwn.length;
    if (!batchOf(page.batch).abandoned && !stopping && !cancelled)
      for (const found of result.found ?? result.links.map((url): FoundPage => ({ url }))) {
        // What a worker sends is checked again: a page of another site, or one the policy denies, is never queued.
        if (!URL.canParse(found.url) || new URL(found.url).host !== new URL(page.url).host || !urlPolicy.check(found.url).allowed) continue;
        // A sub-listing (a category) is a batch of its own; a page reached by a script pager carries the way there.
        const batch = found.listing ? `listing:${found.url}` : page.batch;
        if (await enqueue({ url: found.url, batch, depth: page.depth + 1, way: found.way })) enqueued++;
      }
    if (!fresh) return false;
    for (const record of kept) {
      keepSample(record.data);
      emit('collect-record', { record });
      for (const stream of streams) stream.push(record);
    }
    for (const reject of rejects) emit('collect-reject', { reject });
    emit('collect-page', {
      url: page.url,
      batch: page.batch,
      records: kept.length,
      duplicates,
      invalid,
      enqueued,
      loadMore: result.loadMore,
      interaction: result.interaction,
      durationMs: result.durationMs,
    });
    return true;
  };

  /** The progress check; workers take no new page while it runs. Never rejects: a failed check is a warning (a fatal model error ends the run). */
  const runCheck = async (finished: number): Promise<void> => {
    checking = true;
    await syncQueue();
    let checkUsage = emptyUsage;
    try {
      const decision = await checkProgress({
        client: plannerLLM,
        summary: { instruction, counters, pagesFinished: finished, sample, recentFailures, queued: [...outstanding.values()] },
        signal: runController.signal,
        retry: resolved.modelRetry,
        observer: {
          onCallEnd: (_attempt, outcome, client) => {
            const priced = reportModelCall('planner', {
              provider: client.provider,
              model: client.model,
              usage: outcome.usage,
              durationMs: outcome.durationMs,
              error: outcome.error ? toErrorInfo(outcome.error) : undefined,
            });
            usage = addUsage(usage, priced);
            checkUsage = addUsage(checkUsage, priced);
          },
        },
      });
      const record: CollectionCheckRecord = {
        pages: finished,
        decision: decision.decision,
        reason: decision.reason,
        instruction: decision.instruction,
        timestamp: Date.now(),
      };
      checks.push(record);
      if (record.decision === 'adjust' && record.instruction) instruction = record.instruction;
      if (record.decision === 'stop') stopping ??= { reason: 'stopped', message: record.reason };
      // The check and the instruction it leaves in force, together: a resumed run sees both or neither.
      const stored: CommittedCheck = { ...record, usage: checkUsage };
      await redis.multi().set(keys.settings, JSON.stringify(settings())).rpush(keys.checks, JSON.stringify(stored)).exec();
      // Before the queue resumes, or a worker would start a waiting page.
      if (stopping) await dropQueued(undefined);
      emit('collect-check', record);
    } catch (error) {
      if (isFatalError(error))
        failure ??= PlannavError.isInstance(error) ? error : new PlannavError('UNEXPECTED_ERROR', describeThrown(error), { cause: error });
      else emit('collect-warning', { code: 'CHECK_FAILED', message: `The progress check failed; the collection goes on: ${describeThrown(error)}` });
    } finally {
      checking = false;
      await syncQueue();
    }
  };

  /** Commits every finished page found in Redis; returns how many. */
  const collectFinished = async (): Promise<number> => {
    let handled = 0;
    // Oldest first: the order pages finished in is the order of their records, and of a batch's failures in a row.
    const finishedJobs = (await queue.getJobs(['completed', 'failed'], 0, 99, true)).sort(
      (first, second) => (first?.finishedOn ?? 0) - (second?.finishedOn ?? 0),
    );
    for (const job of finishedJobs) {
      if (!job?.id) continue;
      const result: PageJobResult<TRecord> =
        job.failedReason && !job.returnvalue
          ? {
              status: 'failed',
              error: { name: 'Error', code: 'WORKER_FAILED', message: job.failedReason, retryable: false },
              modelCalls: (job.data as PageJobData).earlierModelCalls ?? [],
              durationMs: 0,
              attempts: ((job.data as PageJobData).failedAttempts ?? 0) + 1,
            }
          : (job.returnvalue as PageJobResult<TRecord>);
      const fresh = await commit(job as Job<PageJobData, PageJobResult<TRecord>>, result);
      await job.remove().catch(() => undefined);
      handled++;
      const finished = counters.pagesDone + counters.pagesFailed;
      const listing = (job.data as PageJobData).kind !== 'detail';
      if (fresh && listing && listingPagesFinished % resolved.checkEvery === 0 && outstanding.size > 0 && !stopping && !failure) await runCheck(finished);
    }
    return handled;
  };

  /**
   * Makes sure Redis still holds the run: without its run key (Redis restarted empty, was flushed)
   * the run fails with a {@link lostStateError}; a page whose job vanished while the run survives
   * (a queue removed, an older snapshot restored) is enqueued again, so the run resumes from what survives.
   */
  const checkState = async (): Promise<void> => {
    stateCheckedAt = Date.now();
    if ((await redis.hexists(keys.run, 'collectionId')) === 0) {
      failure ??= lostStateError(name, 'its run key is gone');
      return;
    }
    const waiting = [...outstanding.entries()];
    for (let start = 0; start < waiting.length; start += 500) {
      const chunk = waiting.slice(start, start + 500);
      const pipeline = redis.pipeline();
      for (const [jobId] of chunk) pipeline.exists(jobKey(name, jobId));
      const replies = (await pipeline.exec()) ?? [];
      for (const [index, [jobId, page]] of chunk.entries()) {
        if (replies[index]?.[1] !== 0 || !outstanding.has(jobId)) continue;
        if ((await redis.sismember(keys.committed, jobId)) === 1) {
          outstanding.delete(jobId);
          continue;
        }
        emit('collect-warning', { code: 'PAGE_JOB_LOST', message: `Redis no longer holds the job of ${page.url}; it is enqueued again.` });
        await redis.hset(keys.enqueued, jobId, JSON.stringify(page));
        await addJob(jobId, page);
      }
    }
  };

  /**
   * Starts the run, or takes it up from Redis when a coordinator of this `name` ran before: the state
   * is summed again from the committed outcomes and checks, and every page enqueued but not committed
   * is outstanding again. Returns whether the run was resumed.
   */
  const restore = async (): Promise<boolean> => {
    const fresh = (await redis.hsetnx(keys.run, 'collectionId', collectionId)) === 1;
    if (!fresh) {
      const stored = await redis.get(keys.settings);
      if (stored !== null) instruction = (JSON.parse(stored) as RunSettings).instruction;
    }
    // Before any page is enqueued again: a worker reads the settings as it takes a page.
    await redis.set(keys.settings, JSON.stringify(settings()));
    if (fresh) return false;
    collectionId = (await redis.hget(keys.run, 'collectionId')) ?? collectionId;
    pagesSkipped = (await redis.hget(keys.run, 'pagesSkipped')) === '1';
    for (const outcome of parseEntries<CommittedOutcome>(await redis.xrange(keys.pages, '-', '+'))) apply(outcome);
    for (const check of (await redis.lrange(keys.checks, 0, -1)).map((entry) => JSON.parse(entry) as CommittedCheck)) {
      const { usage: checkUsage, ...record } = check;
      usage = addUsage(usage, checkUsage);
      checks.push(record);
      if (record.decision === 'stop') stopping ??= { reason: 'stopped', message: record.reason };
    }
    for (const record of parseEntries<CollectedRecord<TRecord>>(await redis.xrevrange(keys.records, '+', '-', 'COUNT', sampleSize)).reverse())
      keepSample(record.data);
    const enqueued = await redis.hgetall(keys.enqueued);
    enqueuedTotal = Object.keys(enqueued).length;
    // Finished jobs the dead coordinator had not removed: committed or not, collectFinished takes them.
    for (const job of [...(await queue.getCompleted()), ...(await queue.getFailed())]) if (job?.id) outstanding.set(job.id, job.data as PageJobData);
    const committed = new Set(await redis.smembers(keys.committed));
    const dropped = new Set(await redis.smembers(keys.dropped));
    for (const [jobId, json] of Object.entries(enqueued)) {
      if (committed.has(jobId) || dropped.has(jobId) || outstanding.has(jobId)) continue;
      const page = JSON.parse(json) as QueuedPage;
      // The job is in the queue (waiting, in a worker's hands), or was never added or was removed before the
      // coordinator died: then it is added again, unless its batch was given up or the run stopped.
      if (await queue.getJob(jobId)) outstanding.set(jobId, page);
      else if (batchOf(page.batch).abandoned) await abandon(jobId, page);
      else if (!stopping) await addJob(jobId, page);
    }
    // A batch given up just before the crash may still have pages waiting.
    for (const [batch, state] of batches) if (state.abandoned) await dropQueued(batch);
    // The coordinator before may have paused the queue (a check, the caller): a resumed run starts unpaused.
    await syncQueue();
    return true;
  };

  const execute = async (): Promise<CollectionSummary> => {
    const startedAt = Date.now();
    active = true;
    const timer = resolved.timeout === undefined ? undefined : setTimeout(() => cancel('timed-out'), resolved.timeout);
    const onAbort = (): void => cancel('Cancelled by the caller\u2019s signal.');
    resolved.signal?.addEventListener('abort', onAbort, { once: true });
    let leftWhenCancelled: number | undefined;
    try {
      const resumed = await restore();
      for (const seed of seeds) {
        batchOf(seed.batch);
        await enqueue(seed);
      }
      emit('collect-start', { queued: outstanding.size, resumed });
      while (outstanding.size > 0 && !cancelled && !failure) {
        // Pages in flight when a check said stop still end and are committed, as in the Collector.
        if (stopping) await dropQueued(undefined);
        if ((await collectFinished()) > 0) continue;
        if (Date.now() - stateCheckedAt >= stateCheckInterval) {
          await checkState();
          if (failure) break;
        }
        await Promise.race([sleep(pollInterval), new Promise<void>((resolve) => (wake = resolve))]);
      }
      if (cancelled) {
        // The pages a cancelled run leaves (queued, or in a worker's hands) are read when it is resumed.
        leftWhenCancelled = outstanding.size;
        await dropQueued(undefined);
      }
    } catch (error) {
      if (!cancelled)
        failure ??= PlannavError.isInstance(error)
          ? error
          : new PlannavError('UNEXPECTED_ERROR', `The collection failed unexpectedly: ${describeThrown(error)}`, { cause: error });
    } finally {
      clearTimeout(timer);
      resolved.signal?.removeEventListener('abort', onAbort);
    }
    // A run that ended leaves its queue unpaused, for a coordinator that resumes it and for its workers.
    pausedByCaller = false;
    await syncQueue().catch(() => undefined);
    let reason: CollectionEndReason = 'done';
    let message: string | undefined;
    if (failure) [reason, message] = ['failed', failure.message];
    else if (cancelled) [reason, message] = [cancelled === 'timed-out' ? 'timed-out' : 'cancelled', cancelled];
    else if (stopping) [reason, message] = [stopping.reason, stopping.message];
    else if (pagesSkipped) reason = 'max-pages';
    const summary: CollectionSummary = {
      ...counters,
      reason,
      message,
      error: failure ? toErrorInfo(failure) : undefined,
      batchesAbandoned: [...batches.values()].filter((batch) => batch.abandoned).length,
      pagesQueued: leftWhenCancelled ?? outstanding.size,
      usage,
      durationMs: Date.now() - startedAt,
    };
    active = false;
    emit('collect-end', { summary });
    for (const stream of [...streams]) stream.end();
    return summary;
  };

  const run = (): Promise<CollectionSummary> => (running ??= execute());
  const pause = (): void => {
    if (!active || cancelled || pausedByCaller) return;
    pausedByCaller = true;
    emit('collect-pause', {});
    syncQueue().catch((error: unknown) =>
      emit('collect-warning', { code: 'PAUSE_FAILED', message: `The queue could not be paused: ${describeThrown(error)}` }),
    );
  };
  const resume = (): void => {
    if (!active || !pausedByCaller) return;
    pausedByCaller = false;
    emit('collect-resume', {});
    syncQueue().catch((error: unknown) =>
      emit('collect-warning', { code: 'RESUME_FAILED', message: `The queue could not be resumed: ${describeThrown(error)}` }),
    );
  };
  const cancel = (reason = 'Cancelled by the caller.'): void => {
    if (!active || cancelled) return;
    cancelled = reason;
    runController.abort(new Error(reason));
    emit('collect-cancel', { reason });
    wake?.();
  };
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      cancel('The coordinator was closed.');
      await running?.catch(() => undefined);
      for (const stream of [...streams]) stream.end();
      health.stop();
      await queue.close();
      await redis.quit().catch(() => redis.disconnect());
    })();
    return closing;
  };
  const coordinator: CollectionCoordinator<TRecord> = {
    run,
    records() {
      const stream = createPushStream<CollectedRecord<TRecord>>(() => streams.delete(stream));
      if (running && !active) stream.end();
      else streams.add(stream);
      void run();
      return stream.iterator;
    },
    on(event, listener) {
      hub.on(event, listener);
      return coordinator;
    },
    off(event, listener) {
      hub.off(event, listener);
      return coordinator;
    },
    async pages() {
      return parseEntries<CommittedOutcome>(await redis.xrange(keys.pages, '-', '+')).map(({ url, batch, status, records, error, attempts }) =>
        error === undefined ? { url, batch, status, records, attempts } : { url, batch, status, records, attempts, error },
      );
    },
    pause,
    resume,
    cancel,
    close,
    [Symbol.asyncDispose]: close,
  };
  return coordinator;
}
