// PlaywrightDriver: plannav's BrowserDriver over playwright-core. It launches, attaches to or connects
// to Chromium (tabs, frames, settling in their own files) and never closes what it did not create.

import { rmSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type ElementHandle, type Frame, type Page } from 'playwright-core';
import { BrowserError, ConfigError } from '../errors';
import { firstLine } from '../chromium/call';
import { DownloadingDriverCore } from '../chromium/downloading-driver';
import { findChromium } from '../chromium/find-chromium';
import { SharedBrowserPool, checkPoolSize } from '../chromium/browser-pool';
import { launchChromium, openDriver, openInDefaultContext, openInRemoteContext } from '../chromium/launch';
import { launchStorageState, storageStateOf, writeStorageStateFile } from '../chromium/storage-state';
import type { StorageState, StorageStateOptions } from '../browser/storage-state';
import type { PlaywrightConnectOptions, PlaywrightDriverOptions, PlaywrightLaunchOptions, PlaywrightPoolOptions } from './options';
import { launchPooledChromium, playwrightOwnChromium, productOfContext, type PlaywrightPool } from './pool';
import { PlaywrightTransport, type Ownership } from './transport';
import { checkRecordingOptions, explainRecordingFailure, TraceRecording, videoContextOptions } from './trace';

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
export class PlaywrightDriver extends DownloadingDriverCore<Page, Frame, ElementHandle<Element>> {
  /** The Playwright context whose pages are this driver's tabs. */
  readonly context: BrowserContext;

  private constructor(
    context: BrowserContext,
    owned: Ownership,
    options: PlaywrightDriverOptions & { readonly contextOptions?: { readonly javaScriptEnabled?: boolean | undefined } | undefined },
    tabScope: 'context' | 'page' = 'context',
  ) {
    // False when the driver made the context with page JavaScript off: the DOM cannot change by itself then.
    const pageScripts = options.contextOptions?.javaScriptEnabled !== false;
    super(new PlaywrightTransport(context, owned, tabScope, options.settle, pageScripts), owned, options);
    this.context = context;
  }

  /**
   * Launches a local Chromium with a fresh profile in a temporary folder; `close()` ends the
   * browser and removes the folder. Its WebSockets (only they) go through a local proxy of the
   * driver on 127.0.0.1, which lets the URL policy's `all-requests` scope stop them; a proxy of
   * your own (a proxy switch in `args`, `contextOptions.proxy`, or `http_proxy` and the like in
   * the environment) replaces it. Chromium's headless shell (`chrome-headless-shell`) opens
   * WebSockets past that proxy: the driver counts on it only in a browser that names itself
   * `Chrome/…`, and otherwise lists the WebSockets as unchecked (`unenforced`). With `storageState`
   * the browser starts logged in; with `userDataDir` it runs on that persistent profile, which
   * `close()` keeps.
   * @throws `BrowserError` when no browser could be started (the message says where it looked),
   * with code `PROFILE_IN_USE` when a running browser holds `userDataDir`; `ConfigError` for a
   * bad `storageState` (before anything starts), or a bad `trace` or `video` option.
   */
  static async launch(options: PlaywrightLaunchOptions = {}): Promise<PlaywrightDriver> {
    const recording = checkRecordingOptions(options);
    const executablePath = options.executablePath ?? findChromium();
    const storageState = await launchStorageState(options);
    const {
      browser: context,
      proxy,
      userDataDir,
      keepProfile,
    } = await launchChromium(
      {
        executablePath,
        unnamed: playwrightOwnChromium,
        args: options.args,
        ownProxy: options.contextOptions?.proxy !== undefined,
        profile: true,
        userDataDir: options.userDataDir,
      },
      (args, profile) =>
        chromium.launchPersistentContext(profile ?? '', {
          ...options.contextOptions,
          ...videoContextOptions(recording.video),
          executablePath,
          headless: options.headless ?? true,
          args,
          viewport: options.viewport ?? options.contextOptions?.viewport ?? { width: 1280, height: 1100 },
          timeout: options.launchTimeout ?? 30_000,
        }),
      (launched, listener) => void launched.once('close', listener),
      productOfContext,
    ).catch(explainRecordingFailure(recording));
    return openDriver(
      () => new PlaywrightDriver(context, { context, userDataDir, proxy, keepProfile }, options),
      async (driver) => {
        if (storageState) await context.setStorageState(storageState);
        await driver.startTrace(recording.trace);
        await driver.start(options.startUrl);
      },
      async () => {
        await context.close();
        if (userDataDir && !keepProfile) rmSync(userDataDir, { recursive: true, force: true, maxRetries: 3 });
      },
    );
  }

