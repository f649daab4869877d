// PlaywrightDriver: plannav's BrowserDriver over playwright-core. It launches, attaches to or connects
// to Chromium (tabs, frames, settling in their own files) and never closes what it did not create.

import { rmSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type ElementHandle, type Frame, type Page } from 'playwright-core';
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
import { BrowserDisconnectedError, BrowserError, ConfigError, URLNotAllowedError } from '../errors';
import { asBrowserError, firstLine, guardedCall, isLibraryTimeout } from '../chromium/call';
import { BrowserConnection, browserGoneMessage, driverClosedMessage, readsAsGone } from '../chromium/connection';
import { findChromium } from '../chromium/find-chromium';
import { SharedBrowserPool, checkPoolSize, type PoolLease } from '../chromium/browser-pool';
import { startLaunchProxy, type EgressProxy } from '../chromium/egress-proxy';
import { chromiumLaunchArgs } from '../chromium/launch-args';
import { createProfile, removeProfileWhenGone } from '../chromium/profile';
import { resolveSettleOptions } from '../chromium/settle-options';
import { updateRequestGuard, type BrowserSession, type RequestGuard, type RequestGuardOptions } from '../chromium/request-guard';
import { abandonedActionLoadMessage, abandonedLoadMessage, loadBudget, stopMargin, stopStuckLoad } from '../chromium/pending-navigation';
import { gotoRetryingOnce } from '../chromium/goto-retry';
import { FrameRegistry } from './frames';
import { NavigationGuardEnforcer } from './navigation-guard';
import { ContextPageChecks, exposeReportBinding } from './page-checks';
import type { PlaywrightConnectOptions, PlaywrightDriverOptions, PlaywrightLaunchOptions, PlaywrightPoolOptions } from './options';
import { launchPooledChromium, type PlaywrightPool } from './pool';
import { callRuntime, pageRuntime } from '../dom/page-runtime';
import { evaluateInFrame, installRuntime } from '../chromium/runtime-calls';
import { lookUpElement, onElement } from './runtime-calls';
import { Settler } from './settle';
import { TabTracker } from './tabs';
import { sleep } from '../util/abort';

/** How long a click waits for its target to settle when the pointer changed its box (a hover style growing an icon). */
const growingTargetMs = 1000;
/** How long close() waits for Playwright to remove the driver's init script from an attached context. */
const initScriptRemovalMs = 2000;

/** What the driver owns and must release on close; attached drivers own nothing. */
interface Ownership {
  readonly browser?: Browser | undefined;
  readonly context?: BrowserContext | undefined;
  readonly userDataDir?: string | undefined;
  /** The proxy the launched browser opens its WebSockets through (egress-proxy.ts). */
  readonly proxy?: EgressProxy | undefined;
  /** A pool's driver: its hold on the pool's shared browser, given back on close. */
  readonly lease?: PoolLease | undefined;
}

/** How long one step of a service worker's restart may take (see `restartServiceWorkers`). */
const serviceWorkerStepMs = 5000;

/**
 * A `BrowserDriver` (the `plannav` contract) over Playwright (`playwright-core`, Chromium). Create one with
 * {@link PlaywrightDriver.launch}, {@link PlaywrightDriver.attach} or {@link PlaywrightDriver.connect},
 * or many over one browser with {@link PlaywrightDriver.pool}.
 *
 * @remarks
 * Tabs are the pages of one browser context; a page that a click opens (a `target=_blank` link,
 * `window.open`) becomes the active tab. After every action the driver waits until the page has
 * settled: navigation committed, network and DOM quiet, within `settle.maxWaitMs`. An init
 * script records click listeners added by page scripts, so the snapshot counts those elements
 * as interactive. `close()` releases only what the driver created.
 *
 * @example
 * ```ts
 * import { Executor } from 'plannav';
 * import { PlaywrightDriver } from 'plannav/playwright';
 *
 * await using browser = await PlaywrightDriver.launch();
 * await browser.goto('https://example.com');
 * const result = await new Executor({ task: 'Find the pricing page', llm, browser }).execute();
 * ```
 * @public
 */
