// The Puppeteer transport of the Chromium driver core (src/chromium/transport.ts says the split):
// Puppeteer's pages, frames, loads and trusted input (mouse, keyboard, text insertion), the runtime's
// new-document script per tab, dialogs, and the library halves of the guards.

import type { Browser, BrowserContext, CDPSession, Dialog, ElementHandle, Frame, MouseButton, Page, Target } from 'puppeteer-core';
import type { ElementRef, NavigationGuard, NavigationResponse, ScreenshotOptions } from '../browser/types';
import { BrowserError, type PlannavError } from '../errors';
import { firstLine, within } from '../chromium/call';
import type { CoreOwnership } from '../chromium/driver-core';
import type { BrowserSession, RequestGuardOptions } from '../chromium/request-guard';
import { installRuntime } from '../chromium/runtime-calls';
import { resolveSettleOptions, type SettleOptions } from '../chromium/settle-options';
import type { TabHooks } from '../chromium/tabs';
import type { ChromiumTransport, ElementMethods, ElementPoint, GuardEnforcer, MouseStep, PageSession } from '../chromium/transport';
import type { PointerClick, PointerOutcome } from '../chromium/transport';
import { DialogWatch } from '../chromium/dialogs';
import type { CdpChannel } from '../chromium/websocket-targets';
import type { PageCdpSession } from '../chromium/downloading-driver';
import type { OpenedDownloadSession } from '../chromium/downloads';
import { asBrowserError } from './call';
import { FrameRegistry } from './frames';
import { pressKeys } from './keyboard';
import { NavigationGuardEnforcer } from './navigation-guard';
import { addRuntimeScript, lookUpElement, onElement, selectFieldContents } from './runtime-calls';
import { Settler } from './settle';
import { TabTracker } from './tabs';

/** What a Puppeteer driver owns and must release on close; attached drivers own nothing. */
export interface Ownership extends CoreOwnership {
  /** A browser the driver launched (closed on close) or connected to (disconnected on close). */
  readonly browser?: Browser | undefined;
  /** Whether `browser` was launched by the driver, so closing it ends the process. */
  readonly launched?: boolean | undefined;
  /** The context the driver opened in a connected browser. */
  readonly context?: BrowserContext | undefined;
}

/** The modifier keys of a click, as Puppeteer's keyboard names them. */
type Modifier = 'Alt' | 'Control' | 'Meta' | 'Shift';

/** Puppeteer under the Chromium driver core. */
export class PuppeteerTransport implements ChromiumTransport<Page, Frame, ElementHandle> {
  /** The id of the runtime's new-document script on each tab (undefined when it could not be added). */
  private readonly runtimeScripts = new Map<Page, Promise<string | undefined>>();
  readonly frames = new FrameRegistry();
  readonly settler: Settler;
  readonly ownsPages: boolean;
  private readonly context: BrowserContext;
  private readonly owned: Ownership;
  /** Whose pages are the driver's tabs: the context's (`context`), or one page's and its popups (`page`). */
  private readonly tabScope: 'context' | 'page';
  private tabs: TabTracker | undefined;
  private readonly onTarget = (target: Target): void => this.tabs?.adoptTarget(target, this.tabScope === 'page');

  constructor(context: BrowserContext, owned: Ownership, tabScope: 'context' | 'page', settle: SettleOptions | undefined) {
    this.context = context;
    this.owned = owned;
    this.tabScope = tabScope;
    this.ownsPages = owned.browser !== undefined;
    this.settler = new Settler(resolveSettleOptions(settle));
  }

  tabTracker(hooks: TabHooks<Page>): TabTracker {
    this.tabs = new TabTracker({
      watch: hooks.watch,
      forgotten: (page) => {
        hooks.forgotten(page);
        this.runtimeScripts.delete(page);
      },
    });
    return this.tabs;
  }

  /** Watches the context for new tabs, adopts its pages and makes one active, runtime installed. */
  async start(tabs: TabTracker, preferred: Page | undefined): Promise<void> {
    this.context.on('targetcreated', this.onTarget);
    const existing = await this.context.pages();
    if (this.tabScope === 'context') for (const page of existing) tabs.adopt(page, false);
    if (preferred) tabs.adopt(preferred, true);
    if (!tabs.activePage) tabs.adopt(existing[0] ?? (await this.context.newPage()), true);
    await Promise.all([...this.runtimeScripts.values()]);
  }

