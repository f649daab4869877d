// The Chromium driver core: every flow of the BrowserDriver contract written once over a transport
// (transport.ts says what a library supplies). PlaywrightDriver and PuppeteerDriver extend it and add
// only how they are made (launch, attach, connect, pool) and what their library does its own way.

import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type {
  BrowserDriver,
  CallOptions,
  ClickOptions,
  ClickResult,
  ElementRef,
  FrameInfo,
  NavigationGuard,
  NavigationGuardStatus,
  NavigationResponse,
  PageScript,
  ScreenshotOptions,
  ScrollRequest,
  TabInfo,
} from '../browser/types';
import { callRuntime } from '../dom/page-runtime';
import { BrowserDisconnectedError, BrowserError, ConfigError, URLNotAllowedError } from '../errors';
import { firstLine, guardedCall, isLibraryTimeout, within } from './call';
import { BrowserConnection, browserGoneMessage, driverClosedMessage, readsAsGone } from './connection';
import type { PoolLease } from './browser-pool';
import type { EgressProxy } from './egress-proxy';
import { gotoRetryingOnce } from './goto-retry';
import { abandonedActionLoadMessage, abandonedLoadMessage, loadBudget, stopMargin, stopStuckLoad } from './pending-navigation';
import { updateRequestGuard, type RequestGuard } from './request-guard';
import { evaluateInFrame } from './runtime-calls';
import type { TabTracker } from './tabs';
import { checkUploadable, clickElement, staleElement } from './element-actions';
import type { ChromiumElement, ChromiumPage, ChromiumTransport, GuardEnforcer, PointerClick } from './transport';
import type { RuntimeFrame } from './runtime-calls';

/** What every driver may own and release on close, whatever its library; attached drivers own nothing. */
export interface CoreOwnership {
  readonly userDataDir?: string | undefined;
  /** The proxy the launched browser opens its WebSockets through (egress-proxy.ts). */
  readonly proxy?: EgressProxy | undefined;
  /** A pool's driver: its hold on the pool's shared browser, given back on close. */
  readonly lease?: PoolLease | undefined;
  /** Staying logged in (issue 24): `userDataDir` is the user's, kept on close(); `closeTabs`: close() closes the driver's tabs (connect's own tab). */
  readonly keepProfile?: boolean | undefined;
  readonly closeTabs?: boolean | undefined;
}

/** The options every driver takes. */
export interface CoreOptions {
  readonly highlightElements?: boolean | undefined;
  readonly defaultTimeout?: number | undefined;
}

/**
 * The BrowserDriver flows over one Chromium library. Tabs are the pages of one browser context; a
 * page the page opens becomes the active tab. After every action the driver waits until the page
 * has settled: navigation committed, network and DOM quiet, within `settle.maxWaitMs`.
 * `close()` releases only what the driver created.
 * @public
 */
export class ChromiumDriverCore<P extends ChromiumPage<F>, F extends RuntimeFrame & object, E extends ChromiumElement> implements BrowserDriver {
  /** The version of the driver contract this class implements. */
  readonly specificationVersion = 'v1' as const;
  protected readonly transport: ChromiumTransport<P, F, E>;
  private readonly owned: CoreOwnership;
  private readonly highlightElements: boolean;
  protected readonly defaultTimeout: number;
  /** A blank page the driver opened in an attached context after its last tab closed; closed on close(). */
  private readonly createdPages = new Set<P>();
  protected readonly tabTracker: TabTracker<P>;
  /** Enforces the guard given to setNavigationGuard(), while there is one. */
  private navigationGuard: GuardEnforcer<P> | undefined;
  /** Checks every request, while the guard's scope is `all-requests`. */
  private requestGuard: RequestGuard | undefined;
  private guardChange: Promise<unknown> = Promise.resolve();
  private closing: Promise<void> | undefined;
  /** Whether the browser is still there; once it is gone every call rejects with a BrowserDisconnectedError. */
  private readonly connection = new BrowserConnection();
  private readonly stopGoneWatch: () => void;
  /** Loads the driver started so far (goto, goBack, openTab): the stop for an abandoned call must not hit a later one. */
  protected navigationsStarted = 0;

