// PuppeteerDriver: plannav's BrowserDriver over puppeteer-core. It launches, attaches to or connects
// to Chromium (tabs, frames, settling in their own files) and never closes what it did not create.

import { rmSync } from 'node:fs';
import puppeteer, { type Browser, type BrowserContext, type ElementHandle, type Frame, type Page } from 'puppeteer-core';
import type { ClickOptions } from '../browser/types';
import type { StorageState, StorageStateOptions } from '../browser/storage-state';
import { launchStorageState, writeStorageStateFile } from '../chromium/storage-state';
import { BrowserError, ConfigError } from '../errors';
import { firstLine } from '../chromium/call';
import { DownloadingDriverCore } from '../chromium/downloading-driver';
import { SharedBrowserPool, checkPoolSize } from '../chromium/browser-pool';
import { openDriver, openInDefaultContext, openInRemoteContext } from '../chromium/launch';
import {
  checkOptions,
  defaultViewport,
  type PuppeteerConnectOptions,
  type PuppeteerDriverOptions,
  type PuppeteerLaunchOptions,
  type PuppeteerPoolOptions,
} from './options';
import { launchPooledChromium, launchPuppeteer, type PuppeteerPool } from './pool';
import { applyStorageState, readStorageState, VisitedOrigins } from './storage-state';
import { PuppeteerTransport, type Ownership } from './transport';

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
export class PuppeteerDriver extends DownloadingDriverCore<Page, Frame, ElementHandle> {
  /** The Puppeteer browser context whose pages are this driver's tabs. */
  readonly context: BrowserContext;
  private readonly puppeteer: PuppeteerTransport;
  /** The origins the context's tabs loaded, whose localStorage `storageState()` reads. */
  private readonly visitedOrigins: VisitedOrigins;

  private constructor(context: BrowserContext, owned: Ownership, options: PuppeteerDriverOptions, tabScope: 'context' | 'page' = 'context') {
    checkOptions(options);
    const transport = new PuppeteerTransport(context, owned, tabScope, options.settle);
    super(transport, owned, options);
    this.context = context;
    this.puppeteer = transport;
    this.visitedOrigins = new VisitedOrigins(context);
  }

  /**
   * Launches a local Chromium with a fresh profile in a temporary folder; `close()` ends the
   * browser and removes the folder. Headless unless `headless: false`. Its WebSockets (only they)
   * go through a local proxy of the driver on 127.0.0.1, which lets the URL policy's
   * `all-requests` scope stop them; a proxy of your own (a switch in `args`, or `http_proxy` and
   * the like in the environment) replaces it. Chromium's headless shell (`chrome-headless-shell`)
   * opens WebSockets past that proxy: the driver counts on it only in a browser that names itself
   * `Chrome/…`, and otherwise lists the WebSockets as unchecked (`unenforced`). With `storageState`
   * the browser starts logged in
   * (cookies and localStorage; IndexedDB is left out); with `userDataDir` it runs on that
   * persistent profile, which `close()` keeps.
   * @throws `ConfigError` for a bad option, a bad `storageState` among them (before anything
   * starts); `BrowserError` when no browser could be started (the message says where it looked),
   * with code `PROFILE_IN_USE` when a running browser holds `userDataDir`.
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
    const storageState = await launchStorageState(options);
    const { browser, proxy, userDataDir, keepProfile } = await launchPuppeteer(options);
    return openDriver(
      () => new PuppeteerDriver(browser.defaultBrowserContext(), { browser, launched: true, userDataDir, proxy, keepProfile }, options),
      async (driver) => {
        if (storageState) await applyStorageState(browser, browser.defaultBrowserContext(), storageState);
        await driver.start(options.startUrl);
      },
      async () => {
        await browser.close();
        if (userDataDir && !keepProfile) rmSync(userDataDir, { recursive: true, force: true, maxRetries: 3 });
      },
    );
  }

  /**
   * A pool of drivers that share one Chromium, for concurrent pages (the Collector's `browsers`, the
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
   * const summary = await new Collector({ llm, browsers: pool, concurrency: 8, urls, schema }).run();
   * ```
   */
  static pool(options: PuppeteerPoolOptions = {}): PuppeteerPool {
    checkOptions(options);
    const size = checkPoolSize(options.size, 'PuppeteerDriver');
    return new SharedBrowserPool(size, {
      name: 'PuppeteerDriver',
      launch: () => launchPooledChromium(options),
      open: async (shared, lease) => {
        const storageState = await launchStorageState(options);
        const context = await shared.browser.createBrowserContext();
        return openDriver(
          () => new PuppeteerDriver(context, { context, lease }, options),
          async (driver) => {
            if (storageState) await applyStorageState(shared.browser, context, storageState);
            await driver.start(options.startUrl);
          },
          () => context.close(),
        );
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
    return openDriver(
      () => new PuppeteerDriver(context, {}, options, page ? 'page' : 'context'),
      (driver) => driver.start(undefined, page),
      async () => undefined,
    );
  }

  /**
   * Connects to a running Chromium by its DevTools `browserWSEndpoint` or its `browserURL` (a Chrome
   * the user started with `--remote-debugging-port`). The driver opens a tab of its own in the
   * browser's default context, so it shares the user's logins, and leaves the user's tabs alone:
   * never adopted, navigated or closed; `close()` closes the driver's tabs and disconnects, and the
   * browser keeps running. `tabs: 'all'` drives the user's tabs too; `tabs: 'isolated'` opens a
   * browser context of its own, closed on `close()`.
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
    const tabs = options.tabs ?? 'own';
    if (tabs === 'isolated') {
      return openInRemoteContext(
        () => browser.createBrowserContext(),
        () => browser.disconnect(),
        (context) => new PuppeteerDriver(context, { browser, context }, options),
        (driver) => driver.start(),
      );
    }
    const context = browser.defaultBrowserContext();
    return openInDefaultContext(
      tabs,
      () => context.newPage(),
      () => browser.disconnect(),
      (owns) => new PuppeteerDriver(context, { browser, closeTabs: owns === 'page' }, options, owns),
      (driver, page) => driver.start(undefined, page),
    );
  }

  /**
   * The browser context's storage state in Playwright's format: every cookie (CDP's
   * `Storage.getCookies`), and the localStorage of each origin the context's tabs loaded while the
   * driver ran (and of those open when it started), read in a hidden page that sends no request.
   * IndexedDB is not saved (Puppeteer has no export of it; PlaywrightDriver saves it). With `path`,
   * also written there, readable by its owner only (mode 0600). Its values are secrets: keep the
   * file out of version control.
   */
  async storageState(options: StorageStateOptions = {}): Promise<StorageState> {
    return this.guarded('storageState()', options, async () => {
      const state = await readStorageState(this.context.browser(), this.context, this.visitedOrigins.list());
      if (options.path) await writeStorageStateFile(options.path, state);
      return state;
    });
  }

  /** Closes what the driver created and stops watching the context's origins. */
  override async close(): Promise<void> {
    this.visitedOrigins.stop();
    return super.close();
  }

  /** The active tab's Puppeteer page, for what the driver does not cover. */
  get page(): Page {
    return this.active();
  }

  /** A real mouse click at a point of the active tab's viewport, in CSS pixels; does not wait for the page to settle. */
  override async mouseClick(x: number, y: number, options?: ClickOptions): Promise<void> {
    return this.guarded(`mouseClick(${x}, ${y})`, options, async (timeout) => {
      await this.puppeteer.mouseClickOn(this.active(), x, y, options?.button ?? 'left', options?.modifiers ? [...options.modifiers] : [], timeout);
    });
  }
}
