// PuppeteerDriver: plannav's BrowserDriver over puppeteer-core. It launches, attaches to or connects
// to Chromium (tabs, frames, settling in their own files) and never closes what it did not create.

import { rmSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import puppeteer, {
  type Browser,
  type CDPSession,
  type BrowserContext,
  type Dialog,
  type ElementHandle,
  type Frame,
  type MouseButton,
  type Page,
  type Target,
} from 'puppeteer-core';
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
import type { ClickTarget } from '../dom/page/driver/pointer';
import { BrowserDisconnectedError, BrowserError, ConfigError, URLNotAllowedError } from '../errors';
import { firstLine, isLibraryTimeout } from '../chromium/call';
import { BrowserConnection, browserGoneMessage, driverClosedMessage } from '../chromium/connection';
import { abandonedActionLoadMessage, abandonedLoadMessage, loadBudget, stopMargin, stopStuckLoad } from '../chromium/pending-navigation';
import { gotoRetryingOnce } from '../chromium/goto-retry';
import { asBrowserError, guardedCall, within } from './call';
import { chromiumCandidates, findChromium } from '../chromium/find-chromium';
import { SharedBrowserPool, checkPoolSize, type PoolLease } from '../chromium/browser-pool';
import { startLaunchProxy, type EgressProxy } from '../chromium/egress-proxy';
import { chromiumLaunchArgs } from '../chromium/launch-args';
import { createProfile, removeProfileWhenGone } from '../chromium/profile';
import { resolveSettleOptions } from '../chromium/settle-options';
import { updateRequestGuard, type BrowserSession, type RequestGuard, type RequestGuardOptions } from '../chromium/request-guard';
import type { CdpChannel } from '../chromium/websocket-targets';
import { FrameRegistry } from './frames';
import { pressKeys } from './keyboard';
import { NavigationGuardEnforcer } from './navigation-guard';
import {
  checkOptions,
  defaultViewport,
  type PuppeteerConnectOptions,
  type PuppeteerDriverOptions,
  type PuppeteerLaunchOptions,
  type PuppeteerPoolOptions,
} from './options';
import { launchPooledChromium, type PuppeteerPool } from './pool';
import { evaluateInFrame, installRuntime } from '../chromium/runtime-calls';
import { addRuntimeScript, lookUpElement, onElement, selectFieldContents } from './runtime-calls';
import { Settler } from './settle';
import { TabTracker } from './tabs';

/** What the driver owns and must release on close; attached drivers own nothing. */
interface Ownership {
  /** A browser the driver launched (closed on close) or connected to (disconnected on close). */
  readonly browser?: Browser | undefined;
  /** Whether `browser` was launched by the driver, so closing it ends the process. */
  readonly launched?: boolean | undefined;
  /** The context the driver opened in a connected browser. */
  readonly context?: BrowserContext | undefined;
  readonly userDataDir?: string | undefined;
  /** The proxy the launched browser opens its WebSockets through (egress-proxy.ts). */
  readonly proxy?: EgressProxy | undefined;
  /** A pool's driver: its hold on the pool's shared browser, given back on close. */
  readonly lease?: PoolLease | undefined;
}

/** How long a click waits for its target to settle when the pointer changed its box (a hover style growing an icon). */
const growingTargetMs = 1000;

/** The modifier keys of a click, as Puppeteer's keyboard names them. */
type Modifier = 'Alt' | 'Control' | 'Meta' | 'Shift';

/**
 * A `BrowserDriver` (the `plannav` contract) over Puppeteer (`puppeteer-core`, Chromium). Create one with
 * {@link PuppeteerDriver.launch}, {@link PuppeteerDriver.attach} or {@link PuppeteerDriver.connect},
 * or many over one browser with {@link PuppeteerDriver.pool}.
 *
 * @remarks
 * Tabs are the pages of one browser context; a page that the page opens (a `target=_blank` link,
 * `window.open`) becomes the active tab. Clicks, keys and text are the browser's own trusted
 * input. After every action the driver waits until the page has settled: navigation committed,
 * network and DOM quiet, within `settle.maxWaitMs`. plannav's page runtime is installed in every
 * new document before the page's scripts run, so the click listeners they add are seen. Dialogs
 * (`alert`, `confirm`, `prompt`) nobody else listens for are dismissed, so they cannot stall the
 * page. `close()` releases only what the driver created.
 * @public
 */
export class PuppeteerDriver implements BrowserDriver {
  /** The version of the driver contract this class implements. */
  readonly specificationVersion = 'v1' as const;
  /** The Puppeteer browser context whose pages are this driver's tabs. */
  readonly context: BrowserContext;
  private readonly owned: Ownership;
  private readonly settler: Settler;
  private readonly highlightElements: boolean;
  private readonly defaultTimeout: number;
  /** A blank page the driver opened in an attached context after its last tab closed; closed on close(). */
  private readonly createdPages = new Set<Page>();
  private readonly tabTracker: TabTracker;
  private readonly frameRegistry = new FrameRegistry();
  /** The id of the runtime's new-document script on each tab (undefined when it could not be added). */
  private readonly runtimeScripts = new Map<Page, Promise<string | undefined>>();
  /**
   * Whose pages are the driver's tabs: every page of the context (`context`), or, for a driver
   * attached to one page, that page and the popups its tabs open (`page`), so that drivers
   * attached to pages of one context never take each other's pages.
   */
  private readonly tabScope: 'context' | 'page';
  private readonly onTarget = (target: Target): void => this.tabTracker.adoptTarget(target, this.tabScope === 'page');
  /** Enforces the guard given to setNavigationGuard(), while there is one. */
  private navigationGuard: NavigationGuardEnforcer | undefined;
  /** Checks every request, while the guard's scope is `all-requests`. */
  private requestGuard: RequestGuard | undefined;
  private guardChange: Promise<unknown> = Promise.resolve();
  private closing: Promise<void> | undefined;
  /** Whether the browser is still there; once it is gone every call rejects with a BrowserDisconnectedError. */
  private readonly connection = new BrowserConnection();
  private readonly onGone = (): void => this.connection.lose(this.closing ? driverClosedMessage : browserGoneMessage);

  private constructor(context: BrowserContext, owned: Ownership, options: PuppeteerDriverOptions, tabScope: 'context' | 'page' = 'context') {
    checkOptions(options);
    this.context = context;
    this.owned = owned;
    this.tabScope = tabScope;
    this.settler = new Settler(resolveSettleOptions(options.settle));
    this.tabTracker = new TabTracker({
      watch: (page) => this.watch(page),
      forgotten: (page) => {
        this.createdPages.delete(page);
        this.runtimeScripts.delete(page);
      },
    });
    this.highlightElements = options.highlightElements ?? false;
    this.defaultTimeout = options.defaultTimeout ?? 15_000;
    // A killed browser or a dropped connection disconnects the Browser.
    context.browser().on('disconnected', this.onGone);
  }

  /**
   * Launches a local Chromium with a fresh profile in a temporary folder; `close()` ends the
   * browser and removes the folder. Headless unless `headless: false`. Its WebSockets (only they)
   * go through a local proxy of the driver on 127.0.0.1, which lets the URL policy's
   * `all-requests` scope stop them; a proxy of your own (a switch in `args`, or `http_proxy` and
   * the like in the environment) replaces it.
   * @throws `ConfigError` for a bad option; `BrowserError` when no browser could be started (the
   * message says where it looked).
   * @example
   * ```ts
   * import { Executor } from 'plannav';
   * import { PuppeteerDriver } from 'plannav/puppeteer';
   *
   * await using browser = await PuppeteerDriver.launch({ startUrl: 'https://example.com' });
   * const result = await new Executor({ task: 'Find the pricing page', llm, browser }).execute();
   * ```
   */
  static async launch(options: PuppeteerLaunchOptions = {}): Promise<PuppeteerDriver> {
    checkOptions(options);
    const executablePath = options.executablePath ?? findChromium();
    if (!executablePath) {
      const looked = chromiumCandidates(process.platform, process.env).join(', ');
      throw new BrowserError(`No Chromium or Chrome found (looked at ${looked}): install one or pass \`executablePath\`. puppeteer-core downloads no browser.`);
    }
    let userDataDir: string | undefined;
    let proxy: EgressProxy | undefined;
    let browser: Browser;
    try {
      userDataDir = createProfile();
      proxy = await startLaunchProxy(options.args);
      browser = await puppeteer.launch({
        executablePath,
        headless: options.headless ?? true,
        args: [...chromiumLaunchArgs, ...(proxy?.launchArgs ?? []), ...(options.args ?? [])],
        userDataDir,
        defaultViewport: options.viewport ?? defaultViewport,
        timeout: options.launchTimeout ?? 30_000,
      });
    } catch (error) {
      if (userDataDir) rmSync(userDataDir, { recursive: true, force: true, maxRetries: 3 });
      await proxy?.close();
      throw new BrowserError(`Could not launch Chromium from ${executablePath}: ${firstLine(error)}. Install Chromium or pass \`executablePath\`.`, {
        cause: error,
      });
    }
    // A browser that dies (killed, crashed) takes its profile folder with it, close() or not.
    removeProfileWhenGone(userDataDir, (listener) => browser.once('disconnected', listener));
    browser.once('disconnected', () => void proxy?.close());
    // Whatever fails from here (an unreachable startUrl) must not leave the browser running or its profile on disk.
    let driver: PuppeteerDriver | undefined;
    try {
      driver = new PuppeteerDriver(browser.defaultBrowserContext(), { browser, launched: true, userDataDir, proxy }, options);
      await driver.start(options.startUrl);
      return driver;
    } catch (error) {
      if (driver) await driver.close().catch(() => undefined);
      else {
        await browser.close().catch(() => undefined);
        rmSync(userDataDir, { recursive: true, force: true, maxRetries: 3 });
      }
      throw error;
    }
  }

  /**
   * A pool of drivers that share one Chromium, for concurrent pages (`collect()`'s `browsers`, the
   * BullMQ worker's `browser`): each driver from `create()` has a browser context of its own (its
   * own cookies, storage, cache and tabs) where `launch()` would start a whole browser. The pool
   * launches Chromium on the first `create()`, with the switches, profile and WebSocket proxy of
   * `launch()`; `close()` on a driver closes its context, and the last one open closes the
   * browser, so a collection that closes the drivers it made leaves no process behind. The next
   * `create()` launches again. With 8 pages at once, a pool takes about 60% of the memory
   * per page of 8 launched browsers (RssAnon, measured with either driver's pool: bench/pool-memory.ts).
   *
   * @remarks
   * What the drivers share: the browser process, so a crash of it fails every driver with a
   * `BrowserDisconnectedError`; and the WebSocket proxy, which cannot tell contexts apart, so with
   * the `all-requests` scope a WebSocket host one driver's guard denies is refused to every driver
   * of the pool (each driver's other checks, the WebSocket wrapper in its pages among them, are its
   * own). Pages of different drivers never share a renderer process: Chromium keeps one per
   * browser context at least.
   *
   * No switch is added to save memory. Of those measured, only `--disable-site-isolation-trials`
   * saved much (nearly a fifth per page, 8 pages at once, on saved real pages), because a page's
   * cross-site frames then share its renderer process, which weakens what keeps one site's data
   * from another's in a page: pass it in `args` only for pages you trust. `--renderer-process-limit`,
   * `--process-per-site`, V8's `--optimize-for-size` and no spare renderer changed nothing measurable.
   * @throws `ConfigError` for a bad option, `size` among them.
   * @example
   * ```ts
   * import { collect } from 'plannav';
   * import { PuppeteerDriver } from 'plannav/puppeteer';
   *
   * await using pool = PuppeteerDriver.pool({ size: 8 });
   * const summary = await collect({ llm, browsers: pool, concurrency: 8, startUrls, schema });
   * ```
   */
  static pool(options: PuppeteerPoolOptions = {}): PuppeteerPool {
    checkOptions(options);
    const size = checkPoolSize(options.size, 'PuppeteerDriver');
    return new SharedBrowserPool(size, {
      name: 'PuppeteerDriver',
      launch: () => launchPooledChromium(options),
      open: async (shared, lease) => {
        const context = await shared.browser.createBrowserContext();
        let driver: PuppeteerDriver | undefined;
        try {
          driver = new PuppeteerDriver(context, { context, lease }, options);
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
   * Drives a user's own Page (it becomes the active tab), BrowserContext, or Browser (its default
   * context). The driver never closes what it attached to: `close()` only removes its listeners
   * and its new-document script.
   *
   * @remarks
   * A driver attached to a page has as tabs that page, the tabs it opens itself (`openTab`) and
   * the popups its tabs open, and no other page of the context: drivers attached to different
   * pages of one context each drive their own page, concurrently if you like. A driver attached
   * to a context or a browser has every page of the context as a tab, and a page opened there by
   * anyone becomes its active tab.
   */
  static async attach(target: Page | BrowserContext | Browser, options: PuppeteerDriverOptions = {}): Promise<PuppeteerDriver> {
    const page = 'mainFrame' in target ? target : undefined;
    const context = page ? page.browserContext() : 'defaultBrowserContext' in target ? target.defaultBrowserContext() : (target as BrowserContext);
    const driver = new PuppeteerDriver(context, {}, options, page ? 'page' : 'context');
    try {
      await driver.start(undefined, page);
    } catch (error) {
      await driver.close().catch(() => undefined);
      throw error;
    }
    return driver;
  }

  /**
   * Connects to a running Chromium by its DevTools `browserWSEndpoint` or its `browserURL` and
   * opens a browser context of its own there; `close()` closes that context and disconnects,
   * leaving the browser running.
   * @throws `ConfigError` unless exactly one of `browserWSEndpoint` and `browserURL` is given;
   * `BrowserError` when the connection fails.
   */
  static async connect(options: PuppeteerConnectOptions): Promise<PuppeteerDriver> {
    checkOptions(options);
    if (Boolean(options.browserWSEndpoint) === Boolean(options.browserURL)) {
      throw new ConfigError(
        'PuppeteerDriver.connect needs exactly one of `browserWSEndpoint` (a DevTools WebSocket URL) and `browserURL` (such as http://127.0.0.1:9222).',
        { field: options.browserWSEndpoint ? 'browserURL' : 'browserWSEndpoint' },
      );
    }
    const where = options.browserWSEndpoint ?? options.browserURL ?? '';
    const timeout = options.connectTimeout ?? 30_000;
    const connecting = puppeteer.connect({
      ...(options.browserWSEndpoint ? { browserWSEndpoint: options.browserWSEndpoint } : { browserURL: options.browserURL }),
      ...(options.headers ? { headers: { ...options.headers } } : {}),
      defaultViewport: options.viewport ?? defaultViewport,
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeout)));
    let connected: Browser | 'timeout';
    try {
      connected = await Promise.race([connecting, expired]);
    } catch (error) {
      throw new BrowserError(`Could not connect to ${where}: ${firstLine(error)}`, { cause: error });
    } finally {
      clearTimeout(timer);
    }
    if (connected === 'timeout') {
      // A connection that completes after the bound is not kept.
      void connecting.then((late) => late.disconnect()).catch(() => undefined);
      throw new BrowserError(`Could not connect to ${where} within ${timeout} ms.`, { retryable: true });
    }
    const browser = connected;
    let context: BrowserContext | undefined;
    let driver: PuppeteerDriver | undefined;
    try {
      context = await browser.createBrowserContext();
      driver = new PuppeteerDriver(context, { browser, context }, options);
      await driver.start();
      return driver;
    } catch (error) {
      // Close what was opened here and disconnect; the remote browser itself is not ours.
      if (driver) await driver.close().catch(() => undefined);
      else {
        await context?.close().catch(() => undefined);
        await browser.disconnect().catch(() => undefined);
      }
      throw error;
    }
  }

  /** The active tab's Puppeteer page, for what the driver does not cover. */
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
      await this.runtimeScripts.get(page);
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
      const load = (tab: Page, budget: number): Promise<NavigationResponse | undefined> => this.navigate(tab, url, budget, options?.signal, deadline);
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
        // An empty list of lifecycle events: resolve once the earlier document is committed; the settle wait does the rest.
        await page.goBack({ waitUntil: [], timeout: loadBudget(timeout) });
      } catch (error) {
        // As Playwright's goBack, nothing to go back to is no failure: the caller sees the URL unchanged.
        if (/History entry to navigate to not found/i.test(firstLine(error))) return;
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
      this.active();
      return evaluateInFrame(this.frameRegistry.frameById(frameId), script, arg);
    });
  }

  /**
   * Clicks an element of the last snapshot and waits until the page has settled; a new tab it
   * opens becomes active. The element is hit-tested in the page first (the runtime's
   * `clickTarget`): the mouse clicks its centre (`pointer`), or another visible point of it when
   * the centre is covered (`pointer-offset`); when no point can be reached the click is
   * dispatched in the page (`dom`), naming what covered it.
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
        let target: ClickTarget = await onElement(element, 'clickTarget', undefined).catch((error: unknown) => {
          throw staleElement(ref, `the page changed (${firstLine(error)})`);
        });
        if (target.kind === 'disabled') {
          throw new BrowserError(
            `Element ${ref.index} (<${ref.tagName}>) is disabled, so clicking it does nothing. Fill in what the form still needs, or choose another element.`,
          );
        }
        const coveredBy = target.kind === 'unseen' ? undefined : (target.coveredBy ?? undefined);
        result = { method: 'dom', ...(coveredBy ? { coveredBy } : {}) };
        if (target.kind === 'centre' || target.kind === 'offset') {
          // The target is relative to the element's padding box; Puppeteer's box model adds the offsets of the frames above it.
          let box = await element.boxModel().catch(() => null);
          let corner = box?.padding[0];
          if (corner) {
            // The pointer comes first: a hover style may swap an icon's image, which starts 0 px
            // wide and grows; pressing meanwhile would land on what lies under it.
            const before = await onElement(element, 'boxKey', undefined);
            await within(page.mouse.move(corner.x + target.x, corner.y + target.y), Math.min(timeout, 5000), undefined);
            if (await onElement(element, 'stableBox', { maxMs: growingTargetMs, before })) {
              target = await onElement(element, 'clickTarget', undefined);
              box = await element.boxModel().catch(() => null);
              corner = box?.padding[0];
            }
          }
          if (corner && (target.kind === 'centre' || target.kind === 'offset')) {
            await this.mouseClickOn(page, corner.x + target.x, corner.y + target.y, button, modifiers, timeout);
            result = target.kind === 'centre' ? { method: 'pointer' } : { method: 'pointer-offset', ...(coveredBy ? { coveredBy } : {}) };
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

  /** A real mouse click at a point of the active tab's viewport, in CSS pixels; does not wait for the page to settle. */
  async mouseClick(x: number, y: number, options?: ClickOptions): Promise<void> {
    return this.guarded(`mouseClick(${x}, ${y})`, options, async (timeout) => {
      await this.mouseClickOn(this.active(), x, y, options?.button ?? 'left', options?.modifiers ? [...options.modifiers] : [], timeout);
    });
  }

  /** Replaces the value of an input, textarea or editable element of the last snapshot, typing it as text input. */
  async fill(ref: ElementRef, text: string, options?: CallOptions): Promise<void> {
    return this.guarded(`fill on element ${ref.index}`, options, async (timeout, deadline) => {
      const page = this.active();
      const element = await this.locate(ref);
      try {
        // Inputs with a machine format (date, range, colour) take no typing: their value is set through the setter frameworks track.
        const kept = await onElement(element, 'setFormattedValue', text);
        if (kept === '' && text.trim() !== '') {
          throw new BrowserError(
            `Element ${ref.index} (<${ref.tagName}>) did not take "${text}": give the value in the input's own format (such as 2011-10-11, 15:45 or 2011-W41).`,
          );
        }
        if (kept === null) {
          const field = await element.evaluate(selectFieldContents);
          if (field === 'no-text') throw new BrowserError(`Element ${ref.index} is a <${ref.tagName}>, which cannot take text.`);
          if (field === 'read-only') throw new BrowserError(`Element ${ref.index} (<${ref.tagName}>) is disabled or read-only, so it cannot take text.`);
          // The selected content is replaced as typing would: one trusted text insertion, or a delete for no text.
          if (text === '') await page.keyboard.press('Delete');
          else await page.keyboard.sendCharacter(text);
        }
      } finally {
        void element.dispose().catch(() => undefined);
      }
      await this.settle(this.tabTracker.activePage ?? page, timeout, options?.signal, deadline);
    });
  }

  /** Selects the option with this label (or value) in a select of the last snapshot; returns the selected values. */
  async selectOption(ref: ElementRef, label: string, options?: CallOptions): Promise<string[]> {
    return this.guarded(`selectOption on element ${ref.index}`, options, async (timeout, deadline) => {
      const page = this.active();
      const element = await this.locate(ref);
      let values: string[];
      try {
        const found = await onElement(element, 'findOption', label);
        if ('labels' in found) {
          const listed = found.labels.length > 0 ? ` Options: ${found.labels.join(', ')}.` : ` It is a <${ref.tagName}>, not a select.`;
          throw new BrowserError(`Element ${ref.index} has no option "${label}".${listed}`);
        }
        values = await onElement(element, 'chooseOption', found.index);
      } finally {
        void element.dispose().catch(() => undefined);
      }
      await this.settle(this.tabTracker.activePage ?? page, timeout, options?.signal, deadline);
      return values;
    });
  }

  /** Sets the files of a file input of the last snapshot (Puppeteer's `uploadFile`); relative paths are resolved from the working folder. */
  async uploadFiles(ref: ElementRef, paths: readonly string[], options?: CallOptions): Promise<void> {
    return this.guarded(`uploadFiles on element ${ref.index}`, options, async (timeout, deadline) => {
      const page = this.active();
      const files = paths.map((path) => resolve(path));
      files.forEach((file, position) => checkUploadable(file, paths[position] ?? file));
      const element = await this.locate(ref);
      try {
        await (element as ElementHandle<HTMLInputElement>).uploadFile(...files);
      } catch (error) {
        const message = firstLine(error);
        if (/Multiple file uploads/i.test(message)) {
          throw new BrowserError(`Element ${ref.index} (<${ref.tagName}>) takes one file only, got ${paths.length}.`, { cause: error });
        }
        if (/not a file input|file input element|Cannot set files/i.test(message)) {
          throw new BrowserError(`Element ${ref.index} (<${ref.tagName}>) is not a file input.`, { cause: error });
        }
        throw error;
      } finally {
        void element.dispose().catch(() => undefined);
      }
      await this.settle(this.tabTracker.activePage ?? page, timeout, options?.signal, deadline);
    });
  }

  /** Presses keys on the focused element, such as `Enter` or `Control+A` (several separated by spaces), and waits until the page has settled. */
  async press(keys: string, options?: CallOptions): Promise<void> {
    return this.guarded(`press(${keys})`, options, async (timeout, deadline) => {
      const page = this.active();
      await pressKeys(page.keyboard, keys);
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
          await onElement(element, 'scroll', request);
        } finally {
          void element.dispose().catch(() => undefined);
        }
      } else {
        // The runtime's scroll with no element scrolls the page.
        await callRuntime(this, this.frameRegistry.frameId(page.mainFrame()), 'scroll', { locator: null, ...request }, options);
      }
      await this.settle(page, timeout, options.signal, deadline);
    });
  }

  /** A JPEG of the viewport (or the whole page); with `highlightElements`, the given elements carry index boxes. */
  async screenshot(options?: ScreenshotOptions): Promise<Uint8Array> {
    return this.guarded('screenshot()', options, async () => {
      const page = this.active();
      const fullPage = options?.fullPage ?? false;
      const highlighted = this.highlightElements && options?.elements && options.elements.length > 0 ? await this.drawHighlights(options.elements) : [];
      try {
        // A viewport shot need not lay the page out beyond the viewport.
        return await page.screenshot({ type: 'jpeg', quality: options?.quality ?? 70, fullPage, captureBeyondViewport: fullPage });
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
   * frames and `link rel=prefetch`. A denied navigation is stopped before its request is sent
   * (request interception of document requests) and reported to `guard.blocked`; a denied popup
   * is closed and its opener is the active tab again; `goto` and `openTab` reject with a
   * `URLNotAllowedError`. A denied document that loads without a request (`data:`, `blob:`, the
   * back-forward cache) is left for `about:blank`. `undefined` removes the guard. Speculation
   * rules (`<script type=speculationrules>`) cannot be intercepted: a launched browser never runs
   * them (its profile turns speculative loading off), but in an attached or connected browser
   * their prefetches and prerenders are not stopped. With `guard.scope` `all-requests`, every
   * other request of the browser's frames, workers and service workers to a denied URL fails
   * before it is sent (a browser-level CDP session's Fetch domain), reported with kind `request`.
   * WebSocket handshakes are checked when the guard gives its rules (`rules`, from
   * `UrlPolicy.toRules()`): in a launched browser the driver's proxy refuses a tunnel to a denied
   * host from any realm (loopback and link-local hosts aside), and a wrapper in pages, frames and dedicated workers checks the whole URL;
   * the status says what is not covered.
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
            this.navigationGuard = await NavigationGuardEnforcer.install(this.context.browser(), guard, {
              ownsBrowser: this.owned.launched === true,
              pages: () => this.tabTracker.livePages(),
              tabId: (page) => this.tabTracker.idOf(page),
              popupClosing: (opener) => {
                if (opener && this.tabTracker.has(opener) && !opener.isClosed()) this.tabTracker.activePage = opener;
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
    this.context.off('targetcreated', this.onTarget);
    await this.guardChange;
    await this.navigationGuard?.dispose();
    this.navigationGuard = undefined;
    await this.requestGuard?.dispose();
    this.requestGuard = undefined;
    const pages = this.tabTracker.livePages();
    // Attached pages stay the user's: leave nothing of the driver's on them.
    this.tabTracker.detach();
    await this.frameRegistry.clear();
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
    const created = [...this.createdPages];
    this.createdPages.clear();
    await Promise.all(created.map((page) => page.close().catch(() => undefined)));
    if (this.owned.context) await this.owned.context.close().catch((error: unknown) => problems.push(error));
    if (this.owned.browser && this.owned.launched) await this.owned.browser.close().catch((error: unknown) => problems.push(error));
    else if (this.owned.browser) await this.owned.browser.disconnect().catch((error: unknown) => problems.push(error));
    await this.owned.proxy?.close();
    if (this.owned.userDataDir) rmSync(this.owned.userDataDir, { recursive: true, force: true, maxRetries: 3 });
    this.tabTracker.activePage = undefined;
    this.context.browser().off('disconnected', this.onGone);
    this.connection.lose(driverClosedMessage);
    if (problems.length > 0 && !gone) throw asBrowserError('close()', problems[0]);
  }

  /** Watches the context for new tabs, adopts its pages, makes one active and loads the start URL. */
  private async start(startUrl?: string, preferred?: Page): Promise<void> {
    this.context.on('targetcreated', this.onTarget);
    const existing = await this.context.pages();
    if (this.tabScope === 'context') for (const page of existing) this.tabTracker.adopt(page, false);
    if (preferred) this.tabTracker.adopt(preferred, true);
    if (!this.tabTracker.activePage) this.tabTracker.adopt(existing[0] ?? (await this.context.newPage()), true);
    await Promise.all([...this.runtimeScripts.values()]);
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
      { explain: (error, raw) => this.connection.explain(error, raw), onAbandon: () => this.stopStuckLoad() },
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
    if (!this.owned.browser) this.createdPages.add(blank);
    this.tabTracker.adopt(blank, true);
    await this.runtimeScripts.get(blank);
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
    const session = await page.createCDPSession();
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

  /**
   * The driver's watch of a new tab: its requests (for settling), its dialogs, and the page
   * runtime in every document from now on (added as a new-document script, and evaluated in the
   * documents already loaded, which then see the listeners added from here on).
   */
  private watch(page: Page): () => void {
    const stopNetwork = this.settler.watch(page);
    const onDialog = (dialog: Dialog): void => {
      // Only when no one else listens: the user's own handler of an attached page decides then.
      if (page.listenerCount('dialog') > 1) return;
      void (dialog.type() === 'beforeunload' ? dialog.accept() : dialog.dismiss()).catch(() => undefined);
    };
    page.on('dialog', onDialog);
    this.navigationGuard?.watch(page);
    const script = addRuntimeScript(page).then(
      async (identifier) => {
        await Promise.all(page.frames().map((frame: Frame) => installRuntime(frame)));
        return identifier;
      },
      () => undefined,
    );
    this.runtimeScripts.set(page, script);
    return () => {
      stopNetwork();
      page.off('dialog', onDialog);
    };
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
  private async locate(ref: ElementRef): Promise<ElementHandle> {
    let frame: Frame;
    try {
      frame = this.frameRegistry.frameById(ref.frameId);
    } catch {
      throw staleElement(ref, 'its frame is gone');
    }
    let found: ElementHandle | 'document' | 'removed';
    try {
      found = await lookUpElement(frame, ref);
    } catch (error) {
      throw staleElement(ref, `the page changed (${firstLine(error)})`);
    }
    if (typeof found !== 'string') return found;
    throw staleElement(ref, found === 'document' ? 'the page has loaded a new document since' : 'it was removed from the page');
  }

  /**
   * A mouse click at a point of the page's viewport, with the modifiers held. A page that starts a
   * long script on the press cannot acknowledge the release: after a few seconds the click counts
   * as made, and the settle wait takes over.
   */
  private async mouseClickOn(page: Page, x: number, y: number, button: MouseButton, modifiers: readonly Modifier[], timeout: number): Promise<void> {
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

  /** Loads `url` in `page` within the call's time (`deadline`); a load that does not answer by then is stopped. */
  private async navigate(page: Page, url: string, timeout: number, signal: AbortSignal | undefined, deadline: number): Promise<NavigationResponse | undefined> {
    // An empty list of lifecycle events: resolve once the new document has committed; the settle wait does the rest.
    let response: NavigationResponse | undefined;
    const load = async (): Promise<unknown> => {
      const answer = await page.goto(url, { waitUntil: [], timeout: loadBudget(timeout) });
      // The main document's status and headers: a collection tells a server error (5xx, 429) from a page by them.
      response = answer ? { status: answer.status(), headers: answer.headers() } : undefined;
      return answer;
    };
    try {
      await (this.navigationGuard ? this.navigationGuard.navigate(page, url, load) : load());
    } catch (error) {
      if (URLNotAllowedError.isInstance(error)) throw error;
      if (isLibraryTimeout(error)) throw await this.abandonLoad(page, url, timeout, error);
      const reason = firstLine(error).replace(/ at \S+$/, '');
      // Chromium goes on to commit its error page after the failure: wait for it, or the next
      // navigation of this tab is interrupted by it.
      await this.errorPageCommitted(page, 1500);
      await this.settle(page, Math.min(timeout, 5_000), signal).catch(() => undefined);
      throw new BrowserError(`Could not load ${url}: ${reason}`, { cause: error, retryable: true });
    }
    await this.settle(page, timeout, signal, deadline);
    return response;
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

  /**
   * Waits until the page has settled (document parsed, no tracked request in flight, no DOM
   * mutation for the quiet windows) within the settle bound and the call's time; then the tab a
   * click opened meanwhile settles within what is left. A busy page just ends the wait. With
   * `callEnd` (when the call's time ends), a document the action started loading is waited for
   * until then; one that has not come by then is stopped, and with `report` the call rejects with
   * a retryable BrowserError saying so.
   */
  private async settle(page: Page, timeout: number, signal: AbortSignal | undefined, callEnd?: number, report = true): Promise<void> {
    let deadline = this.settler.deadline(timeout);
    let current = page;
    for (let round = 0; round < 3; round++) {
      await this.settler.waitUntilSettled(current, deadline, signal);
      await this.tabTracker.adoptions(Math.max(0, deadline - Date.now()));
      const now = this.tabTracker.activePage;
      if (!now || now === current || now.isClosed()) break;
      current = now;
    }
    if (callEnd !== undefined && !current.isClosed()) {
      const giveUpAt = callEnd - stopMargin(timeout);
      const late = (await this.settler.pendingNavigation(current)?.arriveOrStop(giveUpAt, () => this.stopLoading(current))) ?? 'none';
      if (late === 'arrived') {
        // The document came late: it settles too, within what is left of the call.
        deadline = Math.min(this.settler.deadline(timeout), giveUpAt);
        await this.settler.waitUntilSettled(current, deadline, signal);
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
        if (!this.frameRegistry.find(frameId)) return;
        const count = await callRuntime(this, frameId, 'highlight', { targets }).catch(() => 0);
        if (typeof count === 'number' && count > 0) drawn.push(frameId);
      }),
    );
    return drawn;
  }
}

/** A file that can be uploaded, or a BrowserError saying why this path cannot be. */
function checkUploadable(file: string, written: string): void {
  let isFile: boolean;
  try {
    isFile = statSync(file).isFile();
  } catch (error) {
    throw new BrowserError(`Cannot upload ${written}: there is no such file.`, { cause: error });
  }
  if (!isFile) throw new BrowserError(`Cannot upload ${written}: it is a folder; give the path of a file in it.`);
}

/** The recoverable error an action gets when the element the model chose is no longer there. */
function staleElement(ref: ElementRef, reason: string): BrowserError {
  return new BrowserError(`Element ${ref.index} (<${ref.tagName}>) is no longer on the page: ${reason}. Read the new page state and choose again.`, {
    retryable: true,
  });
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