  protected constructor(transport: ChromiumTransport<P, F, E>, owned: CoreOwnership, options: CoreOptions) {
    this.transport = transport;
    this.owned = owned;
    this.highlightElements = options.highlightElements ?? false;
    this.defaultTimeout = options.defaultTimeout ?? 15_000;
    if (!Number.isFinite(this.defaultTimeout) || this.defaultTimeout <= 0) {
      throw new ConfigError(`Option \`defaultTimeout\` must be a positive number of milliseconds, got ${String(options.defaultTimeout)}.`, {
        field: 'defaultTimeout',
      });
    }
    this.tabTracker = transport.tabTracker({
      watch: (page) => {
        const stopSettling = transport.settler.watch(page);
        this.navigationGuard?.watch?.(page);
        const stopWatch = transport.watch(page);
        return () => {
          stopSettling();
          stopWatch();
        };
      },
      forgotten: (page) => this.createdPages.delete(page),
    });
    this.stopGoneWatch = transport.onGone(() => this.connection.lose(this.closing ? driverClosedMessage : browserGoneMessage));
  }

  /** Lists the open tabs (the context's pages), in the order they opened. */
  async tabs(options?: CallOptions): Promise<TabInfo[]> {
    return this.guarded('tabs()', options, async () => Promise.all(this.tabTracker.livePages().map((page) => this.tabTracker.info(page))));
  }

  /** The tab the driver acts on, with the title its document has now (a page busy past a second keeps the last one read). */
  async activeTab(options?: CallOptions): Promise<TabInfo> {
    return this.guarded('activeTab()', options, async () => this.tabTracker.info(this.active(), 'fresh'));
  }

  /** Opens a tab, makes it active, loads `url` and waits until it has settled. */
  async openTab(url: string, options?: CallOptions): Promise<TabInfo> {
    return this.guarded(`openTab(${url})`, options, async (timeout, deadline) => {
      this.navigationsStarted++;
      this.navigationGuard?.assertAllowed(url, undefined);
      const page = await this.transport.newPage();
      this.tabTracker.adopt(page, true);
      await this.transport.ready(page);
      await this.navigate(page, url, timeout, options?.signal, deadline);
      return this.tabTracker.info(page);
    });
  }

  /** Makes a tab active and brings it to the front. */
  async switchTab(tabId: string, options?: CallOptions): Promise<TabInfo> {
    return this.guarded(`switchTab(${tabId})`, options, async () => {
      const page = this.tabTracker.pageById(tabId);
      this.tabTracker.activePage = page;
      await page.bringToFront();
      return this.tabTracker.info(page);
    });
  }

  /** Closes a tab; if it was active, the one before it becomes active (a blank one if none is left). */
  async closeTab(tabId: string, options?: CallOptions): Promise<void> {
    return this.guarded(`closeTab(${tabId})`, options, async () => {
      const page = this.tabTracker.pageById(tabId);
      const position = this.tabTracker.positionOf(page);
      const wasActive = this.tabTracker.activePage === page;
      await page.close();
      this.tabTracker.forget(page);
      if (wasActive || this.tabTracker.activePage === undefined) {
        const remaining = this.tabTracker.livePages();
        this.tabTracker.activePage = remaining[Math.max(0, Math.min(position - 1, remaining.length - 1))];
        if (!this.tabTracker.activePage) await this.openBlankTab();
      }
    });
  }

  /**
   * Loads `url` in the active tab (in a new tab when none is open) and waits until the page has
   * settled. A load that does not answer within the call's time is stopped, so the tab can be
   * read again, and the call rejects with a retryable `BrowserError` saying so.
   */
  async goto(url: string, options?: CallOptions): Promise<NavigationResponse | undefined> {
    return this.guarded(`goto(${url})`, options, async (timeout, deadline) => {
      this.navigationsStarted++;
      const page = this.tabTracker.livePages().length > 0 ? this.active() : await this.openBlankTab();
      const load = (tab: P, budget: number): Promise<NavigationResponse | undefined> => this.navigate(tab, url, budget, options?.signal, deadline);
      return gotoRetryingOnce({ active: () => this.active(), livePages: () => this.tabTracker.livePages(), load }, page, timeout, deadline, options?.signal);
    });
  }

