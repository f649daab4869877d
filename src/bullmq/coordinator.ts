// The coordinator of a BullMQ collection: enqueues pages as jobs, commits each page's result once
// (Redis, atomically), runs the progress checks and the failure budget. It reads no page itself.

import type { Job } from 'bullmq';
import { askProgressCheck, CollectionEngine } from '../collect/collection-engine';
import { CollectionOutput } from '../collect/collection-output';
import type { CollectionSummary, CollectorEventName, CollectorListener } from '../collect/events';
import { sortRejected } from '../collect/own-page';
import type { FoundPage } from '../collect/page-step';
import type { CollectedRecord, CollectionCheckRecord, QueuedPage, RejectedRecord } from '../collect/store';
import type { ErrorInfo } from '../events';
import { PlannavError } from '../errors';
import { toErrorInfo } from '../history/error-info';
import { addUsage, emptyUsage, priceUsage, type TokenUsage } from '../llm/usage';
import { sleep } from '../util/abort';
import { describeThrown } from '../util/describe-thrown';
import { setUp, type CollectionCoordinatorOptions, type CoordinatorSetup } from './coordinator-options';
import { JobQueue, parseEntries } from './job-queue';
import { commitPageResult } from './redis-scripts';
import { pageJobId } from './protocol';
import type { CommittedCheck, CommittedOutcome, CommittedPageOutcome, PageJobData, PageJobResult, RunSettings } from './protocol';

export type { CollectionCoordinatorOptions } from './coordinator-options';

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

/** How many of the latest records the progress check sees. */
const sampleSize = 5;

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
  const run = new CoordinatorRun(setUp(options));
  const coordinator: CollectionCoordinator<TRecord> = {
    run: () => run.run(),
    records: () => run.records(),
    on(event, listener) {
      run.output.on(event, listener);
      return coordinator;
    },
    off(event, listener) {
      run.output.off(event, listener);
      return coordinator;
    },
    pages: () => run.jobs.pages(),
    pause: () => run.pause(),
    resume: () => run.resume(),
    cancel: (reason) => run.cancel(reason),
    close: () => run.close(),
    [Symbol.asyncDispose]: () => run.close(),
  };
  return coordinator;
}

/** One coordinator's run: the engine decides, this holds the BullMQ queue and the Redis state. */
class CoordinatorRun<TRecord> {
  readonly output: CollectionOutput<TRecord>;
  private readonly engine: CollectionEngine;
  readonly jobs: JobQueue;
  private readonly runController = new AbortController();
  private cancelled: string | undefined;
  private running: Promise<CollectionSummary> | undefined;
  private closing: Promise<void> | undefined;
  private active = false;
  private wake: (() => void) | undefined;
  /** When the coordinator last made sure Redis still holds the run; 0: at the next idle look. */
  private stateCheckedAt = Date.now();

  constructor(private readonly setup: CoordinatorSetup<TRecord>) {
    const { resolved, connection, name } = setup;
    // A resumed run keeps the id it started with (read from Redis at its start).
    this.output = new CollectionOutput<TRecord>(globalThis.crypto.randomUUID(), { warnListenerErrors: false });
    const { instruction, maxFailures, checkEvery, maxRecords } = resolved;
    this.engine = new CollectionEngine({ instruction, maxFailures, checkEvery, maxRecords, sampleSize, counters: { retries: false } });
    this.jobs = new JobQueue(name, connection, resolved.maxPages, this.engine, {
      warn: (code, message) => this.output.warn(code, message),
      abandoned: (outcome) => this.apply(outcome),
      reconnected: () => {
        this.stateCheckedAt = 0;
        this.wake?.();
      },
    });
  }

  run(): Promise<CollectionSummary> {
    return (this.running ??= this.execute());
  }

  records(): AsyncIterableIterator<CollectedRecord<TRecord>> {
    const stream = this.output.records(this.running !== undefined && !this.active);
    void this.run();
    return stream;
  }

  pause(): void {
    if (!this.active || this.cancelled || this.jobs.pausedByCaller) return;
    this.jobs.pausedByCaller = true;
    this.output.emit('collect-pause', {});
    this.jobs.syncQueue().catch((error: unknown) => this.output.warn('PAUSE_FAILED', `The queue could not be paused: ${describeThrown(error)}`));
  }

