// Enforces a NavigationGuard on every navigation of one Puppeteer browser context: first requests,
// redirect hops, popups, frames, prefetches. It must not let a denied one leave, nor stop other contexts' requests.

import { speculationRulesRemover } from '../chromium/speculation-rules';
import type { Browser, CDPSession, Frame, Page } from 'puppeteer-core';
import type { BlockedNavigation, NavigationGuard } from '../browser/types';
import {
  GuardedNavigations,
  frameIds,
  isHarmless,
  startedOrDisposed,
  type CreatedTarget,
  type FrameTree,
  type PausedRequest,
  type LogEntryEvent,
  type SendCommand,
} from '../chromium/navigation-guard';

/** What the enforcer needs from the driver that owns the context. */
export interface NavigationGuardHooks {
  /**
   * True when no one else can open a context in this browser (the driver launched it): every
   * request the browser makes is then this context's.
   */
  readonly ownsBrowser: boolean;
  /** The driver's tabs now. */
  pages(): readonly Page[];
  /** The driver's id of a tab, when it tracks the page. */
  tabId(page: Page): string | undefined;
  /** Called just before a popup the guard stopped is closed, with the page that opened it when known. */
  popupClosing(opener: Page | undefined): void;
}

/** The part of CDP's target info the enforcer reads. */
interface TargetInfo {
  readonly targetId: string;
  readonly type: string;
  readonly browserContextId?: string | undefined;
  readonly openerId?: string | undefined;
}

/** One tab the enforcer watches: its own CDP session (for its target id and frame tree) and its after-commit check. */
interface PageWatch {
  readonly targetId: string;
  readonly session: CDPSession;
  dispose(): Promise<void>;
}

/** Whose request a paused one is, and what started it; undefined for another context's. */
interface Origin {
  readonly kind: BlockedNavigation['kind'];
  readonly page?: Page | undefined;
  /** For a popup: the target that opened it. */
  readonly openerTargetId?: string | undefined;
}

/**
 * Document requests (navigations and their redirect hops) and requests of type Fetch, which is
 * what Chromium makes `link rel=prefetch` (told apart by its `Sec-Purpose` header; the page's own
 * `fetch()` calls go on at once, unchecked). Other sub-resources are not navigations, and pausing
 * every image would cost a round trip each.
 */
const patterns = [
  { urlPattern: '*', resourceType: 'Document', requestStage: 'Request' },
  { urlPattern: '*', resourceType: 'Fetch', requestStage: 'Request' },
] as const;

/** Whether a paused request that is no document is a prefetch (`Sec-Purpose: prefetch`, or the older `Purpose`). */
function isPrefetch(event: PausedRequest): boolean {
  return Object.entries(event.request.headers ?? {}).some(([name, value]) => /^(sec-)?purpose$/i.test(name) && /prefetch/i.test(value));
}

/**
 * The guard of one browser context. A browser-level CDP session pauses every document request of
 * the browser before it is sent, whatever started it: links, forms, location changes, meta refresh,
 * redirect hops, popups whose page Puppeteer does not have yet, frames in and out of process, and
 * `link rel=prefetch`. A request is this context's when its frame is one of the context's targets
 * (CDP `Target.getTargetInfo`) or a frame of one of the driver's tabs (`Page.getFrameTree`);
 * others continue untouched. After each commit, a document the guard denies that loaded without
 * a request (`data:`, `blob:`, a page restored from the back-forward cache) is left for
 * `about:blank` and reported. Speculation rules (`<script type=speculationrules>`) are not seen,
 * the browser fetches them itself: a script removes them from each watched tab's documents (a
 * launched full Chromium's profile turns them off too). Chromium refuses
 * a `data:` URL in a top frame itself (a link, a location change, a popup) and says so only in
 * the tab's console: each tab's session reads it, the refusal is reported like a stopped
 * navigation, and a popup left empty by it is closed.
 */
export class NavigationGuardEnforcer extends GuardedNavigations<Page, NavigationGuardHooks> {
  private readonly browser: Browser;
  private readonly watches = new Map<Page, Promise<PageWatch | undefined>>();
  /** Targets that already made a document request: a later one of theirs is no popup's first. */
  private readonly seenTargets = new Set<string>();
  private session: CDPSession | undefined;
  private contextId: string | undefined;
  private disposed = false;
  private readonly onPaused = (event: PausedRequest): void => void this.paused(event);

  /** Starts enforcing `guard` on the context; rejects (and leaves nothing behind) if it cannot. */
  static async install(browser: Browser, guard: NavigationGuard, hooks: NavigationGuardHooks): Promise<NavigationGuardEnforcer> {
    return startedOrDisposed(new NavigationGuardEnforcer(browser, guard, hooks), (enforcer) => enforcer.start());
  }

