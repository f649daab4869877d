// The coordinator of a BullMQ collection: enqueues pages as jobs, commits each page's result once
// (Redis, atomically), runs the progress checks and the failure budget. It reads no page itself.

import { Queue, type ConnectionOptions, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { CollectionEndReason, CollectionSummary, CollectorEventBase, CollectorEventMap, CollectorEventName, CollectorListener } from '../collect/events';
import { normalizePageUrl } from '../collect/frontier';
import { resolveCollectOptions, type CollectOptions } from '../collect/options';
import { stableJson } from '../collect/page-step';
import { checkProgress } from '../collect/progress-check';
import { createPushStream, type PushStream } from '../collect/record-stream';
import type { CollectedRecord, CollectionCheckRecord, CollectionCounters, PageOutcome, QueuedPage } from '../collect/store';
import type { ErrorInfo } from '../events';
import { ConfigError, isFatalError, PlannavError } from '../errors';
import { toErrorInfo } from '../history/error-info';
import type { LLMClient } from '../llm/types';
import { addUsage, emptyUsage, priceUsage, type TokenUsage } from '../llm/usage';
import { UrlPolicy } from '../security/url-policy';
import { sleep } from '../util/abort';
import { describeThrown } from '../util/describe-thrown';
import { EventHub } from '../util/event-hub';
import {
  checkName,
  keysOf,
  pageJobId,
  queueName,
  queuePrefix,
  redisOptions,
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
  'browser' | 'browsers' | 'concurrency' | 'perHost' | 'store' | 'secrets' | 'actions' | 'navigatorLLM' | 'extractionLLM'
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
  /** Every page outcome committed so far, in commit order, from Redis. */
  pages(): Promise<PageOutcome[]>;
  /** Cancels the run: queued pages are dropped, it ends `cancelled`. */
  cancel(reason?: string): void;
  /** Cancels a running collection, waits for its end, closes the connections. Idempotent. The collection's keys stay in Redis. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Commits one page's result, all or nothing: nothing if the page (its job id) was committed before;
 * else each record whose key is new (SET NX) is appended to the records stream, and the page outcome
 * to the pages stream. KEYS: committed set, records stream, pages stream, then one key per record.
 * ARGV: job id, outcome JSON (without `records`), most records to keep (-1: no limit), then each record's JSON.
 * Returns the 0-based indices of the records kept, or -1 for a page committed before.
 */
const commitScript = `
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return -1 end
local limit = tonumber(ARGV[3])
local kept = {}
for i = 4, #KEYS do
  if limit >= 0 and #kept >= limit then break end
  if redis.call('SET', KEYS[i], ARGV[1], 'NX') then
    redis.call('XADD', KEYS[2], '*', 'record', ARGV[i])
    kept[#kept + 1] = i - 4
  end
end
local outcome = cjson.decode(ARGV[2])
outcome['records'] = #kept
redis.call('XADD', KEYS[3], '*', 'page', cjson.encode(outcome), 'job', ARGV[1])
return kept
`;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
const recentFailureCount = 5;
const sampleSize = 5;

function newCollectionId(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * Creates the coordinator of a collection run as BullMQ jobs on Redis: one job per page (its id from
 * the normalised URL, so no page is enqueued twice), read by any number of
 * {@link createCollectionWorker | workers}. It commits each finished page once, atomically, in Redis
 * (records de-duplicated by key with SET NX, and by the page's job id), runs the progress check every
 * `checkEvery` finished pages (workers take no new page meanwhile), and abandons a batch after
 * `maxFailures` failed pages in a row.
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
  const { connection: connectionOption, name: nameOption, pollInterval: pollOption, ...collectOptions } = options;
  const name = checkName(nameOption);
  const pollInterval = pollOption ?? 200;
  if (!Number.isInteger(pollInterval) || pollInterval < 1)
    throw new ConfigError(`Option \`pollInterval\` must be a positive integer, got ${String(pollInterval)}.`, { field: 'pollInterval' });
  // The Collector's own check of the shared options; the placeholder browser is never used.
  const resolved = resolveCollectOptions({
    ...collectOptions,
    browsers: { create: () => Promise.reject(new Error('unused')), size: 1 },
  });
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
  const collectionId = newCollectionId();

  const hub = new EventHub(() => undefined);
  const streams = new Set<PushStream<CollectedRecord<TRecord>>>();
  const emit = <K extends CollectorEventName>(event: K, payload: Omit<CollectorEventMap<TRecord>[K], keyof CollectorEventBase>): void =>
    hub.emit(event, { collectionId, timestamp: Date.now(), ...payload });

  const counters: Mutable<CollectionCounters> = { pagesDone: 0, pagesFailed: 0, pagesEmpty: 0, records: 0, duplicates: 0, invalid: 0, pagesAbandoned: 0 };
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

  const redis = connection.url === undefined ? new Redis(connection) : new Redis(connection.url, connection);
  const queue = new Queue(queueName(name), { connection: connection as ConnectionOptions, prefix: queuePrefix });
  const runController = new AbortController();

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
  });

  /** Adds a page unless its URL was ever enqueued in this collection (the Redis set, and the job id, say so). */
  const enqueue = async (page: QueuedPage): Promise<boolean> => {
    if (resolved.maxPages !== undefined && enqueuedTotal >= resolved.maxPages) {
      pagesSkipped = true;
      return false;
    }
    if ((await redis.sadd(keys.seenUrls, page.url)) === 0) return false;
    enqueuedTotal++;
    outstanding.set(pageJobId(page.url), page);
    await queue.add('page', { url: page.url, batch: page.batch, depth: page.depth }, { jobId: pageJobId(page.url), attempts: 1 });
    return true;
  };

  const addModelUsage = (
    role: 'planner' | 'navigator' | 'extraction',
    call: { provider: string; model: string; usage: TokenUsage; durationMs: number; error: ErrorInfo | undefined },
  ): void => {
    const priced = priceUsage(call.usage, resolved.prices?.[call.model]);
    usage = addUsage(usage, priced);
    emit('collect-model-call', { role, provider: call.provider, model: call.model, usage: priced, durationMs: call.durationMs, error: call.error });
  };

  /** Drops the waiting pages of a batch (or of every batch); returns how many. A page a worker took meanwhile ends normally. */
  const dropQueued = async (batch: string | undefined): Promise<number> => {
    let dropped = 0;
    for (const job of await queue.getJobs(['waiting', 'prioritized', 'delayed'])) {
      if (!job?.id || (batch !== undefined && (job.data as PageJobData).batch !== batch)) continue;
      try {
        await job.remove();
      } catch {
        continue;
      }
      if (outstanding.delete(job.id)) dropped++;
    }
    return dropped;
  };

  const commit = async (job: Job<PageJobData, PageJobResult<TRecord>>, result: PageJobResult<TRecord>): Promise<void> => {
    const page = job.data;
    const jobId = job.id as string;
    const batch = batchOf(page.batch);
    if (result.status === 'done') {
      const collectedAt = new Date().toISOString();
      const candidates = result.records.map((data) => ({ data, source: page.url, collectedAt, key: keyOf(data) }));
      const limit = resolved.maxRecords === undefined ? -1 : Math.max(0, resolved.maxRecords - counters.records);
      const outcome = { url: page.url, batch: page.batch, status: 'done' };
      const reply = (await redis.eval(
        commitScript,
        3 + candidates.length,
        keys.committed,
        keys.records,
        keys.pages,
        ...candidates.map((record) => keys.record(record.key)),
        jobId,
        JSON.stringify(outcome),
        String(limit),
        ...candidates.map((record) => JSON.stringify(record)),
      )) as number | number[];
      outstanding.delete(jobId);
      if (reply === -1) return;
      for (const call of result.modelCalls) addModelUsage(call.role, call);
      const kept = (reply as number[]).map((index) => candidates[index] as CollectedRecord<TRecord>);
      batch.failures = 0;
      let enqueued = 0;
      if (!batch.abandoned && !stopping && !cancelled)
        for (const url of result.links) if (await enqueue({ url, batch: page.batch, depth: page.depth + 1 })) enqueued++;
      counters.pagesDone++;
      if (kept.length === 0) counters.pagesEmpty++;
      counters.records += kept.length;
      counters.duplicates += candidates.length - kept.length;
      counters.invalid += result.invalid;
      if (resolved.maxRecords !== undefined && counters.records >= resolved.maxRecords) stopping ??= { reason: 'max-records', message: undefined };
      for (const record of kept) {
        sample.push(record.data);
        if (sample.length > sampleSize) sample.shift();
        emit('collect-record', { record });
        for (const stream of streams) stream.push(record);
      }
      emit('collect-page', {
        url: page.url,
        batch: page.batch,
        records: kept.length,
        duplicates: candidates.length - kept.length,
        invalid: result.invalid,
        enqueued,
        loadMore: result.loadMore,
        interaction: result.interaction,
        durationMs: result.durationMs,
      });
      return;
    }
    const reply = (await redis.eval(
      commitScript,
      3,
      keys.committed,
      keys.records,
      keys.pages,
      jobId,
      JSON.stringify({ url: page.url, batch: page.batch, status: 'failed', error: result.error.message }),
      '0',
    )) as number | number[];
    outstanding.delete(jobId);
    if (reply === -1) return;
    for (const call of result.modelCalls) addModelUsage(call.role, call);
    batch.failures++;
    counters.pagesFailed++;
    let dropped = 0;
    let abandoned = false;
    if (batch.failures >= resolved.maxFailures && !batch.abandoned) {
      // The batch's source looks broken: its queued pages are given up, other batches go on.
      batch.abandoned = abandoned = true;
      dropped = await dropQueued(page.batch);
      counters.pagesAbandoned += dropped;
    }
    recentFailures.push({ url: page.url, error: result.error.message });
    if (recentFailures.length > recentFailureCount) recentFailures.shift();
    emit('collect-failure', { url: page.url, batch: page.batch, error: result.error, consecutiveFailures: batch.failures, abandoned, dropped });
  };

  /** The progress check; workers take no new page while it runs. Never rejects: a failed check is a warning (a fatal model error ends the run). */
  const runCheck = async (finished: number): Promise<void> => {
    await queue.pause();
    try {
      const decision = await checkProgress({
        client: plannerLLM,
        summary: { instruction, counters, pagesFinished: finished, sample, recentFailures, queued: [...outstanding.values()] },
        signal: runController.signal,
        retry: resolved.modelRetry,
        observer: {
          onCallEnd: (_attempt, outcome, client) =>
            addModelUsage('planner', {
              provider: client.provider,
              model: client.model,
              usage: outcome.usage,
              durationMs: outcome.durationMs,
              error: outcome.error ? toErrorInfo(outcome.error) : undefined,
            }),
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
      if (record.decision === 'adjust' && record.instruction) {
        instruction = record.instruction;
        await redis.set(keys.settings, JSON.stringify(settings()));
      }
      if (record.decision === 'stop') stopping ??= { reason: 'stopped', message: record.reason };
      emit('collect-check', record);
    } catch (error) {
      if (isFatalError(error))
        failure ??= PlannavError.isInstance(error) ? error : new PlannavError('UNEXPECTED_ERROR', describeThrown(error), { cause: error });
      else emit('collect-warning', { code: 'CHECK_FAILED', message: `The progress check failed; the collection goes on: ${describeThrown(error)}` });
    } finally {
      await queue.resume();
    }
  };

  /** Commits every finished page found in Redis; returns how many. */
  const collectFinished = async (): Promise<number> => {
    let handled = 0;
    const finishedJobs = [...(await queue.getCompleted(0, 99)), ...(await queue.getFailed(0, 99))];
    for (const job of finishedJobs) {
      if (!job?.id) continue;
      const result: PageJobResult<TRecord> =
        job.failedReason && !job.returnvalue
          ? {
              status: 'failed',
              error: { name: 'Error', code: 'WORKER_FAILED', message: job.failedReason, retryable: false },
              modelCalls: [],
              durationMs: 0,
            }
          : (job.returnvalue as PageJobResult<TRecord>);
      await commit(job as Job<PageJobData, PageJobResult<TRecord>>, result);
      await job.remove().catch(() => undefined);
      handled++;
      const finished = counters.pagesDone + counters.pagesFailed;
      if (finished % resolved.checkEvery === 0 && outstanding.size > 0 && !stopping && !failure) await runCheck(finished);
    }
    return handled;
  };

  const execute = async (): Promise<CollectionSummary> => {
    const startedAt = Date.now();
    active = true;
    const timer = resolved.timeout === undefined ? undefined : setTimeout(() => cancel('timed-out'), resolved.timeout);
    const onAbort = (): void => cancel('Cancelled by the caller\u2019s signal.');
    resolved.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await redis.set(keys.settings, JSON.stringify(settings()));
      for (const seed of seeds) {
        batchOf(seed.batch);
        await enqueue(seed);
      }
      emit('collect-start', { queued: outstanding.size, resumed: false });
      while (outstanding.size > 0 && !cancelled && !failure) {
        // Pages in flight when a check said stop still end and are committed, as in the Collector.
        if (stopping) await dropQueued(undefined);
        if ((await collectFinished()) === 0) await Promise.race([sleep(pollInterval), new Promise<void>((resolve) => (wake = resolve))]);
      }
      if (cancelled) await dropQueued(undefined);
    } catch (error) {
      if (!cancelled)
        failure ??= PlannavError.isInstance(error)
          ? error
          : new PlannavError('UNEXPECTED_ERROR', `The collection failed unexpectedly: ${describeThrown(error)}`, { cause: error });
    } finally {
      clearTimeout(timer);
      resolved.signal?.removeEventListener('abort', onAbort);
    }
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
      pagesQueued: outstanding.size,
      usage,
      durationMs: Date.now() - startedAt,
    };
    active = false;
    emit('collect-end', { summary });
    for (const stream of [...streams]) stream.end();
    return summary;
  };

  const run = (): Promise<CollectionSummary> => (running ??= execute());
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
      const entries = await redis.xrange(keys.pages, '-', '+');
      return entries.map(([, fields]) => JSON.parse(fields[1] as string) as PageOutcome);
    },
    cancel,
    close,
    [Symbol.asyncDispose]: close,
  };
  return coordinator;
}
