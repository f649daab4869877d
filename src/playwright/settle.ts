// Settle detection for the Playwright driver: when a page is done reacting to an action (document
// parsed, network and DOM quiet). It only waits and watches; it never fails and never acts on a page.

import type { Page, Request } from 'playwright-core';
import { sleep } from '../util/abort';
import type { ResolvedSettleOptions } from './options';
import { portable } from './page-function';
import { waitForDomQuiet } from './page-functions';

/** Requests of these kinds keep a page from settling; media streams and sockets never end. */
const trackedResourceTypes = new Set(['document', 'stylesheet', 'script', 'xhr', 'fetch', 'image', 'font']);

/** Network activity of one page, since the driver first saw it. */
class NetworkActivity {
  readonly inFlight = new Map<Request, number>();
  lastActivity = 0;

  /** Removes the listeners this tracker added to the page. */
  readonly dispose: () => void;

  constructor(page: Page) {
    const started = (request: Request): void => {
      if (!trackedResourceTypes.has(request.resourceType())) return;
      this.inFlight.set(request, Date.now());
      this.lastActivity = Date.now();
    };
    const done = (request: Request): void => {
      if (this.inFlight.delete(request)) this.lastActivity = Date.now();
    };
    page.on('request', started);
    page.on('requestfinished', done);
    page.on('requestfailed', done);
    this.dispose = () => {
      page.off('request', started);
      page.off('requestfinished', done);
      page.off('requestfailed', done);
      this.inFlight.clear();
    };
  }

  /** True when no recent request is in flight and nothing started or ended for `quietMs`. */
  isQuiet(now: number, quietMs: number, ignoreAfterMs: number): boolean {
    for (const started of this.inFlight.values()) if (now - started < ignoreAfterMs) return false;
    return now - this.lastActivity >= quietMs;
  }
}

/** Waits for the pages it watches to settle, within the settle bound. */
export class Settler {
  private readonly options: ResolvedSettleOptions;
  /** False when the driver made the context with page JavaScript off: the DOM cannot change by itself then. */
  private readonly pageScripts: boolean;
  private readonly network = new WeakMap<Page, NetworkActivity>();

  constructor(options: ResolvedSettleOptions, pageScripts: boolean) {
    this.options = options;
    this.pageScripts = pageScripts;
  }

  /** Starts tracking the page's requests; returns the function that stops it. */
  watch(page: Page): () => void {
    const network = new NetworkActivity(page);
    this.network.set(page, network);
    return network.dispose;
  }

  /** When a settle wait that may take `timeout` ms must end: within the settle bound, a little before the call's own end. */
  deadline(timeout: number): number {
    return Date.now() + Math.min(this.options.maxWaitMs, Math.max(0, timeout - 50));
  }

  /**
   * Waits until the page has settled: its document committed and parsed, no tracked request in
   * flight and no DOM mutation for the quiet windows, until `deadline` at the latest. Never
   * fails: a busy page just ends the wait.
   */
  async waitUntilSettled(page: Page, deadline: number, signal: AbortSignal | undefined): Promise<void> {
    const { domQuietMs, networkQuietMs, ignoreRequestsAfterMs } = this.options;
    const remaining = (): number => Math.max(0, deadline - Date.now());
    await page.waitForLoadState('domcontentloaded', { timeout: Math.max(1, remaining()) }).catch(() => undefined);
    const activity = this.network.get(page);
    // Bounded by the deadline: every pass waits at least the DOM window or a short pause.
    for (let pass = 0; pass < 100 && remaining() > 0; pass++) {
      if (!this.pageScripts) {
        if (!activity || activity.isQuiet(Date.now(), networkQuietMs, ignoreRequestsAfterMs)) return;
        await sleep(Math.min(50, remaining()), signal);
        continue;
      }
      const inPage = page
        .mainFrame()
        .evaluate(portable(waitForDomQuiet), { quietMs: domQuietMs, maxMs: Math.max(1, remaining()) })
        .catch(() => false); // a navigation destroyed the context: wait again in the new document
      // With page JavaScript off the page's timers never fire: Node keeps the bound.
      let bound: ReturnType<typeof setTimeout> | undefined;
      const domQuiet = await Promise.race([inPage, new Promise<boolean>((done) => (bound = setTimeout(() => done(true), remaining() + 20)))]);
      clearTimeout(bound);
      const networkQuiet = !activity || activity.isQuiet(Date.now(), networkQuietMs, ignoreRequestsAfterMs);
      if (domQuiet && networkQuiet) return;
      if (!domQuiet) await page.waitForLoadState('domcontentloaded', { timeout: Math.max(1, remaining()) }).catch(() => undefined);
      else await sleep(Math.min(50, remaining()), signal);
    }
  }
}
