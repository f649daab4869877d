// Enforces a NavigationGuard on every navigation of one Playwright browser context: first requests,
// redirect hops, popups, frames and speculative loads. It must not let a denied one leave, nor stop other contexts' requests.

import type { BrowserContext, CDPSession, Frame, Page, Request, Route } from 'playwright-core';
import type { NavigationGuard } from '../browser/types';
import { frameIds, GuardedNavigations, startedOrDisposed, type CreatedTarget, type PausedRequest, type SendCommand } from '../chromium/navigation-guard';
import { portable } from './page-function';
import { removeSpeculationRules } from '../chromium/speculation-rules';
import { valueWithin } from '../util/value-within';

/** What the enforcer needs from the driver that owns the context. */
export interface NavigationGuardHooks {
  /**
   * True when no one else can open a context in this browser (the driver launched it): every
   * request the browser makes is then this context's.
   */
  readonly ownsBrowser: boolean;
  /** The driver's id of a tab, when it tracks the page. */
  tabId(page: Page): string | undefined;
  /** Called just before a popup the guard stopped is closed, so the driver can make its opener active again. */
  popupClosing(popup: Page, opener: Page | null): void;
}

/** A page the enforcer watches: its own CDP session (which sees its redirect hops) and its after-commit check. */
interface PageWatch {
  readonly targetId: string;
  readonly browserContextId: string | undefined;
  dispose(): Promise<void>;
}

/**
 * Document requests only: redirect hops of navigations. Sub-resources are not navigations, and
 * pausing every image would cost a round trip each.
 */
const documentRequests = [{ urlPattern: '*', resourceType: 'Document', requestStage: 'Request' }] as const;

/** How long a navigation may wait for the enforcer to start watching its page. */
const watchTimeoutMs = 5000;

/** How many stopped popups are remembered until their tab shows up to be closed. */
const popupMemory = 16;

/** How many frame ids of this context's pages are remembered for the browser-level session. */
const frameMemory = 4096;

/**
 * The guard of one browser context. Playwright's request interception sees the first request of
 * a navigation but continues redirect hops unseen, so three layers work together:
 *
 * - a context route checks the first request of every navigation (links, forms, location
 *   changes, meta refresh, frames, popups) and cancels speculative loads (`link rel=prefetch`);
 * - CDP sessions check each document request before it is sent: redirect hops, and the first
 *   requests no route sees (a tab the browser opens itself, a hop a service worker turned into a
 *   new request). A browser-level session sees every document request, popups whose page does not
 *   exist yet and out-of-process frames included; it acts on this context's only. A session per
 *   page also checks its in-process frames' requests, and tells the browser-level one which frame
 *   ids are this context's. (A session opened on a target
 *   only intercepts requests that start after it, so per-frame sessions opened on demand miss the
 *   very navigation they were opened for.)
 * - after each commit, a document the guard denies (a `data:` or `blob:` page, a page restored
 *   from the back-forward cache) is left for `about:blank` and reported.
 *
 * Chromium refuses a `data:` URL in a top frame itself (a link, a location change, a popup) and
 * says so only in the tab's console: each page session reads its console, and the browser-level
 * session reads each new tab's (Playwright never makes a page of a popup that loaded nothing).
 * The refusal is reported like a stopped navigation, and such a popup is closed.
 *
 * Speculation rules are invisible to interception: an init script removes them from documents.
 */
export class NavigationGuardEnforcer extends GuardedNavigations<Page, NavigationGuardHooks> {
  private readonly context: BrowserContext;
  private readonly pages = new Map<Page, Promise<PageWatch | undefined>>();
  /** The watched pages by CDP target id (the id of their top frame). */
  private readonly watchedTargets = new Map<string, Page>();
  /** The page of each frame id a page session saw (in-process frames of this context's pages). */
  private readonly ownFrames = new Map<string, Page>();
  private readonly blockedPopupRequests: Request[] = [];
  private readonly blockedPopupTargets: string[] = [];
  private browserSession: CDPSession | undefined;
  private contextId: string | undefined;
  private initScript: { dispose(): Promise<void> } | undefined;
  private disposed = false;
  private readonly onRoute = (route: Route, request: Request): Promise<void> => this.route(route, request);
  private readonly onPage = (page: Page): void => void this.pageOpened(page);

  private constructor(context: BrowserContext, guard: NavigationGuard, hooks: NavigationGuardHooks) {
    super(guard, hooks);
    this.context = context;
  }

