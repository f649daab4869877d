// The options both Chromium drivers take alike (plannav/playwright and plannav/puppeteer export
// them under the same names): what every way of creating a driver accepts, and what launching a
// local Chromium takes. Each driver adds its own (the binary it looks for, its library's options).

import type { SettleOptions } from './settle-options';
import type { DownloadsOptions } from './downloads';

/**
 * Options every way of creating a Chromium driver (`PlaywrightDriver`, `PuppeteerDriver`) accepts.
 * @public
 */
export interface ChromiumDriverOptions {
  /** How the driver waits for a page to settle after each action. */
  readonly settle?: SettleOptions | undefined;
  /**
   * Draw a box with its index over each indexed element in screenshots (a "set-of-mark" image
   * for vision models). The page itself is left as it was.
   * @defaultValue false
   */
  readonly highlightElements?: boolean | undefined;
  /**
   * Milliseconds a driver call may take when the caller gives no `timeout`.
   * @defaultValue 15000
   */
  readonly defaultTimeout?: number | undefined;
  // Downloads (issue 24).
  /**
   * Where downloads of every tab are saved, and the largest kept: see {@link DownloadsOptions}.
   * Each one ends as an `onDownload` report (the Executor's `download` event). `false` leaves
   * downloads to the browser and the library, as without plannav.
   * @defaultValue a fresh temporary folder of the driver's, removed on `close()`; a 100 MB cap
   * @example `{ dir: './downloads', maxBytes: 20_000_000 }`
   */
  readonly downloads?: DownloadsOptions | false | undefined;
}

/**
 * What launching a local Chromium takes, in either driver: a fresh profile that the driver owns
 * and removes on `close()`.
 * @public
 */
export interface ChromiumLaunchOptions extends ChromiumDriverOptions {
  /**
   * Run without a window.
   * @defaultValue true
   */
  readonly headless?: boolean | undefined;
  /** Extra command-line switches for Chromium, after the driver's own. */
  readonly args?: readonly string[] | undefined;
  /**
   * The viewport size in CSS pixels.
   * @defaultValue `{ width: 1280, height: 1100 }`
   */
  readonly viewport?: { readonly width: number; readonly height: number } | undefined;
  /** The URL of the first tab. @defaultValue 'about:blank' */
  readonly startUrl?: string | undefined;
  /**
   * Milliseconds the browser may take to start.
   * @defaultValue 30000
   */
  readonly launchTimeout?: number | undefined;
}
