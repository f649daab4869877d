// The document a tab is still waiting for, and how to stop waiting: while a top-level navigation's
// request is out and its document has not committed, Chromium answers no script in that tab (every
// snapshot would time out), so a driver that gives up on such a load must stop it. Both Chromium
// drivers share this; it listens to a page's events and never starts a navigation itself.

/** What the tracker needs of a request: Playwright's `Request` and Puppeteer's `HTTPRequest` both have it. */
export interface NavigationRequest {
  isNavigationRequest(): boolean;
  frame(): unknown;
  url(): string;
}

/** The page events the tracker listens to, as Playwright's and Puppeteer's `Page` both emit them (a request, or a frame). */
type NavigationEvent = 'request' | 'requestfinished' | 'requestfailed' | 'framenavigated';

/** What the tracker needs of a page. */
export interface NavigationEvents {
  on(event: NavigationEvent, listener: (value: unknown) => void): unknown;
  off(event: NavigationEvent, listener: (value: unknown) => void): unknown;
  mainFrame(): unknown;
}

/** How long a driver waits for Chromium to drop a load it was told to stop. */
const stopBoundMs = 2000;

/**
 * The top-level document a page is waiting for: the last navigation request of its main frame,
 * from the moment it is sent until its document commits, or the request ends without one (a
 * failure, a download, a 204).
 */
export class PendingNavigation<R extends NavigationRequest> {
  private request: R | undefined;
  private readonly settled = new Set<() => void>();

  /** Removes the listeners this tracker added to the page. */
  readonly dispose: () => void;

  constructor(page: NavigationEvents) {
    // The library's request objects, as its request events give them.
    const started = (value: unknown): void => {
      const request = value as R;
      if (request.isNavigationRequest() && frameOf(request) === page.mainFrame()) this.request = request;
    };
    const ended = (value: unknown): void => {
      if (value === this.request) this.clear();
    };
    const committed = (frame: unknown): void => {
      if (frame === page.mainFrame()) this.clear();
    };
    page.on('request', started);
    page.on('requestfinished', ended);
    page.on('requestfailed', ended);
    page.on('framenavigated', committed);
    this.dispose = () => {
      page.off('request', started);
      page.off('requestfinished', ended);
      page.off('requestfailed', ended);
      page.off('framenavigated', committed);
      this.clear();
    };
  }

  /** The URL of the document the page is waiting for, or undefined when it waits for none. */
  get url(): string | undefined {
    return this.request?.url();
  }

  /** The navigation request the page is waiting for, to tell it from one started later. */
  get current(): NavigationRequest | undefined {
    return this.request;
  }

  /** Resolves true once the page waits for no document, or false at `deadline` (epoch milliseconds). */
  async settledBy(deadline: number): Promise<boolean> {
    if (!this.request) return true;
    let done: (() => void) | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const settled = await new Promise<boolean>((resolve) => {
      done = () => resolve(true);
      this.settled.add(done);
      timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
    });
    clearTimeout(timer);
    if (done) this.settled.delete(done);
    return settled;
  }

  /**
   * Stops the load the page is waiting for (`stop` sends CDP `Page.stopLoading`, which the
   * browser process handles even while the tab answers no script) and waits, within a bound,
   * until Chromium has dropped it. Returns the URL that was stopped, or undefined when the page
   * was waiting for none. Never rejects.
   */
  async stop(stop: () => Promise<unknown>): Promise<string | undefined> {
    const url = this.url;
    if (url === undefined) return undefined;
    const deadline = Date.now() + stopBoundMs;
    await within(
      stop().catch(() => undefined),
      stopBoundMs,
    );
    await this.settledBy(deadline);
    return url;
  }

  /**
   * Waits until `giveUpAt` for the document the page is waiting for, and stops it then: `none`
   * when it waited for none, `arrived` when it came (or went) in time, else the URL that was
   * stopped. Never rejects.
   */
  async arriveOrStop(giveUpAt: number, stop: () => Promise<unknown>): Promise<'none' | 'arrived' | { readonly stopped: string }> {
    if (this.url === undefined) return 'none';
    if (await this.settledBy(giveUpAt)) return 'arrived';
    const stopped = await this.stop(stop);
    return stopped === undefined ? 'arrived' : { stopped };
  }

  private clear(): void {
    this.request = undefined;
    for (const done of this.settled) done();
    this.settled.clear();
  }
}

/** The request's frame; Playwright throws for a service worker's requests, which have none. */
function frameOf(request: NavigationRequest): unknown {
  try {
    return request.frame();
  } catch {
    return undefined;
  }
}

/** Waits for `promise` at most `ms` milliseconds. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** How long before a call's end a driver gives up on a load: enough to stop it and answer before the call's own timer fires. */
/** What {@link stopStuckLoad} needs of a driver's active tab. */
export interface StuckLoadTab {
  /** The load the tab waits for, as the driver's settler follows it, if any. */
  readonly pending: Pick<PendingNavigation<NavigationRequest>, 'stop' | 'current'> | undefined;
  /** The tab's URL now. */
  url(): string;
  /** Page.stopLoading for the tab, sent only while `stillWanted()` holds when it is about to go. */
  stopLoading(stillWanted: () => boolean): Promise<void>;
}

/**
 * Stops the document a tab still waits for after its caller gave up on a call, and says what it
 * did. This runs behind the caller, who may start the next load at once, through the driver or
 * through its own library on an attached page; the page may also go on to another document by
 * itself. So only the load given up on is stopped: the request the tab waited for when the caller
 * gave up, while it is still the one it waits for, and no load the driver started since
 * (`loadsStarted()` counts them). When the call started a load itself (`callStartedLoad`) whose
 * request the browser has not reported yet, whatever the tab loads is stopped, unless the driver
 * started another load since.
 */
export async function stopStuckLoad(tab: StuckLoadTab, loadsStarted: () => number, callStartedLoad: boolean): Promise<string | undefined> {
  const loads = loadsStarted();
  const givenUpOn = tab.pending?.current;
  if (givenUpOn) {
    const url = await tab.pending?.stop(() => tab.stopLoading(() => loadsStarted() === loads && tab.pending?.current === givenUpOn));
    return url === undefined ? undefined : stoppedLoadNote(url, tab.url());
  }
  if (callStartedLoad) await tab.stopLoading(() => loadsStarted() === loads).catch(() => undefined);
  return undefined;
}

export function stopMargin(timeout: number): number {
  return Math.min(1000, Math.round(timeout / 5));
}

/** How much of a call's budget of `timeout` ms a load may use before the driver gives up on it. */
export function loadBudget(timeout: number): number {
  return Math.max(1, timeout - stopMargin(timeout));
}

/** What the model reads when a load the driver was asked for did not answer in time. */
export function abandonedLoadMessage(url: string, timeout: number, current: string, stopped: boolean): string {
  const after = stopped ? `so loading was stopped; the tab shows ${current}` : `and the tab shows ${current}`;
  return `Could not load ${url}: it did not answer within ${timeout} ms, ${after}. The site may be slow or down: try again later, or go elsewhere.`;
}

/** What the model reads when an action started a load that did not answer in time. */
export function abandonedActionLoadMessage(url: string, timeout: number, current: string): string {
  return `The page started loading ${url}, which did not answer within ${timeout} ms, so loading was stopped; the tab shows ${current}. The site may be slow or down: try again later, or go elsewhere.`;
}

/** What a call that ran out of time adds to its error when it stopped the tab's load. */
export function stoppedLoadNote(url: string, current: string): string {
  return `The tab was still waiting for ${url}, so its loading was stopped; it shows ${current}.`;
}
