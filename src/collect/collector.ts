// The Collector: the Planner/Navigator loop as a crawler on one machine. Pages are read over a
// pool of browsers, records extracted and de-duplicated, a progress check runs every few pages,
// and every finished page is one atomic commit to a store, so a killed run resumes where it was.

import type { z } from 'zod';
import { builtinActions } from '../actions/builtin/index';
import { ActionRegistry } from '../actions/registry';
import { redactingClient } from '../agents/secret-guard';
import { bindPageTextRedaction } from '../dom/page-text-redaction';
import { leaseDriver } from '../browser/lease';
import type { BrowserDriver, NavigationGuard } from '../browser/types';
import { BrowserError, ConfigError, isFatalError, PlannavError, TimeoutError } from '../errors';
import { toErrorInfo } from '../history/error-info';
import type { ModelCallObserver } from '../llm/generate-object';
import type { LLMClient } from '../llm/types';
import { addUsage, emptyUsage, priceUsage, type TokenUsage } from '../llm/usage';
import { SecretStore } from '../security/secrets';
import { UrlPolicy } from '../security/url-policy';
import { raceAbort } from '../util/abort';
import { withDeadline } from '../util/deadline';
import { describeThrown } from '../util/describe-thrown';
import { EventHub } from '../util/event-hub';
import type { CollectionEndReason, CollectionSummary, CollectorEventBase, CollectorEventMap, CollectorEventName, CollectorListener } from './events';
import { Frontier, normalizePageUrl } from './frontier';
import { resolveCollectOptions, type CollectOptions, type ResolvedCollectOptions } from './options';
import { ownPageOf } from './own-page';
import { PageExtractor, type DetailPageText } from './page-extraction';
import type { ListingPlan } from './listing-plan';
import { judgeFailure, resolvePageRetry, retryDelayMs, type ResolvedPageRetry } from './page-retry';
import {
  countingClient,
  pageSlot,
  completeRecord,
  extractDetailAlone,
  loadDetailPage,
  openDetailPage,
  readPage,
  stableJson,
  type DetailRead,
  type FoundPage,
  type PageRead,
  type PageSlot,
  type PageStepContext,
} from './page-step';
import { checkProgress } from './progress-check';
import { createPushStream, type PushStream } from './record-stream';
import {
  memoryCollectionStore,
  type CollectedRecord,
  type CollectionCheckpoint,
  type CollectionCheckRecord,
  type CollectionCommit,
  type CollectionCounters,
  type CollectionStore,
  type PageOutcome,
  type QueuedPage,
  type RejectedRecord,
} from './store';
import { TaskControl } from '../util/task-control';

/**
 * What a collection did, for logs and audits: every progress check and every finished page of
 * this run (a resumed run's checks include the earlier runs').
 * @public
 */