  /**
   * Goes back in the active tab's history and waits until the page has settled; with no earlier
   * page the tab stays where it is. A load that does not answer in time is stopped, as with `goto`.
   */
  async goBack(options?: CallOptions): Promise<void> {
    return this.guarded('goBack()', options, async (timeout, deadline) => {
      this.navigationsStarted++;
      const page = this.active();
      try {
        if (!(await this.transport.goBack(page, loadBudget(timeout)))) return;
      } catch (error) {
        if (isLibraryTimeout(error)) throw await this.abandonLoad(page, 'the previous page', timeout, error);
        throw error;
      }
      await this.settle(page, timeout, options?.signal, deadline);
    });
  }

  /** The active tab's URL. */
  async currentUrl(options?: CallOptions): Promise<string> {
    return this.guarded('currentUrl()', options, async () => this.active().url());
  }

  /** The rendered frames of the active tab, top frame first, with each child frame's box in its parent. */
  async frames(options?: CallOptions): Promise<FrameInfo[]> {
    return this.guarded('frames()', options, async () => this.transport.frames.describe(this.active()));
  }

  /** Runs a page script in a frame of the active tab; its value comes back as JSON text. */
  async evaluate<TArg, TResult>(frameId: string, script: PageScript<TArg, TResult>, arg: TArg, options?: CallOptions): Promise<TResult> {
    return this.guarded(`evaluate(${script.id})`, options, async () => {
      this.active();
      return evaluateInFrame(this.transport.frames.frameById(frameId), script, arg);
    });
  }

  /**
   * Clicks an element of the last snapshot and waits until the page has settled; a new tab it
   * opens becomes active. The element is hit-tested in the page first (the runtime's
   * `clickTarget`): the mouse clicks its centre (`pointer`), or another visible point of it when
   * the centre is covered (`pointer-offset`); when no point can be reached the click is
   * dispatched in the page (`dom`), naming what covered it. A pointer click whose press reached the element is never
   * dispatched again; one a busy page cannot say it took is a retryable `BrowserError` (the model looks first).
   * @throws `BrowserError` when the element is gone or disabled.
   */
  async click(ref: ElementRef, options?: ClickOptions): Promise<ClickResult> {
    return this.guarded(`click on element ${ref.index}`, options, async (timeout, deadline) => {
      const page = this.active();
      const element = await this.locate(ref);
      const click: PointerClick = {
        button: options?.button ?? 'left',
        modifiers: options?.modifiers ? [...options.modifiers] : [],
        timeout,
        startedLoad: () => this.transport.settler.pendingNavigation(page)?.url !== undefined,
      };
      let result: ClickResult = { method: 'pointer' };
      try {
        result = await clickElement(this.transport, page, element, ref, click);
      } catch (error) {
        // The click made the page close its own tab (window.close()): it happened, and did what the page does.
        if (!page.isClosed()) throw error;
      } finally {
        void element.dispose().catch(() => undefined);
      }
      const settleOn = this.tabTracker.activePage ?? (page.isClosed() ? undefined : page);
      if (settleOn) await this.settle(settleOn, timeout, options?.signal, deadline);
      return result;
    });
  }

  /** Replaces the value of an input, textarea or editable element of the last snapshot, typing it as text input. */
  async fill(ref: ElementRef, text: string, options?: CallOptions): Promise<void> {
    return this.onElementAction('fill', ref, options, async (page, element, timeout) => {
      // Inputs with a machine format (date, range, colour) take no typing: their value is set through the setter frameworks track.
      const kept = await this.transport.onElement(element, 'setFormattedValue', text);
      if (kept === '' && text.trim() !== '') {
        throw new BrowserError(
          `Element ${ref.index} (<${ref.tagName}>) did not take "${text}": give the value in the input's own format (such as 2011-10-11, 15:45 or 2011-W41).`,
        );
      }
      if (kept === null) await this.transport.typeText(page, element, ref, text, timeout);
    });
  }

