// The Playwright transport of the Chromium driver core (src/chromium/transport.ts says the split):
// Playwright's pages, frames, loads and input primitives, its init script, and the library halves of
// the guards (route-based navigation guard, the WebRTC checks in pages, service workers' restart).

import type { Browser, BrowserContext, CDPSession, Dialog, ElementHandle, Frame, Page } from 'playwright-core';
import type { ElementRef, NavigationGuard, NavigationResponse, ScreenshotOptions } from '../browser/types';
import { BrowserError, type PlannavError } from '../errors';
import { asBrowserError, firstLine } from '../chromium/call';
import type { CoreOwnership } from '../chromium/driver-core';
import { loadBudget } from '../chromium/pending-navigation';
import type { BrowserSession, RequestGuardOptions } from '../chromium/request-guard';
import { installRuntime } from '../chromium/runtime-calls';
import { resolveSettleOptions, type SettleOptions } from '../chromium/settle-options';
import type { TabHooks } from '../chromium/tabs';
import type {
  ChromiumTransport,
  ElementMethods,
  ElementPoint,
  GuardEnforcer,
  MouseStep,
  PageSession,
  PointerClick,
  PointerOutcome,
} from '../chromium/transport';
import type { PageCdpSession } from '../chromium/downloading-driver';
import type { OpenedDownloadSession } from '../chromium/downloads';
import { DialogWatch } from '../chromium/dialogs';
import { pageRuntime } from '../dom/page-runtime';
import { sleep } from '../util/abort';
import { FrameRegistry } from './frames';
import { NavigationGuardEnforcer } from './navigation-guard';
import { ContextPageChecks, exposeReportBinding } from './page-checks';
import { lookUpElement, onElement } from './runtime-calls';
import { Settler } from './settle';
import { TabTracker } from './tabs';

/** How long close() waits for Playwright to remove the driver's init script from an attached context. */
const initScriptRemovalMs = 2000;
/** How long one step of a service worker's restart may take (see `restartServiceWorkers`). */
const serviceWorkerStepMs = 5000;

/** What a Playwright driver owns and must release on close; attached drivers own nothing. */
export interface Ownership extends CoreOwnership {
  readonly browser?: Browser | undefined;
  readonly context?: BrowserContext | undefined;
}

/** Playwright under the Chromium driver core. */
export class PlaywrightTransport implements ChromiumTransport<Page, Frame, ElementHandle<Element>> {
  readonly settler: Settler;
  readonly frames = new FrameRegistry();
  readonly ownsPages: boolean;
  private readonly context: BrowserContext;
  private readonly owned: Ownership;
  /**
   * Whose pages are the driver's tabs: every page of the context (`context`), or, for a driver
   * attached to one page, that page and the popups its tabs open (`page`), so that drivers
   * attached to pages of one context never take each other's pages.
   */
  private readonly tabScope: 'context' | 'page';
  private tabs: TabTracker | undefined;
  private stopped = false;
  private readonly onPage = (page: Page): void => {
    const tabs = this.tabs;
    if (!tabs) return;
    if (this.tabScope === 'context') return tabs.adopt(page, true);
    // Playwright knows a page's opener when it announces the page: this resolves at once.
    void page
      .opener()
      .then((opener) => {
        if (opener && tabs.has(opener) && !this.stopped) tabs.adopt(page, true);
      })
      .catch(() => undefined);
  };
  private initScript: { dispose(): Promise<void> } | undefined;
  /** The request guard's checks inside the context's documents (WebRTC), while it runs them. */
  private pageChecks: ContextPageChecks | undefined;
  /**
   * The name of the binding through which those checks report, once made. Playwright cannot
   * remove a binding: in a context the driver attached to, it stays after close(), calling nothing.
   */
  private reportBinding: Promise<string> | undefined;

  /** `pageScripts` is false when the driver made the context with page JavaScript off: the DOM cannot change by itself then. */
  constructor(context: BrowserContext, owned: Ownership, tabScope: 'context' | 'page', settle: SettleOptions | undefined, pageScripts: boolean) {
    this.context = context;
    this.owned = owned;
    this.tabScope = tabScope;
    this.ownsPages = owned.context !== undefined;
    this.settler = new Settler(resolveSettleOptions(settle), pageScripts);
  }

  tabTracker(hooks: TabHooks<Page>): TabTracker {
    this.tabs = new TabTracker(hooks);
    return this.tabs;
  }

