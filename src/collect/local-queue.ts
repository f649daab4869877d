// The Collector's queue, in process: the frontier, what became of every page (done, failed,
// abandoned), the waits of its page slots, and its part of the checkpoint. The engine decides; this holds pages.

import type { CollectionEngine } from './collection-engine';
import { Frontier } from './frontier';
import type { CollectionCheckpoint, PageOutcome, QueuedPage } from './store';
import type { TaskControl } from '../util/task-control';

/** What the queue needs to know of the run to hand out pages. */
export interface QueueGate {
  readonly control: TaskControl;
  readonly engine: CollectionEngine;
  /** Whether a progress check runs now: no page starts meanwhile. */
  checking(): boolean;
  readonly maxPages: number | undefined;
}

/** The frontier with the pages' fates and the waits of the slots that read them. */
export class LocalQueue {
  readonly frontier: Frontier;
  /** Pages started, for `maxPages` (a retry or a page queued again is not started again). */
  pagesStarted = 0;
  private readonly finished = new Set<string>();
  /** The last outcome of each page: a page retried later (a resumed run, a check) ends once. */
  private readonly outcomes = new Map<string, PageOutcome>();
  /** Pages that failed all their attempts, as they were queued. */
  private readonly failedPages = new Map<string, QueuedPage>();
  /** Pages of given-up batches, never read. */
  private readonly abandonedPages = new Map<string, QueuedPage>();
  /** Pages a progress check queued again in this run. */
  private readonly requeuedThisRun = new Set<string>();
  /** The slots waiting for a change of the queue; woken all at once, also by a cancel. */
  private readonly waiters = new Set<() => void>();

  constructor(
    perHost: { readonly maxConcurrent?: number | undefined; readonly delayMs?: number | undefined } | undefined,
    private readonly gate: QueueGate,
  ) {
    this.frontier = new Frontier({ maxConcurrent: perHost?.maxConcurrent ?? Number.POSITIVE_INFINITY, delayMs: perHost?.delayMs ?? 0 });
  }

  /** Queues a start or list URL unless it finished in an earlier run. */
  seed(page: QueuedPage): void {
    if (!this.finished.has(page.url)) this.frontier.enqueue(page);
  }

  /**
   * Queues a page found on a page: `queued`, `seen` (queued or read before), or `abandoned` (its
   * batch was given up: it is kept, with its outcome in `abandoned`, for a check or a resumed run).
   */
  enqueueFound(next: QueuedPage, abandoned: PageOutcome[]): 'queued' | 'seen' | 'abandoned' {
    if (this.finished.has(next.url) || this.frontier.hasSeen(next.url) || this.abandonedPages.has(next.url)) return 'seen';
    if (this.gate.engine.batch(next.batch).abandoned) {
      this.gate.engine.pagesAbandoned(1);
      abandoned.push(this.abandon(next));
      return 'abandoned';
    }
    return this.frontier.enqueue(next) ? 'queued' : 'seen';
  }

  /** A page ended (done, or failed all its attempts), with this outcome. */
  finish(page: QueuedPage, outcome: PageOutcome): void {
    this.frontier.release(page);
    this.finished.add(page.url);
    if (outcome.status === 'failed') this.failedPages.set(page.url, page);
    else this.failedPages.delete(page.url);
    this.outcomes.set(page.url, outcome);
  }

  /** Gives up the queued pages of a batch (kept, for a check or a resumed run to queue again); returns their outcomes. */
  dropBatch(batch: string): PageOutcome[] {
    return this.frontier.dropBatch(batch).map((page) => this.abandon(page));
  }

  private abandon(page: QueuedPage): PageOutcome {
    this.abandonedPages.set(page.url, page);
    const outcome: PageOutcome = { url: page.url, batch: page.batch, status: 'abandoned', records: 0, attempts: page.attempts ?? 0, way: page.way };
    this.outcomes.set(page.url, outcome);
    return outcome;
  }

  /** Every page's last outcome. */
  pageOutcomes(): PageOutcome[] {
    return [...this.outcomes.values()];
  }

  givenUp(): { failed: number; abandoned: number } {
    return { failed: this.failedPages.size, abandoned: this.abandonedPages.size };
  }