  /** Selects the option with this label (or value) in a select of the last snapshot; returns the selected values. */
  async selectOption(ref: ElementRef, label: string, options?: CallOptions): Promise<string[]> {
    return this.onElementAction('selectOption', ref, options, async (_page, element, timeout) => {
      const found = await this.transport.onElement(element, 'findOption', label);
      if ('labels' in found) {
        const listed = found.labels.length > 0 ? ` Options: ${found.labels.join(', ')}.` : ` It is a <${ref.tagName}>, not a select.`;
        throw new BrowserError(`Element ${ref.index} has no option "${label}".${listed}`);
      }
      return this.transport.chooseOption(element, found.index, Math.min(timeout, 5000));
    });
  }

  /** Sets the files of a file input of the last snapshot; relative paths are resolved from the working folder. */
  async uploadFiles(ref: ElementRef, paths: readonly string[], options?: CallOptions): Promise<void> {
    const files = paths.map((path) => resolve(path));
    return this.onElementAction(
      'uploadFiles',
      ref,
      options,
      async (_page, element, timeout) => this.transport.setFiles(element, ref, files, paths.length, Math.min(timeout, 5000)),
      () => files.forEach((file, position) => checkUploadable(file, paths[position] ?? file)),
    );
  }

  /** Presses keys on the focused element, such as `Enter` or `Control+A` (several separated by spaces), and waits until the page has settled. */
  async press(keys: string, options?: CallOptions): Promise<void> {
    return this.guarded(`press(${keys})`, options, async (timeout, deadline) => {
      const page = this.active();
      await this.transport.press(page, keys);
      await this.settle(this.tabTracker.activePage ?? page, timeout, options?.signal, deadline);
    });
  }

  /** Scrolls the page, or inside an element of the last snapshot, by pixels or to a percentage. */
  async scroll(options: ScrollRequest): Promise<void> {
    return this.guarded('scroll()', options, async (timeout, deadline) => {
      const page = this.active();
      const request = { deltaY: options.deltaY ?? null, toPercent: options.toPercent ?? null };
      if (options.ref) {
        const element = await this.locate(options.ref);
        try {
          await this.transport.onElement(element, 'scroll', request);
        } finally {
          void element.dispose().catch(() => undefined);
        }
      } else {
        // The runtime's scroll with no element scrolls the page.
        await callRuntime(this, this.transport.frames.frameId(page.mainFrame()), 'scroll', { locator: null, ...request }, options);
      }
      await this.settle(this.active(), timeout, options.signal, deadline);
    });
  }

  /** A JPEG of the viewport (or the whole page); with `highlightElements`, the given elements carry index boxes. */
  async screenshot(options?: ScreenshotOptions): Promise<Uint8Array> {
    return this.guarded('screenshot()', options, async (timeout) => {
      const page = this.active();
      const highlighted = this.highlightElements && options?.elements && options.elements.length > 0 ? await this.drawHighlights(options.elements) : [];
      try {
        return await this.transport.screenshot(page, options, timeout);
      } finally {
        await Promise.all(highlighted.map((frameId) => callRuntime(this, frameId, 'removeHighlight', undefined).catch(() => undefined)));
      }
    });
  }

  /**
   * Waits until the active page has settled (navigation committed, network and DOM quiet), within
   * the settle bound; a document the tab still waits for at the call's end is stopped. With no tab
   * open there is nothing to wait for.
   */
  async waitForSettled(options?: CallOptions): Promise<void> {
    return this.guarded('waitForSettled()', options, async (timeout, deadline) => {
      if (this.tabTracker.livePages().length === 0) return;
      await this.settle(this.active(), timeout, options?.signal, deadline, false);
    });
  }