  private constructor(browser: Browser, guard: NavigationGuard, hooks: NavigationGuardHooks) {
    super(guard, hooks);
    this.browser = browser;
  }

  protected override checkAgain(): void {
    for (const page of this.hooks.pages()) for (const frame of page.frames()) this.committed(page, frame);
  }

  /** Starts watching a tab the driver adopted (its target id, frames and commits). */
  watch(page: Page): void {
    if (this.disposed || this.watches.has(page)) return;
    this.watches.set(page, this.startWatch(page));
  }

  /** Stops enforcing: the browser session, the tab sessions and their listeners go. Idempotent. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    const watches = [...this.watches.values()];
    this.watches.clear();
    const session = this.session;
    this.session = undefined;
    session?.off('Fetch.requestPaused', this.onPaused);
    await Promise.all([
      this.stopReadingPopupConsoles(session ? sendOn(session) : undefined),
      session
        ? session
            .send('Fetch.disable')
            .catch(() => undefined)
            .then(() => session.detach().catch(() => undefined))
        : undefined,
      ...watches.map(async (watch) => (await watch)?.dispose()),
    ]);
  }

  private async start(): Promise<void> {
    const pages = this.hooks.pages();
    for (const page of pages) this.watch(page);
    const first = pages[0] ? await this.watches.get(pages[0]) : undefined;
    if (!this.hooks.ownsBrowser) {
      if (!first) throw new Error('the driver has no tab to learn its browser context from');
      const { targetInfo } = (await first.session.send('Target.getTargetInfo')) as { targetInfo: TargetInfo };
      this.contextId = targetInfo.browserContextId;
    }
    const session = await this.browser.target().createCDPSession();
    this.session = session;
    session.on('Fetch.requestPaused', this.onPaused);
    const send = sendOn(session);
    session.on('Target.targetCreated', (event: CreatedTarget) => void (this.disposed || this.readPopupConsole(send, event, this.contextId)));
    session.on('Target.receivedMessageFromTarget', (event) => void (this.disposed || this.popupConsoleMessage(send, event)));
    await session.send('Fetch.enable', { patterns: patterns.map((pattern) => ({ ...pattern })) });
    // Only for reading new tabs' consoles: a browser that refuses loses that, not the guard.
    await session.send('Target.setDiscoverTargets', { discover: true }).catch(() => undefined);
    await Promise.all([...this.watches.values()]);
  }

  private async startWatch(page: Page): Promise<PageWatch | undefined> {
    let session: CDPSession | undefined;
    let remover: { identifier: string } | undefined;
    const removeRemover = (): Promise<void> =>
      remover ? page.removeScriptToEvaluateOnNewDocument(remover.identifier).catch(() => undefined) : Promise.resolve();
    try {
      session = await page.createCDPSession();
      // Speculation rules prefetch where no interception sees it: removed from every document of the tab, best effort
      // (the watch's other checks do not wait on it, nor fail with it).
      remover = await page.evaluateOnNewDocument(speculationRulesRemover).catch(() => undefined);
      for (const frame of page.frames()) void frame.evaluate(speculationRulesRemover).catch(() => undefined);
      const { targetInfo } = (await session.send('Target.getTargetInfo')) as { targetInfo: TargetInfo };
      const committed = (frame: Frame): void => this.committed(page, frame);
      page.on('framenavigated', committed);
      for (const frame of page.frames()) this.committed(page, frame);
      const own = session;
      // A new tab the page opened that is still empty: a refusal in its console is a stopped popup.
      const opener = targetInfo.openerId && isHarmless(page.url()) ? targetInfo.openerId : undefined;
      own.on('Log.entryAdded', (event: LogEntryEvent) => void this.logged(page, event, opener));
      await own.send('Log.enable');
      const watch: PageWatch = {
        targetId: targetInfo.targetId,
        session: own,
        dispose: async () => {
          page.off('framenavigated', committed);
          await removeRemover();
          await own.detach().catch(() => undefined);
        },
      };
      if (this.disposed) {
        await watch.dispose();
        return undefined;
      }
      return watch;
    } catch {
      await removeRemover();
      await session?.detach().catch(() => undefined);
      return undefined;
    }
  }

  /** A tab's console entry: Chromium's refusal of a `data:` URL is reported, and a popup it left empty is closed. */
  private async logged(page: Page, event: LogEntryEvent, openerTargetId: string | undefined): Promise<void> {
    if (this.disposed) return;
    const popup = openerTargetId !== undefined && isHarmless(page.url());
    if (!this.reportRefusedDataUrl(event, popup ? 'popup' : 'navigation', this.hooks.tabId(page)) || !popup) return;
    this.hooks.popupClosing(await this.pageOfTarget(openerTargetId));
    await page.close().catch(() => undefined);
  }

