// The options both Chromium drivers take alike (plannav/playwright and plannav/puppeteer export
// them under the same names): what every way of creating a driver accepts, and what launching a
// local Chromium takes. Each driver adds its own (the binary it looks for, its library's options).

import type { StorageState } from '../browser/storage-state';
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
  // Staying logged in (issue 24): a saved storage state, a persistent profile.
  /**
   * Starts the browser with this storage state (cookies, localStorage, and IndexedDB with
   * PlaywrightDriver), as an object or the path of a JSON file in Playwright's format: what a
   * driver's `storageState({ path })` or Playwright's `context.storageState({ path })` saved. It is
   * checked before the browser starts; the values are never logged.
   * @throws at launch: `ConfigError` (field `storageState`) when the file cannot be read, is not
   * JSON, or is not a storage state; the message says which field is wrong.
   * @example
   * ```ts
   * await using browser = await PlaywrightDriver.launch({ storageState: '.auth/shop.json' });
   * ```
   */
  readonly storageState?: StorageState | string | undefined;
  /**
   * A persistent profile: the folder Chromium keeps its cookies, storage and cache in (created when
   * missing), used instead of a fresh temporary one and kept after `close()`, so a login survives a
   * restart. Speculative loading is turned off in it, as in a fresh profile. A stale lock left by a
   * browser that was killed is cleared. Not with `storageState` (load a state into a fresh profile).
   * @throws at launch: `BrowserError` with code `PROFILE_IN_USE`, naming the process, when a running
   * browser holds the profile.
   * @example
   * ```ts
   * await using browser = await PuppeteerDriver.launch({ userDataDir: '.profiles/shop' });
   * ```
   */
  readonly userDataDir?: string | undefined;
}