  /**
   * Enforces `guard` on every navigation the browser makes in this driver's context, not only the
   * ones the driver starts: links, forms, location changes, meta refresh, redirect hops, popups,
   * frames and speculative loads. A denied navigation is stopped before its request is sent and
   * reported to `guard.blocked`; `goto` and `openTab` reject it with a `URLNotAllowedError`.
   * `undefined` removes the guard. With `guard.scope` `all-requests`, every other request of the
   * browser's frames, workers and service workers to a denied URL fails before it is sent (a
   * browser-level CDP session's Fetch domain), reported with kind `request`; in a launched browser
   * the driver's proxy refuses a WebSocket tunnel to a denied host. The status says what is not covered.
   */
  async setNavigationGuard(guard: NavigationGuard | undefined, options?: CallOptions): Promise<NavigationGuardStatus> {
    return this.guarded('setNavigationGuard()', options, () => {
      // One change at a time, so two calls cannot install two enforcers.
      const change = this.guardChange.then(async () => {
        this.checkUsable();
        if (guard && this.navigationGuard) this.navigationGuard.replace(guard);
        else {
          const previous = this.navigationGuard;
          this.navigationGuard = undefined;
          await previous?.dispose();
          if (guard) this.navigationGuard = await this.transport.installGuard(guard, this.tabTracker);
        }
        const { requestGuard, status } = await updateRequestGuard(this.requestGuard, guard, () => this.transport.openRequestGuard());
        this.requestGuard = requestGuard;
        return status;
      });
      this.guardChange = change.catch(() => undefined);
      return change;
    });
  }

  /**
   * Closes what the driver created (browser, context, profile folder); only detaches from what it
   * attached to. A pool's driver closes its context, and the last one open the pool's browser. Idempotent.
   */
  async close(): Promise<void> {
    // A pool's driver gives its hold on the shared browser back however its release went.
    this.closing ??= this.release().finally(() => this.owned.lease?.release());
    return this.closing;
  }

  /** Same as `close()`, for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Adopts the context's pages, makes one active and loads the start URL. */
  protected async start(startUrl?: string, preferred?: P): Promise<void> {
    await this.transport.start(this.tabTracker, preferred);
    if (startUrl && startUrl !== 'about:blank') await this.navigate(this.active(), startUrl, this.defaultTimeout, undefined, Date.now() + this.defaultTimeout);
  }

  /** The tab the driver acts on (the last open one when it closed). */
  protected active(): P {
    this.checkUsable();
    const current = this.tabTracker.activePage;
    const page = current && !current.isClosed() ? current : this.tabTracker.livePages().at(-1);
    if (!page) throw new BrowserError('No tab is open: open one with openTab().');
    this.tabTracker.activePage = page;
    return page;
  }

  /**
   * Runs a call under its `{ signal, timeout }`: a closed driver or a gone browser rejects it with a
   * `BrowserDisconnectedError`, and a call its caller stops waiting for (its time ran out, its
   * signal aborted) while the tab waits for a document stops that load, so the tab can be read again.
   */
  protected guarded<T>(what: string, options: CallOptions | undefined, body: (timeout: number, deadline: number) => Promise<T>): Promise<T> {
    const loads = this.navigationsStarted;
    return guardedCall(
      what,
      options,
      this.defaultTimeout,
      async (timeout, deadline) => {
        this.checkUsable();
        return body(timeout, deadline);
      },
      { toError: (failed, error) => this.connection.explain(this.transport.asBrowserError(failed, error), error), onAbandon: () => this.stopStuckLoad(loads) },
    );
  }

  /** One element action: locate the ref, act on it, let the handle go, and wait until the page has settled. */
  private async onElementAction<T>(
    name: string,
    ref: ElementRef,
    options: CallOptions | undefined,
    act: (page: P, element: E, timeout: number) => Promise<T>,
    check?: () => void,
  ): Promise<T> {
    return this.guarded(`${name} on element ${ref.index}`, options, async (timeout, deadline) => {
      const page = this.active();
      check?.();
      const element = await this.locate(ref);
      let result: T;
      try {
        result = await act(page, element, timeout);
      } finally {
        void element.dispose().catch(() => undefined);
      }
      await this.settle(this.tabTracker.activePage ?? page, timeout, options?.signal, deadline);
      return result;
    });
  }