  /** Checks one paused request; continues it unless it is this context's and the guard denies it. */
  private async paused(event: PausedRequest): Promise<void> {
    const session = this.session;
    if (!session) return;
    const proceed = (): Promise<void> =>
      session.send('Fetch.continueRequest', { requestId: event.requestId }).then(
        () => undefined,
        () => undefined,
      );
    if (event.resourceType !== 'Document' && !isPrefetch(event)) return proceed();
    let origin: Origin | undefined;
    try {
      origin = await this.originOf(event);
    } catch {
      origin = undefined;
    }
    if (!origin) return proceed();
    const url = event.request.url + (event.request.urlFragment ?? '');
    const decision = this.decide(url);
    if (decision.allowed) return proceed();
    // Noted before the request fails, so the driver's own goto sees why when its load rejects.
    if (origin.page && (origin.kind === 'navigation' || origin.kind === 'redirect') && (await this.isTopFrame(origin.page, event.frameId))) {
      this.noteBlocked(origin.page, url, decision.reason);
    }
    await session.send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'BlockedByClient' }).catch(() => undefined);
    this.report({ url, reason: decision.reason, kind: origin.kind, tabId: origin.page ? this.hooks.tabId(origin.page) : undefined });
    if (origin.kind === 'popup') {
      // The stopped popup would stay as an error page and take the focus: close it, back to its opener.
      this.hooks.popupClosing(origin.openerTargetId ? await this.pageOfTarget(origin.openerTargetId) : undefined);
      await session.send('Target.closeTarget', { targetId: event.frameId }).catch(() => undefined);
    }
  }

  /** Whose request it is and what started it: this context's target or a frame of its tabs, else undefined. */
  private async originOf(event: PausedRequest): Promise<Origin | undefined> {
    const redirect = event.redirectedRequestId !== undefined;
    const first = !this.seenTargets.has(event.frameId);
    const info = await this.targetInfo(event.frameId);
    if (info) {
      if (!this.hooks.ownsBrowser && info.browserContextId !== this.contextId) return undefined;
      this.seenTargets.add(event.frameId);
      const page = await this.pageOfTarget(info.targetId);
      if (event.resourceType !== 'Document') return { kind: 'prefetch', page };
      if (redirect) return { kind: 'redirect', page };
      // A popup's first request: its page may be a tab already (Puppeteer resumed it), or not yet.
      if (info.type === 'page' && info.openerId && first) return { kind: 'popup', page, openerTargetId: info.openerId };
      return { kind: info.type === 'page' ? 'navigation' : 'frame', page };
    }
    // Not a target: a frame inside one of the tabs' processes, or another context's.
    const page = await this.pageOfFrame(event.frameId);
    if (!page && !this.hooks.ownsBrowser) return undefined;
    if (event.resourceType !== 'Document') return { kind: 'prefetch', page };
    return { kind: redirect ? 'redirect' : 'frame', page };
  }

  private async targetInfo(targetId: string): Promise<TargetInfo | undefined> {
    const session = this.session;
    if (!session) return undefined;
    try {
      return ((await session.send('Target.getTargetInfo', { targetId })) as { targetInfo: TargetInfo }).targetInfo;
    } catch {
      return undefined;
    }
  }

  /** The driver's tab whose top frame is this target. */
  private async pageOfTarget(targetId: string): Promise<Page | undefined> {
    for (const [page, watch] of this.watches) if ((await watch)?.targetId === targetId) return page;
    return undefined;
  }

  /** The driver's tab that holds a frame with this id (in its own process). */
  private async pageOfFrame(frameId: string): Promise<Page | undefined> {
    for (const [page, watching] of this.watches) {
      const watch = await watching;
      if (!watch) continue;
      const tree = await watch.session.send('Page.getFrameTree').then(
        (answer) => (answer as { frameTree: FrameTree }).frameTree,
        () => undefined,
      );
      if (tree && frameIds(tree).includes(frameId)) return page;
    }
    return undefined;
  }

  private async isTopFrame(page: Page, frameId: string): Promise<boolean> {
    return (await this.watches.get(page))?.targetId === frameId;
  }

  /** The check after commit: a denied document that got in without a request is left at once. */
  private committed(page: Page, frame: Frame): void {
    if (this.disposed) return;
    const main = frame === page.mainFrame();
    this.leaveIfDenied(page, frame.url(), main, () => frame.goto('about:blank'));
  }
}

/** The commands of a session, as the shared enforcer code sends them. */
function sendOn(session: CDPSession): SendCommand {
  return (method, params) => session.send(method as 'Target.attachToTarget', params as never);
}
