// The options of PlaywrightDriver: how it settles after actions, what it draws on screenshots,
// and how it launches or connects to a browser. Types only.

import type { BrowserContextOptions } from 'playwright-core';
import type { ChromiumDriverOptions, ChromiumLaunchOptions } from '../chromium/driver-options';
import type { PlaywrightTraceOptions, PlaywrightVideoOptions } from './trace';

export type { ChromiumDriverOptions, ChromiumLaunchOptions } from '../chromium/driver-options';
export type { SettleOptions } from '../chromium/settle-options';

/**
 * Options every way of creating a {@link PlaywrightDriver} accepts.
 * @public
 */
export type PlaywrightDriverOptions = ChromiumDriverOptions;

/**
 * Options of {@link PlaywrightDriver.launch}: a local Chromium with a fresh profile that the driver
 * owns and removes on `close()`.
 *
 * @example
 * ```ts
 * await using driver = await PlaywrightDriver.launch({ headless: true, viewport: { width: 1280, height: 1100 } });
 * ```
 * @public
 */
export interface PlaywrightLaunchOptions extends ChromiumLaunchOptions {
  /**
   * The Chromium or Chrome binary. When absent, the driver looks in the usual places
   * (`/usr/bin/chromium`, `/usr/bin/chromium-browser`, `/usr/bin/google-chrome`, the macOS and
   * Windows install folders, `$CHROME_PATH`) and finally lets Playwright use its own browser.
   */
  readonly executablePath?: string | undefined;
  /** Other Playwright context options (locale, user agent, `javaScriptEnabled`, …), passed as they are. */
  readonly contextOptions?: BrowserContextOptions | undefined;
  // Playwright trace and video (issue 24).
  /** Record a Playwright trace of the run, written as `trace.zip` in `trace.dir` when the driver closes (and at `saveTrace()`). */
  readonly trace?: PlaywrightTraceOptions | undefined;
  /** Record a video of each tab, as `.webm` files in `video.dir`, complete once the driver has closed. */
  readonly video?: PlaywrightVideoOptions | undefined;
}

/**
 * Options of {@link PlaywrightDriver.connect}: a remote browser, by the `wsEndpoint` of a
 * Playwright server (`launchServer`, a browser grid) or the CDP URL of a Chromium started with
 * `--remote-debugging-port`. The driver opens its own context there and closes only that.
 * @public
 */
export interface PlaywrightConnectOptions extends PlaywrightDriverOptions {
  /** The WebSocket endpoint of a Playwright browser server. */
  readonly wsEndpoint?: string | undefined;
  /** The CDP endpoint of a Chromium, such as `http://127.0.0.1:9222`. */
  readonly cdpUrl?: string | undefined;
  /** Headers sent with the connection request (a grid's token). */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** Options of the context the driver opens in the remote browser (`tabs: 'isolated'`; the default context takes none). */
  readonly contextOptions?: BrowserContextOptions | undefined;
  /**
   * Milliseconds the connection may take.
   * @defaultValue 30000
   */
  readonly connectTimeout?: number | undefined;
  /**
   * Staying logged in (issue 24): with `cdpUrl`, which tabs the driver drives.
   * - `'own'`: a tab it opens in the browser's default context, which shares the profile's cookies
   *   and logins, and the tabs that tab and the driver open. The user's tabs are never adopted,
   *   navigated or closed; `close()` closes the driver's tabs and disconnects.
   * - `'all'`: every tab of the default context, the user's open ones included (the first one is
   *   active), and any tab opened there; `close()` closes none of them and disconnects.
   * - `'isolated'`: a browser context of its own (no cookies of the profile), closed on `close()`.
   * With `wsEndpoint` (a Playwright server has no user tabs) only `'isolated'`.
   * @defaultValue `'own'` with `cdpUrl`, `'isolated'` with `wsEndpoint`
   */
  readonly tabs?: 'own' | 'all' | 'isolated' | undefined;
}

/**
 * Options of {@link PlaywrightDriver.pool}: those of {@link PlaywrightLaunchOptions}, for the one
 * Chromium the pool launches (`executablePath`, `headless`, `args`, `launchTimeout`) and for each
 * driver's own context (`viewport`, `contextOptions`, `startUrl`, `settle`, `storageState`, …), and the pool's
 * `size`. Not `userDataDir`: one profile cannot serve many contexts.
 *
 * @example
 * ```ts
 * await using pool = PlaywrightDriver.pool({ size: 8, contextOptions: { locale: 'en-GB' } });
 * ```
 * @public
 */
export interface PlaywrightPoolOptions extends Omit<PlaywrightLaunchOptions, 'trace' | 'video' | 'userDataDir'> {
  /**
   * The most drivers the pool holds open at once: the `size` of a `BrowserPool`.
   * @defaultValue 4
   */
  readonly size?: number | undefined;
}