  private async release(): Promise<void> {
    // A browser that is gone already cannot be closed cleanly: what is left is removing its profile.
    const gone = this.connection.lost;
    this.transport.stopListening();
    await this.guardChange;
    await this.navigationGuard?.dispose();
    this.navigationGuard = undefined;
    await this.requestGuard?.dispose();
    this.requestGuard = undefined;
    const pages = this.tabTracker.livePages();
    // Attached pages stay the user's: leave nothing of the driver's on them.
    this.tabTracker.detach();
    await this.transport.frames.clear();
    const created = [...this.createdPages];
    this.createdPages.clear();
    await Promise.all(created.map((page) => page.close().catch(() => undefined)));
    if (this.owned.closeTabs) await Promise.all(pages.map((page) => page.close().catch(() => undefined)));
    const problems = await this.transport.release(pages);
    await this.owned.proxy?.close();
    if (this.owned.userDataDir && !this.owned.keepProfile) rmSync(this.owned.userDataDir, { recursive: true, force: true, maxRetries: 3 });
    // A browser that died while it was closed (a SIGTERM reaching it and the app at once) is closed.
    const lost = gone || problems.every((problem) => readsAsGone(problem));
    this.tabTracker.activePage = undefined;
    this.stopGoneWatch();
    this.connection.lose(driverClosedMessage);
    if (problems.length > 0 && !lost) throw this.transport.asBrowserError('close()', problems[0]);
  }

  /** @throws `BrowserDisconnectedError` once the driver is closed or its browser is gone. */
  private checkUsable(): void {
    if (this.closing) throw new BrowserDisconnectedError(driverClosedMessage);
    this.connection.check();
  }

  /** A blank tab, made active: where the driver acts when no tab is left. */
  private async openBlankTab(): Promise<P> {
    const blank = await this.transport.newPage();
    // In a context the driver attached to, this page is the driver's: close() closes it.
    if (!this.transport.ownsPages) this.createdPages.add(blank);
    this.tabTracker.adopt(blank, true);
    await this.transport.ready(blank);
    return blank;
  }

  /** For a call its caller gave up on (begun when the driver had started `loadsBefore` loads): stops the load the active tab waits for, and says so. */
  private async stopStuckLoad(loadsBefore: number): Promise<string | undefined> {
    const page = this.tabTracker.activePage;
    if (!page || page.isClosed() || this.connection.lost) return undefined;
    const stopLoading = (stillWanted: () => boolean): Promise<void> => this.stopLoading(page, stillWanted);
    const tab = { pending: this.transport.settler.pendingNavigation(page), url: () => page.url(), stopLoading };
    return stopStuckLoad(tab, () => this.navigationsStarted, this.navigationsStarted !== loadsBefore);
  }

  /**
   * CDP's Page.stopLoading, which the browser process handles even while the tab answers no
   * script; not when `stillWanted()` no longer holds once the session is open.
   */
  private async stopLoading(page: P, stillWanted: () => boolean = () => true): Promise<void> {
    const session = await this.transport.session(page);
    try {
      if (!stillWanted()) return;
      await session.send('Page.stopLoading');
    } finally {
      void session.detach().catch(() => undefined);
    }
  }

  /** Stops a load that did not answer in time and returns the error the call rejects with. */
  protected async abandonLoad(page: P, url: string, timeout: number, cause: unknown): Promise<BrowserError> {
    const stopped = await this.transport.settler.pendingNavigation(page)?.stop(() => this.stopLoading(page));
    return new BrowserError(abandonedLoadMessage(url, timeout, page.url(), stopped !== undefined), { cause, retryable: true });
  }

  /** The element behind a snapshot ref, or a recoverable BrowserError saying it is gone. */
  protected async locate(ref: ElementRef): Promise<E> {
    let frame: F;
    try {
      frame = this.transport.frames.frameById(ref.frameId);
    } catch {
      throw staleElement(ref, 'its frame is gone');
    }
    let found: E | 'document' | 'removed';
    try {
      found = await this.transport.lookUp(frame, ref);
    } catch (error) {
      throw staleElement(ref, `the page changed (${firstLine(error)})`);
    }
    if (typeof found !== 'string') return found;
    throw staleElement(ref, found === 'document' ? 'the page has loaded a new document since' : 'it was removed from the page');
  }