export class PlaywrightDriver implements BrowserDriver {
  /** The version of the driver contract this class implements. */
  readonly specificationVersion = 'v1' as const;
  /** The Playwright context whose pages are this driver's tabs. */
  readonly context: BrowserContext;
  private readonly owned: Ownership;
  private readonly settler: Settler;
  private readonly highlightElements: boolean;
  private readonly defaultTimeout: number;
  /** A blank page the driver opened in an attached context after its last tab closed; closed on close(). */
  private readonly createdPages = new Set<Page>();
  private readonly tabTracker: TabTracker;
  private readonly frameRegistry = new FrameRegistry();
  /**
   * Whose pages are the driver's tabs: every page of the context (`context`), or, for a driver
   * attached to one page, that page and the popups its tabs open (`page`), so that drivers
   * attached to pages of one context never take each other's pages.
   */
  private readonly tabScope: 'context' | 'page';
  private readonly onPage = (page: Page): void => {
    if (this.tabScope === 'context') return this.tabTracker.adopt(page, true);
    // Playwright knows a page's opener when it announces the page: this resolves at once.
    void page
      .opener()
      .then((opener) => {
        if (opener && this.tabTracker.has(opener) && !this.closing) this.tabTracker.adopt(page, true);
      })
      .catch(() => undefined);
  };
  private initScript: { dispose(): Promise<void> } | undefined;
  /** Enforces the guard given to setNavigationGuard(), while there is one. */
  private navigationGuard: NavigationGuardEnforcer | undefined;
  /** Checks every request, while the guard's scope is `all-requests`. */
  private requestGuard: RequestGuard | undefined;
  /** The request guard's checks inside the context's documents (WebRTC), while it runs them. */
  private pageChecks: ContextPageChecks | undefined;
  /**
   * The name of the binding through which those checks report, once made. Playwright cannot
   * remove a binding: in a context the driver attached to, it stays after close(), calling nothing.
   */
  private reportBinding: Promise<string> | undefined;
  private guardChange: Promise<unknown> = Promise.resolve();
  private closing: Promise<void> | undefined;
  /** Whether the browser is still there; once it is gone every call rejects with a BrowserDisconnectedError. */
  private readonly connection = new BrowserConnection();
  private readonly onGone = (): void => this.connection.lose(this.closing ? driverClosedMessage : browserGoneMessage);

  private constructor(
    context: BrowserContext,
    owned: Ownership,
    options: PlaywrightDriverOptions & { readonly contextOptions?: { readonly javaScriptEnabled?: boolean | undefined } | undefined },
    tabScope: 'context' | 'page' = 'context',
  ) {
    this.context = context;
    this.owned = owned;
    this.tabScope = tabScope;
    // False when the driver made the context with page JavaScript off: the DOM cannot change by itself then.
    const pageScripts = options.contextOptions?.javaScriptEnabled !== false;
    this.settler = new Settler(resolveSettleOptions(options.settle), pageScripts);
    this.tabTracker = new TabTracker({
      watch: (page) => this.settler.watch(page),
      forgotten: (page) => this.createdPages.delete(page),
    });
    this.highlightElements = options.highlightElements ?? false;
    this.defaultTimeout = options.defaultTimeout ?? 15_000;
    if (!Number.isFinite(this.defaultTimeout) || this.defaultTimeout <= 0) {
      throw new ConfigError(`Option \`defaultTimeout\` must be a positive number of milliseconds, got ${String(options.defaultTimeout)}.`, {
        field: 'defaultTimeout',
      });
    }
    // A launched browser's context closes when its process ends; a connected one's browser disconnects.
    context.on('close', this.onGone);
    context.browser()?.on('disconnected', this.onGone);
  }

  /**
   * Launches a local Chromium with a fresh profile in a temporary folder; `close()` ends the
   * browser and removes the folder. Its WebSockets (only they) go through a local proxy of the
   * driver on 127.0.0.1, which lets the URL policy's `all-requests` scope stop them; a proxy of
   * your own (a proxy switch in `args`, `contextOptions.proxy`, or `http_proxy` and the like in
   * the environment) replaces it.
   * @throws `BrowserError` when no browser could be started; the message says where it looked.
   */
  static async launch(options: PlaywrightLaunchOptions = {}): Promise<PlaywrightDriver> {
    const executablePath = options.executablePath ?? findChromium();
    let userDataDir: string | undefined;
    let proxy: EgressProxy | undefined;
    let context: BrowserContext;
    try {
      userDataDir = createProfile();
      proxy = await startLaunchProxy(options.args, options.contextOptions?.proxy !== undefined);
      context = await chromium.launchPersistentContext(userDataDir, {
        ...options.contextOptions,
        executablePath,
        headless: options.headless ?? true,
        args: [...chromiumLaunchArgs, ...(proxy?.launchArgs ?? []), ...(options.args ?? [])],
        viewport: options.viewport ?? options.contextOptions?.viewport ?? { width: 1280, height: 1100 },
        timeout: options.launchTimeout ?? 30_000,
      });
    } catch (error) {
      if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
      await proxy?.close();
      const where = executablePath ?? "Playwright's own Chromium (none found at /usr/bin/chromium, chromium-browser, google-chrome, …)";
      throw new BrowserError(`Could not launch Chromium from ${where}: ${firstLine(error)}. Install Chromium or pass \`executablePath\`.`, { cause: error });
    }
    // A browser that dies (killed, crashed) takes its profile folder with it, close() or not.
    removeProfileWhenGone(userDataDir, (listener) => context.once('close', listener));
    context.once('close', () => void proxy?.close());
    // Whatever fails from here (bad options, an unreachable startUrl) must not leave the browser
    // running or its profile on disk.
    let driver: PlaywrightDriver | undefined;
    try {
      driver = new PlaywrightDriver(context, { context, userDataDir, proxy }, options);
      await driver.start(options.startUrl);
      return driver;
    } catch (error) {
      if (driver) await driver.close().catch(() => undefined);
      else {
        await context.close().catch(() => undefined);
        rmSync(userDataDir, { recursive: true, force: true, maxRetries: 3 });
      }
      throw error;
    }
  }

