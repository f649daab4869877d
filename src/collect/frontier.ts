// The pages a collection has yet to read: the queue, the URLs ever enqueued (none twice), the
// pages in flight, the per-host politeness (concurrent pages, delay between starts, a server's
// Retry-After) and the pages waiting out their backoff before another attempt.

import type { QueuedPage } from './store';

/** The URL a page is known by: parsed, without its fragment (`#…` never names another page). */
export function normalizePageUrl(url: string): string {
  const parsed = new URL(url);
  parsed.hash = '';
  return parsed.href;
}

function hostOf(url: string): string {
  return new URL(url).host;
}

/** What {@link Frontier.take} gives: a page to read now, a wait for politeness, or nothing queued. */
export type Taken = { readonly page: QueuedPage } | { readonly waitMs: number } | undefined;

/** The queue and its bookkeeping. Single-threaded: callers are the collection's workers, on one event loop. */
export class Frontier {
  private queue: QueuedPage[] = [];
  private readonly seen = new Set<string>();
  private readonly inFlight = new Map<string, QueuedPage>();
  private readonly activeByHost = new Map<string, number>();
  private readonly lastStartByHost = new Map<string, number>();
  /** Pages waiting before another attempt: not taken before this time (epoch ms). */
  private readonly notBefore = new Map<string, number>();
  /** Pages in flight that no longer count towards their host's concurrent pages ({@link leftHost}). */
  private readonly hostLeft = new Set<string>();
  /** Hosts that asked to be left alone (Retry-After) until this time. */
  private readonly heldUntil = new Map<string, number>();

  constructor(private readonly politeness: { readonly maxConcurrent: number; readonly delayMs: number }) {}

  /** Restores a checkpoint's queue and seen URLs. */
  restore(queue: readonly QueuedPage[], seen: readonly string[]): void {
    this.queue = [...queue];
    for (const url of seen) this.seen.add(url);
    for (const page of queue) this.seen.add(page.url);
  }

  /** Adds a page unless its URL was ever enqueued; returns whether it did. */
  enqueue(page: QueuedPage): boolean {
    if (this.seen.has(page.url)) return false;
    this.seen.add(page.url);
    this.queue.push(page);
    return true;
  }

  /** The first queued page (that `accept` takes, when given) whose host has room and whose delay has passed, at `now`. */
  take(now: number, accept?: (page: QueuedPage) => boolean): Taken {
    if (this.queue.length === 0) return undefined;
    let soonest = Number.POSITIVE_INFINITY;
    for (const [position, page] of this.queue.entries()) {
      if (accept && !accept(page)) continue;
      const host = hostOf(page.url);
      if ((this.activeByHost.get(host) ?? 0) >= this.politeness.maxConcurrent) continue;
      const readyAt = Math.max(
        (this.lastStartByHost.get(host) ?? Number.NEGATIVE_INFINITY) + this.politeness.delayMs,
        this.heldUntil.get(host) ?? Number.NEGATIVE_INFINITY,
        this.notBefore.get(page.url) ?? Number.NEGATIVE_INFINITY,
      );
      if (readyAt > now) {
        soonest = Math.min(soonest, readyAt - now);
        continue;
      }
      this.queue.splice(position, 1);
      this.notBefore.delete(page.url);
      this.inFlight.set(page.url, page);
      this.activeByHost.set(host, (this.activeByHost.get(host) ?? 0) + 1);
      this.lastStartByHost.set(host, now);
      return { page };
    }
    // Every queued host is busy (its pages end and wake the caller) or waiting out its delay.
    return { waitMs: Number.isFinite(soonest) ? soonest : Number.POSITIVE_INFINITY };
  }

  /** Takes the queued page of `url` now, whatever the politeness (a page the tab already shows); undefined when it is not queued. */
  takeNow(url: string): QueuedPage | undefined {
    const position = this.queue.findIndex((page) => page.url === url);
    if (position < 0) return undefined;
    const [page] = this.queue.splice(position, 1) as [QueuedPage];
    this.notBefore.delete(url);
    this.inFlight.set(url, page);
    const host = hostOf(url);
    this.activeByHost.set(host, (this.activeByHost.get(host) ?? 0) + 1);
    this.lastStartByHost.set(host, Date.now());
    return page;
  }

  /** Milliseconds until a page of `url`'s host may start, by the delay between starts and a server's Retry-After; 0 when now. */
  hostReadyIn(url: string, now: number): number {
    const host = hostOf(url);
    const readyAt = Math.max((this.lastStartByHost.get(host) ?? Number.NEGATIVE_INFINITY) + this.politeness.delayMs, this.heldUntil.get(host) ?? 0);
    return Math.max(0, readyAt - now);
  }

  /** Whether a page of this address was ever enqueued. */
  hasSeen(url: string): boolean {
    return this.seen.has(url);
  }

  /**
   * A page taken has left its host alone (loaded and read; its records are still being asked for):
   * the host has room for another page, while the page stays in flight until {@link release}.
   */
  leftHost(page: QueuedPage): void {
    if (!this.inFlight.has(page.url) || this.hostLeft.has(page.url)) return;
    this.hostLeft.add(page.url);
    const host = hostOf(page.url);
    this.activeByHost.set(host, Math.max(0, (this.activeByHost.get(host) ?? 1) - 1));
  }

  /** A page taken is no longer in flight (finished, failed, or abandoned by a cancel). */
  release(page: QueuedPage): void {
    if (!this.inFlight.delete(page.url)) return;
    if (this.hostLeft.delete(page.url)) return;
    const host = hostOf(page.url);
    this.activeByHost.set(host, Math.max(0, (this.activeByHost.get(host) ?? 1) - 1));
  }

  /** A page taken goes back to the front of the queue, unread (its run was cancelled). */
  requeue(page: QueuedPage): void {
    if (!this.inFlight.has(page.url)) return;
    this.release(page);
    this.queue.unshift(page);
  }

  /**
   * A page taken goes back to the end of the queue for another attempt, not before `at` (epoch
   * ms); with `holdHostUntil`, no page of its host starts before then (the server's Retry-After).
   */
  retryLater(taken: QueuedPage, again: QueuedPage, at: number, holdHostUntil?: number): void {
    this.release(taken);
    this.queue.push(again);
    this.notBefore.set(again.url, at);
    if (holdHostUntil !== undefined) {
      const host = hostOf(again.url);
      this.heldUntil.set(host, Math.max(holdHostUntil, this.heldUntil.get(host) ?? 0));
    }
  }

  /** Queues a page again that was finished or given up (a retry of failed or abandoned pages); false when it is queued already. */
  enqueueAgain(page: QueuedPage): boolean {
    if (this.inFlight.has(page.url) || this.queue.some((queued) => queued.url === page.url)) return false;
    this.seen.add(page.url);
    this.queue.push(page);
    return true;
  }

  /** Takes the queued pages of `batch` out of the queue and returns them. */
  dropBatch(batch: string): QueuedPage[] {
    const dropped = this.queue.filter((page) => page.batch === batch);
    this.queue = this.queue.filter((page) => page.batch !== batch);
    for (const page of dropped) this.notBefore.delete(page.url);
    return dropped;
  }

  get queuedCount(): number {
    return this.queue.length;
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /** The queue as a checkpoint saves it: the pages in flight first (a resumed run reads them again), then the queued ones. */
  pending(): QueuedPage[] {
    return [...this.inFlight.values(), ...this.queue];
  }

  /** The queued pages, for the progress check. */
  queued(): readonly QueuedPage[] {
    return this.queue;
  }

  seenUrls(): string[] {
    return [...this.seen];
  }
}