  /** Starts enforcing `guard` on the context; rejects (and leaves nothing behind) if it cannot. */
  static async install(context: BrowserContext, guard: NavigationGuard, hooks: NavigationGuardHooks): Promise<NavigationGuardEnforcer> {
    return startedOrDisposed(new NavigationGuardEnforcer(context, guard, hooks), (enforcer) => enforcer.start());
  }

  protected override checkAgain(): void {
    for (const page of this.watchedTargets.values()) for (const frame of page.frames()) this.committed(page, frame);
  }

  /** Stops enforcing: removes the route, the sessions, the listeners and the init script. Idempotent. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.context.off('page', this.onPage);
    const watches = [...this.pages.values()];
    this.pages.clear();
    this.watchedTargets.clear();
    await Promise.all([
      this.stopReadingPopupConsoles(this.browserSession ? sendOn(this.browserSession) : undefined),
      this.context.unroute('**/*', this.onRoute).catch(() => undefined),
      this.initScript?.dispose().catch(() => undefined),
      this.browserSession?.detach().catch(() => undefined),
      ...watches.map(async (watch) => (await watch)?.dispose()),
    ]);
  }

  private async start(): Promise<void> {
    this.context.on('page', this.onPage);
    // Pages first: their sessions tell the browser-level session which targets are watched.
    const watches = await Promise.all(this.context.pages().map((page) => this.watchPage(page)));
    this.contextId = watches.find((watch) => watch?.browserContextId)?.browserContextId;
    await this.context.route('**/*', this.onRoute);
    const disposable: unknown = await this.context.addInitScript(portable(removeSpeculationRules));
    if (disposable && typeof (disposable as { dispose?: unknown }).dispose === 'function') this.initScript = disposable as { dispose(): Promise<void> };
    await Promise.all(
      this.context.pages().flatMap((page) => page.frames().map((frame) => frame.evaluate(portable(removeSpeculationRules)).catch(() => undefined))),
    );
    await this.startBrowserSession();
  }

  /** The browser-level session: see the class comment. */
  private async startBrowserSession(): Promise<void> {
    const browser = this.context.browser();
    if (!browser || !this.contextId) return;
    let session: CDPSession | undefined;
    try {
      session = await browser.newBrowserCDPSession();
      const browserSession = session;
      browserSession.on('Fetch.requestPaused', (event) => void this.paused(browserSession, event, undefined));
      const send = sendOn(browserSession);
      browserSession.on('Target.targetCreated', (event: CreatedTarget) => void (this.disposed || this.readPopupConsole(send, event, this.contextId)));
      browserSession.on('Target.receivedMessageFromTarget', (event) => void (this.disposed || this.popupConsoleMessage(send, event)));
      await browserSession.send('Fetch.enable', { patterns: [...documentRequests] });
      this.browserSession = browserSession;
      // Only for reading new tabs' consoles: a browser that refuses loses that, not the guard.
      await browserSession.send('Target.setDiscoverTargets', { discover: true }).catch(() => undefined);
    } catch {
      // A browser without browser-level sessions: the page sessions still check their pages'
      // hops; those of popups and out-of-process frames are then caught after commit only.
      await session?.detach().catch(() => undefined);
    }
  }

  /** The first request of every navigation, and speculative loads, pass through here. */
  private async route(route: Route, request: Request): Promise<void> {
    try {
      if (this.disposed) return await route.fallback();
      const headers = request.headers();
      const purpose = headers['sec-purpose'] ?? headers['purpose'];
      if (purpose !== undefined && /prefetch|prerender/i.test(purpose)) {
        // Speculative loads are cancelled whatever their URL: their redirect hops are not
        // navigations the sessions watch, and the agent gains nothing from them.
        const decision = this.decide(request.url());
        const frame = frameOf(request);
        if (!decision.allowed)
          this.report({ url: request.url(), reason: decision.reason, kind: 'prefetch', tabId: frame ? this.hooks.tabId(frame.page()) : undefined });
        return await route.abort('aborted');
      }
      if (!request.isNavigationRequest()) return await route.fallback();
      const frame = frameOf(request);
      const decision = this.decide(request.url());
      if (!frame) {
        // A new tab or window (target=_blank, window.open): its page is created only once a
        // document commits, so a stopped one shows an error page that is closed when it appears.
        if (decision.allowed) return await route.fallback();
        this.remember(this.blockedPopupRequests, request);
        this.report({ url: request.url(), reason: decision.reason, kind: 'popup' });
        return await route.abort('blockedbyclient');
      }
      const page = frame.page();
      if (!decision.allowed) {
        const main = frame === page.mainFrame();
        if (main) this.noteBlocked(page, request.url(), decision.reason);
        this.report({ url: request.url(), reason: decision.reason, kind: main ? 'navigation' : 'frame', tabId: this.hooks.tabId(page) });
        // `aborted` commits no error page: the tab or frame stays on the document it had.
        return await route.abort('aborted');
      }
      // Its page's session must intercept before the request leaves; if it cannot, it does not leave.
      if (!(await this.watchPage(page))) return await route.abort('aborted');
      return await route.fallback();
    } catch {
      // The page or context closed meanwhile, or the route was handled elsewhere.
    }
  }

  /** Adds to a bounded list of stopped popups, forgetting the oldest. */
  private remember<T>(list: T[], item: T): void {
    list.push(item);
    if (list.length > popupMemory) list.shift();
  }

  /** Remembers a frame of a watched page, forgetting the oldest beyond the bound. */
  private rememberFrame(frameId: string, page: Page): void {
    if (this.ownFrames.get(frameId) === page) return;
    this.ownFrames.delete(frameId);
    this.ownFrames.set(frameId, page);
    if (this.ownFrames.size > frameMemory) this.ownFrames.delete(this.ownFrames.keys().next().value as string);
  }

  /**
   * Every document request of a watched page (`page` given) or of the browser passes through
   * here, and this context's denied ones are stopped. The route has checked most first requests
   * already, but not all: a tab the browser opens itself (a link opened with Ctrl or the middle
   * button) has no page yet for the route to see, and a service worker that passes a navigation on
   * to the network makes each redirect hop a new request that no route sees either.
   */
  private async paused(session: CDPSession, event: PausedRequest, page: Page | undefined): Promise<void> {
    const resume = (): Promise<void> =>
      session.send('Fetch.continueRequest', { requestId: event.requestId }).then(
        () => undefined,
        () => undefined,
      );
    if (page) this.rememberFrame(event.frameId, page);
    if (this.disposed) return resume();
    const url = event.request.url + (event.request.urlFragment ?? '');
    // The verdict first: most requests are allowed, and they need no round trip to find whose they are.
    const decision = this.decide(url);
    if (decision.allowed) return resume();
    const scope = page ? 'frame' : await this.scopeOf(session, event.frameId);
    if (scope === 'foreign') return resume();
    if (scope === 'new-page') this.remember(this.blockedPopupTargets, event.frameId);
    const top = this.watchedTargets.get(event.frameId);
    const tab = top ?? page ?? this.ownFrames.get(event.frameId);
    if (top) this.noteBlocked(top, url, decision.reason);
    // `Aborted` keeps the previous document of a tab or frame; a new page (a popup in its first
    // navigation) needs an error page to be reported at all, and is then closed.
    await session
      .send('Fetch.failRequest', { requestId: event.requestId, errorReason: scope === 'new-page' ? 'BlockedByClient' : 'Aborted' })
      .catch(() => undefined);
    const kind = event.redirectedRequestId !== undefined ? 'redirect' : scope === 'new-page' ? 'popup' : top ? 'navigation' : 'frame';
    this.report({ url, reason: decision.reason, kind, tabId: tab ? this.hooks.tabId(tab) : undefined });
  }

  /**
   * Whose request the browser-level session paused: `foreign` (another context's), `new-page` (a
   * page of this context no session watches yet: a popup before its first commit) or `frame`
   * (any other frame of this context).
   */
  private async scopeOf(session: CDPSession, frameId: string): Promise<'foreign' | 'new-page' | 'frame'> {
    if (this.watchedTargets.has(frameId) || this.ownFrames.has(frameId)) return 'frame';
    try {
      const { targetInfo } = await session.send('Target.getTargetInfo', { targetId: frameId });
      if (targetInfo.browserContextId !== this.contextId) return 'foreign';
      return targetInfo.type === 'page' && !this.watchedTargets.has(frameId) ? 'new-page' : 'frame';
    } catch {
      // Not a target: a frame inside a page or inside an out-of-process frame. In a browser the
      // driver launched it can only be this context's; elsewhere it is looked for among this
      // context's frames (those of a popup or of an out-of-process frame no session saw yet), and
      // taken as this context's when the search does not end in time: a security check denies.
      if (this.hooks.ownsBrowser) return 'frame';
      return (await bounded(this.findFrame(frameId))) === false ? 'foreign' : 'frame';
    }
  }

  /**
   * Whether a frame is this context's, asking each page and out-of-process frame for its frame
   * tree (a page's tree stops at out-of-process frames). Only a denied request of a frame no
   * session saw comes here, so the round trips are rare.
   */
  private async findFrame(frameId: string): Promise<boolean> {
    const roots = this.context.pages().flatMap((page) => page.frames().map((frame) => ({ page, frame })));
    await Promise.all(
      roots.map(async ({ page, frame }) => {
        let session: CDPSession | undefined;
        try {
          // Playwright opens a session for an out-of-process frame and refuses one for a frame in its page's process.
          session = await this.context.newCDPSession(frame === page.mainFrame() ? page : frame);
          const { frameTree } = await session.send('Page.getFrameTree');
          for (const id of frameIds(frameTree)) this.rememberFrame(id, page);
        } catch {
          // A frame in its page's process, or a page that closed meanwhile.
        } finally {
          await session?.detach().catch(() => undefined);
        }
      }),
    );
    return this.ownFrames.has(frameId);
  }

  private async pageOpened(page: Page): Promise<void> {
    const watch = await this.watchPage(page);
    const requestIndex = this.blockedPopupRequests.findIndex((request) => frameOf(request) === page.mainFrame());
    const targetIndex = watch ? this.blockedPopupTargets.indexOf(watch.targetId) : -1;
    if (requestIndex === -1 && targetIndex === -1) return;
    if (requestIndex !== -1) this.blockedPopupRequests.splice(requestIndex, 1);
    if (targetIndex !== -1) this.blockedPopupTargets.splice(targetIndex, 1);
    const opener = await page.opener().catch(() => null);
    this.hooks.popupClosing(page, opener);
    await page.close().catch(() => undefined);
  }

  /**
   * Watches a page's redirect hops and committed documents; resolves once its session intercepts,
   * or with undefined when it cannot within the bound (the next navigation tries again).
   */
  private watchPage(page: Page): Promise<PageWatch | undefined> {
    const known = this.pages.get(page);
    if (known) return known;
    const started = this.startWatching(page);
    const watch = bounded(started);
    this.pages.set(page, watch);
    void Promise.all([started, watch]).then(([result, settled]) => {
      if (result && settled !== result) void result.dispose(); // it came too late: drop it
      if (!settled && this.pages.get(page) === watch) this.pages.delete(page);
    });
    return watch;
  }

  private async startWatching(page: Page): Promise<PageWatch | undefined> {
    if (this.disposed || page.isClosed()) return undefined;
    let session: CDPSession | undefined;
    try {
      session = await this.context.newCDPSession(page);
      const pageSession = session;
      pageSession.on('Fetch.requestPaused', (event) => void this.paused(pageSession, event, page));
      pageSession.on('Log.entryAdded', (event) => void this.reportRefusedDataUrl(event, 'navigation', this.hooks.tabId(page)));
      await pageSession.send('Fetch.enable', { patterns: [...documentRequests] });
      await pageSession.send('Log.enable');
      const { targetInfo } = await pageSession.send('Target.getTargetInfo');
      this.watchedTargets.set(targetInfo.targetId, page);
      const committed = (frame: Frame): void => this.committed(page, frame);
      const dispose = async (): Promise<void> => {
        page.off('framenavigated', committed);
        page.off('close', closed);
        await pageSession.detach().catch(() => undefined);
      };
      const closed = (): void => {
        this.pages.delete(page);
        this.watchedTargets.delete(targetInfo.targetId);
        void dispose();
      };
      page.on('framenavigated', committed);
      page.on('close', closed);
      for (const frame of page.frames()) this.committed(page, frame);
      if (this.disposed) {
        await dispose();
        return undefined;
      }
      return { targetId: targetInfo.targetId, browserContextId: targetInfo.browserContextId, dispose };
    } catch {
      await session?.detach().catch(() => undefined);
      return undefined;
    }
  }

  /** The check after commit: a denied document that got in without a request is left at once. */
  private committed(page: Page, frame: Frame): void {
    if (this.disposed) return;
    const main = frame === page.mainFrame();
    this.leaveIfDenied(page, frame.url(), main, () => (main ? page : frame).goto('about:blank'));
  }
}

/** The commands of a session, as the shared enforcer code sends them. */
function sendOn(session: CDPSession): SendCommand {
  return (method, params) => session.send(method as 'Target.attachToTarget', params as never);
}

/** The frame of a request, or undefined when it has none yet (a popup's first request). */
function frameOf(request: Request): Frame | undefined {
  try {
    return request.frame();
  } catch {
    return undefined;
  }
}

/** Resolves with the value, or with undefined after the bound: a navigation never waits forever. */
function bounded<T>(work: Promise<T | undefined>): Promise<T | undefined> {
  return valueWithin(work, watchTimeoutMs);
}
