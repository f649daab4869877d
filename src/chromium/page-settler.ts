// What both drivers' settle detection shares: each watched page's requests and the document it waits
// for, the settle bound, and the network-quiet rule. How a library waits for the DOM to go quiet is its
// subclass's (src/playwright/settle.ts, src/puppeteer/settle.ts).

import { NetworkActivity, type RequestEvents, type TrackedRequest } from './network-activity';
import { PendingNavigation, type NavigationEvents, type NavigationRequest } from './pending-navigation';
import type { ResolvedSettleOptions } from './settle-options';

/** Waits for the pages it watches to settle, within the settle bound. */
export abstract class PageSettler<P extends RequestEvents<R> & NavigationEvents & object, R extends TrackedRequest & NavigationRequest> {
  protected readonly options: ResolvedSettleOptions;
  private readonly network = new WeakMap<P, NetworkActivity<R>>();
  private readonly navigations = new WeakMap<P, PendingNavigation<R>>();

  constructor(options: ResolvedSettleOptions) {
    this.options = options;
  }

  /** The longest a settle wait may take. */
  get maxWaitMs(): number {
    return this.options.maxWaitMs;
  }

  /** Starts tracking the page's requests and the document it waits for; returns the function that stops it. */
  watch(page: P): () => void {
    const network = new NetworkActivity<R>(page);
    const navigation = new PendingNavigation<R>(page);
    const more = this.watchMore(page);
    this.network.set(page, network);
    this.navigations.set(page, navigation);
    return () => {
      network.dispose();
      navigation.dispose();
      more();
    };
  }

  /** The document the page is waiting for, if the driver watches it. */
  pendingNavigation(page: P): PendingNavigation<R> | undefined {
    return this.navigations.get(page);
  }

  /** When a settle wait that may take `timeout` ms must end: within the settle bound, a little before the call's own end. */
  deadline(timeout: number): number {
    return Date.now() + Math.min(this.options.maxWaitMs, Math.max(0, timeout - 50));
  }

  /** Waits until the page has settled, until `deadline` at the latest. Never fails: a busy page just ends the wait. */
  abstract waitUntilSettled(page: P, deadline: number, signal: AbortSignal | undefined): Promise<void>;

  /** A subclass's own watch of a page, beyond requests and documents; returns its stop. */
  protected watchMore(_page: P): () => void {
    return () => undefined;
  }

  /** Whether the page's requests have been quiet for the network window (true for a page not watched). */
  protected networkQuiet(page: P): boolean {
    const activity = this.network.get(page);
    return !activity || activity.isQuiet(Date.now(), this.options.networkQuietMs, this.options.ignoreRequestsAfterMs);
  }
}