export interface CollectionHistory {
  readonly checks: readonly CollectionCheckRecord[];
  readonly pages: readonly PageOutcome[];
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** How many failures the progress check is told of. */
const recentFailureCount = 5;
/** Records' own pages read in one extraction call, unless `details.perCall` says otherwise. */
const defaultDetailsPerCall = 12;
/** The characters of one extraction part, unless `maxChunkChars` says otherwise (the extract_content action's default). */
const defaultChunkChars = 30_000;
/** How many of the latest records the progress check sees. */
const sampleSize = 3;

function newCollectionId(): string {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  return crypto?.randomUUID?.() ?? `collect-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

const zeroCounters: Required<CollectionCounters> = {
  pagesDone: 0,
  pagesFailed: 0,
  pagesEmpty: 0,
  records: 0,
  duplicates: 0,
  invalid: 0,
  pagesAbandoned: 0,
  retries: 0,
  rejected: 0,
  detailPages: 0,
};

/**
 * Collects records across many pages: from start URLs (the model finds the next pages: pagination
 * links, a "load more" button, infinite scroll) and/or a known list of URLs, with an instruction
 * and the zod schema of one record. `TRecord` is the schema's output type.
 *
 * Each page is read once (its state and its text), made ready by a short Navigator task when
 * something blocks it (a cookie wall, a "show all" button), and its records extracted, validated
 * one by one, tagged with their source and time and de-duplicated by `key`. Every `checkEvery`
 * pages a progress check answers continue, adjust or stop. `maxFailures` failed pages in a row
 * abandon their batch: the pages of one start URL (its listing), or of one host of `urls`.
 *
 * @example
 * ```ts
 * const collector = new Collector({
 *   llm, browser, start: 'https://jobs.example/list',
 *   instruction: 'every job posting: title, company, salary, link',
 *   schema: z.object({ title: z.string(), company: z.string(), salary: z.string().nullable(), link: z.string() }),
 *   key: (job) => job.link,
 * });
 * for await (const { data, source } of collector.records()) console.log(data.title, source);
 * const summary = await collector.run();
 * ```
 * @public
 */
export class Collector<TRecord = unknown> {
  private readonly options: ResolvedCollectOptions;
  private readonly schema: z.ZodType<TRecord>;
  private readonly keyOf: (record: TRecord) => string;
  private readonly collectionId = newCollectionId();
  private readonly hub = new EventHub((error, event) => {
    if ((event as { code?: unknown }).code === 'LISTENER_ERROR') return;
    this.emit('collect-warning', { code: 'LISTENER_ERROR', message: `A collection event listener threw: ${describeThrown(error)}` });
  });
  private readonly control = new TaskControl();
  private readonly urlPolicy: UrlPolicy;
  private readonly secrets: SecretStore;
  private readonly store: CollectionStore<TRecord>;
  private readonly registry: ActionRegistry;
  private readonly extractor: PageExtractor<TRecord>;
  private readonly navigatorLLM: LLMClient;
  private readonly plannerLLM: LLMClient;
  private readonly extractionLLM: LLMClient;
  private readonly frontier: Frontier;
  private readonly streams = new Set<PushStream<CollectedRecord<TRecord>>>();
  private readonly rejectStreams = new Set<PushStream<RejectedRecord>>();
  private readonly retry: ResolvedPageRetry;
  /** What was learnt of each listing template: found again on its other pages without a survey. */
  private readonly plans = new Map<string, ListingPlan>();

  // The run's state; restored from the store's checkpoint when it holds one.
  private instruction: string;
  private counters: Mutable<Required<CollectionCounters>> = { ...zeroCounters };
  private readonly seenKeys = new Set<string>();
  private readonly finished = new Set<string>();
  private readonly batches = new Map<string, { failures: number; abandoned: boolean }>();
  private checks: CollectionCheckRecord[] = [];
  /** The last outcome of each page: a page retried later (a resumed run, a check) ends once. */
  private readonly pages = new Map<string, PageOutcome>();
  /** Pages that failed all their attempts, as they were queued. */
  private readonly failedPages = new Map<string, QueuedPage>();
  /** Pages of given-up batches, never read. */
  private readonly abandonedPages = new Map<string, QueuedPage>();
  /** Pages a progress check queued again in this run. */
  private readonly requeuedThisRun = new Set<string>();
  private usage: TokenUsage = emptyUsage;
  private pagesStarted = 0;
  /** Listing pages finished since the last progress check. */
  private listingPagesSinceCheck = 0;
  private readonly recentFailures: { url: string; error: string }[] = [];
  private readonly sample: unknown[] = [];

  /** Set when no new page may start: a check said stop, or `maxRecords` was reached. */
  private stopping: { reason: 'stopped' | 'max-records'; message: string | undefined } | undefined;
  /** The error that ends the run as `failed`. */
  private failure: PlannavError | undefined;
  private pendingCheck: Promise<void> | undefined;
  private storeChain: Promise<void> = Promise.resolve();
  /** The workers waiting for a change of the queue; woken all at once, also by a cancel. */
  private readonly waiters = new Set<() => void>();
  private running: Promise<CollectionSummary> | undefined;
  private active = false;
  private closed = false;

  /**
   * Checks the options; nothing runs until `run()` or `records()`.
   * @throws `ConfigError` naming the field when an option is invalid, or a start URL is denied by `urlPolicy`.
   */
  constructor(options: CollectOptions<TRecord>) {
    this.options = resolveCollectOptions(options);
    this.schema = options.schema;
    const key = options.key;
    this.keyOf = key ?? ((record) => stableJson(record));
    this.urlPolicy = new UrlPolicy({ allow: this.options.urlPolicy.allow, deny: this.options.urlPolicy.deny });
    for (const [field, url] of this.seeds().map((seed) => [seed.field, seed.url] as const)) {
      const decision = this.urlPolicy.check(url);
      if (!decision.allowed) throw new ConfigError(`Option \`${field}\` holds ${url}, which the URL policy denies: ${decision.reason}.`, { field });
    }
    this.secrets = new SecretStore(this.options.secrets);
    this.store = (this.options.store as CollectionStore<TRecord> | undefined) ?? memoryCollectionStore<TRecord>();
    this.instruction = this.options.instruction;
    const names = this.options.actions.map((action) => action.name);
    const builtins = builtinActions().filter((action) => !names.includes(action.name));
    this.registry = new ActionRegistry([...builtins, ...this.options.actions]);
    this.extractor = new PageExtractor(this.schema, {
      retry: this.options.modelRetry,
      maxChunkChars: this.options.maxChunkChars,
      partial: Boolean(this.options.details),
    });
    this.retry = resolvePageRetry(this.options.retry);
    const llm = this.options.llm;
    // Every model reads requests with the secret values redacted, as in a task.
    this.navigatorLLM = redactingClient(this.options.navigatorLLM ?? llm, this.secrets);
    this.plannerLLM = redactingClient(this.options.plannerLLM ?? llm, this.secrets);
    this.extractionLLM = countingClient(redactingClient(this.options.extractionLLM ?? llm, this.secrets), (call) => this.addUsage('extraction', call));
    this.frontier = new Frontier({
      maxConcurrent: this.options.perHost?.maxConcurrent ?? Number.POSITIVE_INFINITY,
      delayMs: this.options.perHost?.delayMs ?? 0,
    });
  }

  /** Listens to an event; returns this. A listener's exception becomes a `LISTENER_ERROR` warning. */
  on<K extends CollectorEventName>(name: K, listener: CollectorListener<K, TRecord>): this {
    this.hub.on(name, listener);
    return this;
  }

  /** Listens to the next occurrence of an event only. */
  once<K extends CollectorEventName>(name: K, listener: CollectorListener<K, TRecord>): this {
    this.hub.once(name, listener);
    return this;
  }

  /** Stops listening. */
  off<K extends CollectorEventName>(name: K, listener: CollectorListener<K, TRecord>): this {
    this.hub.off(name, listener);
    return this;
  }

  /**
   * Runs the collection to its end (once: later calls return the same promise). Never rejects
   * for what happens during the run: the summary says how it ended.
   */
  run(): Promise<CollectionSummary> {
    if (this.closed && !this.running) return Promise.reject(new ConfigError('The collector is closed: create a new Collector to collect again.'));
    this.running ??= this.execute();
    return this.running;
  }

  /**
   * The records as they are kept (validated, de-duplicated, stored), from now until the run ends.
   * Starts the run if it has not started. Records are buffered until read.
   */
  records(): AsyncIterableIterator<CollectedRecord<TRecord>> {
    const stream = createPushStream<CollectedRecord<TRecord>>(() => this.streams.delete(stream));
    if (this.running && !this.active) stream.end();
    else this.streams.add(stream);
    void this.run().catch(() => undefined);
    return stream.iterator;
  }

  /**
   * The records the schema rejected (after their own page, with `details`), each with the reason,
   * from now until the run ends. Starts the run if it has not started.
   */
  rejects(): AsyncIterableIterator<RejectedRecord> {
    const stream = createPushStream<RejectedRecord>(() => this.rejectStreams.delete(stream));
    if (this.running && !this.active) stream.end();
    else this.rejectStreams.add(stream);
    void this.run().catch(() => undefined);
    return stream.iterator;
  }

  /** Pauses the run: no new page starts, and pages in flight wait at their next checkpoint. */
  pause(): void {
    if (this.active && this.control.pause()) this.emit('collect-pause', {});
  }

  /** Resumes a paused run. */
  resume(): void {
    if (this.active && this.control.resume()) this.emit('collect-resume', {});
  }

  /** Cancels the run: pages in flight are aborted (not committed: a resumed run reads them again); it ends `cancelled`. */
  cancel(reason = 'Cancelled by the caller.'): void {
    if (this.active && this.control.cancel(reason)) this.emit('collect-cancel', { reason });
  }

  /** What the run did so far: its checks and finished pages. */
  get history(): CollectionHistory {
    return { checks: [...this.checks], pages: [...this.pages.values()] };
  }

  /** Cancels a running collection and waits for its end; ends the record streams. Idempotent. The browsers given are not closed. */
  async close(): Promise<void> {
    this.closed = true;
    this.cancel('The collector was closed.');
    await this.running?.catch(() => undefined);
    for (const stream of [...this.streams]) stream.end();
    for (const stream of [...this.rejectStreams]) stream.end();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Start URLs and list URLs with their batch and the option they came from. */
  private seeds(): { url: string; batch: string; field: string }[] {
    const { start, urls } = this.options;
    const starts = start === undefined ? [] : typeof start === 'string' ? [start] : start;
    return [
      ...starts.map((url) => ({ url: normalizePageUrl(url), batch: `start:${normalizePageUrl(url)}`, field: 'start' })),
      ...(urls ?? []).map((url) => ({ url: normalizePageUrl(url), batch: `urls:${new URL(url).host}`, field: 'urls' })),
    ];
  }

  private async execute(): Promise<CollectionSummary> {
    const startedAt = Date.now();
    this.active = true;
    const cleanups: (() => Promise<void> | void)[] = [];
    const unlink = this.linkSignal(this.options.signal);
    // The one listener for all waiting workers: each wakes up, and its checkpoint throws the cancel.
    const wakeOnCancel = (): void => this.notify();
    this.control.signal.addEventListener('abort', wakeOnCancel, { once: true });
    const timer =
      this.options.timeout === undefined
        ? undefined
        : setTimeout(() => this.control.cancel(new TimeoutError(this.options.timeout as number, 'The collection')), this.options.timeout);
    try {
      const checkpoint = await raceAbort(this.store.load({ signal: this.control.signal }), this.control.signal);
      const resumed = checkpoint !== undefined;
      if (checkpoint) this.restore(checkpoint);
      for (const seed of this.seeds()) {
        if (!this.finished.has(seed.url)) this.frontier.enqueue({ url: seed.url, batch: seed.batch, depth: 0 });
        if (!this.batches.has(seed.batch)) this.batches.set(seed.batch, { failures: 0, abandoned: false });
      }
      this.emit('collect-start', { queued: this.frontier.queuedCount, resumed });
      const slots = await this.openSlots(cleanups);
      await Promise.all(slots.map((slot) => this.work(slot)));
      await this.pendingCheck;
      await this.storeChain;
    } catch (error) {
      if (!this.control.cancelled && !this.failure) this.failure = toPlannavError(error);
    } finally {
      clearTimeout(timer);
      unlink();
      this.control.signal.removeEventListener('abort', wakeOnCancel);
      for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
      // A commit in flight when the run was cancelled still lands (or fails) before the end.
      await this.storeChain.catch(() => undefined);
    }
    const summary = this.summarize(startedAt);
    this.active = false;
    this.emit('collect-end', { summary });
    for (const stream of [...this.streams]) stream.end();
    for (const stream of [...this.rejectStreams]) stream.end();
    return summary;
  }

  private summarize(startedAt: number): CollectionSummary {
    let reason: CollectionEndReason;
    let message: string | undefined;
    let error: PlannavError | undefined;
    if (this.failure) {
      reason = 'failed';
      error = this.failure;
    } else if (this.control.cancelled) {
      error = this.control.signal.reason as PlannavError;
      reason = TimeoutError.isInstance(error) ? 'timed-out' : 'cancelled';
    } else if (this.stopping) {
      reason = this.stopping.reason;
      message = this.stopping.message;
    } else if (this.options.maxPages !== undefined && this.pagesStarted >= this.options.maxPages && this.frontier.queuedCount > 0) {
      reason = 'max-pages';
    } else {
      reason = 'done';
    }
    if (error) message = this.secrets.redact(error.message);
    return {
      ...this.counters,
      reason,
      message,
      error: error ? this.secrets.redactDeep(toErrorInfo(error)) : undefined,
      batchesAbandoned: [...this.batches.values()].filter((batch) => batch.abandoned).length,
      pagesQueued: this.frontier.queuedCount + this.frontier.inFlightCount,
      usage: this.usage,
      durationMs: Date.now() - startedAt,
    };
  }

  private restore(checkpoint: CollectionCheckpoint): void {
    if (checkpoint.version !== 1 && checkpoint.version !== 2)
      throw new ConfigError(`The store holds a checkpoint of version ${String(checkpoint.version)}; this plannav reads versions 1 and 2.`, { field: 'store' });
    this.frontier.restore(checkpoint.queue, checkpoint.seenUrls);
    for (const key of checkpoint.seenKeys) this.seenKeys.add(key);
    for (const url of checkpoint.finished) this.finished.add(url);
    for (const [name, batch] of Object.entries(checkpoint.batches)) this.batches.set(name, { ...batch });
    this.counters = { ...zeroCounters, ...checkpoint.counters };
    this.pagesStarted = checkpoint.pagesStarted;
    this.instruction = checkpoint.instruction;
    this.checks = [...checkpoint.checks];
    this.usage = checkpoint.usage;
    for (const page of checkpoint.failed ?? []) this.failedPages.set(page.url, page);
    for (const page of checkpoint.abandoned ?? []) this.abandonedPages.set(page.url, page);
    for (const [template, plan] of Object.entries(checkpoint.templates ?? {})) this.plans.set(template, plan as ListingPlan);
    const { retryFailed = true, retryAbandoned = true } = this.options.resume;
    this.requeueGivenUp({ failed: retryFailed, abandoned: retryAbandoned });
  }

  /**
   * Queues failed and/or abandoned pages again, their attempts and their batches' failure counts
   * reset; returns how many. Their earlier outcome is replaced by the one they end with now.
   */
  private requeueGivenUp(which: { readonly failed: boolean; readonly abandoned: boolean }, once = false): number {
    let queued = 0;
    const again = (pages: Map<string, QueuedPage>, counter: 'pagesFailed' | 'pagesAbandoned'): void => {
      for (const page of [...pages.values()]) {
        // A progress check queues a page again once per run: a site that keeps failing cannot loop.
        if (once && this.requeuedThisRun.has(page.url)) continue;
        this.requeuedThisRun.add(page.url);
        pages.delete(page.url);
        this.finished.delete(page.url);
        this.pages.delete(page.url);
        this.counters[counter] = Math.max(0, this.counters[counter] - 1);
        if (page.kind === 'detail' && counter === 'pagesFailed') {
          // Its record was rejected when the page failed; read again, it may yet be kept (the reject stays in the stream).
          this.counters.rejected = Math.max(0, this.counters.rejected - 1);
          this.counters.invalid = Math.max(0, this.counters.invalid - 1);
        }
        const batch = this.batchOf(page.batch);
        batch.failures = 0;
        batch.abandoned = false;
        // Started once already: maxPages does not count it again.
        if (this.frontier.enqueueAgain({ ...page, attempts: 0, lastError: undefined, requeued: (page.requeued ?? 0) + 1 })) queued++;
      }
    };
    if (which.failed) again(this.failedPages, 'pagesFailed');
    if (which.abandoned) again(this.abandonedPages, 'pagesAbandoned');
    return queued;
  }

  private checkpointNow(): CollectionCheckpoint {
    return {
      version: 2,
      queue: this.frontier.pending(),
      failed: [...this.failedPages.values()],
      abandoned: [...this.abandonedPages.values()],
      templates: Object.fromEntries(this.plans),
      seenUrls: this.frontier.seenUrls(),
      seenKeys: [...this.seenKeys],
      finished: [...this.finished],
      batches: Object.fromEntries([...this.batches].map(([name, batch]) => [name, { ...batch }])),
      counters: { ...this.counters },
      // Pages in flight are read again by a resumed run: only finished ones count as started.
      pagesStarted: this.counters.pagesDone + this.counters.pagesFailed,
      instruction: this.instruction,
      checks: [...this.checks],
      usage: this.usage,
    };
  }

  /** Queues a commit behind the earlier ones; the checkpoint is taken now, so commits land in the order of the run. */
  private persist(commit: Omit<CollectionCommit<TRecord>, 'checkpoint'>): Promise<void> {
    const full: CollectionCommit<TRecord> = { ...commit, checkpoint: this.checkpointNow() };
    const next = this.storeChain.then(() => this.store.commit(full, {}));
    this.storeChain = next.catch(() => undefined);
    return next.catch((error: unknown) => {
      this.failRun(new PlannavError('UNEXPECTED_ERROR', `The collection store could not save: ${describeThrown(error)}`, { cause: error }));
    });
  }

  /** Ends the run as failed: no new page starts and pages in flight are aborted. */
  private failRun(error: PlannavError): void {
    this.failure ??= error;
    this.control.cancel(`The collection failed: ${error.message}`);
  }

  /** The browsers of the pool, leased, with the URL policy installed where the driver can enforce it. */
  private async openSlots(cleanups: (() => Promise<void> | void)[]): Promise<PageSlot[]> {
    const { browser, browsers, concurrency } = this.options;
    let raws: BrowserDriver[];
    if (browser) raws = [browser];
    else if (Array.isArray(browsers)) raws = browsers.slice(0, concurrency);
    else {
      const pool = browsers as { create(): Promise<BrowserDriver>; size: number };
      raws = [];
      for (let index = 0; index < Math.min(concurrency, pool.size); index++) {
        const created = await raceAbort(pool.create(), this.control.signal);
        cleanups.push(() => created.close());
        raws.push(created);
      }
    }
    const slots: PageSlot[] = [];
    for (const raw of raws) {
      cleanups.push(leaseDriver(raw, { what: 'a running collection' }));
      let guarded = false;
      if (this.urlPolicy.restrictive && typeof raw.setNavigationGuard === 'function') {
        const guard: NavigationGuard = {
          check: (url) => this.urlPolicy.check(url),
          blocked: (navigation) =>
            this.emit('collect-warning', { code: 'URL_BLOCKED', message: `The URL policy stopped ${navigation.url}: ${navigation.reason}` }),
        };
        await raceAbort(Promise.resolve(raw.setNavigationGuard(guard, { signal: this.control.signal })), this.control.signal);
        cleanups.push(async () => {
          await raw.setNavigationGuard?.(undefined, {});
        });
        guarded = true;
      }
      const slot = pageSlot(raw, guarded);
      // Page text is redacted where it enters Node, as in a task.
      if (!this.secrets.isEmpty) for (const driver of new Set<object>([raw, slot.driver])) cleanups.push(bindPageTextRedaction(driver, this.secrets));
      slots.push(slot);
    }
    return slots;
  }

  private async work(slot: PageSlot): Promise<void> {
    let carried: QueuedPage | undefined;
    for (;;) {
      // A page the tab already shows (a pager run by script) is read next, without loading it again.
      const page = carried ?? (await this.nextPage());
      if (!page) return;
      if (page.kind === 'detail') {
        carried = undefined;
        await this.readDetails(slot, page);
        continue;
      }
      const there = carried !== undefined;
      const continuation = await this.readAndCommit(slot, page, there);
      carried = continuation === undefined ? undefined : await this.takeContinuation(continuation);
    }
  }

  /** The page the tab shows after the pager's click, taken from the queue for this slot; undefined when the run will not read it now. */
  private async takeContinuation(url: string): Promise<QueuedPage | undefined> {
    await this.control.checkpoint();
    while (this.pendingCheck) await this.changed();
    // The tab is there already, but the host's politeness holds as for any page.
    for (let wait = this.frontier.hostReadyIn(url, Date.now()); wait > 0 && !this.control.cancelled; wait = this.frontier.hostReadyIn(url, Date.now())) {
      await this.changed(wait);
    }
    if (this.control.cancelled) return undefined;
    if (this.stopping || this.failure) return undefined;
    if (this.options.maxPages !== undefined && this.pagesStarted >= this.options.maxPages) return undefined;
    const page = this.frontier.takeNow(url);
    if (page) this.pagesStarted++;
    return page;
  }

  /** The next page to read, waiting for a pause, a check, politeness or pages in flight; undefined when the run is over. */
  private async nextPage(): Promise<QueuedPage | undefined> {
    for (;;) {
      await this.control.checkpoint();
      if (this.pendingCheck) {
        // The check's end notifies.
        await this.changed();
        continue;
      }
      if (this.stopping || this.failure) return undefined;
      if (this.options.maxPages !== undefined && this.pagesStarted >= this.options.maxPages) return undefined;
      const taken = this.frontier.take(Date.now());
      if (taken === undefined) {
        // Nothing queued: the pages in flight may still find more.
        if (this.frontier.inFlightCount === 0) return undefined;
        await this.changed();
      } else if ('page' in taken) {
        // A retry is the same page: maxPages counts pages, not attempts.
        if (!taken.page.attempts && !taken.page.requeued) this.pagesStarted++;
        return taken.page;
      } else if (Number.isFinite(taken.waitMs)) {
        await this.changed(taken.waitMs);
      } else {
        await this.changed();
      }
    }
  }

  /**
   * Resolves at the next change of the queue (a page finished, a check ended, a cancel), or after
   * `timeoutMs`. It adds no listener to the run's signal: with many workers waiting, they would pile up.
   */
  private changed(timeoutMs?: number): Promise<void> {
    return new Promise<void>((resolve) => {
      // A wait that times out leaves the set, so waits that end by time do not gather in it.
      const wake = (): void => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const timer = timeoutMs === undefined ? undefined : setTimeout(wake, timeoutMs);
      this.waiters.add(wake);
    });
  }

  private notify(): void {
    for (const wake of [...this.waiters]) wake();
  }

  /** Reads a page and commits what it gave, or retries it later, or commits its failure; returns the address of a page the tab went on to. */
  private async readAndCommit(slot: PageSlot, page: QueuedPage, there: boolean): Promise<string | undefined> {
    const attempt = (page.attempts ?? 0) + 1;
    this.emit('collect-page-start', { url: page.url, batch: page.batch, attempt });
    const started = Date.now();
    const read = await this.attempt([page], (signal) => this.readPage(slot, page, signal, there));
    if (read === undefined) return undefined;
    if (this.pagerStood(page, read)) {
      // The pager's click showed only records read before: the next page did not come (a failed
      // request of the page's own, a control that does nothing). Another attempt gets there by the way.
      await this.failAttempt(page, attempt, new BrowserError(`The pager did not move: ${page.url} showed only records read before.`, { retryable: true }));
      return undefined;
    }
    return this.commitPage(page, attempt, read, Date.now() - started);
  }

  /**
   * Runs one attempt at `pages` within the page deadline (`pageTimeout`), on a signal of its own
   * linked to the run's. Returns what it gave, or undefined when it failed: each page is then tried
   * again later or failed, or (the run ending) put back in the queue.
   */
  private async attempt<T>(pages: readonly QueuedPage[], step: (signal: AbortSignal) => Promise<T>, what = pages[0]?.url ?? ''): Promise<T | undefined> {
    const timeoutMs = this.options.pageTimeout;
    // The page's own signal, linked to the run's without a listener on it: pages in flight at once
    // would otherwise each add theirs to one signal (Node warns past 10).
    const part = this.control.part();
    try {
      return await withDeadline(timeoutMs, part.signal, () => new TimeoutError(timeoutMs, `Reading ${what}`), step);
    } catch (error) {
      // A page the run's end interrupted is not finished: it stays queued for a resumed run.
      if (this.control.cancelled || (!TimeoutError.isInstance(error) && isFatalError(error))) {
        if (!this.control.cancelled) this.failRun(toPlannavError(error));
        for (const page of pages) this.frontier.requeue(page);
        this.notify();
        return undefined;
      }
      for (const page of pages) await this.failAttempt(page, (page.attempts ?? 0) + 1, error);
      return undefined;
    } finally {
      part.end();
    }
  }

  /**
   * Reads records' own pages, starting with `first`: this slot loads the detail pages ready in the
   * queue one after another (up to `details.perCall`, and the characters of one extraction part),
   * then asks for all their records in one call. A page too long to share a call is read alone.
   */
  private async readDetails(slot: PageSlot, first: QueuedPage): Promise<void> {
    const perCall = (typeof this.options.details === 'object' ? this.options.details.perCall : undefined) ?? defaultDetailsPerCall;
    const budget = this.options.maxChunkChars ?? defaultChunkChars;
    const group: { page: QueuedPage; attempt: number; started: number; text: DetailPageText }[] = [];
    let chars = 0;
    for (let page: QueuedPage | undefined = first; page !== undefined; page = group.length < perCall && chars < budget ? await this.takeDetail() : undefined) {
      const attempt = (page.attempts ?? 0) + 1;
      const started = Date.now();
      this.emit('collect-page-start', { url: page.url, batch: page.batch, attempt });
      const loaded = page;
      if (perCall === 1) {
        // Each page alone: loaded and read by the extraction in one attempt, its text read once.
        const found = await this.attempt([page], async (signal) => {
          await openDetailPage(this.pageStepContext(), slot, loaded, signal);
          return extractDetailAlone(this.pageStepContext(), slot, signal);
        });
        if (found !== undefined) await this.commitDetail(page, attempt, completeRecord(page, found, this.schema), Date.now() - started);
        continue;
      }
      const text = await this.attempt([page], (signal) => loadDetailPage(this.pageStepContext(), slot, loaded, signal));
      if (text === undefined) continue;
      if (text.markdown.length > budget) {
        // Too long to share a call: read again in parts (rare; the text read above is not sent).
        const found = await this.attempt([page], (signal) => extractDetailAlone(this.pageStepContext(), slot, signal));
        if (found !== undefined) await this.commitDetail(page, attempt, completeRecord(page, found, this.schema), Date.now() - started);
        continue;
      }
      // Loaded: while its records are asked for, the host has room for the next page.
      this.frontier.leftHost(page);
      group.push({ page, attempt, started, text });
      chars += text.markdown.length;
    }
    if (group.length === 0) return;
    const pages = group.map((entry) => entry.page);
    const found = await this.attempt(
      pages,
      (signal) => this.extractor.extractDetails({ client: this.extractionLLM, instruction: this.instruction, pages: group.map((entry) => entry.text), signal }),
      `the records of ${pages.length} record page${pages.length === 1 ? '' : 's'}`,
    );
    if (found === undefined) return;
    for (const [index, entry] of group.entries()) {
      await this.commitDetail(entry.page, entry.attempt, completeRecord(entry.page, found[index] ?? [], this.schema), Date.now() - entry.started);
    }
  }

  /** A record's own page ready in the queue now, for the call being gathered; undefined when none is, or the run should not start more. */
  private async takeDetail(): Promise<QueuedPage | undefined> {
    await this.control.checkpoint();
    if (this.control.cancelled || this.pendingCheck || this.stopping || this.failure) return undefined;
    if (this.options.maxPages !== undefined && this.pagesStarted >= this.options.maxPages) return undefined;
    const taken = this.frontier.take(Date.now(), (page) => page.kind === 'detail');
    if (taken === undefined || !('page' in taken)) return undefined;
    if (!taken.page.attempts && !taken.page.requeued) this.pagesStarted++;
    return taken.page;
  }

  /** An attempt failed: the page is tried again later when the failure may pass and attempts are left, else it failed. */
  private async failAttempt(page: QueuedPage, attempt: number, error: unknown): Promise<void> {
    const verdict = judgeFailure(error);
    const message = this.secrets.redact(toErrorInfo(error).message);
    const tried: QueuedPage = { ...page, attempts: attempt, lastError: message };
    if (verdict.transient && attempt < this.retry.attempts) {
      // It may pass: the page goes back to the queue until its backoff (or the server's Retry-After) is over.
      const delayMs = retryDelayMs(attempt, this.retry, verdict.retryAfterMs);
      const now = Date.now();
      // The server's Retry-After holds its whole host, no longer than the longest wait of `retry`.
      const holdMs = verdict.retryAfterMs === undefined ? undefined : Math.min(verdict.retryAfterMs, this.retry.maxDelayMs);
      this.frontier.retryLater(page, tried, now + delayMs, holdMs === undefined ? undefined : now + holdMs);
      this.counters.retries++;
      this.emit('collect-retry', { url: page.url, batch: page.batch, attempt, delayMs, error: toErrorInfo(error) });
      this.notify();
      return;
    }
    await this.commitFailure(tried, error);
  }

  /** Whether a page reached by the pager's click gave records, all of them read before. */
  private pagerStood(page: QueuedPage, read: PageRead<TRecord>): boolean {
    if (!page.url.includes('#plannav-') || read.records.length === 0) return false;
    return read.records.every((record) => this.seenKeys.has(this.secrets.redact(this.keyOf(record))));
  }

  private pageStepContext(): PageStepContext<TRecord> {
    return {
      instruction: this.instruction,
      interactionSteps: this.options.interactionSteps,
      maxLoadMore: this.options.maxLoadMore,
      modelRetry: this.options.modelRetry,
      prices: this.options.prices,
      urlPolicy: this.urlPolicy,
      secrets: this.secrets,
      registry: this.registry,
      extractor: this.extractor,
      navigatorLLM: this.navigatorLLM,
      extractionLLM: this.extractionLLM,
      navigatorObserver: this.observer('navigator'),
      onInteractionCall: (call) => this.addUsage('navigator', call),
      checkpoint: () => this.control.checkpoint(),
      warn: (code, message) => this.emit('collect-warning', { code, message }),
      plans: this.plans,
    };
  }

  /** Reads one page with the page step, in the run's current instruction. */
  private readPage(slot: PageSlot, page: QueuedPage, signal: AbortSignal, there: boolean): Promise<PageRead<TRecord>> {
    return readPage(this.pageStepContext(), slot, page, signal, there);
  }

  private batchOf(name: string): { failures: number; abandoned: boolean } {
    let batch = this.batches.get(name);
    if (!batch) {
      batch = { failures: 0, abandoned: false };
      this.batches.set(name, batch);
    }
    return batch;
  }

  /** Keeps the records whose key is new, in order; returns them and how many were duplicates. */
  private keep(records: readonly TRecord[], source: string): { kept: CollectedRecord<TRecord>[]; duplicates: number } {
    const kept: CollectedRecord<TRecord>[] = [];
    let duplicates = 0;
    const collectedAt = new Date().toISOString();
    const { maxRecords } = this.options;
    for (const raw of records) {
      if (maxRecords !== undefined && this.counters.records + kept.length >= maxRecords) break;
      // Keys and records are redacted: no secret value reaches the store, a listener or the check.
      const key = this.secrets.redact(this.keyOf(raw));
      if (this.seenKeys.has(key)) {
        duplicates++;
        continue;
      }
      this.seenKeys.add(key);
      kept.push({ data: this.secrets.redactDeep(raw), source, collectedAt, key });
    }
    for (const record of kept) {
      this.sample.push(record.data);
      if (this.sample.length > sampleSize) this.sample.shift();
    }
    return { kept, duplicates };
  }

  private rejectRecord(data: unknown, reason: string, source: string, detail?: string): RejectedRecord {
    return this.secrets.redactDeep({ data, reason, source, detail, rejectedAt: new Date().toISOString() });
  }

  /**
   * Queues a page found on a page: `queued`, `seen` (queued or read before), or `abandoned` (its
   * batch was given up: it is kept, with its outcome in `abandoned`, for a check or a resumed run).
   */
  private enqueueFound(next: QueuedPage, abandoned: PageOutcome[]): 'queued' | 'seen' | 'abandoned' {
    if (this.finished.has(next.url) || this.frontier.hasSeen(next.url) || this.abandonedPages.has(next.url)) return 'seen';
    if (this.batchOf(next.batch).abandoned) {
      this.abandonedPages.set(next.url, next);
      this.counters.pagesAbandoned++;
      const outcome: PageOutcome = { url: next.url, batch: next.batch, status: 'abandoned', records: 0, attempts: 0, way: next.way };
      this.pages.set(next.url, outcome);
      abandoned.push(outcome);
      return 'abandoned';
    }
    return this.frontier.enqueue(next) ? 'queued' : 'seen';
  }

  private async commitPage(page: QueuedPage, attempts: number, read: PageRead<TRecord>, durationMs: number): Promise<string | undefined> {
    const { kept, duplicates } = this.keep(read.records, page.url);
    const rejects: RejectedRecord[] = [];
    let detailsQueued = 0;
    const abandonedOutcomes: PageOutcome[] = [];
    const details = this.options.details;
    for (const item of read.rejected) {
      const own = details ? this.ownPage(item.data, page.url, read.rejected) : undefined;
      if (own !== undefined && URL.canParse(own, page.url)) {
        const url = normalizePageUrl(new URL(own, page.url).href);
        const detail: QueuedPage = {
          url,
          batch: `details:${new URL(url).host}`,
          depth: page.depth + 1,
          kind: 'detail',
          partial: this.secrets.redactDeep(item.data as Record<string, unknown>),
          listedOn: page.url,
        };
        const decision = this.urlPolicy.check(url);
        const queued = decision.allowed ? this.enqueueFound(detail, abandonedOutcomes) : undefined;
        if (queued === 'queued') detailsQueued++;
        // The same own page from another listing: the record was listed twice.
        else if (queued === 'seen') this.counters.duplicates++;
        else if (queued === undefined)
          rejects.push(this.rejectRecord(item.data, `${item.reason}; its own page ${url} may not be loaded: ${decision.reason}`, page.url));
        continue;
      }
      rejects.push(this.rejectRecord(item.data, item.reason, page.url));
    }
    this.frontier.release(page);
    this.finished.add(page.url);
    this.failedPages.delete(page.url);
    const batch = this.batchOf(page.batch);
    batch.failures = 0;
    let enqueued = detailsQueued;
    for (const found of read.found) {
      if (this.enqueueFound(this.foundPage(page, found), abandonedOutcomes) === 'queued') enqueued++;
    }
    let continuation: string | undefined;
    if (read.continuation) {
      const next = this.foundPage(page, read.continuation);
      if (this.enqueueFound(next, abandonedOutcomes) === 'queued') {
        enqueued++;
        continuation = next.url;
      }
    }
    await this.finishPage(page, {
      kept,
      duplicates,
      rejects,
      abandoned: abandonedOutcomes,
      attempts,
      durationMs,
      enqueued,
      loadMore: read.loadMore,
      interaction: read.interaction,
      surveys: read.surveys,
    });
    return continuation;
  }

  /**
   * The address of a record's own page: the `details.url` option's answer (a throw reads as none),
   * or the record's field that links to a page of the site, preferring a field named like a link
   * and a value no other record of the page shares (a seller's or a category's page is not the record's).
   */
  private ownPage(record: unknown, pageUrl: string, rejected: readonly { readonly data: unknown }[]): string | undefined {
    const details = this.options.details;
    if (typeof details === 'object' && details.url) {
      try {
        return details.url(record);
      } catch (error) {
        this.emit('collect-warning', { code: 'DETAILS_URL_FAILED', message: `details.url threw: ${describeThrown(error)}` });
        return undefined;
      }
    }
    return ownPageOf(record, pageUrl, rejected);
  }

  /** A page found on `page` as the queue holds it: a sub-listing starts a batch of its own. */
  private foundPage(page: QueuedPage, found: FoundPage): QueuedPage {
    const batch = found.listing ? `listing:${found.url}` : page.batch;
    if (found.listing && !this.batches.has(batch)) this.batches.set(batch, { failures: 0, abandoned: false });
    return { url: found.url, batch, depth: page.depth + 1, way: found.way };
  }

  private async commitDetail(page: QueuedPage, attempts: number, read: DetailRead<TRecord>, durationMs: number): Promise<void> {
    const source = page.listedOn ?? page.url;
    const { kept, duplicates } = read.record === undefined ? { kept: [], duplicates: 0 } : this.keep([read.record], source);
    const rejects = read.rejected ? [this.rejectRecord(read.rejected.data, read.rejected.reason, source, page.url)] : [];
    this.frontier.release(page);
    this.finished.add(page.url);
    this.failedPages.delete(page.url);
    this.batchOf(page.batch).failures = 0;
    this.counters.detailPages++;
    await this.finishPage(page, {
      kept,
      duplicates,
      rejects,
      abandoned: [],
      attempts,
      durationMs,
      enqueued: 0,
      loadMore: 0,
      interaction: undefined,
      surveys: 0,
    });
  }

  /** Counts a page read to the end, commits it with its records and rejects, and tells the listeners. */
  private async finishPage(
    page: QueuedPage,
    done: {
      readonly kept: readonly CollectedRecord<TRecord>[];
      readonly duplicates: number;
      readonly rejects: readonly RejectedRecord[];
      readonly abandoned: readonly PageOutcome[];
      readonly attempts: number;
      readonly durationMs: number;
      readonly enqueued: number;
      readonly loadMore: number;
      readonly interaction: string | undefined;
      readonly surveys: number;
    },
  ): Promise<void> {
    const { kept, rejects } = done;
    const counters = this.counters;
    counters.pagesDone++;
    if (kept.length === 0) counters.pagesEmpty++;
    counters.records += kept.length;
    counters.duplicates += done.duplicates;
    counters.invalid += rejects.length;
    counters.rejected += rejects.length;
    if (this.options.maxRecords !== undefined && counters.records >= this.options.maxRecords) this.stopping ??= { reason: 'max-records', message: undefined };
    const outcome: PageOutcome = { url: page.url, batch: page.batch, status: 'done', records: kept.length, attempts: done.attempts, way: page.way };
    this.pages.set(page.url, outcome);
    const commit = this.persist({ records: kept, page: outcome, rejects, abandoned: done.abandoned });
    this.scheduleCheck(page);
    this.notify();
    await commit;
    this.publish(kept, rejects);
    this.emit('collect-page', {
      url: page.url,
      batch: page.batch,
      records: kept.length,
      duplicates: done.duplicates,
      invalid: rejects.length,
      enqueued: done.enqueued,
      loadMore: done.loadMore,
      interaction: done.interaction,
      durationMs: done.durationMs,
      attempts: done.attempts,
      surveys: done.surveys,
    });
  }

  private publish(kept: readonly CollectedRecord<TRecord>[], rejects: readonly RejectedRecord[]): void {
    for (const record of kept) {
      this.emit('collect-record', { record });
      for (const stream of this.streams) stream.push(record);
    }
    for (const reject of rejects) {
      this.emit('collect-reject', { reject });
      for (const stream of this.rejectStreams) stream.push(reject);
    }
  }

  private async commitFailure(page: QueuedPage, error: unknown): Promise<void> {
    const info = toErrorInfo(error);
    this.frontier.release(page);
    this.finished.add(page.url);
    this.failedPages.set(page.url, page);
    const batch = this.batchOf(page.batch);
    batch.failures++;
    this.counters.pagesFailed++;
    const abandonedOutcomes: PageOutcome[] = [];
    let abandoned = false;
    if (batch.failures >= this.options.maxFailures && !batch.abandoned) {
      // The batch's source looks broken: its queued pages are given up (kept, for a check or a resumed run to queue again), other batches go on.
      batch.abandoned = true;
      abandoned = true;
      for (const dropped of this.frontier.dropBatch(page.batch)) {
        this.abandonedPages.set(dropped.url, dropped);
        const outcome: PageOutcome = {
          url: dropped.url,
          batch: dropped.batch,
          status: 'abandoned',
          records: 0,
          attempts: dropped.attempts ?? 0,
          way: dropped.way,
        };
        this.pages.set(dropped.url, outcome);
        abandonedOutcomes.push(outcome);
      }
      this.counters.pagesAbandoned += abandonedOutcomes.length;
    }
    const message = this.secrets.redact(info.message);
    this.recentFailures.push({ url: page.url, error: message });
    if (this.recentFailures.length > recentFailureCount) this.recentFailures.shift();
    const rejects: RejectedRecord[] = [];
    if (page.kind === 'detail' && page.partial) {
      // The record's own page could not be read: the record stays incomplete, kept with the reason.
      rejects.push(
        this.rejectRecord(page.partial, `its own page failed after ${page.attempts ?? 1} attempt(s): ${message}`, page.listedOn ?? page.url, page.url),
      );
      this.counters.invalid++;
      this.counters.rejected++;
    }
    const outcome: PageOutcome = {
      url: page.url,
      batch: page.batch,
      status: 'failed',
      records: 0,
      attempts: page.attempts ?? 1,
      error: message,
      way: page.way,
    };
    this.pages.set(page.url, outcome);
    const commit = this.persist({ records: [], page: outcome, abandoned: abandonedOutcomes, rejects });
    this.scheduleCheck(page);
    this.notify();
    await commit;
    this.publish([], rejects);
    this.emit('collect-failure', {
      url: page.url,
      batch: page.batch,
      error: info,
      consecutiveFailures: batch.failures,
      abandoned,
      dropped: abandonedOutcomes.length,
      attempts: page.attempts ?? 1,
    });
  }

  /**
   * Starts the progress check when `checkEvery` more listing pages finished (records' own pages,
   * read to complete records, do not count), unless the run is ending anyway.
   */
  private scheduleCheck(page: QueuedPage): void {
    if (page.kind !== 'detail') this.listingPagesSinceCheck++;
    const finished = this.counters.pagesDone + this.counters.pagesFailed;
    if (this.listingPagesSinceCheck < this.options.checkEvery || this.stopping || this.failure || this.pendingCheck) return;
    if (this.frontier.queuedCount === 0 && this.frontier.inFlightCount === 0) return;
    if (this.options.maxPages !== undefined && this.pagesStarted >= this.options.maxPages) return;
    this.listingPagesSinceCheck = 0;
    const check = this.runCheck(finished).finally(() => {
      if (this.pendingCheck === check) this.pendingCheck = undefined;
      this.notify();
    });
    this.pendingCheck = check;
  }

  /** Never rejects: a check that fails is a warning and the run goes on (a fatal model error ends it). */
  private async runCheck(finished: number): Promise<void> {
    try {
      const decision = await checkProgress({
        client: this.plannerLLM,
        summary: {
          instruction: this.instruction,
          counters: this.counters,
          pagesFinished: finished,
          sample: this.sample,
          recentFailures: this.recentFailures,
          queued: this.frontier.queued(),
          givenUp: { failed: this.failedPages.size, abandoned: this.abandonedPages.size },
        },
        signal: this.control.signal,
        retry: this.options.modelRetry,
        observer: this.observer('planner'),
      });
      const record: CollectionCheckRecord = this.secrets.redactDeep({
        pages: finished,
        decision: decision.decision,
        reason: decision.reason,
        instruction: decision.instruction,
        retried: decision.retryGivenUp ? this.requeueGivenUp({ failed: true, abandoned: true }, true) : undefined,
        timestamp: Date.now(),
      });
      this.checks.push(record);
      if (record.decision === 'adjust' && record.instruction) this.instruction = record.instruction;
      if (record.decision === 'stop') this.stopping ??= { reason: 'stopped', message: record.reason };
      this.emit('collect-check', record);
      await this.persist({ records: [] });
    } catch (error) {
      if (this.control.cancelled) return;
      if (isFatalError(error)) {
        this.failRun(toPlannavError(error));
        return;
      }
      this.emit('collect-warning', { code: 'CHECK_FAILED', message: `The progress check failed; the collection goes on: ${describeThrown(error)}` });
    }
  }

  private addUsage(
    role: 'planner' | 'navigator' | 'extraction',
    call: { provider: string; model: string; usage: TokenUsage; durationMs: number; error?: PlannavError | undefined },
  ): void {
    const usage = priceUsage(call.usage, this.options.prices?.[call.model]);
    this.usage = addUsage(this.usage, usage);
    this.emit('collect-model-call', {
      role,
      provider: call.provider,
      model: call.model,
      usage,
      durationMs: call.durationMs,
      error: call.error ? toErrorInfo(call.error) : undefined,
    });
  }

  private observer(role: 'planner' | 'navigator'): ModelCallObserver {
    return {
      onCallEnd: (_attempt, outcome, client) =>
        this.addUsage(role, { provider: client.provider, model: client.model, usage: outcome.usage, durationMs: outcome.durationMs, error: outcome.error }),
    };
  }

  private linkSignal(signal: AbortSignal | undefined): () => void {
    if (!signal) return () => undefined;
    const onAbort = (): void => this.cancel('Cancelled by the caller\u2019s signal.');
    if (signal.aborted) {
      onAbort();
      return () => undefined;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    return () => signal.removeEventListener('abort', onAbort);
  }

  private emit<K extends CollectorEventName>(name: K, payload: Omit<CollectorEventMap<TRecord>[K], keyof CollectorEventBase>): void {
    const base: CollectorEventBase = { collectionId: this.collectionId, timestamp: Date.now() };
    this.hub.emit(name, this.secrets.redactDeep({ ...base, ...payload }));
  }
}

function toPlannavError(error: unknown): PlannavError {
  if (PlannavError.isInstance(error)) return error;
  return new PlannavError('UNEXPECTED_ERROR', `The collection failed unexpectedly: ${describeThrown(error)}`, { cause: error });
}

/**
 * Starts a collection and returns its {@link Collector}: read `collector.records()` as they come,
 * or await `collector.run()` for the summary (the same run).
 * @example
 * ```ts
 * const collector = collect({ llm, browser, start: 'https://shop.example/mugs', instruction: 'every mug: name, price', schema: Mug });
 * for await (const { data } of collector.records()) console.log(data.name);
 * console.log(await collector.run());
 * ```
 * @public
 */
export function collect<TRecord>(options: CollectOptions<TRecord>): Collector<TRecord> {
  const collector = new Collector(options);
  void collector.run().catch(() => undefined);
  return collector;
}
