// One browser session: what every entry point (the Executor, a replay, observe/act/extract, a
// collection's page step, the BullMQ worker) needs of the browser, wired once: the driver with the
// core's defaults, the lease, the page reader, settle-then-read, the URL guard and the deadlines.

import { leaseDriver, type DriverHolder } from '../browser/lease';
import type { PageState } from '../browser/page-state';
import type { BrowserDriver, NavigationGuard, ResolvedBrowserDriver } from '../browser/types';
import { resolveDriver } from '../dom/driver-defaults';
import type { PageStateReader } from '../dom/page-state-reader';
import type { UrlPolicy } from '../security/url-policy';
import { createPageReader, sharedPageReader, type PageReaderOptions } from './page-reader';
import { readSettledPage, settlePage, type ReadPageOptions } from './read-page';
import { TimeoutSettings, type TimeoutOverrides } from './timeouts';
import { urlGuard, type StandingGuardMode, type UrlGuard } from './url-guard';

/** How a session is made. */
export interface BrowserSessionOptions {
  /** How the page is read. */
  readonly reader?: PageReaderOptions | undefined;
  /**
   * Share the reader with every other `shared` session of this browser (observe() and act() calls:
   * an element keeps its index from one call to the next). @defaultValue false: a reader of its own
   */
  readonly sharedReader?: boolean | undefined;
  /** What the reader reads through, when not the driver itself (the Collector's link targets watch each snapshot). */
  readonly watch?: ((driver: ResolvedBrowserDriver) => BrowserDriver) | undefined;
  /** The entry point's deadlines over the defaults. */
  readonly timeouts?: TimeoutOverrides | TimeoutSettings | undefined;
}

/** A browser, wired for one entry point. */
export class BrowserSession {
  /** The driver as the caller gave it (leases and kept guards are keyed by it). */
  readonly browser: BrowserDriver;
  /** The driver with the core's defaults for what it leaves out. */
  readonly driver: ResolvedBrowserDriver;
  readonly reader: PageStateReader;
  readonly timeouts: TimeoutSettings;

  constructor(browser: BrowserDriver, options: BrowserSessionOptions = {}) {
    this.browser = browser;
    this.driver = resolveDriver(browser);
    this.timeouts = options.timeouts instanceof TimeoutSettings ? options.timeouts : new TimeoutSettings(options.timeouts);
    this.reader = options.sharedReader
      ? sharedPageReader(browser, this.driver, options.reader)
      : createPageReader(options.watch ? options.watch(this.driver) : this.driver, options.reader);
  }

  /**
   * Marks the browser as in use by `holder` until the returned function is called.
   * @throws `ConfigError` (field `browser`) when another task or call holds it.
   */
  lease(holder: DriverHolder): () => void {
    return leaseDriver(this.browser, holder);
  }

  /** Waits for the page to settle, best effort, within the settle deadline (or `timeoutMs`). */
  settle(signal: AbortSignal, timeoutMs?: number): Promise<void> {
    return settlePage(this.driver, signal, this.timeouts.settle(timeoutMs));
  }

  /** Settles the page (unless `settle: false`), then reads it within the page-state deadline. */
  readPage(options: ReadPageOptions): Promise<PageState> {
    return readSettledPage(this.driver, this.reader, this.timeouts, options);
  }

  /** The URL guard of `policy` on this browser; nothing is installed until its `install()`. */
  urlGuard(policy: UrlPolicy, guard: NavigationGuard, signal: AbortSignal, standing: StandingGuardMode): UrlGuard {
    return urlGuard({ browser: this.browser, policy, guard, signal, standing, timeoutMs: this.timeouts.pageState() });
  }
}
