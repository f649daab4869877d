// The Collector: the Planner/Navigator loop as a crawler on one machine. Pages are read over a
// pool of browsers, records extracted and de-duplicated, a progress check runs every few pages,
// and every finished page is one atomic commit to a store, so a killed run resumes where it was.

import type { z } from 'zod';
import { BrowserError, ConfigError, isFatalError, PlannavError, TimeoutError } from '../errors';
import { toErrorInfo } from '../history/error-info';
import type { ModelCallObserver } from '../llm/generate-object';
import { priceUsage, type TokenUsage } from '../llm/usage';
import { SecretStore } from '../security/secrets';
import { UrlPolicy } from '../security/url-policy';
import { raceAbort } from '../util/abort';
import { withDeadline } from '../util/deadline';
import { describeThrown } from '../util/describe-thrown';
import { TaskControl } from '../util/task-control';
import { askProgressCheck, CollectionEngine, seedPages, toPlannavError } from './collection-engine';
import { CollectionOutput, newCollectionId, type EventPayload } from './collection-output';
import { readDetails } from './detail-reader';
import { PageStepWiring } from './page-step-wiring';
import { RecordKeeper, type FinishedPage } from './record-keeper';
import type { CollectionSummary, CollectorEventName, CollectorListener } from './events';
import type { ListingPlan } from './listing-plan';
import { LocalQueue } from './local-queue';
import { resolveCollectOptions, type CollectOptions, type ResolvedCollectOptions } from './options';
import { sortRejected } from './own-page';
import { judgeFailure, resolvePageRetry, retryDelayMs, type ResolvedPageRetry } from './page-retry';
import { openPageSlots } from './page-slots';
import { readPage, stableJson, type DetailRead, type FoundPage, type PageRead, type PageSlot } from './page-step';
import {
  memoryCollectionStore,
  type CollectedRecord,
  type CollectionCheckpoint,
  type CollectionCheckRecord,
  type CollectionHistory,
  type CollectionCommit,
  type CollectionStore,
  type PageOutcome,
  type QueuedPage,
  type RejectedRecord,
} from './store';

