// Network activity of one page for settling: which tracked requests are in flight and when one last
// started or ended. Generic over the library's request type; it only listens, never touches a request.

/** Requests of these kinds keep a page from settling; media streams and sockets never end. */
const trackedResourceTypes = new Set(['document', 'stylesheet', 'script', 'xhr', 'fetch', 'image', 'font']);

/** What the tracker needs of a request: Playwright's `Request` and Puppeteer's `HTTPRequest` both have it. */
export interface TrackedRequest {
  resourceType(): string;
}

/** The request events of a page, as Playwright's and Puppeteer's `Page` both emit them. */
export interface RequestEvents<R> {
  on(event: 'request' | 'requestfinished' | 'requestfailed', listener: (request: R) => void): unknown;
  off(event: 'request' | 'requestfinished' | 'requestfailed', listener: (request: R) => void): unknown;
}

/** Network activity of one page as its request events report it (Puppeteer's include its out-of-process frames), since the driver first saw it. */
export class NetworkActivity<R extends TrackedRequest> {
  readonly inFlight = new Map<R, number>();
  lastActivity = 0;

  /** Removes the listeners this tracker added to the page. */
  readonly dispose: () => void;

  constructor(page: RequestEvents<R>) {
    const started = (request: R): void => {
      if (!trackedResourceTypes.has(request.resourceType())) return;
      this.inFlight.set(request, Date.now());
      this.lastActivity = Date.now();
    };
    const done = (request: R): void => {
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