  /**
   * Queues failed and/or abandoned pages again, their attempts and their batches' failure counts
   * reset; returns how many. Their earlier outcome is replaced by the one they end with now.
   */
  requeueGivenUp(which: { readonly failed: boolean; readonly abandoned: boolean }, once = false): number {
    let queued = 0;
    const again = (pages: Map<string, QueuedPage>, counter: 'pagesFailed' | 'pagesAbandoned'): void => {
      for (const page of [...pages.values()]) {
        // A progress check queues a page again once per run: a site that keeps failing cannot loop.
        if (once && this.requeuedThisRun.has(page.url)) continue;
        this.requeuedThisRun.add(page.url);
        pages.delete(page.url);
        this.finished.delete(page.url);
        this.outcomes.delete(page.url);
        // A failed record page's record was rejected; read again, it may yet be kept (the reject stays in the stream).
        this.gate.engine.unfinished(counter, page.kind === 'detail' && counter === 'pagesFailed');
        this.gate.engine.resetBatch(page.batch);
        // Started once already: maxPages does not count it again.
        if (this.frontier.enqueueAgain({ ...page, attempts: 0, lastError: undefined, requeued: (page.requeued ?? 0) + 1 })) queued++;
      }
    };
    if (which.failed) again(this.failedPages, 'pagesFailed');
    if (which.abandoned) again(this.abandonedPages, 'pagesAbandoned');
    return queued;
  }

  /** Takes up a checkpoint's queue and pages. */
  restore(checkpoint: CollectionCheckpoint): void {
    this.frontier.restore(checkpoint.queue, checkpoint.seenUrls);
    for (const url of checkpoint.finished) this.finished.add(url);
    this.pagesStarted = checkpoint.pagesStarted;
    for (const page of checkpoint.failed ?? []) this.failedPages.set(page.url, page);
    for (const page of checkpoint.abandoned ?? []) this.abandonedPages.set(page.url, page);
  }

  /** The queue's part of a checkpoint. */
  checkpoint(): Pick<CollectionCheckpoint, 'queue' | 'failed' | 'abandoned' | 'seenUrls' | 'finished'> {
    return {
      queue: this.frontier.pending(),
      failed: [...this.failedPages.values()],
      abandoned: [...this.abandonedPages.values()],
      seenUrls: this.frontier.seenUrls(),
      finished: [...this.finished],
    };
  }

  /** Whether pages are queued or in flight. */
  get busy(): boolean {
    return this.frontier.queuedCount > 0 || this.frontier.inFlightCount > 0;
  }

  /** Whether `maxPages` pages started. */
  get full(): boolean {
    return this.gate.maxPages !== undefined && this.pagesStarted >= this.gate.maxPages;
  }

  /** Whether the run may start no page now or later: it stops, failed, or started `maxPages`. */
  private get closed(): boolean {
    return Boolean(this.gate.engine.stopping || this.gate.engine.failure) || this.full;
  }

  /** The next page to read, waiting for a pause, a check, politeness or pages in flight; undefined when the run is over. */
  async next(): Promise<QueuedPage | undefined> {
    for (;;) {
      await this.gate.control.checkpoint();
      if (this.gate.checking()) {
        // The check's end notifies.
        await this.changed();
        continue;
      }
      if (this.closed) return undefined;
      const taken = this.frontier.take(Date.now());
      if (taken === undefined) {
        // Nothing queued: the pages in flight may still find more.
        if (this.frontier.inFlightCount === 0) return undefined;
        await this.changed();
      } else if ('page' in taken) {
        return this.started(taken.page);
      } else {
        await this.changed(Number.isFinite(taken.waitMs) ? taken.waitMs : undefined);
      }
    }
  }

  /** The page the tab shows after the pager's click, taken from the queue for this slot; undefined when the run will not read it now. */
  async continuation(url: string): Promise<QueuedPage | undefined> {
    const { control } = this.gate;
    await control.checkpoint();
    while (this.gate.checking()) await this.changed();
    // The tab is there already, but the host's politeness holds as for any page.
    for (let wait = this.frontier.hostReadyIn(url, Date.now()); wait > 0 && !control.cancelled; wait = this.frontier.hostReadyIn(url, Date.now())) {
      await this.changed(wait);
    }
    if (control.cancelled || this.closed) return undefined;
    const page = this.frontier.takeNow(url);
    if (page) this.pagesStarted++;
    return page;
  }

  /** A record's own page ready in the queue now, for the call being gathered; undefined when none is, or the run should not start more. */
  async detail(): Promise<QueuedPage | undefined> {
    await this.gate.control.checkpoint();
    if (this.gate.control.cancelled || this.gate.checking() || this.closed) return undefined;
    const taken = this.frontier.take(Date.now(), (page) => page.kind === 'detail');
    if (taken === undefined || !('page' in taken)) return undefined;
    return this.started(taken.page);
  }

  private started(page: QueuedPage): QueuedPage {
    // A retry is the same page: maxPages counts pages, not attempts.
    if (!page.attempts && !page.requeued) this.pagesStarted++;
    return page;
  }

  /**
   * Resolves at the next change of the queue (a page finished, a check ended, a cancel), or after
   * `timeoutMs`. It adds no listener to the run's signal: with many slots waiting, they would pile up.
   */
  changed(timeoutMs?: number): Promise<void> {
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

  /** Wakes every waiting slot. */
  notify(): void {
    for (const wake of [...this.waiters]) wake();
  }
}