export type { CollectionHistory } from './store';

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
  private readonly output: CollectionOutput<TRecord>;
  private readonly control = new TaskControl();
  private readonly urlPolicy: UrlPolicy;
  private readonly secrets: SecretStore;
  private readonly store: CollectionStore<TRecord>;
  private readonly retry: ResolvedPageRetry;
  private readonly wiring: PageStepWiring<TRecord>;
  /** The run's state (restored from the store's checkpoint when it holds one) and its queue. */
  private readonly engine: CollectionEngine;
  private readonly queue: LocalQueue;
  private readonly keeper: RecordKeeper<TRecord>;
  private pendingCheck: Promise<void> | undefined;
  private storeChain: Promise<void> = Promise.resolve();
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
    this.urlPolicy = new UrlPolicy({ allow: this.options.urlPolicy.allow, deny: this.options.urlPolicy.deny });
    seedPages(this.options, this.urlPolicy);
    this.secrets = new SecretStore(this.options.secrets);
    this.output = new CollectionOutput(newCollectionId(), { redactDeep: (value) => this.secrets.redactDeep(value), warnListenerErrors: true });
    this.store = (this.options.store as CollectionStore<TRecord> | undefined) ?? memoryCollectionStore<TRecord>();
    const { instruction, maxFailures, checkEvery, maxRecords } = this.options;
    this.engine = new CollectionEngine({ instruction, maxFailures, checkEvery, maxRecords, redactor: this.secrets });
    this.keeper = new RecordKeeper(options.key ?? ((record) => stableJson(record)), this.secrets, this.engine);
    this.queue = new LocalQueue(this.options.perHost, {
      control: this.control,
      engine: this.engine,
      checking: () => this.pendingCheck !== undefined,
      maxPages: this.options.maxPages,
    });
    this.retry = resolvePageRetry(this.options.retry);
    this.wiring = new PageStepWiring(this.options, options.schema, this.urlPolicy, this.secrets, {
      modelCall: (role, call) => this.addUsage(role, call),
      observer: (role) => this.observer(role),
      checkpoint: () => this.control.checkpoint(),
      warn: (code, message) => this.output.warn(code, message),
    });
  }

  /** Listens to an event; returns this. A listener's exception becomes a `LISTENER_ERROR` warning. */
  on<K extends CollectorEventName>(name: K, listener: CollectorListener<K, TRecord>): this {
    this.output.on(name, listener);
    return this;
  }

  /** Listens to the next occurrence of an event only. */
  once<K extends CollectorEventName>(name: K, listener: CollectorListener<K, TRecord>): this {
    this.output.once(name, listener);
    return this;
  }

  /** Stops listening. */
  off<K extends CollectorEventName>(name: K, listener: CollectorListener<K, TRecord>): this {
    this.output.off(name, listener);
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
    const stream = this.output.records(this.running !== undefined && !this.active);
    void this.run().catch(() => undefined);
    return stream;
  }

  /**
   * The records the schema rejected (after their own page, with `details`), each with the reason,
   * from now until the run ends. Starts the run if it has not started.
   */
  rejects(): AsyncIterableIterator<RejectedRecord> {
    const stream = this.output.rejects(this.running !== undefined && !this.active);
    void this.run().catch(() => undefined);
    return stream;
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
    return { checks: [...this.engine.checks], pages: this.queue.pageOutcomes() };
  }

  /** Cancels a running collection and waits for its end; ends the record streams. Idempotent. The browsers given are not closed. */
  async close(): Promise<void> {
    this.closed = true;
    this.cancel('The collector was closed.');
    await this.running?.catch(() => undefined);
    this.output.end();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private async execute(): Promise<CollectionSummary> {
    const startedAt = Date.now();
    this.active = true;
    const cleanups: (() => Promise<void> | void)[] = [];
    const unlink = this.linkSignal(this.options.signal);
    // The one listener for all waiting slots: each wakes up, and its checkpoint throws the cancel.
    const wakeOnCancel = (): void => this.queue.notify();
    this.control.signal.addEventListener('abort', wakeOnCancel, { once: true });
    const timer =
      this.options.timeout === undefined
        ? undefined
        : setTimeout(() => this.control.cancel(new TimeoutError(this.options.timeout as number, 'The collection')), this.options.timeout);
    try {
      const checkpoint = await raceAbort(this.store.load({ signal: this.control.signal }), this.control.signal);
      const resumed = checkpoint !== undefined;
      if (checkpoint) this.restore(checkpoint);
      for (const seed of seedPages(this.options)) {
        this.queue.seed({ url: seed.url, batch: seed.batch, depth: 0 });
        this.engine.batch(seed.batch);
      }
      this.emit('collect-start', { queued: this.queue.frontier.queuedCount, resumed });
      const warn = (code: string, message: string): void => this.output.warn(code, message);
      const slots = await openPageSlots({
        options: this.options,
        urlPolicy: this.urlPolicy,
        secrets: this.secrets,
        signal: this.control.signal,
        warn,
        cleanups,
      });
      await Promise.all(slots.map((slot) => this.work(slot)));
      await this.pendingCheck;
      await this.storeChain;
    } catch (error) {
      if (!this.control.cancelled && !this.engine.failure) this.engine.fail(toPlannavError(error));
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
    this.output.end();
    return summary;
  }

  private summarize(startedAt: number): CollectionSummary {
    const { frontier } = this.queue;
    const reason = this.control.cancelled ? (this.control.signal.reason as PlannavError) : undefined;
    return this.engine.summary({
      cancelled: reason && { timedOut: TimeoutError.isInstance(reason), message: reason.message, error: reason },
      maxPages: this.queue.full && frontier.queuedCount > 0,
      pagesQueued: frontier.queuedCount + frontier.inFlightCount,
      durationMs: Date.now() - startedAt,
    });
  }

  private restore(checkpoint: CollectionCheckpoint): void {
    if (checkpoint.version !== 1 && checkpoint.version !== 2)
      throw new ConfigError(`The store holds a checkpoint of version ${String(checkpoint.version)}; this plannav reads versions 1 and 2.`, { field: 'store' });
    this.queue.restore(checkpoint);
    for (const key of checkpoint.seenKeys) this.keeper.seenKeys.add(key);
    this.engine.restore(checkpoint);
    for (const [template, plan] of Object.entries(checkpoint.templates ?? {})) this.wiring.plans.set(template, plan as ListingPlan);
    const { retryFailed = true, retryAbandoned = true } = this.options.resume;
    this.queue.requeueGivenUp({ failed: retryFailed, abandoned: retryAbandoned });
  }

  private checkpointNow(): CollectionCheckpoint {
    const { counters } = this.engine;
    return {
      version: 2,
      ...this.queue.checkpoint(),
      templates: Object.fromEntries(this.wiring.plans),
      seenKeys: [...this.keeper.seenKeys],
      ...this.engine.snapshot(),
      // Pages in flight are read again by a resumed run: only finished ones count as started.
      pagesStarted: counters.pagesDone + counters.pagesFailed,
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
    this.engine.fail(error);
    this.control.cancel(`The collection failed: ${error.message}`);
  }

  private async work(slot: PageSlot): Promise<void> {
    let carried: QueuedPage | undefined;
    for (;;) {
      // A page the tab already shows (a pager run by script) is read next, without loading it again.
      const page = carried ?? (await this.queue.next());
      if (!page) return;
      if (page.kind === 'detail') {
        carried = undefined;
        await readDetails(this.detailReader(slot), page);
        continue;
      }
      const there = carried !== undefined;
      const continuation = await this.readAndCommit(slot, page, there);
      carried = continuation === undefined ? undefined : await this.queue.continuation(continuation);
    }
  }

  /** Reads a page and commits what it gave, or retries it later, or commits its failure; returns the address of a page the tab went on to. */
  private async readAndCommit(slot: PageSlot, page: QueuedPage, there: boolean): Promise<string | undefined> {
    const attempt = (page.attempts ?? 0) + 1;
    this.emit('collect-page-start', { url: page.url, batch: page.batch, attempt });
    const started = Date.now();
    const read = await this.attempt([page], (signal) => readPage(this.wiring.context(this.engine.instruction), slot, page, signal, there));
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
        for (const page of pages) this.queue.frontier.requeue(page);
        this.queue.notify();
        return undefined;
      }
      for (const page of pages) await this.failAttempt(page, (page.attempts ?? 0) + 1, error);
      return undefined;
    } finally {
      part.end();
    }
  }

  /** What reading records' own pages needs of the Collector. */
  private detailReader(slot: PageSlot): Parameters<typeof readDetails<TRecord>>[0] {
    return {
      slot,
      details: this.options.details,
      maxChunkChars: this.options.maxChunkChars,
      schema: this.schema,
      context: () => this.wiring.context(this.engine.instruction),
      extract: (pages, signal) =>
        this.wiring.extractor.extractDetails({ client: this.wiring.extractionLLM, instruction: this.engine.instruction, pages, signal }),
      next: () => this.queue.detail(),
      started: (page, attempt) => this.emit('collect-page-start', { url: page.url, batch: page.batch, attempt }),
      loaded: (page) => this.queue.frontier.leftHost(page),
      attempt: (pages, step, what) => this.attempt(pages, step, what),
      commit: (page, attempt, read, durationMs) => this.commitDetail(page, attempt, read, durationMs),
    };
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
      this.queue.frontier.retryLater(page, tried, now + delayMs, holdMs === undefined ? undefined : now + holdMs);
      this.engine.retried();
      this.emit('collect-retry', { url: page.url, batch: page.batch, attempt, delayMs, error: toErrorInfo(error) });
      this.queue.notify();
      return;
    }
    await this.commitFailure(tried, error);
  }

  /** Whether a page reached by the pager's click gave records, all of them read before. */
  private pagerStood(page: QueuedPage, read: PageRead<TRecord>): boolean {
    if (!page.url.includes('#plannav-') || read.records.length === 0) return false;
    return this.keeper.allSeen(read.records);
  }

  /** Commits a listing page: its records, its rejects (or their own pages, queued), the pages it found; returns the address of a page the tab went on to. */
  private async commitPage(page: QueuedPage, attempts: number, read: PageRead<TRecord>, durationMs: number): Promise<string | undefined> {
    const { kept, duplicates } = this.keeper.keep(read.records, page.url);
    const rejects: RejectedRecord[] = [];
    const abandoned: PageOutcome[] = [];
    let enqueued = 0;
    let listedTwice = 0;
    const sorted = sortRejected(page, read.rejected, {
      details: this.options.details,
      urlPolicy: this.urlPolicy,
      sameSite: false,
      partial: (data) => this.secrets.redactDeep(data as Record<string, unknown>),
      warn: (code, message) => this.output.warn(code, message),
    });
    for (const item of sorted) {
      const queued = item.own && this.queue.enqueueFound(item.own, abandoned);
      if (queued === undefined) rejects.push(this.keeper.reject(item.data, item.reason, page.url));
      else if (queued === 'queued') enqueued++;
      // The same own page from another listing: the record was listed twice.
      else if (queued === 'seen') listedTwice++;
    }
    for (const found of read.found) if (this.queue.enqueueFound(this.foundPage(page, found), abandoned) === 'queued') enqueued++;
    let continuation: string | undefined;
    if (read.continuation) {
      const next = this.foundPage(page, read.continuation);
      if (this.queue.enqueueFound(next, abandoned) === 'queued') {
        enqueued++;
        continuation = next.url;
      }
    }
    const { loadMore, interaction, surveys } = read;
    await this.finishPage(page, { kept, duplicates, listedTwice, rejects, abandoned, attempts, durationMs, enqueued, loadMore, interaction, surveys });
    return continuation;
  }

  /** A page found on `page` as the queue holds it: a sub-listing starts a batch of its own. */
  private foundPage(page: QueuedPage, found: FoundPage): QueuedPage {
    const batch = found.listing ? `listing:${found.url}` : page.batch;
    if (found.listing) this.engine.batch(batch);
    return { url: found.url, batch, depth: page.depth + 1, way: found.way };
  }

  private async commitDetail(page: QueuedPage, attempts: number, read: DetailRead<TRecord>, durationMs: number): Promise<void> {
    const source = page.listedOn ?? page.url;
    const { kept, duplicates } = read.record === undefined ? { kept: [], duplicates: 0 } : this.keeper.keep([read.record], source);
    const rejects = read.rejected ? [this.keeper.reject(read.rejected.data, read.rejected.reason, source, page.url)] : [];
    const nothing = { listedTwice: 0, abandoned: [], enqueued: 0, loadMore: 0, interaction: undefined, surveys: 0 };
    await this.finishPage(page, { ...nothing, kept, duplicates, rejects, attempts, durationMs });
  }

  /** Counts a page read to the end, commits it with its records and rejects, and tells the listeners. */
  private async finishPage(page: QueuedPage, done: FinishedPage<TRecord>): Promise<void> {
    const { kept, rejects } = done;
    const invalid = rejects.length;
    this.engine.pageDone({
      batch: page.batch,
      kind: page.kind,
      records: kept.length,
      duplicates: done.duplicates + done.listedTwice,
      invalid,
      rejected: invalid,
    });
    const outcome: PageOutcome = { url: page.url, batch: page.batch, status: 'done', records: kept.length, attempts: done.attempts, way: page.way };
    this.queue.finish(page, outcome);
    const commit = this.persist({ records: kept, page: outcome, rejects, abandoned: done.abandoned });
    this.scheduleCheck();
    this.queue.notify();
    await commit;
    this.output.publish(kept, rejects);
    const { duplicates, enqueued, loadMore, interaction, durationMs, attempts, surveys } = done;
    this.emit('collect-page', {
      url: page.url,
      batch: page.batch,
      records: kept.length,
      duplicates,
      invalid,
      enqueued,
      loadMore,
      interaction,
      durationMs,
      attempts,
      surveys,
    });
  }

  private async commitFailure(page: QueuedPage, error: unknown): Promise<void> {
    const info = toErrorInfo(error);
    const message = this.secrets.redact(info.message);
    const attempts = page.attempts ?? 1;
    // A record's own page that could not be read: the record stays incomplete, kept with the reason.
    const rejects =
      page.kind === 'detail' && page.partial
        ? [this.keeper.reject(page.partial, `its own page failed after ${attempts} attempt(s): ${message}`, page.listedOn ?? page.url, page.url)]
        : [];
    const { url, batch, kind, way } = page;
    const { consecutiveFailures, abandoned } = this.engine.pageFailed({ url, batch, kind, error: message, invalid: rejects.length, rejected: rejects.length });
    // The batch's source looks broken: its queued pages are given up (kept, for a check or a resumed run to queue again), other batches go on.
    const dropped = abandoned ? this.queue.dropBatch(batch) : [];
    this.engine.pagesAbandoned(dropped.length);
    const outcome: PageOutcome = { url, batch, status: 'failed', records: 0, attempts, error: message, way };
    this.queue.finish(page, outcome);
    const commit = this.persist({ records: [], page: outcome, abandoned: dropped, rejects });
    this.scheduleCheck();
    this.queue.notify();
    await commit;
    this.output.publish([], rejects);
    this.emit('collect-failure', { url, batch, error: info, consecutiveFailures, abandoned, dropped: dropped.length, attempts });
  }

  /**
   * Starts the progress check when `checkEvery` more listing pages finished (records' own pages,
   * read to complete records, do not count), unless the run is ending anyway.
   */
  private scheduleCheck(): void {
    if (!this.engine.checkDue() || this.pendingCheck || !this.queue.busy || this.queue.full) return;
    const check = this.runCheck(this.engine.startCheck()).finally(() => {
      if (this.pendingCheck === check) this.pendingCheck = undefined;
      this.queue.notify();
    });
    this.pendingCheck = check;
  }

  /** Never rejects: a check that fails is a warning and the run goes on (a fatal model error ends it). */
  private async runCheck(finished: number): Promise<void> {
    try {
      const record: CollectionCheckRecord = await askProgressCheck(this.engine, {
        client: this.wiring.plannerLLM,
        signal: this.control.signal,
        retry: this.options.modelRetry,
        observer: this.observer('planner'),
        pagesFinished: finished,
        queued: this.queue.frontier.queued(),
        givenUp: this.queue.givenUp(),
        requeue: () => this.queue.requeueGivenUp({ failed: true, abandoned: true }, true),
        redactDeep: (value) => this.secrets.redactDeep(value),
      });
      this.emit('collect-check', record);
      await this.persist({ records: [] });
    } catch (error) {
      if (this.control.cancelled) return;
      if (this.engine.checkFailed(error) === 'fatal') this.failRun(toPlannavError(error));
      else this.output.warn('CHECK_FAILED', `The progress check failed; the collection goes on: ${describeThrown(error)}`);
    }
  }

  private addUsage(
    role: 'planner' | 'navigator' | 'extraction',
    call: { provider: string; model: string; usage: TokenUsage; durationMs: number; error?: PlannavError | undefined },
  ): void {
    const usage = priceUsage(call.usage, this.options.prices?.[call.model]);
    this.engine.addUsage(usage);
    const { provider, model, durationMs } = call;
    this.emit('collect-model-call', { role, provider, model, usage, durationMs, error: call.error ? toErrorInfo(call.error) : undefined });
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

  private emit<K extends CollectorEventName>(name: K, payload: EventPayload<K, TRecord>): void {
    this.output.emit(name, payload);
  }
}

/**
 * Starts a collection and returns its {@link Collector} (the public way in is `new Collector(options)`;
 * this starts it at once, for the tests that read `records()` before awaiting `run()`).
 * @internal
 */
export function collect<TRecord>(options: CollectOptions<TRecord>): Collector<TRecord> {
  const collector = new Collector(options);
  void collector.run().catch(() => undefined);
  return collector;
}