  /** Installs the listener recorder, adopts the context's pages and makes one active. */
  async start(tabs: TabTracker, preferred: Page | undefined): Promise<void> {
    // The page runtime goes into every document before its scripts run, so the listeners they add are seen.
    const disposable: unknown = await this.context.addInitScript({ content: pageRuntime.installSource });
    if (disposable && typeof (disposable as { dispose?: unknown }).dispose === 'function') this.initScript = disposable as { dispose(): Promise<void> };
    if (this.tabScope === 'context') for (const page of this.context.pages()) tabs.adopt(page, false);
    this.context.on('page', this.onPage);
    if (preferred) tabs.adopt(preferred, true);
    if (!tabs.activePage) tabs.adopt(this.context.pages()[0] ?? (await this.context.newPage()), true);
    // Documents loaded before the driver came get the recorder now (it sees listeners added from here on).
    await Promise.all(tabs.livePages().flatMap((page) => page.frames().map((frame) => installRuntime(frame))));
  }

  /** Playwright's watch of a new tab: its dialogs (the runtime comes with the context's init script). */
  watch(page: Page): () => void {
    return this.watchDialogs(page);
  }

  newPage(): Promise<Page> {
    return this.context.newPage();
  }

  async ready(): Promise<void> {
    // The init script is in every new page of the context from its first document.
  }

  async goto(page: Page, url: string, budget: number): Promise<NavigationResponse | undefined> {
    const answer = await page.goto(url, { waitUntil: 'commit', timeout: budget });
    // The main document's status and headers: a collection tells a server error (5xx, 429) from a page by them.
    return answer ? { status: answer.status(), headers: answer.headers() } : undefined;
  }

  async loadFailure(_page: Page, error: unknown): Promise<string> {
    return firstLine(error);
  }

  async goBack(page: Page, budget: number): Promise<boolean> {
    await page.goBack({ waitUntil: 'commit', timeout: budget });
    return true;
  }

  async session(page: Page): Promise<PageSession> {
    const session = await this.context.newCDPSession(page);
    return { send: (method) => session.send(method), detach: () => session.detach() };
  }

  onElement<M extends keyof ElementMethods>(
    element: ElementHandle<Element>,
    method: M,
    argument: Parameters<ElementMethods[M]>[1],
  ): Promise<ReturnType<ElementMethods[M]>> {
    return onElement(element, method, argument);
  }

  lookUp(frame: Frame, ref: ElementRef): Promise<ElementHandle<Element> | 'document' | 'removed'> {
    return lookUpElement(frame, ref);
  }

  async hover(_page: Page, element: ElementHandle<Element>, point: ElementPoint, click: PointerClick): Promise<boolean> {
    const options = { position: { x: point.x, y: point.y }, force: true, modifiers: [...click.modifiers], timeout: Math.min(loadBudget(click.timeout), 5000) };
    return element.hover(options).then(
      () => true,
      () => false,
    );
  }

  async pointerClick(_page: Page, element: ElementHandle<Element>, point: ElementPoint, click: PointerClick): Promise<PointerOutcome> {
    const { button, modifiers, timeout } = click;
    try {
      // The hit test stands in for Playwright's actionability checks, which would wait out the timeout on a covered element.
      await element.click({
        position: { x: point.x, y: point.y },
        force: true,
        button,
        modifiers: [...modifiers],
        timeout: Math.min(loadBudget(timeout), 5000),
      });
      return 'made';
    } catch (error) {
      // The click went through and started a load that Playwright waits for: the settle wait takes it from here.
      if (click.startedLoad()) return 'made';
      const message = firstLine(error);
      if (/timeout/i.test(message)) return timedOutClick(error);
      // Detached or moved away between the hit test and the click, before any input: the page's own handlers still get
      // a dispatched click.
      if (/not stable|outside of the viewport|not visible|not attached|detached/i.test(message)) return 'not-sent';
      throw error;
    }
  }

  async typeText(_page: Page, element: ElementHandle<Element>, ref: ElementRef, text: string, timeout: number): Promise<void> {
    try {
      await element.fill(text, { timeout: Math.min(timeout, 5000) });
    } catch (error) {
      if (/not an <input>|not an input|Element is not/i.test(firstLine(error))) {
        throw new BrowserError(`Element ${ref.index} is a <${ref.tagName}>, which cannot take text: ${firstLine(error)}`, { cause: error });
      }
      throw error;
    }
  }

  chooseOption(element: ElementHandle<Element>, index: number, timeout: number): Promise<string[]> {
    return element.selectOption({ index }, { timeout });
  }

  async setFiles(element: ElementHandle<Element>, ref: ElementRef, files: readonly string[], _count: number, timeout: number): Promise<void> {
    try {
      await element.setInputFiles([...files], { timeout });
    } catch (error) {
      if (/Not an input|not an input|input\[type=file\]/.test(firstLine(error))) {
        throw new BrowserError(`Element ${ref.index} (<${ref.tagName}>) is not a file input.`, { cause: error });
      }
      throw error;
    }
  }

  press(page: Page, keys: string): Promise<void> {
    return page.keyboard.press(keys);
  }

