// The state of a collection run that the Collector and the BullMQ coordinator share: batches and
// their failure budget, the counters, the progress check's rhythm and answer, the end reason, and
// the part of a checkpoint they resume from. It holds no queue, browser or Redis: each front has its own.

import { isFatalError, PlannavError, ConfigError } from '../errors';
import { toErrorInfo } from '../history/error-info';
import type { ModelCallObserver, ModelRetryOptions } from '../llm/generate-object';
import type { LLMClient } from '../llm/types';
import { addUsage, emptyUsage, type TokenUsage } from '../llm/usage';
import type { UrlDecision } from '../browser/types';
import { describeThrown } from '../util/describe-thrown';
import type { CollectionEndReason, CollectionSummary } from './events';
import { normalizePageUrl } from './frontier';
import { checkProgress, type ProgressSummary } from './progress-check';
import type { CollectionCheckRecord, CollectionCounters, QueuedPage } from './store';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The counters a run keeps, every one of them. */
export type RunCounters = Mutable<Required<CollectionCounters>>;

/** One batch: the pages of one start URL, one host of `urls`, one sub-listing, or one host's records' own pages. */
export interface BatchState {
  /** Failed pages in a row. */
  failures: number;
  /** Given up after `maxFailures` failures in a row: its queued pages are not read. */
  abandoned: boolean;
}

/** What a run resumes from: the engine's part of a checkpoint. */
export interface EngineSnapshot {
  readonly batches: Readonly<Record<string, { readonly failures: number; readonly abandoned: boolean }>>;
  readonly counters: CollectionCounters;
  readonly instruction: string;
  readonly checks: readonly CollectionCheckRecord[];
  readonly usage: TokenUsage;
}

/** Why no page may start any more, short of a cancel or a failure. */
export interface Stopping {
  readonly reason: 'stopped' | 'max-records';
  readonly message: string | undefined;
}

/** Redacts what reaches the summary (the Collector's secrets); the identity when there are none. */
interface Redactor {
  redact(text: string): string;
  redactDeep<T>(value: T): T;
}

export interface CollectionEngineOptions {
  readonly instruction: string;
  /** Failed pages in a row that give up their batch. */
  readonly maxFailures: number;
  /** Listing pages finished between two progress checks. */
  readonly checkEvery: number;
  readonly maxRecords: number | undefined;
  /** How many of the latest records the progress check sees. @defaultValue 3 */
  readonly sampleSize?: number | undefined;
  /** Counters the front does not keep, left out of the summary (the coordinator's workers retry, not it). */
  readonly counters?: { readonly retries?: boolean | undefined } | undefined;
  readonly redactor?: Redactor | undefined;
}

/** How many failures the progress check is told of. */
const recentFailureCount = 5;