  resume(): void {
    if (!this.active || !this.jobs.pausedByCaller) return;
    this.jobs.pausedByCaller = false;
    this.output.emit('collect-resume', {});
    this.jobs.syncQueue().catch((error: unknown) => this.output.warn('RESUME_FAILED', `The queue could not be resumed: ${describeThrown(error)}`));
  }

  cancel(reason = 'Cancelled by the caller.'): void {
    if (!this.active || this.cancelled) return;
    this.cancelled = reason;
    this.runController.abort(new Error(reason));
    this.output.emit('collect-cancel', { reason });
    this.wake?.();
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.cancel('The coordinator was closed.');
      await this.running?.catch(() => undefined);
      this.output.end();
      await this.jobs.close();
    })();
    return this.closing;
  }

  private async execute(): Promise<CollectionSummary> {
    const startedAt = Date.now();
    this.active = true;
    const { resolved } = this.setup;
    const timer = resolved.timeout === undefined ? undefined : setTimeout(() => this.cancel('timed-out'), resolved.timeout);
    const onAbort = (): void => this.cancel('Cancelled by the caller\u2019s signal.');
    resolved.signal?.addEventListener('abort', onAbort, { once: true });
    let leftWhenCancelled: number | undefined;
    try {
      const resumed = await this.restore();
      for (const seed of this.setup.seeds) {
        this.engine.batch(seed.batch);
        await this.jobs.enqueue({ url: seed.url, batch: seed.batch, depth: 0 });
      }
      this.output.emit('collect-start', { queued: this.jobs.outstanding.size, resumed });
      await this.loop();
      if (this.cancelled) {
        // The pages a cancelled run leaves (queued, or in a worker's hands) are read when it is resumed.
        leftWhenCancelled = this.jobs.outstanding.size;
        await this.jobs.dropQueued(undefined);
      }
    } catch (error) {
      if (!this.cancelled)
        this.engine.fail(
          PlannavError.isInstance(error)
            ? error
            : new PlannavError('UNEXPECTED_ERROR', `The collection failed unexpectedly: ${describeThrown(error)}`, { cause: error }),
        );
    } finally {
      clearTimeout(timer);
      resolved.signal?.removeEventListener('abort', onAbort);
    }
    // A run that ended leaves its queue unpaused, for a coordinator that resumes it and for its workers.
    this.jobs.pausedByCaller = false;
    await this.jobs.syncQueue().catch(() => undefined);
    const cancelled = this.cancelled === undefined ? undefined : { timedOut: this.cancelled === 'timed-out', message: this.cancelled };
    const pagesQueued = leftWhenCancelled ?? this.jobs.outstanding.size;
    const summary = this.engine.summary({ cancelled, maxPages: this.jobs.pagesSkipped, pagesQueued, durationMs: Date.now() - startedAt });
    this.active = false;
    this.output.emit('collect-end', { summary });
    this.output.end();
    return summary;
  }

  /** Commits finished pages until none is outstanding, the run is cancelled or it failed. */
  private async loop(): Promise<void> {
    while (this.jobs.outstanding.size > 0 && !this.cancelled && !this.engine.failure) {
      // Pages in flight when a check said stop still end and are committed, as in the Collector.
      if (this.engine.stopping) await this.jobs.dropQueued(undefined);
      if ((await this.collectFinished()) > 0) continue;
      if (Date.now() - this.stateCheckedAt >= stateCheckInterval) {
        this.stateCheckedAt = Date.now();
        // Without its run key Redis restarted empty or was flushed: the run cannot go on.
        if (!(await this.jobs.checkState())) {
          this.engine.fail(lostStateError(this.setup.name, 'its run key is gone'));
          break;
        }
      }
      await Promise.race([sleep(this.setup.pollInterval), new Promise<void>((resolve) => (this.wake = resolve))]);
    }
  }

  private settings(): RunSettings {
    const { resolved, retry } = this.setup;
    return {
      instruction: this.engine.instruction,
      interactionSteps: resolved.interactionSteps,
      maxLoadMore: resolved.maxLoadMore,
      pageTimeout: resolved.pageTimeout,
      maxChunkChars: resolved.maxChunkChars,
      modelRetry: resolved.modelRetry,
      urlPolicy: { allow: resolved.urlPolicy.allow, deny: resolved.urlPolicy.deny },
      retry,
      perHost: { maxConcurrent: resolved.perHost?.maxConcurrent, delayMs: resolved.perHost?.delayMs ?? 0 },
      details: Boolean(resolved.details),
    };
  }

  /** Reports one model call as a `collect-model-call`; returns its usage, priced. */
  private reportModelCall(
    role: 'planner' | 'navigator' | 'extraction',
    call: { provider: string; model: string; usage: TokenUsage; durationMs: number; error: ErrorInfo | undefined },
  ): TokenUsage {
    const usage = priceUsage(call.usage, this.setup.resolved.prices?.[call.model]);
    this.output.emit('collect-model-call', { role, provider: call.provider, model: call.model, usage, durationMs: call.durationMs, error: call.error });
    return usage;
  }

  /**
   * Adds one committed outcome to the run's state: at its commit, and for each earlier one when a
   * coordinator resumes, so both count alike. Returns whether it gave up its batch.
   */
  private apply(outcome: CommittedOutcome): boolean {
    this.engine.addUsage(outcome.usage);
    this.engine.batch(outcome.batch);
    const { url, batch, kind, records, duplicates, invalid } = outcome;
    const rejected = outcome.rejected ?? 0;
    if (outcome.status === 'abandoned') this.engine.pagesAbandoned(1);
    else if (outcome.status === 'done') this.engine.pageDone({ batch, kind, records, duplicates, invalid, rejected });
    else return this.engine.pageFailed({ url, batch, kind, error: outcome.error ?? '', invalid, rejected }).abandoned;
    return false;
  }

  /**
   * What a page's result rejects, as the Collector does: of a listing page, each record the schema
   * rejected, unless `details` finds its own page (of the same site, allowed by the URL policy), which
   * is then returned to be enqueued; of a record's own page, the record it could not complete, or, when
   * the page failed, the record as its listing gave it, with why.
   */
  private rejectsOf(page: QueuedPage, result: PageJobResult<TRecord>): { rejects: RejectedRecord[]; ownPages: QueuedPage[] } {
    const rejectedAt = new Date().toISOString();
    const reject = (data: unknown, reason: string, source: string, detail?: string): RejectedRecord =>
      detail === undefined ? { data, reason, source, rejectedAt } : { data, reason, source, detail, rejectedAt };
    if (page.kind === 'detail') {
      const source = page.listedOn ?? page.url;
      if (result.status === 'failed') {
        const reason = `its own page failed after ${result.attempts} attempt(s): ${result.error.message}`;
        return { rejects: page.partial ? [reject(page.partial, reason, source, page.url)] : [], ownPages: [] };
      }
      return { rejects: (result.rejected ?? []).map((item) => reject(item.data, item.reason, source, page.url)), ownPages: [] };
    }
    if (result.status === 'failed') return { rejects: [], ownPages: [] };
    const sorted = sortRejected(page, result.rejected ?? [], {
      details: this.setup.resolved.details ? (this.setup.details ?? true) : undefined,
      urlPolicy: this.setup.urlPolicy,
      // What a worker sends is checked here, as a found page is: another site's page, or one the policy denies, is never queued.
      sameSite: true,
      partial: (data) => (typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {}),
      warn: (code, message) => this.output.warn(code, message),
    });
    return {
      rejects: sorted.filter((item) => !item.own).map((item) => reject(item.data, item.reason, page.url)),
      ownPages: sorted.flatMap((item) => (item.own ? [item.own] : [])),
    };
  }

  /**
   * Commits a finished page; returns false if it was committed before (by a coordinator that died
   * before removing its job). Its next pages are enqueued either way: that coordinator may have died
   * before it did.
   */
  private async commit(job: Job<PageJobData, PageJobResult<TRecord>>, result: PageJobResult<TRecord>): Promise<boolean> {
    const page = job.data;
    const jobId = job.id as string;
    const { resolved } = this.setup;
    const detail = page.kind === 'detail';
    const usage = addUsage(emptyUsage, ...result.modelCalls.map((call) => priceUsage(call.usage, resolved.prices?.[call.model])));
    const collectedAt = new Date().toISOString();
    // A record completed from its own page is the listing's: its source is the page it was listed on.
    const source = detail ? (page.listedOn ?? page.url) : page.url;
    const candidates = result.status === 'done' ? result.records.map((data) => ({ data, source, collectedAt, key: this.setup.keyOf(data) })) : [];
    const { rejects, ownPages } = this.rejectsOf(page, result);
    // A worker of an older version sends no `rejected`: its `invalid` counts them.
    const invalid = result.status === 'done' && result.rejected === undefined ? result.invalid : rejects.length;
    const { url, batch } = page;
    const { attempts } = result;
    const [rejected, kind] = [rejects.length, detail ? ('detail' as const) : undefined];
    const outcome =
      result.status === 'done'
        ? { url, batch, status: 'done' as const, attempts, invalid, rejected, kind, usage }
        : { url, batch, status: 'failed' as const, attempts, error: result.error.message, invalid, rejected, kind, usage };
    const reply = await commitPageResult(this.jobs.redis, this.jobs.keys, {
      jobId,
      outcome,
      candidates,
      rejects,
      ownPages,
      recordLimit: resolved.maxRecords === undefined ? -1 : this.engine.recordsLeft(),
      pageLimit: resolved.maxPages === undefined ? -1 : Math.max(0, resolved.maxPages - this.jobs.enqueuedTotal),
    });
    this.jobs.outstanding.delete(jobId);
    // The records' own pages the commit enqueued; a coordinator that dies before adding their jobs leaves them to the next one (see restore).
    this.jobs.enqueuedTotal += reply.queuedOwn.length;
    if (reply.skipped) await this.jobs.skipPages();
    for (const own of reply.queuedOwn) {
      if (this.engine.batch(own.batch).abandoned) await this.jobs.abandon(pageJobId(own.url), own);
      else if (!this.engine.stopping && !this.cancelled) await this.jobs.addJob(pageJobId(own.url), own);
    }
    if (reply.fresh) for (const call of result.modelCalls) this.reportModelCall(call.role, call);
    const abandoned = reply.fresh && this.apply({ ...outcome, records: reply.kept.length, duplicates: reply.duplicates });
    if (result.status === 'failed') {
      if (!reply.fresh) return false;
      const { failures } = this.engine.batch(page.batch);
      const dropped = abandoned ? await this.jobs.dropQueued(page.batch) : 0;
      this.output.publish([], rejects);
      this.output.emit('collect-failure', { url: page.url, batch: page.batch, error: result.error, consecutiveFailures: failures, abandoned, dropped });
      return true;
    }
    const enqueued = reply.queuedOwn.length + (await this.enqueueFound(page, result.found ?? result.links.map((url): FoundPage => ({ url }))));
    if (!reply.fresh) return false;
    for (const record of reply.kept) this.engine.keepSample(record.data);
    this.output.publish(reply.kept, rejects);
    const { loadMore, interaction, durationMs } = result;
    this.output.emit('collect-page', {
      url: page.url,
      batch: page.batch,
      records: reply.kept.length,
      duplicates: reply.duplicates,
      invalid,
      enqueued,
      loadMore,
      interaction,
      durationMs,
    });
    return true;
  }

  /** Enqueues the pages a worker found on `page`; returns how many were new. */
  private async enqueueFound(page: QueuedPage, found: readonly FoundPage[]): Promise<number> {
    if (this.engine.batch(page.batch).abandoned || this.engine.stopping || this.cancelled) return 0;
    let enqueued = 0;
    for (const next of found) {
      // What a worker sends is checked again: a page of another site, or one the policy denies, is never queued.
      if (!URL.canParse(next.url) || new URL(next.url).host !== new URL(page.url).host || !this.setup.urlPolicy.check(next.url).allowed) continue;
      // A sub-listing (a category) is a batch of its own; a page reached by a script pager carries the way there.
      const batch = next.listing ? `listing:${next.url}` : page.batch;
      if (await this.jobs.enqueue({ url: next.url, batch, depth: page.depth + 1, way: next.way })) enqueued++;
    }
    return enqueued;
  }

  /** The progress check; workers take no new page while it runs. Never rejects: a failed check is a warning (a fatal model error ends the run). */
  private async runCheck(finished: number): Promise<void> {
    this.jobs.checking = true;
    await this.jobs.syncQueue();
    let checkUsage = emptyUsage;
    try {
      const record: CollectionCheckRecord = await askProgressCheck(this.engine, {
        client: this.setup.plannerLLM,
        signal: this.runController.signal,
        retry: this.setup.resolved.modelRetry,
        observer: {
          onCallEnd: (_attempt, outcome, client) => {
            const { provider, model } = client;
            const error = outcome.error ? toErrorInfo(outcome.error) : undefined;
            const priced = this.reportModelCall('planner', { provider, model, usage: outcome.usage, durationMs: outcome.durationMs, error });
            this.engine.addUsage(priced);
            checkUsage = addUsage(checkUsage, priced);
          },
        },
        pagesFinished: finished,
        queued: [...this.jobs.outstanding.values()],
      });
      // The check and the instruction it leaves in force, together: a resumed run sees both or neither.
      const stored: CommittedCheck = { ...record, usage: checkUsage };
      await this.jobs.redis.multi().set(this.jobs.keys.settings, JSON.stringify(this.settings())).rpush(this.jobs.keys.checks, JSON.stringify(stored)).exec();
      // Before the queue resumes, or a worker would start a waiting page.
      if (this.engine.stopping) await this.jobs.dropQueued(undefined);
      this.output.emit('collect-check', record);
    } catch (error) {
      if (this.engine.checkFailed(error) === 'warning')
        this.output.warn('CHECK_FAILED', `The progress check failed; the collection goes on: ${describeThrown(error)}`);
    } finally {
      this.jobs.checking = false;
      await this.jobs.syncQueue();
    }
  }

  /** Commits every finished page found in Redis; returns how many. */
  private async collectFinished(): Promise<number> {
    let handled = 0;
    // Oldest first: the order pages finished in is the order of their records, and of a batch's failures in a row.
    const finishedJobs = (await this.jobs.queue.getJobs(['completed', 'failed'], 0, 99, true)).sort(
      (first, second) => (first?.finishedOn ?? 0) - (second?.finishedOn ?? 0),
    );
    for (const job of finishedJobs) {
      if (!job?.id) continue;
      const data = job.data as PageJobData;
      const result: PageJobResult<TRecord> =
        job.failedReason && !job.returnvalue
          ? {
              status: 'failed',
              error: { name: 'Error', code: 'WORKER_FAILED', message: job.failedReason, retryable: false },
              modelCalls: data.earlierModelCalls ?? [],
              durationMs: 0,
              attempts: (data.failedAttempts ?? 0) + 1,
            }
          : (job.returnvalue as PageJobResult<TRecord>);
      const fresh = await this.commit(job as Job<PageJobData, PageJobResult<TRecord>>, result);
      await job.remove().catch(() => undefined);
      handled++;
      if (fresh && data.kind !== 'detail' && this.engine.checkDue() && this.jobs.outstanding.size > 0) await this.runCheck(this.engine.startCheck());
    }
    return handled;
  }

  /**
   * Starts the run, or takes it up from Redis when a coordinator of this `name` ran before: the state
   * is summed again from the committed outcomes and checks, and every page enqueued but not committed
   * is outstanding again. Returns whether the run was resumed.
   */
  private async restore(): Promise<boolean> {
    const { redis, keys } = this.jobs;
    const fresh = (await redis.hsetnx(keys.run, 'collectionId', this.output.collectionId)) === 1;
    if (!fresh) {
      const stored = await redis.get(keys.settings);
      if (stored !== null) this.engine.instruction = (JSON.parse(stored) as RunSettings).instruction;
    }
    // Before any page is enqueued again: a worker reads the settings as it takes a page.
    await redis.set(keys.settings, JSON.stringify(this.settings()));
    if (fresh) return false;
    this.output.collectionId = (await redis.hget(keys.run, 'collectionId')) ?? this.output.collectionId;
    this.jobs.pagesSkipped = (await redis.hget(keys.run, 'pagesSkipped')) === '1';
    for (const outcome of parseEntries<CommittedOutcome>(await redis.xrange(keys.pages, '-', '+'))) this.apply(outcome);
    this.engine.alignChecks();
    for (const check of (await redis.lrange(keys.checks, 0, -1)).map((entry) => JSON.parse(entry) as CommittedCheck)) {
      const { usage, ...record } = check;
      this.engine.addUsage(usage);
      this.engine.restoreCheck(record);
    }
    for (const record of parseEntries<CollectedRecord<TRecord>>(await redis.xrevrange(keys.records, '+', '-', 'COUNT', sampleSize)).reverse())
      this.engine.keepSample(record.data);
    await this.jobs.restoreQueue();
    return true;
  }
}