  async screenshot(page: Page, options: ScreenshotOptions | undefined, timeout: number): Promise<Uint8Array> {
    const bytes = await page.screenshot({ type: 'jpeg', quality: options?.quality ?? 70, fullPage: options?.fullPage ?? false, timeout });
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  // Issue 24, the missing actions: the mouse at a point of the viewport, reload, and the tabs' dialogs.
  readonly dialogs = new DialogWatch<Page>();

  /** The padding box's corner from Playwright's box (in the top page's viewport, frames included) and the element's borders. */
  async viewportPoint(element: ElementHandle<Element>, point: ElementPoint): Promise<ElementPoint | undefined> {
    const box = await element.boundingBox();
    if (!box) return undefined;
    const border = await element.evaluate((node) => ({ x: node.clientLeft, y: node.clientTop }));
    return { x: box.x + border.x + point.x, y: box.y + border.y + point.y };
  }

  async mouse(page: Page, step: MouseStep): Promise<void> {
    if (step.type === 'move') await page.mouse.move(step.x, step.y, { steps: step.steps ?? 1 });
    else if (step.type === 'down') await page.mouse.down({ button: step.button, clickCount: step.clickCount });
    else await page.mouse.up({ button: step.button, clickCount: step.clickCount });
  }

  async reload(page: Page, budget: number): Promise<NavigationResponse | undefined> {
    const answer = await page.reload({ waitUntil: 'commit', timeout: budget });
    return answer ? { status: answer.status(), headers: answer.headers() } : undefined;
  }

  /** Hands the page's dialogs to the watch, unless the user's own listener of an attached page decides them. */
  private watchDialogs(page: Page): () => void {
    const onDialog = (dialog: Dialog): void => {
      // Playwright's Page is an event emitter whose listener count its types leave out.
      if (((page as unknown as { listenerCount?: (event: string) => number }).listenerCount?.('dialog') ?? 1) > 1) return;
      this.dialogs.opened(page, dialog);
    };
    page.on('dialog', onDialog);
    return () => void page.off('dialog', onDialog);
  }

  async installGuard(guard: NavigationGuard, tabs: TabTracker): Promise<GuardEnforcer<Page>> {
    return NavigationGuardEnforcer.install(this.context, guard, {
      ownsBrowser: this.owned.userDataDir !== undefined,
      tabId: (page) => tabs.idOf(page),
      popupClosing: (popup, opener) => {
        if (tabs.activePage === popup && opener && tabs.has(opener) && !opener.isClosed()) tabs.activePage = opener;
      },
    });
  }

  asBrowserError(what: string, error: unknown): PlannavError {
    return asBrowserError(what, error);
  }

  /** A launched browser's context closes when its process ends; a connected one's browser disconnects. */
  onGone(listener: () => void): () => void {
    this.context.on('close', listener);
    const browser = this.context.browser();
    browser?.on('disconnected', listener);
    return () => {
      this.context.off('close', listener);
      browser?.off('disconnected', listener);
    };
  }

  stopListening(): void {
    this.stopped = true;
    this.context.off('page', this.onPage);
  }

  async release(): Promise<unknown[]> {
    const problems: unknown[] = [];
    if (!this.owned.context && this.initScript) {
      // Playwright waits for every page of the context to take the removal, and a page held by a
      // load that never answers never does: give up on it after a moment rather than hang.
      let bound: ReturnType<typeof setTimeout> | undefined;
      const removal = this.initScript.dispose().catch(() => undefined);
      await Promise.race([removal, new Promise<void>((done) => (bound = setTimeout(done, initScriptRemovalMs)))]);
      clearTimeout(bound);
    }
    if (this.owned.context) await this.owned.context.close().catch((error: unknown) => problems.push(error));
    if (this.owned.browser) await this.owned.browser.close().catch((error: unknown) => problems.push(error));
    return problems;
  }

  /**
   * A browser-level CDP session, and the CDP id of this driver's context when the driver did not launch the browser
   * (attached or connected: other contexts are not the driver's; found through a page, so undefined without one).
   */
  private async browserSession(): Promise<{ session: CDPSession; browserContextId: string | undefined }> {
    const browser = this.context.browser();
    if (!browser) throw new Error('the context has no browser to open a browser-level session on');
    let browserContextId: string | undefined;
    const page = this.context.pages()[0];
    if (this.owned.userDataDir === undefined && page) {
      const pageSession = await this.context.newCDPSession(page);
      browserContextId = (await pageSession.send('Target.getTargetInfo')).targetInfo.browserContextId;
      await pageSession.detach().catch(() => undefined);
    }
    return { session: await browser.newBrowserCDPSession(), browserContextId };
  }

  /** The browser-level session of the `all-requests` scope, and the context whose requests it checks. */
  async openRequestGuard(): Promise<{ session: BrowserSession; options: RequestGuardOptions }> {
    const { session, browserContextId } = await this.browserSession();
    return {
      session: {
        send: (method, params) => session.send(method as 'Fetch.enable', params),
        onPaused: (listener) => session.on('Fetch.requestPaused', listener),
        detach: () => session.detach(),
      },
      options: {
        browserContextId,
        proxy: this.owned.proxy ?? this.owned.lease?.tunnels,
        restartServiceWorkers: (count) => this.restartServiceWorkers(count),
        pageChecks: async (rules, onBlocked) => {
          this.reportBinding ??= exposeReportBinding(this.context, (target) => this.pageChecks?.report(target));
          const bindingName = await this.reportBinding.catch((error: unknown) => {
            this.reportBinding = undefined;
            throw error;
          });
          this.pageChecks = await ContextPageChecks.start(this.context, bindingName, rules, onBlocked);
          return this.pageChecks;
        },
      },
    };
  }

  /**
   * Restarts the context's running service workers through a page's ServiceWorker domain, so that
   * they run again under the request guard. Not by closing their targets, nor by only stopping
   * them: Playwright keeps a session of each, and a stopped worker answers none of its commands,
   * so every later `route` or `unroute` of the context would wait for it (seen: forever).
   */
  private async restartServiceWorkers(count: number): Promise<void> {
    const page = this.context.pages().find((candidate) => !candidate.isClosed());
    if (!page) return;
    const session = await this.context.newCDPSession(page);
    // A step that does not answer must not hold the guard's install, and close() after it.
    const send = async (
      method: 'ServiceWorker.stopWorker' | 'ServiceWorker.startWorker',
      params: { versionId: string } | { scopeURL: string },
    ): Promise<void> => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${method} did not answer`)), serviceWorkerStepMs)));
      try {
        await Promise.race([session.send(method, params as never), late]);
      } finally {
        clearTimeout(timer);
      }
    };
    const scopes = new Map<string, string>();
    const running = new Map<string, string>();
    session.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
      for (const registration of registrations) scopes.set(registration.registrationId, registration.scopeURL);
    });
    session.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
      // The active version only: an installing or waiting one is not restarted, its update goes on.
      for (const version of versions) {
        if (version.status === 'activated' && (version.runningStatus === 'running' || version.runningStatus === 'starting'))
          running.set(version.versionId, version.registrationId);
      }
    });
    try {
      await session.send('ServiceWorker.enable');
      // The domain reports the registrations and versions there are after it answers.
      for (const end = Date.now() + 2000; Date.now() < end && running.size < count;) await sleep(20);
      for (const [versionId, registrationId] of running) {
        // A worker stopped and not started again would hang Playwright's session of it: no scope, no stop.
        const scopeURL = scopes.get(registrationId);
        if (scopeURL === undefined) continue;
        try {
          await send('ServiceWorker.stopWorker', { versionId });
          await send('ServiceWorker.startWorker', { scopeURL });
        } catch {
          // That worker stays as it was; the others are still restarted.
        }
      }
    } finally {
      await session.detach().catch(() => undefined);
    }
  }

  // Files (issue 24): the sessions of downloads, printing and PDF reading (src/chromium/downloading-driver.ts).

  /** A browser-level session for the downloads of this context (its CDP id found through a page, unless the driver launched the browser). */
  async openDownloadSession(): Promise<OpenedDownloadSession> {
    const { session, browserContextId } = await this.browserSession();
    return {
      session: {
        send: (method, params) => session.send(method as 'Browser.setDownloadBehavior', params as never),
        onWillBegin: (listener) => session.on('Browser.downloadWillBegin', listener),
        onProgress: (listener) => session.on('Browser.downloadProgress', listener),
        detach: () => session.detach(),
      },
      browserContextId,
    };
  }

  async pageSession(page: Page): Promise<PageCdpSession> {
    const session = await this.context.newCDPSession(page);
    return { send: (method, params) => session.send(method as 'Page.enable', params), detach: () => session.detach() };
  }
}

/**
 * What became of a Playwright pointer click that timed out, from its call log: after `click action done` the press and
 * the release were taken (Playwright was waiting for navigations a busy page had yet to schedule); after `performing
 * click action` the press may have reached the page or not (the page was busy), which clickElement asks the page; before
 * it (scrolling into view) no input was sent. A log this does not know is asked about too.
 */
export function timedOutClick(error: unknown): PointerOutcome {
  const log = error instanceof Error ? error.message : String(error);
  if (/\baction done\b/.test(log)) return 'made';
  if (/\bperforming \w+ action\b/.test(log) || !/\battempting \w+ action\b/.test(log)) return 'timed-out';
  return 'not-sent';
}