  /** Loads `url` in `page` within the call's time (`deadline`); a load that does not answer by then is stopped. */
  private async navigate(page: P, url: string, timeout: number, signal: AbortSignal | undefined, deadline: number): Promise<NavigationResponse | undefined> {
    let response: NavigationResponse | undefined;
    const load = async (): Promise<unknown> => (response = await this.transport.goto(page, url, loadBudget(timeout)));
    try {
      await (this.navigationGuard ? this.navigationGuard.navigate(page, url, load) : load());
    } catch (error) {
      if (URLNotAllowedError.isInstance(error)) throw error;
      if (isLibraryTimeout(error)) throw await this.abandonLoad(page, url, timeout, error);
      // Chromium goes on to commit its error page after the failure: wait for it, or the next
      // navigation of this tab is interrupted by it.
      const reason = await this.transport.loadFailure(page, error);
      await this.settle(page, Math.min(timeout, 5_000), signal).catch(() => undefined);
      throw new BrowserError(`Could not load ${url}: ${reason}`, { cause: error, retryable: true });
    }
    await this.settle(page, timeout, signal, deadline);
    return response;
  }

  /**
   * Waits until the page has settled (document parsed, no tracked request in flight, no DOM
   * mutation for the quiet windows) within the settle bound and the call's time; then the tab a
   * click opened meanwhile settles within what is left. A busy page just ends the wait. With
   * `callEnd` (when the call's time ends), a document the action started loading is waited for
   * until then; one that has not come by then is stopped, and with `report` the call rejects with
   * a retryable BrowserError saying so.
   */
  protected async settle(page: P, timeout: number, signal: AbortSignal | undefined, callEnd?: number, report = true): Promise<void> {
    const settler = this.transport.settler;
    let deadline = settler.deadline(timeout);
    let current = page;
    for (let round = 0; round < 3; round++) {
      await settler.waitUntilSettled(current, deadline, signal);
      await this.tabTracker.adoptions(Math.max(0, deadline - Date.now()));
      const now = this.tabTracker.activePage;
      if (!now || now === current || now.isClosed()) break;
      current = now;
    }
    if (callEnd !== undefined && !current.isClosed()) {
      const giveUpAt = callEnd - stopMargin(timeout);
      const late = (await settler.pendingNavigation(current)?.arriveOrStop(giveUpAt, () => this.stopLoading(current))) ?? 'none';
      if (late === 'arrived') {
        // The document came late: it settles too, within what is left of the call.
        deadline = Math.min(settler.deadline(timeout), giveUpAt);
        await settler.waitUntilSettled(current, deadline, signal);
      } else if (late !== 'none' && report) {
        throw new BrowserError(abandonedActionLoadMessage(late.stopped, timeout, current.url()), { retryable: true });
      }
    }
    // An action may change the title without a navigation (a single-page app); read it once here,
    // within what is left of the bound (at least a short moment): a page busy with a long script
    // cannot answer, and then the title read at its last load stands.
    await within(this.tabTracker.refreshTitle(current), Math.max(50, deadline - Date.now()), undefined);
  }

  /** Draws index boxes in every frame that holds some of the elements; returns those frames. */
  private async drawHighlights(elements: readonly ElementRef[]): Promise<string[]> {
    const byFrame = new Map<string, { elementId: string; index: number }[]>();
    for (const element of elements)
      byFrame.set(element.frameId, [...(byFrame.get(element.frameId) ?? []), { elementId: element.elementId, index: element.index }]);
    const drawn: string[] = [];
    await Promise.all(
      [...byFrame].map(async ([frameId, targets]) => {
        if (!this.transport.frames.find(frameId)) return;
        const count = await callRuntime(this, frameId, 'highlight', { targets }).catch(() => 0);
        if (typeof count === 'number' && count > 0) drawn.push(frameId);
      }),
    );
    return drawn;
  }
}