  /**
   * A pool of drivers that share one Chromium, for concurrent pages (`collect()`'s `browsers`, the
   * BullMQ worker's `browser`): each driver from `create()` has a browser context of its own (its
   * own cookies, storage, cache and tabs) where `launch()` would start a whole browser. The pool
   * launches Chromium on the first `create()`, with the switches and WebSocket proxy of `launch()`;
   * `close()` on a driver closes its context, and the last one open closes the browser, so a
   * collection that closes the drivers it made leaves no process behind. The next `create()`
   * launches again. With 8 pages at once, a pool takes about 60% of the memory per page of
   * 8 launched browsers (RssAnon, bench/pool-memory.ts).
   *
   * @remarks
   * What the drivers share: the browser process, so a crash of it fails every driver with a
   * `BrowserDisconnectedError`; and the WebSocket proxy, which cannot tell contexts apart, so with
   * the `all-requests` scope a WebSocket host one driver's guard denies is refused to every driver
   * of the pool (each driver's other checks are its own). Pages of different drivers never share a
   * renderer process: Chromium keeps one per browser context at least.
   *
   * No switch is added to save memory. Of those measured, only `--disable-site-isolation-trials`
   * saved much (nearly a fifth per page, 8 pages at once, on saved real pages), because a page's
   * cross-site frames then share its renderer process, which weakens what keeps one site's data
   * from another's in a page: pass it in `args` only for pages you trust. `--renderer-process-limit`,
   * `--process-per-site`, V8's `--optimize-for-size` and no spare renderer changed nothing measurable.
   * @throws `ConfigError` when `size` is not a positive integer.
   * @example
   * ```ts
   * import { collect } from 'plannav';
   * import { PlaywrightDriver } from 'plannav/playwright';
   *
   * await using pool = PlaywrightDriver.pool({ size: 8 });
   * const summary = await collect({ llm, browsers: pool, concurrency: 8, startUrls, schema });
   * ```
   */
  static pool(options: PlaywrightPoolOptions = {}): PlaywrightPool {
    const size = checkPoolSize(options.size, 'PlaywrightDriver');
    return new SharedBrowserPool(size, {
      name: 'PlaywrightDriver',
      launch: () => launchPooledChromium(options),
      open: async (shared, lease) => {
        const context = await shared.browser.newContext({
          ...options.contextOptions,
          viewport: options.viewport ?? options.contextOptions?.viewport ?? { width: 1280, height: 1100 },
        });
        let driver: PlaywrightDriver | undefined;
        try {
          driver = new PlaywrightDriver(context, { context, lease }, options);
          await driver.start(options.startUrl);
          return driver;
        } catch (error) {
          if (driver) await driver.close().catch(() => undefined);
          else await context.close().catch(() => undefined);
          throw error;
        }
      },
    });
  }

  /**
   * Drives a user's own Page (it becomes the active tab) or BrowserContext. The driver never
   * closes what it attached to: `close()` only removes its listeners and init script.
   *
   * @remarks
   * A driver attached to a page has as tabs that page, the tabs it opens itself (`openTab`) and
   * the popups its tabs open, and no other page of the context: drivers attached to different
   * pages of one context each drive their own page, concurrently if you like. A driver attached
   * to a context has every page of the context as a tab, and a page opened there by anyone
   * becomes its active tab.
   */
  static async attach(target: Page | BrowserContext, options: PlaywrightDriverOptions = {}): Promise<PlaywrightDriver> {
    const isPage = 'mainFrame' in target;
    const context = isPage ? target.context() : target;
    const driver = new PlaywrightDriver(context, {}, options, isPage ? 'page' : 'context');
    try {
      await driver.start(undefined, isPage ? target : undefined);
    } catch (error) {
      await driver.close().catch(() => undefined);
      throw error;
    }
    return driver;
  }