  /**
   * Puppeteer's watch of a new tab: its dialogs, and the page runtime in every document from now
   * on (added as a new-document script, and evaluated in the documents already loaded, which then
   * see the listeners added from here on).
   */
  watch(page: Page): () => void {
    const onDialog = (dialog: Dialog): void => {
      // Only when no one else listens: the user's own handler of an attached page decides then.
      if (page.listenerCount('dialog') > 1) return;
      this.dialogs.opened(page, dialog);
    };
    page.on('dialog', onDialog);
    const script = addRuntimeScript(page).then(
      async (identifier) => {
        await Promise.all(page.frames().map((frame: Frame) => installRuntime(frame)));
        return identifier;
      },
      () => undefined,
    );
    this.runtimeScripts.set(page, script);
    return () => void page.off('dialog', onDialog);
  }

  newPage(): Promise<Page> {
    return this.context.newPage();
  }

  async ready(page: Page): Promise<void> {
    await this.runtimeScripts.get(page);
  }

  async goto(page: Page, url: string, budget: number): Promise<NavigationResponse | undefined> {
    // An empty list of lifecycle events: resolve once the new document has committed; the settle wait does the rest.
    const answer = await page.goto(url, { waitUntil: [], timeout: budget });
    // The main document's status and headers: a collection tells a server error (5xx, 429) from a page by them.
    return answer ? { status: answer.status(), headers: answer.headers() } : undefined;
  }

  async loadFailure(page: Page, error: unknown): Promise<string> {
    await this.errorPageCommitted(page, 1500);
    return firstLine(error).replace(/ at \S+$/, '');
  }

  async goBack(page: Page, budget: number): Promise<boolean> {
    try {
      // An empty list of lifecycle events: resolve once the earlier document is committed; the settle wait does the rest.
      await page.goBack({ waitUntil: [], timeout: budget });
      return true;
    } catch (error) {
      // As Playwright's goBack, nothing to go back to is no failure: the caller sees the URL unchanged.
      if (/History entry to navigate to not found/i.test(firstLine(error))) return false;
      throw error;
    }
  }

  async session(page: Page): Promise<PageSession> {
    const session = await page.createCDPSession();
    return { send: (method) => session.send(method), detach: () => session.detach() };
  }

  onElement<M extends keyof ElementMethods>(
    element: ElementHandle,
    method: M,
    argument: Parameters<ElementMethods[M]>[1],
  ): Promise<ReturnType<ElementMethods[M]>> {
    return onElement(element, method, argument);
  }

  lookUp(frame: Frame, ref: ElementRef): Promise<ElementHandle | 'document' | 'removed'> {
    return lookUpElement(frame, ref);
  }

  async hover(page: Page, element: ElementHandle, point: ElementPoint, click: PointerClick): Promise<boolean> {
    const corner = await paddingCorner(element);
    if (!corner) return false;
    await within(page.mouse.move(corner.x + point.x, corner.y + point.y), Math.min(click.timeout, 5000), undefined);
    return true;
  }

  async pointerClick(page: Page, element: ElementHandle, point: ElementPoint, click: PointerClick): Promise<PointerOutcome> {
    const corner = await paddingCorner(element);
    if (!corner) return 'not-sent';
    // A press the page cannot acknowledge in time counts as made here (mouseClickOn): the press was sent.
    await this.mouseClickOn(page, corner.x + point.x, corner.y + point.y, click.button, click.modifiers, click.timeout);
    return 'made';
  }

  /**
   * A mouse click at a point of the page's viewport, with the modifiers held. A page that starts a
   * long script on the press cannot acknowledge the release: after a few seconds the click counts
   * as made, and the settle wait takes over.
   */
  async mouseClickOn(page: Page, x: number, y: number, button: MouseButton, modifiers: readonly Modifier[], timeout: number): Promise<void> {
    const held: Modifier[] = [];
    try {
      for (const modifier of modifiers) {
        await page.keyboard.down(modifier);
        held.push(modifier);
      }
      await within(page.mouse.click(x, y, { button }), Math.min(timeout, Math.max(1000, this.settler.maxWaitMs)), undefined);
    } finally {
      for (const modifier of held.reverse()) await within(page.keyboard.up(modifier), 1000, undefined);
    }
  }