const zeroCounters: RunCounters = {
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

const noRedaction: Redactor = { redact: (text) => text, redactDeep: (value) => value };

/** Any thrown value as a PlannavError: itself, or an `UNEXPECTED_ERROR` that carries it. */
export function toPlannavError(error: unknown): PlannavError {
  if (PlannavError.isInstance(error)) return error;
  return new PlannavError('UNEXPECTED_ERROR', `The collection failed unexpectedly: ${describeThrown(error)}`, { cause: error });
}

/**
 * The run's state and its transitions: a page done, a page failed, pages abandoned, a check due,
 * started and answered, a failure, and the summary at the end. Synchronous and free of I/O.
 */
export class CollectionEngine {
  private readonly options: CollectionEngineOptions;
  private readonly redactor: Redactor;
  private readonly batches = new Map<string, BatchState>();
  private readonly recentFailures: { url: string; error: string }[] = [];
  private readonly sample: unknown[] = [];
  private listingPagesSinceCheck = 0;
  private counterValues: RunCounters = { ...zeroCounters };
  private checkRecords: CollectionCheckRecord[] = [];
  /** The instruction in force: a check may adjust it. */
  instruction: string;
  usage: TokenUsage = emptyUsage;
  /** Set when no new page may start: a check said stop, or `maxRecords` was reached. */
  stopping: Stopping | undefined;
  /** The error that ends the run as `failed`. */
  failure: PlannavError | undefined;

  constructor(options: CollectionEngineOptions) {
    this.options = options;
    this.instruction = options.instruction;
    this.redactor = options.redactor ?? noRedaction;
  }

  get counters(): Readonly<RunCounters> {
    return this.counterValues;
  }

  get checks(): readonly CollectionCheckRecord[] {
    return this.checkRecords;
  }

  /** The batch of this name, started when it is new. */
  batch(name: string): BatchState {
    let batch = this.batches.get(name);
    if (!batch) {
      batch = { failures: 0, abandoned: false };
      this.batches.set(name, batch);
    }
    return batch;
  }

  hasBatch(name: string): boolean {
    return this.batches.has(name);
  }

  /** The batches given up. */
  abandonedBatches(): string[] {
    return [...this.batches].filter(([, batch]) => batch.abandoned).map(([name]) => name);
  }

  /** A batch queued again (a check, a resumed run): a full budget. */
  resetBatch(name: string): void {
    const batch = this.batch(name);
    batch.failures = 0;
    batch.abandoned = false;
  }

  /** A page read to the end: its batch's failures in a row start again; past `maxRecords` the run stops. */
  pageDone(page: {
    readonly batch: string;
    readonly kind?: 'listing' | 'detail' | undefined;
    readonly records: number;
    readonly duplicates: number;
    readonly invalid: number;
    readonly rejected: number;
  }): void {
    this.batch(page.batch).failures = 0;
    const counters = this.counterValues;
    counters.pagesDone++;
    if (page.kind === 'detail') counters.detailPages++;
    else this.listingPagesSinceCheck++;
    if (page.records === 0) counters.pagesEmpty++;
    counters.records += page.records;
    counters.duplicates += page.duplicates;
    counters.invalid += page.invalid;
    counters.rejected += page.rejected;
    const { maxRecords } = this.options;
    if (maxRecords !== undefined && counters.records >= maxRecords) this.stopping ??= { reason: 'max-records', message: undefined };
  }

  /**
   * A page failed all its attempts. At its batch's `maxFailures`-th failure in a row the batch is
   * given up (`abandoned`: its source looks broken; the front drops its queued pages, other batches go on).
   */
  pageFailed(page: {
    readonly url: string;
    readonly batch: string;
    readonly kind?: 'listing' | 'detail' | undefined;
    readonly error: string;
    readonly invalid: number;
    readonly rejected: number;
  }): { consecutiveFailures: number; abandoned: boolean } {
    const batch = this.batch(page.batch);
    batch.failures++;
    const counters = this.counterValues;
    counters.pagesFailed++;
    counters.invalid += page.invalid;
    counters.rejected += page.rejected;
    if (page.kind !== 'detail') this.listingPagesSinceCheck++;
    this.recentFailures.push({ url: page.url, error: page.error });
    if (this.recentFailures.length > recentFailureCount) this.recentFailures.shift();
    const abandoned = batch.failures >= this.options.maxFailures && !batch.abandoned;
    if (abandoned) batch.abandoned = true;
    return { consecutiveFailures: batch.failures, abandoned };
  }

  /** Pages given up unread with their batch. */
  pagesAbandoned(count: number): void {
    this.counterValues.pagesAbandoned += count;
  }

  /** An attempt failed for a reason that may pass and is made again. */
  retried(): void {
    this.counterValues.retries++;
  }

  /** A page failed or abandoned earlier is queued again: it counts no more until it ends again. */
  unfinished(which: 'pagesFailed' | 'pagesAbandoned', rejectedRecord: boolean): void {
    const counters = this.counterValues;
    counters[which] = Math.max(0, counters[which] - 1);
    if (rejectedRecord) {
      counters.rejected = Math.max(0, counters.rejected - 1);
      counters.invalid = Math.max(0, counters.invalid - 1);
    }
  }

  /** Records that may still be kept under `maxRecords`. */
  recordsLeft(): number {
    const { maxRecords } = this.options;
    return maxRecords === undefined ? Number.POSITIVE_INFINITY : Math.max(0, maxRecords - this.counterValues.records);
  }

  keepSample(data: unknown): void {
    this.sample.push(data);
    if (this.sample.length > (this.options.sampleSize ?? 3)) this.sample.shift();
  }

  addUsage(usage: TokenUsage): void {
    this.usage = addUsage(this.usage, usage);
  }

  /** The run fails with this error, unless it failed before; returns whether it is the first. */
  fail(error: PlannavError): boolean {
    if (this.failure) return false;
    this.failure = error;
    return true;
  }

  /** Whether `checkEvery` listing pages finished since the last check, and the run is not ending. */
  checkDue(): boolean {
    return this.listingPagesSinceCheck >= this.options.checkEvery && !this.stopping && !this.failure;
  }

  /** A check starts now; returns the pages finished so far, which it is told. */
  startCheck(): number {
    this.listingPagesSinceCheck = 0;
    return this.counterValues.pagesDone + this.counterValues.pagesFailed;
  }

  /** After a resume summed the outcomes again: the next check comes when it would have come. */
  alignChecks(): void {
    this.listingPagesSinceCheck %= this.options.checkEvery;
  }

  /** What the progress check sees. */
  progress(pagesFinished: number, queued: readonly QueuedPage[], givenUp?: ProgressSummary['givenUp']): ProgressSummary {
    return {
      instruction: this.instruction,
      counters: this.counterValues,
      pagesFinished,
      sample: this.sample,
      recentFailures: this.recentFailures,
      queued,
      ...(givenUp === undefined ? {} : { givenUp }),
    };
  }

  /** A check's answer: adjust changes the instruction, stop ends the run after the pages in flight. */
  applyCheck(record: CollectionCheckRecord): void {
    this.restoreCheck(record);
    if (record.decision === 'adjust' && record.instruction) this.instruction = record.instruction;
  }

  /** A check of an earlier run, as a resumed run reads it (its instruction is restored apart). */
  restoreCheck(record: CollectionCheckRecord): void {
    this.checkRecords.push(record);
    if (record.decision === 'stop') this.stopping ??= { reason: 'stopped', message: record.reason };
  }

  /** A check that threw: a fatal model error fails the run, anything else is a warning and the run goes on. */
  checkFailed(error: unknown): 'fatal' | 'warning' {
    if (!isFatalError(error)) return 'warning';
    this.fail(toPlannavError(error));
    return 'fatal';
  }

  /**
   * The summary at the end. The reason, first that holds: `failed`, `cancelled` or `timed-out`,
   * the stop (a check's, or `max-records`), `max-pages` (the front says whether pages were left for it), `done`.
   */
  summary(end: {
    readonly cancelled?: { readonly timedOut: boolean; readonly message: string | undefined; readonly error?: PlannavError | undefined } | undefined;
    readonly maxPages?: boolean | undefined;
    readonly pagesQueued: number;
    readonly durationMs: number;
  }): CollectionSummary {
    let reason: CollectionEndReason = 'done';
    let message: string | undefined;
    let error: PlannavError | undefined;
    if (this.failure) [reason, message, error] = ['failed', this.failure.message, this.failure];
    else if (end.cancelled) [reason, message, error] = [end.cancelled.timedOut ? 'timed-out' : 'cancelled', end.cancelled.message, end.cancelled.error];
    else if (this.stopping) [reason, message] = [this.stopping.reason, this.stopping.message];
    else if (end.maxPages) reason = 'max-pages';
    const { retries, ...others } = this.counterValues;
    const counters = this.options.counters?.retries === false ? others : { ...others, retries };
    return {
      ...counters,
      reason,
      message: message === undefined || error === undefined ? message : this.redactor.redact(message),
      error: error ? this.redactor.redactDeep(toErrorInfo(error)) : undefined,
      batchesAbandoned: this.abandonedBatches().length,
      pagesQueued: end.pagesQueued,
      usage: this.usage,
      durationMs: end.durationMs,
    };
  }

  /** The engine's part of a checkpoint. */
  snapshot(): EngineSnapshot {
    return {
      batches: Object.fromEntries([...this.batches].map(([name, batch]) => [name, { ...batch }])),
      counters: { ...this.counterValues },
      instruction: this.instruction,
      checks: [...this.checkRecords],
      usage: this.usage,
    };
  }

  /** Takes up a checkpoint's state. */
  restore(snapshot: EngineSnapshot): void {
    for (const [name, batch] of Object.entries(snapshot.batches)) this.batches.set(name, { ...batch });
    this.counterValues = { ...zeroCounters, ...snapshot.counters };
    this.instruction = snapshot.instruction;
    this.checkRecords = [...snapshot.checks];
    this.usage = snapshot.usage;
  }
}

/** A start URL or a list URL, queued at depth 0 in its batch, with the option it came from. */
export interface SeedPage extends QueuedPage {
  readonly field: 'start' | 'urls';
}

/**
 * The pages a run starts from: each start URL a batch of its own, the list URLs a batch per host.
 * @throws `ConfigError` naming the option when the URL policy denies one.
 */
export function seedPages(
  options: { readonly start?: string | readonly string[] | undefined; readonly urls?: readonly string[] | undefined },
  urlPolicy?: { check(url: string): UrlDecision },
): SeedPage[] {
  const { start, urls } = options;
  const starts = start === undefined ? [] : typeof start === 'string' ? [start] : start;
  const seeds: SeedPage[] = [
    ...starts.map((url) => ({ url: normalizePageUrl(url), batch: `start:${normalizePageUrl(url)}`, depth: 0, field: 'start' as const })),
    ...(urls ?? []).map((url) => ({ url: normalizePageUrl(url), batch: `urls:${new URL(url).host}`, depth: 0, field: 'urls' as const })),
  ];
  for (const seed of seeds) {
    const decision = urlPolicy?.check(seed.url);
    if (decision && !decision.allowed)
      throw new ConfigError(`Option \`${seed.field}\` holds ${seed.url}, which the URL policy denies: ${decision.reason}.`, { field: seed.field });
  }
  return seeds;
}

/**
 * Asks the progress check and applies its answer to the engine; returns the check as kept (the
 * front persists and announces it). `requeue`, when the front can queue given-up pages again, does
 * so when the check asks and returns how many. Throws what the check threw: see {@link CollectionEngine.checkFailed}.
 */
export async function askProgressCheck(
  engine: CollectionEngine,
  input: {
    readonly client: LLMClient;
    readonly signal: AbortSignal;
    readonly retry: ModelRetryOptions;
    readonly observer: ModelCallObserver;
    readonly pagesFinished: number;
    readonly queued: readonly QueuedPage[];
    readonly givenUp?: ProgressSummary['givenUp'];
    readonly requeue?: (() => number) | undefined;
    readonly redactDeep?: (<T>(value: T) => T) | undefined;
  },
): Promise<CollectionCheckRecord> {
  const decision = await checkProgress({
    client: input.client,
    summary: engine.progress(input.pagesFinished, input.queued, input.givenUp),
    signal: input.signal,
    retry: input.retry,
    observer: input.observer,
  });
  const record: CollectionCheckRecord = {
    pages: input.pagesFinished,
    decision: decision.decision,
    reason: decision.reason,
    instruction: decision.instruction,
    ...(input.requeue ? { retried: decision.retryGivenUp ? input.requeue() : undefined } : {}),
    timestamp: Date.now(),
  };
  const kept = input.redactDeep ? input.redactDeep(record) : record;
  engine.applyCheck(kept);
  return kept;
}