  /**
   * Connects to a remote browser by a Playwright server's `wsEndpoint` or a Chromium `cdpUrl`
   * and opens a context of its own there; `close()` closes that context and disconnects.
   * @throws `ConfigError` unless exactly one of `wsEndpoint` and `cdpUrl` is given;
   * `BrowserError` when the connection fails.
   */
  static async connect(options: PlaywrightConnectOptions): Promise<PlaywrightDriver> {
    if (Boolean(options.wsEndpoint) === Boolean(options.cdpUrl)) {
      throw new ConfigError('PlaywrightDriver.connect needs exactly one of `wsEndpoint` (a Playwright server) and `cdpUrl` (a Chromium CDP endpoint).', {
        field: options.wsEndpoint ? 'cdpUrl' : 'wsEndpoint',
      });
    }
    const timeout = options.connectTimeout ?? 30_000;
    let browser: Browser;
    try {
      browser = options.wsEndpoint
        ? await chromium.connect(options.wsEndpoint, { headers: options.headers, timeout })
        : await chromium.connectOverCDP(options.cdpUrl as string, { headers: options.headers, timeout });
    } catch (error) {
      throw new BrowserError(`Could not connect to ${options.wsEndpoint ?? options.cdpUrl}: ${firstLine(error)}`, { cause: error });
    }
    let context: BrowserContext | undefined;
    let driver: PlaywrightDriver | undefined;
    try {
      context = await browser.newContext({ viewport: { width: 1280, height: 1100 }, ...options.contextOptions });
      driver = new PlaywrightDriver(context, { browser, context }, options);
      await driver.start();
      return driver;
    } catch (error) {
      // Close what was opened here and disconnect; the remote browser itself is not ours.
      if (driver) await driver.close().catch(() => undefined);
      else {
        await context?.close().catch(() => undefined);
        await browser.close().catch(() => undefined);
      }
      throw error;
    }
  }

  /** The active tab's Playwright page, for what the driver does not cover. */
  get page(): Page {
    return this.active();
  }

  /** Lists the open tabs (the context's pages), in the order they opened. */
  async tabs(options?: CallOptions): Promise<TabInfo[]> {
    return this.guarded('tabs()', options, async () => Promise.all(this.tabTracker.livePages().map((page) => this.tabTracker.info(page))));
  }

  /** The tab the driver acts on. */
  async activeTab(options?: CallOptions): Promise<TabInfo> {
    return this.guarded('activeTab()', options, async () => this.tabTracker.info(this.active()));
  }