  async typeText(page: Page, element: ElementHandle, ref: ElementRef, text: string): Promise<void> {
    const field = await element.evaluate(selectFieldContents);
    if (field === 'no-text') throw new BrowserError(`Element ${ref.index} is a <${ref.tagName}>, which cannot take text.`);
    if (field === 'read-only') throw new BrowserError(`Element ${ref.index} (<${ref.tagName}>) is disabled or read-only, so it cannot take text.`);
    // The selected content is replaced as typing would: one trusted text insertion, or a delete for no text.
    if (text === '') await page.keyboard.press('Delete');
    else await page.keyboard.sendCharacter(text);
  }

  chooseOption(element: ElementHandle, index: number): Promise<string[]> {
    return onElement(element, 'chooseOption', index);
  }

  /** Puppeteer's `uploadFile`. */
  async setFiles(element: ElementHandle, ref: ElementRef, files: readonly string[], count: number): Promise<void> {
    try {
      await (element as ElementHandle<HTMLInputElement>).uploadFile(...files);
    } catch (error) {
      const message = firstLine(error);
      if (/Multiple file uploads/i.test(message)) {
        throw new BrowserError(`Element ${ref.index} (<${ref.tagName}>) takes one file only, got ${count}.`, { cause: error });
      }
      if (/not a file input|file input element|Cannot set files/i.test(message)) {
        throw new BrowserError(`Element ${ref.index} (<${ref.tagName}>) is not a file input.`, { cause: error });
      }
      throw error;
    }
  }

  press(page: Page, keys: string): Promise<void> {
    return pressKeys(page.keyboard, keys);
  }

  async screenshot(page: Page, options: ScreenshotOptions | undefined): Promise<Uint8Array> {
    const fullPage = options?.fullPage ?? false;
    // A viewport shot need not lay the page out beyond the viewport.
    return page.screenshot({ type: 'jpeg', quality: options?.quality ?? 70, fullPage, captureBeyondViewport: fullPage });
  }

  // Issue 24, the missing actions: the mouse at a point of the viewport, reload, and the tabs' dialogs.
  readonly dialogs = new DialogWatch<Page>();

  async viewportPoint(element: ElementHandle, point: ElementPoint): Promise<ElementPoint | undefined> {
    const corner = await paddingCorner(element);
    return corner ? { x: corner.x + point.x, y: corner.y + point.y } : undefined;
  }

  async mouse(page: Page, step: MouseStep): Promise<void> {
    if (step.type === 'move') await page.mouse.move(step.x, step.y, { steps: step.steps ?? 1 });
    // The press's click count makes a second press a double click (Puppeteer's own click with `count` sets it the same way).
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    else if (step.type === 'down') await page.mouse.down({ button: step.button, clickCount: step.clickCount });
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    else await page.mouse.up({ button: step.button, clickCount: step.clickCount });
  }

  async reload(page: Page, budget: number): Promise<NavigationResponse | undefined> {
    // An empty list of lifecycle events: resolve once the new document has committed; the settle wait does the rest.
    const answer = await page.reload({ waitUntil: [], timeout: budget });
    return answer ? { status: answer.status(), headers: answer.headers() } : undefined;
  }

  async installGuard(guard: NavigationGuard, tabs: TabTracker): Promise<GuardEnforcer<Page>> {
    return NavigationGuardEnforcer.install(this.context.browser(), guard, {
      ownsBrowser: this.owned.launched === true,
      pages: () => tabs.livePages(),
      tabId: (page) => tabs.idOf(page),
      popupClosing: (opener) => {
        if (opener && tabs.has(opener) && !opener.isClosed()) tabs.activePage = opener;
      },
    });
  }