  /**
   * A pool of drivers that share one Chromium, for concurrent pages (the Collector's `browsers`, the
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
   * const summary = await new Collector({ llm, browsers: pool, concurrency: 8, urls, schema }).run();
   * ```
   */
  static pool(options: PlaywrightPoolOptions = {}): PlaywrightPool {
    const size = checkPoolSize(options.size, 'PlaywrightDriver');
    return new SharedBrowserPool(size, {
      name: 'PlaywrightDriver',
      launch: () => launchPooledChromium(options),
      open: async (shared, lease) => {
        const storageState = await launchStorageState(options);
        const context = await shared.browser.newContext({
          ...options.contextOptions,
          viewport: options.viewport ?? options.contextOptions?.viewport ?? { width: 1280, height: 1100 },
          ...(storageState ? { storageState: storageState as BrowserContextOptions['storageState'] } : {}),
        });
        return openDriver(
          () => new PlaywrightDriver(context, { context, lease }, options),
          (driver) => driver.start(options.startUrl),
          () => context.close(),
        );
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
    return openDriver(
      () => new PlaywrightDriver(context, {}, options, isPage ? 'page' : 'context'),
      (driver) => driver.start(undefined, isPage ? target : undefined),
      async () => undefined,
    );
  }

  /**
   * Connects to a remote browser by a Playwright server's `wsEndpoint` or a Chromium `cdpUrl`. Over
   * `cdpUrl` (a Chrome the user started with `--remote-debugging-port`), the driver opens a tab of
   * its own in the browser's default context, so it shares the user's logins, and leaves the user's
   * tabs alone: never adopted, navigated or closed; `close()` closes the driver's tabs and
   * disconnects, and the browser keeps running. `tabs: 'all'` drives the user's tabs too;
   * `tabs: 'isolated'` (always with `wsEndpoint`) opens a context of its own, closed on `close()`.
   * @throws `ConfigError` unless exactly one of `wsEndpoint` and `cdpUrl` is given, or for `tabs`
   * other than `'isolated'` with `wsEndpoint`; `BrowserError` when the connection fails.
   */
  static async connect(options: PlaywrightConnectOptions): Promise<PlaywrightDriver> {
    if (Boolean(options.wsEndpoint) === Boolean(options.cdpUrl)) {
      throw new ConfigError('PlaywrightDriver.connect needs exactly one of `wsEndpoint` (a Playwright server) and `cdpUrl` (a Chromium CDP endpoint).', {
        field: options.wsEndpoint ? 'cdpUrl' : 'wsEndpoint',
      });
    }
    const tabs = checkConnectTabs(options);
    const timeout = options.connectTimeout ?? 30_000;
    let browser: Browser;
    try {
      browser = options.wsEndpoint
        ? await chromium.connect(options.wsEndpoint, { headers: options.headers, timeout })
        : await chromium.connectOverCDP(options.cdpUrl as string, { headers: options.headers, timeout });
    } catch (error) {
      throw new BrowserError(`Could not connect to ${options.wsEndpoint ?? options.cdpUrl}: ${firstLine(error)}`, { cause: error });
    }
    const defaultContext = browser.contexts()[0];
    if (tabs === 'isolated' || !defaultContext) {
      return openInRemoteContext(
        () => browser.newContext({ viewport: { width: 1280, height: 1100 }, ...options.contextOptions }),
        () => browser.close(),
        (context) => new PlaywrightDriver(context, { browser, context }, options),
        (driver) => driver.start(),
      );
    }
    return openInDefaultContext(
      tabs,
      () => defaultContext.newPage(),
      () => browser.close(),
      (owns) => new PlaywrightDriver(defaultContext, { browser, closeTabs: owns === 'page' }, options, owns),
      (driver, page) => driver.start(undefined, page),
    );
  }

  /**
   * The browser context's storage state in Playwright's format: every cookie, and the localStorage
   * and IndexedDB of each origin the context has loaded (Playwright's `context.storageState` with
   * `indexedDB: true`). With `path`, also written there, readable by its owner only (mode 0600).
   * Load it with the `storageState` launch option of either driver. Its values are secrets: keep
   * the file out of version control.
   */
  async storageState(options: StorageStateOptions = {}): Promise<StorageState> {
    return this.guarded('storageState()', options, async () => {
      const saved = await this.context.storageState({ indexedDB: true });
      const state = storageStateOf(saved.cookies, saved.origins);
      if (options.path) await writeStorageStateFile(options.path, state);
      return state;
    });
  }

  /** The active tab's Playwright page, for what the driver does not cover. */
  get page(): Page {
    return this.active();
  }

  // Playwright trace and video (issue 24): launch({ trace, video }) records them; saveTrace() and close() write the trace.
  private traceRecording: TraceRecording | undefined;
  private closingWithTrace: Promise<void> | undefined;

  private async startTrace(options: PlaywrightLaunchOptions['trace']): Promise<void> {
    if (options) this.traceRecording = await TraceRecording.start(this.context, options);
  }

  /**
   * Writes the trace that `launch({ trace })` records, now: what was recorded since the launch or
   * the last `saveTrace()`, to `options.path` (default: `trace.zip` in the trace's folder). The
   * recording goes on, and `close()` writes what follows to `trace.zip` in the trace's folder
   * (replacing one there): with a `path` per task, each task gets a trace of its own.
   * @returns The trace file's absolute path; undefined when the driver records no trace, or is closed.
   * @throws `BrowserError` when the trace could not be written.
   * @example
   * ```ts
   * const driver = await PlaywrightDriver.launch({ trace: { dir: 'runs/traces' } });
   * await new Executor({ task, llm, browser: driver }).execute();
   * await driver.saveTrace({ path: 'runs/checkout/trace.zip' });
   * ```
   */
  async saveTrace(options: { readonly path?: string | undefined } = {}): Promise<string | undefined> {
    return this.traceRecording?.save(options.path);
  }

  /**
   * Closes what the driver created (browser, context, profile folder); only detaches from what it
   * attached to. With `launch({ trace })`, first writes the trace (what followed the last
   * {@link PlaywrightDriver.saveTrace}) to `trace.zip` in the trace's folder;
   * with `launch({ video })`, the videos are complete once this resolves. Idempotent.
   * @throws `BrowserError` when the trace could not be written (the driver is closed all the same).
   */
  override close(): Promise<void> {
    this.closingWithTrace ??= (async () => {
      // The trace is written before the context closes; the driver closes whether or not it could be.
      const failure = await (this.traceRecording?.finish() ?? Promise.resolve()).then(
        () => undefined,
        (error: unknown) => (error instanceof Error ? error : new BrowserError(String(error))),
      );
      await super.close();
      if (failure) throw failure;
    })();
    return this.closingWithTrace;
  }
}

/** The `tabs` a connect asks for, with its default. @throws `ConfigError` for a bad value, or a shared tab over a Playwright server. */
function checkConnectTabs(options: PlaywrightConnectOptions): 'own' | 'all' | 'isolated' {
  const tabs = options.tabs ?? (options.wsEndpoint ? 'isolated' : 'own');
  if (tabs !== 'own' && tabs !== 'all' && tabs !== 'isolated') {
    throw new ConfigError(`Option \`tabs\` must be "own", "all" or "isolated"; got ${JSON.stringify(tabs)}.`, { field: 'tabs' });
  }
  if (options.wsEndpoint && tabs !== 'isolated') {
    throw new ConfigError(
      'Option `tabs` must be "isolated" with `wsEndpoint`: a Playwright server has no user tabs to share. Use `cdpUrl` to share a running Chrome.',
      {
        field: 'tabs',
      },
    );
  }
  return tabs;
}
