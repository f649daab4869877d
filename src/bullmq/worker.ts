// A collection worker: takes page jobs from the BullMQ queue of a collection and does the page
// step with its own browsers. It commits nothing: results go back as the job's return value.

import { DelayedError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { z } from 'zod';
import { builtinActions } from '../actions/builtin/index';
import { ActionRegistry } from '../actions/registry';
import type { Action } from '../actions/types';
import { redactingClient } from '../agents/secret-guard';
import { bindPageTextRedaction } from '../dom/page-text-redaction';
import type { BrowserDriver } from '../browser/types';
import type { BrowserPool } from '../collect/options';
import { PageExtractor } from '../collect/page-extraction';
import type { ListingPlan } from '../collect/listing-plan';
import {
  completeRecord,
  countingClient,
  extractDetailAlone,
  openDetailPage,
  pageSlot,
  readPage,
  type PageModelCall,
  type PageSlot,
  type PageStepContext,
} from '../collect/page-step';
import { judgeFailure, retryDelayMs } from '../collect/page-retry';
import type { QueuedPage } from '../collect/store';
import { ConfigError, isFatalError, TimeoutError } from '../errors';
import { toErrorInfo } from '../history/error-info';
import type { LLMClient } from '../llm/types';
import { SecretStore, type SecretsOption } from '../security/secrets';
import { UrlPolicy } from '../security/url-policy';
import { withDeadline } from '../util/deadline';
import { describeThrown } from '../util/describe-thrown';
import { EventHub } from '../util/event-hub';
import { HostSlots } from './host-slot';
import { watchRedis, isConnectionError } from './redis-health';
import {
  checkName,
  keysOf,
  queueName,
  queuePrefix,
  redisOptions,
  type PageJobData,
  type PageJobModelCall,
  type PageJobResult,
  type RedisConnection,
  type RunSettings,
} from './protocol';

/**
 * Options of {@link createCollectionWorker}.
 * @public
 */
export interface CollectionWorkerOptions<TRecord = unknown> {
  /**
   * Where Redis is: the same as the coordinator's.
   * @example `'redis://10.0.0.5:6379'`
   */
  readonly connection: RedisConnection;
  /** The collection's name: the same as the coordinator's. */
  readonly name: string;
  /** The model of the page step (survey, interaction, extraction) unless a role has its own. */
  readonly llm: LLMClient;
  /** The model that reads the pages for records. @defaultValue `llm` */
  readonly extractionLLM?: LLMClient | undefined;
  /** The model that surveys each page and runs the short interaction tasks. @defaultValue `llm` */
  readonly navigatorLLM?: LLMClient | undefined;
  /**
   * The browser: one driver (your own, or a remote one from `PlaywrightDriver.connect`), or a
   * `BrowserPool` (of `plannav`) of `concurrency` browsers. The worker closes only the browsers the pool made.
   */
  readonly browser: BrowserDriver | BrowserPool;
  /** The zod schema of one record: the same as the coordinator's. */
  readonly schema: z.ZodType<TRecord>;
  /** Pages read at the same time, one per browser; more than 1 needs a pool. @defaultValue 1 */
  readonly concurrency?: number | undefined;
  /** Actions added to the built-in ones for the interaction tasks. @defaultValue `[]` */
  readonly actions?: readonly Action[] | undefined;
  /** Secrets for the interaction tasks: the models never see their values, and records are redacted. */
  readonly secrets?: SecretsOption | undefined;
  /**
   * Milliseconds a worker holds a page's lock; it renews it every half while the page runs. A worker
   * that dies stops renewing it, and once it lapses the page is taken over by another worker.
   * @defaultValue 30000
   */
  readonly lockDuration?: number | undefined;
  /**
   * Milliseconds between this worker's checks for stalled pages (pages whose worker lost its lock).
   * A dead worker's page goes back to the queue within about `lockDuration + 2 × stalledInterval`.
   * @defaultValue 15000
   */
  readonly stalledInterval?: number | undefined;
  /**
   * How many times one page may be taken over after its worker died before it counts as failed (a
   * page that kills every browser that loads it must not go round forever).
   * @defaultValue 2
   */
  readonly maxStalledCount?: number | undefined;
}

/**
 * The events of a {@link CollectionWorker}.
 * @public
 */
export interface CollectionWorkerEventMap {
  /** A page starts on this worker. */
  'page-start': { readonly url: string; readonly batch: string; readonly jobId: string; readonly timestamp: number };
  /** A page ended on this worker (its result goes to the coordinator, which commits it). */
  'page-end': {
    readonly url: string;
    readonly batch: string;
    readonly jobId: string;
    readonly status: 'done' | 'failed';
    readonly records: number;
    readonly timestamp: number;
  };
  /**
   * A page's attempt failed for a reason that may pass (a 5xx, 429, a timeout, a network error, a
   * crashed page): it goes back to the queue and is tried again after `delayMs`.
   */
  'page-retry': {
    readonly url: string;
    readonly batch: string;
    readonly jobId: string;
    /** The attempt that failed, from 1. */
    readonly attempt: number;
    readonly delayMs: number;
    readonly error: string;
    readonly timestamp: number;
  };
  /**
   * Something worth knowing (a link the policy denies, a BullMQ error): `REDIS_UNAVAILABLE` when the
   * connection to Redis drops and `REDIS_RECONNECTED` when it is back (the worker waits meanwhile),
   * `COLLECTION_STATE_LOST` when Redis lost a page this worker held.
   */
  'worker-warning': { readonly code: string; readonly message: string; readonly timestamp: number };
}

/**
 * A running collection worker: {@link createCollectionWorker}.
 * @public
 */
export interface CollectionWorker {
  /** Listens to an event; returns this. */
  on<K extends keyof CollectionWorkerEventMap>(name: K, listener: (event: CollectionWorkerEventMap[K]) => void): this;
  /** Stops listening. */
  off<K extends keyof CollectionWorkerEventMap>(name: K, listener: (event: CollectionWorkerEventMap[K]) => void): this;
  /** Stops taking pages, waits for the pages in flight, closes the connections and the browsers the pool made. Idempotent. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const defaultLockDuration = 30_000;
const defaultStalledInterval = 15_000;
const defaultMaxStalledCount = 2;

function positiveInteger(field: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1)
    throw new ConfigError(`Option \`${field}\` of the collection worker must be a positive integer, got ${String(value)}.`, { field });
  return value;
}

const isPool = (browser: BrowserDriver | BrowserPool): browser is BrowserPool =>
  typeof (browser as BrowserPool).create === 'function' && typeof (browser as BrowserPool).size === 'number';

/**
 * Starts a worker of a BullMQ collection: it takes page jobs of the collection `name` from Redis and
 * reads them (load, survey, interaction, records, next pages) with its own browsers. Start as many
 * as you like, on any machine that reaches Redis and the site; the coordinator commits their results.
 * @example
 * ```ts
 * const worker = await createCollectionWorker({
 *   connection: 'redis://10.0.0.5:6379', name: 'jobs', llm, schema: Job,
 *   browser: await PlaywrightDriver.connect({ wsEndpoint: 'ws://browsers:3000/' }),
 * });
 * process.on('SIGTERM', () => void worker.close());
 * ```
 * @public
 */
export async function createCollectionWorker<TRecord>(options: CollectionWorkerOptions<TRecord>): Promise<CollectionWorker> {
  const name = checkName(options.name);
  const concurrency = positiveInteger('concurrency', options.concurrency, 1);
  const lockDuration = positiveInteger('lockDuration', options.lockDuration, defaultLockDuration);
  const stalledInterval = positiveInteger('stalledInterval', options.stalledInterval, defaultStalledInterval);
  const maxStalledCount = positiveInteger('maxStalledCount', options.maxStalledCount, defaultMaxStalledCount);
  const browser = options.browser;
  if (!isPool(browser) && concurrency > 1)
    throw new ConfigError(`Option \`concurrency\` is ${concurrency} but one browser reads one page at a time: give a BrowserPool as \`browser\`.`, {
      field: 'concurrency',
    });
  if (isPool(browser) && browser.size < concurrency)
    throw new ConfigError(`Option \`concurrency\` is ${concurrency} but the browser pool makes at most ${browser.size}.`, { field: 'concurrency' });

  const hub = new EventHub(() => undefined);
  const emit = <K extends keyof CollectionWorkerEventMap>(event: K, payload: Omit<CollectionWorkerEventMap[K], 'timestamp'>): void =>
    hub.emit(event, { ...payload, timestamp: Date.now() });
  const secrets = new SecretStore(options.secrets);
  const names = (options.actions ?? []).map((action) => action.name);
  const registry = new ActionRegistry([...builtinActions().filter((action) => !names.includes(action.name)), ...(options.actions ?? [])]);
  const navigatorBase = redactingClient(options.navigatorLLM ?? options.llm, secrets);
  const extractionBase = redactingClient(options.extractionLLM ?? options.llm, secrets);
  const keys = keysOf(name);
  const connection = redisOptions(options.connection);
  const { url, ...rest } = connection;
  const redis = url === undefined ? new Redis(rest) : new Redis(url, rest);
  // Outages are warnings, once when Redis goes away and once when it is back; never a stack on stderr.
  const health = watchRedis(redis, (code, message) => emit('worker-warning', { code, message }));
  const hosts = new HostSlots(redis, name, lockDuration);
  /** What this worker learnt of each listing template: its pages of that template are not surveyed again. */
  const plans = new Map<string, ListingPlan>();

  // The browsers: one driver, or made by the pool as pages need them; a free one per page in flight.
  // Page text is redacted where it enters Node, as in a task.
  const redacted = (driver: BrowserDriver, slot: PageSlot): PageSlot => {
    if (!secrets.isEmpty) for (const bound of new Set<object>([driver, slot.driver])) bindPageTextRedaction(bound, secrets);
    return slot;
  };
  const free: PageSlot[] = isPool(browser) ? [] : [redacted(browser, pageSlot(browser, false))];
  const made: BrowserDriver[] = [];
  const takeSlot = async (): Promise<PageSlot> => {
    const slot = free.pop();
    if (slot) return slot;
    if (!isPool(browser)) throw new Error('No free browser: the worker took more pages than its concurrency.');
    const created = await browser.create();
    made.push(created);
    return redacted(created, pageSlot(created, false));
  };

  /** Puts the job back to wait `delayMs` (a busy host, a retry): BullMQ takes it up again then, on any worker. */
  const postpone = async (job: Job<PageJobData, PageJobResult<TRecord>>, token: string | undefined, delayMs: number): Promise<never> => {
    await job.moveToDelayed(Date.now() + Math.max(1, Math.round(delayMs)), token);
    throw new DelayedError();
  };

  type PageRead = Omit<Extract<PageJobResult<TRecord>, { status: 'done' }>, 'modelCalls' | 'durationMs' | 'attempts'>;

  /** Reads a listing page: its records, those the schema rejected (which their own pages may complete), the pages found. */
  const readListing = async (context: PageStepContext<TRecord>, slot: PageSlot, page: QueuedPage, signal: AbortSignal): Promise<PageRead> => {
    const read = await readPage(context, slot, page, signal);
    return {
      status: 'done',
      records: read.records.map((record) => secrets.redactDeep(record)),
      invalid: read.invalid,
      rejected: read.rejected.map((item) => secrets.redactDeep(item)),
      links: [...read.links],
      // The tab cannot wait for the next job: the page a script pager went on to is queued with the way there.
      found: [...read.found, ...(read.continuation ? [read.continuation] : [])],
      loadMore: read.loadMore,
      interaction: read.interaction,
    };
  };

  /** Reads a record's own page and completes the record its listing gave: the record whole, or rejected with why. */
  const readDetail = async (context: PageStepContext<TRecord>, slot: PageSlot, page: QueuedPage, signal: AbortSignal): Promise<PageRead> => {
    await openDetailPage(context, slot, page, signal);
    const completed = completeRecord(page, await extractDetailAlone(context, slot, signal), options.schema);
    const rejected = completed.rejected ? [secrets.redactDeep(completed.rejected)] : [];
    return {
      status: 'done',
      records: completed.record === undefined ? [] : [secrets.redactDeep(completed.record)],
      invalid: rejected.length,
      rejected,
      links: [],
      found: [],
      loadMore: 0,
      interaction: undefined,
    };
  };

  const process = async (job: Job<PageJobData, PageJobResult<TRecord>>, token?: string): Promise<PageJobResult<TRecord>> => {
    const { failedAttempts = 0, earlierModelCalls = [], ...page } = job.data;
    const queued: QueuedPage = page;
    const attempt = failedAttempts + 1;
    const jobId = job.id ?? '';
    const started = Date.now();
    // Every model call of the page goes back with the result: the coordinator reports and prices them, as the Collector does.
    const modelCalls: PageJobModelCall[] = [...earlierModelCalls];
    const record =
      (role: PageJobModelCall['role']) =>
      (call: PageModelCall): void =>
        void modelCalls.push({
          role,
          provider: call.provider,
          model: call.model,
          usage: call.usage,
          durationMs: call.durationMs,
          error: call.error ? secrets.redactDeep(toErrorInfo(call.error)) : undefined,
        });
    const raw = await redis.get(keys.settings);
    if (raw === null) throw new Error(`The collection "${name}" has no settings in Redis: start its coordinator first.`);
    const settings = JSON.parse(raw) as RunSettings;
    // Politeness across all workers: a busy host, or one whose delay has not passed, sends the page back to wait.
    const hostSlot = await hosts.acquire(queued.url, `${jobId}:${token ?? ''}`, settings.perHost);
    if (!('release' in hostSlot)) {
      // A busy host frees a slot when one of its pages ends, which no one announces: look again soon, with jitter.
      const waitMs = hostSlot.busy ? 100 + Math.random() * 200 : hostSlot.waitMs;
      return postpone(job, token, waitMs);
    }
    const urlPolicy = new UrlPolicy({ allow: settings.urlPolicy.allow, deny: settings.urlPolicy.deny });
    const context: PageStepContext<TRecord> = {
      instruction: settings.instruction,
      interactionSteps: settings.interactionSteps,
      maxLoadMore: settings.maxLoadMore,
      modelRetry: settings.modelRetry,
      prices: undefined,
      urlPolicy,
      secrets,
      registry,
      // With details, a listing is asked for the records' partial shape: their own pages complete them.
      extractor: new PageExtractor(options.schema, { retry: settings.modelRetry, maxChunkChars: settings.maxChunkChars, partial: settings.details === true }),
      navigatorLLM: navigatorBase,
      extractionLLM: countingClient(extractionBase, record('extraction')),
      navigatorObserver: {
        onCallEnd: (_attempt, outcome, client) => record('navigator')({ provider: client.provider, model: client.model, ...outcome }),
      },
      onInteractionCall: record('navigator'),
      checkpoint: async () => false,
      warn: (code, message) => emit('worker-warning', { code, message }),
      plans,
    };
    emit('page-start', { url: page.url, batch: page.batch, jobId });
    const controller = new AbortController();
    let slot: PageSlot | undefined;
    let retryIn: number | undefined;
    let failed: unknown;
    try {
      slot = await takeSlot();
      const browserSlot = slot;
      const result = await withDeadline(
        settings.pageTimeout,
        controller.signal,
        () => new TimeoutError(settings.pageTimeout, `Reading ${page.url}`),
        (signal) => (queued.kind === 'detail' ? readDetail(context, browserSlot, queued, signal) : readListing(context, browserSlot, queued, signal)),
      );
      const done: PageJobResult<TRecord> = { ...result, modelCalls, durationMs: Date.now() - started, attempts: attempt };
      emit('page-end', { url: page.url, batch: page.batch, jobId, status: 'done', records: result.records.length });
      return done;
    } catch (error) {
      // A worker closing mid-page, or an error no page can route around (a rejected model key):
      // the job fails in BullMQ, unread; the coordinator counts it as failed.
      if (controller.signal.aborted || (!TimeoutError.isInstance(error) && isFatalError(error))) throw error;
      const verdict = judgeFailure(error);
      if (verdict.transient && attempt < settings.retry.attempts) {
        retryIn = retryDelayMs(attempt, settings.retry, verdict.retryAfterMs);
        failed = error;
        // A server that asked to wait is not asked again by any page of it meanwhile.
        if (verdict.retryAfterMs !== undefined)
          await hosts
            .hold(queued.url, verdict.retryAfterMs)
            .catch((holdError: unknown) =>
              emit('worker-warning', { code: 'HOST_HOLD_FAILED', message: `The host of ${page.url} could not be held back: ${describeThrown(holdError)}` }),
            );
      } else {
        emit('page-end', { url: page.url, batch: page.batch, jobId, status: 'failed', records: 0 });
        return {
          status: 'failed',
          error: secrets.redactDeep(toErrorInfo(error)),
          modelCalls,
          durationMs: Date.now() - started,
          attempts: attempt,
        };
      }
    } finally {
      if (slot) free.push(slot);
      await hostSlot.release().catch(() => undefined);
    }
    // Only the last attempt's outcome reaches the coordinator; this one's model calls go with it, to be counted.
    const message = secrets.redact(describeThrown(failed));
    emit('page-retry', { url: page.url, batch: page.batch, jobId, attempt, delayMs: retryIn, error: message });
    await job.updateData({ ...job.data, failedAttempts: attempt, earlierModelCalls: modelCalls });
    return postpone(job, token, retryIn);
  };

  const worker = new Worker<PageJobData, PageJobResult<TRecord>>(queueName(name), process, {
    connection: connection as ConnectionOptions,
    prefix: queuePrefix,
    concurrency,
    lockDuration,
    stalledInterval,
    maxStalledCount,
  });
  worker.on('error', (error) => {
    // While Redis is away BullMQ fails every command it tries: one REDIS_UNAVAILABLE says it all.
    if (isConnectionError(error)) return health.down(error);
    if (/Missing (key|lock) for job/.test(error.message))
      return emit('worker-warning', {
        code: 'COLLECTION_STATE_LOST',
        message: `Redis no longer holds a page this worker read (${error.message}): it restarted without persistence or was flushed; the coordinator ends the collection.`,
      });
    emit('worker-warning', { code: 'BULLMQ_ERROR', message: error.message });
  });
  await worker.waitUntilReady();

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await worker.close();
      health.stop();
      await redis.quit().catch(() => redis.disconnect());
      for (const driver of made) await driver.close().catch(() => undefined);
    })();
    return closing;
  };
  const handle: CollectionWorker = {
    on(event, listener) {
      hub.on(event, listener);
      return handle;
    },
    off(event, listener) {
      hub.off(event, listener);
      return handle;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
  return handle;
}