  /** The browser-level session of the `all-requests` scope, and the context whose requests it checks. */
  async openRequestGuard(): Promise<{ session: BrowserSession; options: RequestGuardOptions }> {
    const session = await this.context.browser().target().createCDPSession();
    return {
      session: {
        send: (method, params) => session.send(method as 'Fetch.enable', params),
        onPaused: (listener) => session.on('Fetch.requestPaused', listener),
        detach: () => session.detach(),
        channel: cdpChannel(session),
      },
      // A launched browser's requests are all the driver's; elsewhere other contexts' go on.
      options: { browserContextId: this.owned.launched === true ? undefined : this.context.id, proxy: this.owned.proxy ?? this.owned.lease?.tunnels },
    };
  }

  asBrowserError(what: string, error: unknown): PlannavError {
    return asBrowserError(what, error);
  }

  /** A killed browser or a dropped connection disconnects the Browser. */
  onGone(listener: () => void): () => void {
    const browser = this.context.browser();
    browser.on('disconnected', listener);
    return () => void browser.off('disconnected', listener);
  }

  stopListening(): void {
    this.context.off('targetcreated', this.onTarget);
  }

  async release(pages: readonly Page[]): Promise<unknown[]> {
    const problems: unknown[] = [];
    // Only in a context the driver does not close: closing one takes its pages' scripts with it.
    if (!this.owned.browser && !this.owned.context) {
      await Promise.all(
        pages.map(async (page) => {
          const identifier = await this.runtimeScripts.get(page);
          if (identifier !== undefined && !page.isClosed()) await page.removeScriptToEvaluateOnNewDocument(identifier).catch(() => undefined);
        }),
      );
    }
    this.runtimeScripts.clear();
    if (this.owned.context) await this.owned.context.close().catch((error: unknown) => problems.push(error));
    if (this.owned.browser && this.owned.launched) await this.owned.browser.close().catch((error: unknown) => problems.push(error));
    else if (this.owned.browser) await this.owned.browser.disconnect().catch((error: unknown) => problems.push(error));
    return problems;
  }

  /** Resolves once the page's top frame shows Chromium's error page, or after `ms`. */
  private async errorPageCommitted(page: Page, ms: number): Promise<void> {
    const isErrorPage = (): boolean => page.url().startsWith('chrome-error:');
    if (isErrorPage() || page.isClosed()) return;
    let onNavigated: ((frame: Frame) => void) | undefined;
    const committed = new Promise<void>((done) => {
      onNavigated = (frame: Frame): void => {
        if (frame === page.mainFrame() && isErrorPage()) done();
      };
      page.on('framenavigated', onNavigated);
    });
    await within(committed, ms, undefined);
    if (onNavigated) page.off('framenavigated', onNavigated);
  }

  // Files (issue 24): the sessions of downloads, printing and PDF reading (src/chromium/downloading-driver.ts).

  /** A browser-level session for the downloads of this context (all of the browser's when the driver launched it). */
  async openDownloadSession(): Promise<OpenedDownloadSession> {
    const session = await this.context.browser().target().createCDPSession();
    return {
      session: {
        send: (method, params) => session.send(method as 'Browser.setDownloadBehavior', params as never),
        onWillBegin: (listener) => void session.on('Browser.downloadWillBegin', listener),
        onProgress: (listener) => void session.on('Browser.downloadProgress', listener),
        detach: () => session.detach(),
      },
      browserContextId: this.owned.launched === true ? undefined : this.context.id,
    };
  }

  async pageSession(page: Page): Promise<PageCdpSession> {
    const session = await page.createCDPSession();
    return { send: (method, params) => session.send(method as 'Page.enable', params), detach: () => session.detach() };
  }
}

/** The top-left corner of an element's padding box in the page's viewport (Puppeteer's box model adds the frames above it). */
async function paddingCorner(element: ElementHandle): Promise<{ x: number; y: number } | undefined> {
  const box = await element.boxModel().catch(() => null);
  return box?.padding[0];
}

/** A Puppeteer session as the WebSocket guard's flat channel: Puppeteer makes a session of every target attached through it. */
function cdpChannel(session: CDPSession): CdpChannel {
  return {
    send: (method, params) => session.send(method as 'Runtime.evaluate', params as never),
    on: (event, listener) => void session.on(event as 'Runtime.bindingCalled', listener as never),
    child: (sessionId) => {
      const child = session.connection()?.session(sessionId);
      return child ? cdpChannel(child) : undefined;
    },
  };
}