  /** Opens a tab, makes it active, loads `url` and waits until it has settled. */
  async openTab(url: string, options?: CallOptions): Promise<TabInfo> {
    return this.guarded(`openTab(${url})`, options, async (timeout, deadline) => {
      this.navigationsStarted++;
      this.navigationGuard?.assertAllowed(url, undefined);
      const page = await this.context.newPage();
      this.tabTracker.adopt(page, true);
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
      await page.close();
      this.tabTracker.forget(page);
      if (this.tabTracker.activePage === page || this.tabTracker.activePage === undefined) {
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
      const load = (tab: Page, budget: number): Promise<NavigationResponse | undefined> => this.navigate(tab, url, budget, options?.signal, deadline);
      return gotoRetryingOnce({ active: () => this.active(), livePages: () => this.tabTracker.livePages(), load }, page, timeout, deadline, options?.signal);
    });
  }

  /** Goes back in the active tab's history and waits until the page has settled; a load that does not answer in time is stopped, as with `goto`. */
  async goBack(options?: CallOptions): Promise<void> {
    return this.guarded('goBack()', options, async (timeout, deadline) => {
      this.navigationsStarted++;
      const page = this.active();
      try {
        await page.goBack({ waitUntil: 'commit', timeout: loadBudget(timeout) });
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
    return this.guarded('frames()', options, async () => this.frameRegistry.describe(this.active()));
  }

  /** Runs a page script in a frame of the active tab; its value comes back as JSON text. */
  async evaluate<TArg, TResult>(frameId: string, script: PageScript<TArg, TResult>, arg: TArg, options?: CallOptions): Promise<TResult> {
    return this.guarded(`evaluate(${script.id})`, options, async () => {
      const frame = this.frameRegistry.frameById(frameId);
      return evaluateInFrame(frame, script, arg);
    });
  }

  /**
   * Clicks an element of the last snapshot and waits until the page has settled; a new tab it
   * opens becomes active. The element is hit-tested first: the mouse clicks its centre
   * (`pointer`), or another visible point of it when the centre is covered (`pointer-offset`);
   * when no point can be reached the click is dispatched in the page (`dom`), naming what covered it.
   * @throws `BrowserError` when the element is gone or disabled.
   */
  async click(ref: ElementRef, options?: ClickOptions): Promise<ClickResult> {
    return this.guarded(`click on element ${ref.index}`, options, async (timeout, deadline) => {
      const page = this.active();
      const element = await this.locate(ref);
      const button = options?.button ?? 'left';
      const modifiers = options?.modifiers ? [...options.modifiers] : [];
      let result: ClickResult = { method: 'pointer' };
      try {
        let target = await onElement(element, 'clickTarget', undefined).catch((error: unknown) => {
          throw staleElement(ref, `the page changed (${firstLine(error)})`);
        });
        if (target.kind === 'centre' || target.kind === 'offset') {
          // The pointer comes first: a hover style may swap an icon's image, which starts 0 px
          // wide and grows; pressing meanwhile would land on what lies under it.
          const before = await onElement(element, 'boxKey', undefined);
          const hovered = await element
            .hover({ position: { x: target.x, y: target.y }, force: true, modifiers, timeout: Math.min(loadBudget(timeout), 5000) })
            .then(
              () => true,
              () => false,
            );
          if (hovered && (await onElement(element, 'stableBox', { maxMs: growingTargetMs, before })))
            target = await onElement(element, 'clickTarget', undefined);
        }
        if (target.kind === 'disabled') {
          throw new BrowserError(
            `Element ${ref.index} (<${ref.tagName}>) is disabled, so clicking it does nothing. Fill in what the form still needs, or choose another element.`,
          );
        }
        const coveredBy = target.kind === 'unseen' ? undefined : (target.coveredBy ?? undefined);
        result = { method: 'dom', ...(coveredBy ? { coveredBy } : {}) };
        if (target.kind === 'centre' || target.kind === 'offset') {
          try {
            // The hit test above stands in for Playwright's actionability checks, which would wait out the timeout on a covered element.
            await element.click({ position: { x: target.x, y: target.y }, force: true, button, modifiers, timeout: Math.min(loadBudget(timeout), 5000) });
            result = target.kind === 'centre' ? { method: 'pointer' } : { method: 'pointer-offset', ...(coveredBy ? { coveredBy } : {}) };
          } catch (error) {
            const startedLoad = this.settler.pendingNavigation(page)?.url !== undefined;
            // The click went through and started a load that Playwright waits for: the settle wait below takes it from here.
            if (startedLoad) result = target.kind === 'centre' ? { method: 'pointer' } : { method: 'pointer-offset', ...(coveredBy ? { coveredBy } : {}) };
            // Detached or moved away between the hit test and the click: the page's own handlers still get a dispatched click.
            else if (!/timeout|not stable|outside of the viewport|not visible|not attached|detached/i.test(firstLine(error))) throw error;
          }
        }
        if (result.method === 'dom') await onElement(element, 'dispatchClick', { button, modifiers });
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

  /** Replaces the value of an input, textarea or editable element of the last snapshot. */
  async fill(ref: ElementRef, text: string, options?: CallOptions): Promise<void> {
    return this.guarded(`fill on element ${ref.index}`, options, async (timeout, deadline) => {
      const element = await this.locate(ref);
      try {
        // Inputs with a machine format get their value set in the page: older Playwright versions
        // refuse a range value the input rounds or clamps, and fill skips the setter React tracks.
        const kept = await onElement(element, 'setFormattedValue', text);
        if (kept === '' && text.trim() !== '') {
          throw new BrowserError(
            `Element ${ref.index} (<${ref.tagName}>) did not take "${text}": give the value in the input's own format (such as 2011-10-11, 15:45 or 2011-W41).`,
          );
        }
        if (kept === null) await element.fill(text, { timeout: Math.min(timeout, 5000) });
      } catch (error) {
        if (/not an <input>|not an input|Element is not/i.test(firstLine(error))) {
          throw new BrowserError(`Element ${ref.index} is a <${ref.tagName}>, which cannot take text: ${firstLine(error)}`, { cause: error });
        }
        throw error;
      } finally {
        void element.dispose().catch(() => undefined);
      }
      await this.settle(this.active(), timeout, options?.signal, deadline);
    });
  }

  /** Selects the option with this label (or value) in a select of the last snapshot; returns the selected values. */
  async selectOption(ref: ElementRef, label: string, options?: CallOptions): Promise<string[]> {
    return this.guarded(`selectOption on element ${ref.index}`, options, async (timeout, deadline) => {
      const element = await this.locate(ref);
      try {
        const found = await onElement(element, 'findOption', label);
        if ('labels' in found) {
          const listed = found.labels.length > 0 ? ` Options: ${found.labels.join(', ')}.` : ` It is a <${ref.tagName}>, not a select.`;
          throw new BrowserError(`Element ${ref.index} has no option "${label}".${listed}`);
        }
        const values = await element.selectOption({ index: found.index }, { timeout: Math.min(timeout, 5000) });
        await this.settle(this.active(), timeout, options?.signal, deadline);
        return values;
      } finally {
        void element.dispose().catch(() => undefined);
      }
    });
  }

  /** Sets the files of a file input of the last snapshot. */
  async uploadFiles(ref: ElementRef, paths: readonly string[], options?: CallOptions): Promise<void> {
    return this.guarded(`uploadFiles on element ${ref.index}`, options, async (timeout, deadline) => {
      const element = await this.locate(ref);
      try {
        await element.setInputFiles([...paths], { timeout: Math.min(timeout, 5000) });
      } catch (error) {
        const message = firstLine(error);
        const path = paths.find((candidate) => message.includes(candidate)) ?? paths.join(', ');
        if (/ENOENT/.test(message)) throw new BrowserError(`Cannot upload ${path}: there is no such file.`, { cause: error });
        if (/EISDIR|does not support directories/.test(message))
          throw new BrowserError(`Cannot upload ${path}: it is a folder; give the path of a file in it.`, { cause: error });
        if (/Not an input|not an input|input\[type=file\]/.test(message)) {
          throw new BrowserError(`Element ${ref.index} (<${ref.tagName}>) is not a file input.`, { cause: error });
        }
        throw error;
      } finally {
        void element.dispose().catch(() => undefined);
      }
      await this.settle(this.active(), timeout, options?.signal, deadline);
    });
  }

  /** Presses keys on the focused element, such as `Enter` or `Control+A`, and waits until the page has settled. */
  async press(keys: string, options?: CallOptions): Promise<void> {
    return this.guarded(`press(${keys})`, options, async (timeout, deadline) => {
      const page = this.active();
      await page.keyboard.press(keys);
      await this.settle(this.tabTracker.activePage ?? page, timeout, options?.signal, deadline);
    });
  }

  /** Scrolls the page, or inside an element of the last snapshot, by pixels or to a percentage. */
  async scroll(options: ScrollRequest): Promise<void> {
    return this.guarded('scroll()', options, async (timeout, deadline) => {
      const request = { deltaY: options.deltaY ?? null, toPercent: options.toPercent ?? null };
      if (options.ref) {
        const element = await this.locate(options.ref);
        try {
          await onElement(element, 'scroll', request);
        } finally {
          void element.dispose().catch(() => undefined);
        }
      } else {
        // The runtime's scroll with no element scrolls the page.
        await callRuntime(this, this.frameRegistry.frameId(this.active().mainFrame()), 'scroll', { locator: null, ...request }, options);
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
        const bytes = await page.screenshot({ type: 'jpeg', quality: options?.quality ?? 70, fullPage: options?.fullPage ?? false, timeout });
        return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
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
   * frames and speculative loads. A denied navigation is stopped before any request is sent and
   * reported to `guard.blocked`; `goto` and `openTab` reject it with a `URLNotAllowedError`.
   * `undefined` removes the guard. Speculation rules cannot be intercepted: a launched browser
   * never runs them, and in other browsers they are removed from documents while a guard is set.
   * With `guard.scope` `all-requests`, every other request of the browser's frames, workers and
   * service workers to a denied URL fails before it is sent (a browser-level CDP session's Fetch
   * domain), reported with kind `request`. A WebSocket handshake is seen by no CDP domain: in a
   * launched browser, the driver's proxy refuses its tunnel to a denied host (by host only, loopback and link-local hosts aside);
   * elsewhere it is not checked. The status says what is not covered.
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
          if (guard) {
            this.navigationGuard = await NavigationGuardEnforcer.install(this.context, guard, {
              ownsBrowser: this.owned.userDataDir !== undefined,
              tabId: (page) => this.tabTracker.idOf(page),
              popupClosing: (popup, opener) => {
                if (this.tabTracker.activePage === popup && opener && this.tabTracker.has(opener) && !opener.isClosed()) this.tabTracker.activePage = opener;
              },
            });
          }
        }
        const { requestGuard, status } = await updateRequestGuard(this.requestGuard, guard, () => this.openRequestGuard());
        this.requestGuard = requestGuard;
        return status;
      });
      this.guardChange = change.catch(() => undefined);
      return change;
    });
  }

  /** The browser-level session of the `all-requests` scope, and the context whose requests it checks. */
  private async openRequestGuard(): Promise<{ session: BrowserSession; options: RequestGuardOptions }> {
    const browser = this.context.browser();
    if (!browser) throw new Error('the context has no browser to open a browser-level session on');
    let browserContextId: string | undefined;
    const page = this.context.pages()[0];
    if (this.owned.userDataDir === undefined && page) {
      // Attached or connected: other contexts' requests must go on. (Without a page, all are checked.)
      const pageSession = await this.context.newCDPSession(page);
      browserContextId = (await pageSession.send('Target.getTargetInfo')).targetInfo.browserContextId;
      await pageSession.detach().catch(() => undefined);
    }
    const session = await browser.newBrowserCDPSession();
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

  private async release(): Promise<void> {
    // A browser that is gone already cannot be closed cleanly: what is left is removing its profile.
    const gone = this.connection.lost;
    this.context.off('page', this.onPage);
    await this.guardChange;
    await this.navigationGuard?.dispose();
    this.navigationGuard = undefined;
    await this.requestGuard?.dispose();
    this.requestGuard = undefined;
    // Attached pages stay the user's: leave nothing of the driver's on them.
    this.tabTracker.detach();
    await this.frameRegistry.clear();
    const problems: unknown[] = [];
    const created = [...this.createdPages];
    this.createdPages.clear();
    await Promise.all(created.map((page) => page.close().catch(() => undefined)));
    if (!this.owned.context && this.initScript) {
      // Playwright waits for every page of the context to take the removal, and a page held by a
      // load that never answers never does: give up on it after a moment rather than hang.
      let bound: ReturnType<typeof setTimeout> | undefined;
      const removal = this.initScript.dispose().catch((error: unknown) => void problems.push(error));
      await Promise.race([removal, new Promise<void>((done) => (bound = setTimeout(done, initScriptRemovalMs)))]);
      clearTimeout(bound);
    }
    if (this.owned.context) await this.owned.context.close().catch((error: unknown) => problems.push(error));
    if (this.owned.browser) await this.owned.browser.close().catch((error: unknown) => problems.push(error));
    await this.owned.proxy?.close();
    if (this.owned.userDataDir) rmSync(this.owned.userDataDir, { recursive: true, force: true, maxRetries: 3 });
    // A browser that died while it was closed (a SIGTERM reaching it and the app at once) is closed.
    const lost = gone || problems.every((problem) => readsAsGone(problem));
    this.tabTracker.activePage = undefined;
    this.context.off('close', this.onGone);
    this.context.browser()?.off('disconnected', this.onGone);
    this.connection.lose(driverClosedMessage);
    if (problems.length > 0 && this.owned.context && !lost) throw asBrowserError('close()', problems[0]);
  }

  /** Installs the listener recorder, adopts the context's pages and makes one active. */
  private async start(startUrl?: string, preferred?: Page): Promise<void> {
    // The page runtime goes into every document before its scripts run, so the listeners they add are seen.
    const disposable: unknown = await this.context.addInitScript({ content: pageRuntime.installSource });
    if (disposable && typeof (disposable as { dispose?: unknown }).dispose === 'function') this.initScript = disposable as { dispose(): Promise<void> };
    if (this.tabScope === 'context') for (const page of this.context.pages()) this.tabTracker.adopt(page, false);
    this.context.on('page', this.onPage);
    if (preferred) this.tabTracker.adopt(preferred, true);
    if (!this.tabTracker.activePage) this.tabTracker.adopt(this.context.pages()[0] ?? (await this.context.newPage()), true);
    // Documents loaded before the driver came get the recorder now (it sees listeners added from here on).
    await Promise.all(this.tabTracker.livePages().flatMap((page) => page.frames().map((frame) => installRuntime(frame))));
    if (startUrl && startUrl !== 'about:blank') await this.navigate(this.active(), startUrl, this.defaultTimeout, undefined, Date.now() + this.defaultTimeout);
  }

  /** Loads the driver started so far (goto, goBack, openTab): the stop for an abandoned call must not hit a later one. */
  private navigationsStarted = 0;

  /**
   * Runs a call under its `{ signal, timeout }`: a closed driver or a gone browser rejects it with a
   * `BrowserDisconnectedError`, and a call its caller stops waiting for (its time ran out, its
   * signal aborted) while the tab waits for a document stops that load, so the tab can be read again.
   */
  private guarded<T>(what: string, options: CallOptions | undefined, body: (timeout: number, deadline: number) => Promise<T>): Promise<T> {
    return guardedCall(
      what,
      options,
      this.defaultTimeout,
      async (timeout, deadline) => {
        this.checkUsable();
        return body(timeout, deadline);
      },
      { toError: (failed, error) => this.connection.explain(asBrowserError(failed, error), error), onAbandon: () => this.stopStuckLoad() },
    );
  }

  /** @throws `BrowserDisconnectedError` once the driver is closed or its browser is gone. */
  private checkUsable(): void {
    if (this.closing) throw new BrowserDisconnectedError(driverClosedMessage);
    this.connection.check();
  }

  /** A blank tab, made active: where the driver acts when no tab is left. */
  private async openBlankTab(): Promise<Page> {
    const blank = await this.context.newPage();
    // In a context the driver attached to, this page is the driver's: close() closes it.
    if (!this.owned.context) this.createdPages.add(blank);
    this.tabTracker.adopt(blank, true);
    return blank;
  }

  /** Stops the document the active tab still waits for, if any; says what it did, for a call its caller gave up on. */
  private async stopStuckLoad(): Promise<string | undefined> {
    const page = this.tabTracker.activePage;
    if (!page || page.isClosed() || this.connection.lost) return undefined;
    const tab = {
      pending: this.settler.pendingNavigation(page),
      url: () => page.url(),
      stopLoading: (stillWanted: () => boolean) => this.stopLoading(page, stillWanted),
    };
    return stopStuckLoad(tab, () => this.navigationsStarted);
  }

  /**
   * CDP's Page.stopLoading, which the browser process handles even while the tab answers no
   * script; not when `stillWanted()` no longer holds once the session is open.
   */
  private async stopLoading(page: Page, stillWanted: () => boolean = () => true): Promise<void> {
    const session = await this.context.newCDPSession(page);
    try {
      if (!stillWanted()) return;
      await session.send('Page.stopLoading');
    } finally {
      void session.detach().catch(() => undefined);
    }
  }

  /** Stops a load that did not answer in time and returns the error the call rejects with. */
  private async abandonLoad(page: Page, url: string, timeout: number, cause: unknown): Promise<BrowserError> {
    const stopped = await this.settler.pendingNavigation(page)?.stop(() => this.stopLoading(page));
    return new BrowserError(abandonedLoadMessage(url, timeout, page.url(), stopped !== undefined), { cause, retryable: true });
  }

  private active(): Page {
    this.checkUsable();
    const current = this.tabTracker.activePage;
    const page = current && !current.isClosed() ? current : this.tabTracker.livePages().at(-1);
    if (!page) throw new BrowserError('No tab is open: open one with openTab().');
    this.tabTracker.activePage = page;
    return page;
  }

  /** The element behind a snapshot ref, or a recoverable BrowserError saying it is gone. */
  private async locate(ref: ElementRef): Promise<ElementHandle<Element>> {
    let frame: Frame;
    try {
      frame = this.frameRegistry.frameById(ref.frameId);
    } catch {
      throw staleElement(ref, 'its frame is gone');
    }
    let found;
    try {
      found = await lookUpElement(frame, ref);
    } catch (error) {
      throw staleElement(ref, `the page changed (${firstLine(error)})`);
    }
    if (typeof found !== 'string') return found;
    throw staleElement(ref, found === 'document' ? 'the page has loaded a new document since' : 'it was removed from the page');
  }

  /** Loads `url` in `page` within the call's time (`deadline`); a load that does not answer by then is stopped. */
  private async navigate(page: Page, url: string, timeout: number, signal: AbortSignal | undefined, deadline: number): Promise<NavigationResponse | undefined> {
    let response: NavigationResponse | undefined;
    const load = async (): Promise<unknown> => {
      const answer = await page.goto(url, { waitUntil: 'commit', timeout: loadBudget(timeout) });
      // The main document's status and headers: a collection tells a server error (5xx, 429) from a page by them.
      response = answer ? { status: answer.status(), headers: answer.headers() } : undefined;
      return answer;
    };
    try {
      await (this.navigationGuard ? this.navigationGuard.navigate(page, url, load) : load());
    } catch (error) {
      if (URLNotAllowedError.isInstance(error)) throw error;
      if (isLibraryTimeout(error)) throw await this.abandonLoad(page, url, timeout, error);
      // Chromium goes on to commit its error page after the failure: wait for it, or the next
      // navigation of this tab is interrupted by it.
      await this.settle(page, Math.min(timeout, 5_000), signal).catch(() => undefined);
      throw new BrowserError(`Could not load ${url}: ${firstLine(error)}`, { cause: error, retryable: true });
    }
    await this.settle(page, timeout, signal, deadline);
    return response;
  }

  /**
   * Waits until the page has settled: its document committed and parsed, no tracked request in
   * flight and no DOM mutation for the quiet windows, within the settle bound and the call's
   * time. A busy page just ends the wait. With `callEnd` (when the call's time ends), a document
   * the action started loading is waited for until then; one that has not come by then is
   * stopped, and with `report` the call rejects with a retryable BrowserError saying so.
   */
  private async settle(page: Page, timeout: number, signal: AbortSignal | undefined, callEnd?: number, report = true): Promise<void> {
    let deadline = this.settler.deadline(timeout);
    await this.settler.waitUntilSettled(page, deadline, signal);
    if (callEnd !== undefined) {
      const giveUpAt = callEnd - stopMargin(timeout);
      const late = (await this.settler.pendingNavigation(page)?.arriveOrStop(giveUpAt, () => this.stopLoading(page))) ?? 'none';
      if (late === 'arrived') {
        // The document came late: it settles too, within what is left of the call.
        deadline = Math.min(this.settler.deadline(timeout), giveUpAt);
        await this.settler.waitUntilSettled(page, deadline, signal);
      } else if (late !== 'none' && report) {
        throw new BrowserError(abandonedActionLoadMessage(late.stopped, timeout, page.url()), { retryable: true });
      }
    }
    // An action may change the title without a navigation (a single-page app); read it once here,
    // within what is left of the bound (at least a short moment): a page busy with a long script
    // cannot answer, and then the title read at its last load stands.
    const title = this.tabTracker.refreshTitle(page);
    let bound: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([title, new Promise<void>((done) => (bound = setTimeout(done, Math.max(50, deadline - Date.now()))))]);
    clearTimeout(bound);
  }

  /** Draws index boxes in every frame that holds some of the elements; returns those frames. */
  private async drawHighlights(elements: readonly ElementRef[]): Promise<string[]> {
    const byFrame = new Map<string, { elementId: string; index: number }[]>();
    for (const element of elements) {
      const targets = byFrame.get(element.frameId) ?? [];
      targets.push({ elementId: element.elementId, index: element.index });
      byFrame.set(element.frameId, targets);
    }
    const drawn: string[] = [];
    await Promise.all(
      [...byFrame].map(async ([frameId, targets]) => {
        const frame = this.frameRegistry.find(frameId);
        if (!frame) return;
        const count = await callRuntime(this, frameId, 'highlight', { targets }).catch(() => 0);
        if (typeof count === 'number' && count > 0) drawn.push(frameId);
      }),
    );
    return drawn;
  }
}

/** The recoverable error an action gets when the element the model chose is no longer there. */
function staleElement(ref: ElementRef, reason: string): BrowserError {
  return new BrowserError(`Element ${ref.index} (<${ref.tagName}>) is no longer on the page: ${reason}. Read the new page state and choose again.`, {
    retryable: true,
  });
}
