// The browser pool of PlaywrightDriver: the one Chromium it launches (same switches and WebSocket
// proxy as launch()), and the pool's public type. Opening a driver in it is the driver's own code.

import { chromium, type Browser, type BrowserContext, type CDPSession } from 'playwright-core';
import type { SharedBrowser } from '../chromium/browser-pool';
import { findChromium } from '../chromium/find-chromium';
import { launchChromium, sharedBrowser } from '../chromium/launch';
import type { PlaywrightDriver } from './playwright-driver';
import type { PlaywrightPoolOptions } from './options';

/**
 * Drivers that share one Chromium, each over a browser context of its own (its own cookies,
 * storage, cache and tabs): a `BrowserPool` for the `browsers` option of the `Collector` and the
 * `browser` option of the BullMQ worker. Make one with {@link PlaywrightDriver.pool}.
 * @public
 */
export interface PlaywrightPool {
  /** The most drivers the pool holds open at once. */
  readonly size: number;
  /**
   * Opens a driver over a new context of the pool's Chromium, launching it first when none runs;
   * calls that overlap share one launch.
   * @throws `ConfigError` when `size` drivers are open already; `BrowserDisconnectedError` once
   * the pool is closed; `BrowserError` when Chromium cannot be launched.
   */
  create(): Promise<PlaywrightDriver>;
  /** Closes the drivers still open and the browser. Idempotent; `create()` rejects from then on. */
  close(): Promise<void>;
  /** Same as `close()`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** What a launch error names when no Chromium was found and Playwright's own was tried. */
export const playwrightOwnChromium = "Playwright's own Chromium (none found at /usr/bin/chromium, chromium-browser, google-chrome, …)";

/** Launches the pool's Chromium: not persistent, since each driver brings its own context. */
export async function launchPooledChromium(options: PlaywrightPoolOptions): Promise<SharedBrowser<Browser>> {
  const executablePath = options.executablePath ?? findChromium();
  // Playwright removes its own profile folder when the browser ends, however it ends; a killed
  // browser still leaves Chromium's singleton-socket folder (org.chromium.Chromium.*) behind.
  const launched = await launchChromium(
    { executablePath, unnamed: playwrightOwnChromium, args: options.args, ownProxy: options.contextOptions?.proxy !== undefined, profile: false },
    (args) => chromium.launch({ executablePath, headless: options.headless ?? true, args, timeout: options.launchTimeout ?? 30_000 }),
    (browser, listener) => void browser.once('disconnected', listener),
    (browser) => productOver(() => browser.newBrowserCDPSession()),
  );
  return sharedBrowser(launched);
}

/** The browser's product (`Browser.getVersion`: `Chrome/…`, or `HeadlessChrome/…` for the headless shell), over a session `open` makes. */
async function productOver(open: () => Promise<CDPSession>): Promise<string> {
  const session = await open();
  try {
    return (await session.send('Browser.getVersion')).product;
  } finally {
    await session.detach().catch(() => undefined);
  }
}

/** The product of the browser of a persistent context, asked over its first tab; undefined when it has none. */
export async function productOfContext(context: BrowserContext): Promise<string | undefined> {
  const page = context.pages()[0];
  return page ? productOver(() => context.newCDPSession(page)) : undefined;
}
