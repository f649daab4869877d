// The options of PuppeteerDriver: how it settles after actions, what it draws on screenshots, and
// how it launches or connects to a browser: types, their defaults and their check.

import { z } from 'zod';
import type { ChromiumDriverOptions, ChromiumLaunchOptions } from '../chromium/driver-options';
import { ConfigError } from '../errors';

export type { ChromiumDriverOptions, ChromiumLaunchOptions } from '../chromium/driver-options';
export type { SettleOptions } from '../chromium/settle-options';

/**
 * Options every way of creating a {@link PuppeteerDriver} accepts.
 * @public
 */
export type PuppeteerDriverOptions = ChromiumDriverOptions;

/**
 * Options of {@link PuppeteerDriver.launch}: a local Chromium with a fresh profile that the driver
 * owns and removes on `close()`.
 *
 * @example
 * ```ts
 * await using driver = await PuppeteerDriver.launch({ headless: true, viewport: { width: 1280, height: 1100 } });
 * ```
 * @public
 */
export interface PuppeteerLaunchOptions extends ChromiumLaunchOptions {
  /**
   * The Chromium or Chrome binary. When absent, the driver looks in the usual places
   * (`$PLANNAV_CHROMIUM_PATH`, `$CHROME_PATH`, `/usr/bin/chromium`, `/usr/bin/chromium-browser`,
   * `/usr/bin/google-chrome`, the macOS and Windows install folders); `puppeteer-core` downloads
   * no browser of its own.
   */
  readonly executablePath?: string | undefined;
}

/**
 * Options of {@link PuppeteerDriver.connect}: a running Chromium, by its DevTools WebSocket
 * endpoint or its HTTP debugging address (`--remote-debugging-port`). The driver opens a browser
 * context of its own there and closes only that.
 * @public
 */
export interface PuppeteerConnectOptions extends PuppeteerDriverOptions {
  /** The browser's DevTools WebSocket URL, such as `ws://127.0.0.1:9222/devtools/browser/…`. */
  readonly browserWSEndpoint?: string | undefined;
  /** The browser's debugging address, such as `http://127.0.0.1:9222`. */
  readonly browserURL?: string | undefined;
  /** Headers sent with the WebSocket connection request (a grid's token). */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /**
   * The viewport size of the tabs the driver opens, in CSS pixels.
   * @defaultValue `{ width: 1280, height: 1100 }`
   */
  readonly viewport?: { readonly width: number; readonly height: number } | undefined;
  /**
   * Milliseconds the connection may take.
   * @defaultValue 30000
   */
  readonly connectTimeout?: number | undefined;
  /**
   * Staying logged in (issue 24): which tabs the driver drives.
   * - `'own'`: a tab it opens in the browser's default context, which shares the profile's cookies
   *   and logins, and the tabs that tab and the driver open. The user's tabs are never adopted,
   *   navigated or closed; `close()` closes the driver's tabs and disconnects.
   * - `'all'`: every tab of the default context, the user's open ones included (the first one is
   *   active), and any tab opened there; `close()` closes none of them and disconnects.
   * - `'isolated'`: a browser context of its own (no cookies of the profile), closed on `close()`.
   * @defaultValue 'own'
   */
  readonly tabs?: 'own' | 'all' | 'isolated' | undefined;
}

const positive = z.number().positive();
const milliseconds = z.number().nonnegative();
const viewport = z.object({ width: z.number().int().positive(), height: z.number().int().positive() });

/** What the driver checks of its options before it touches a browser; other fields pass through. */
const driverOptionsSchema = z.object({
  settle: z
    .object({
      networkQuietMs: milliseconds.optional(),
      domQuietMs: milliseconds.optional(),
      maxWaitMs: milliseconds.optional(),
      ignoreRequestsAfterMs: milliseconds.optional(),
    })
    .optional(),
  highlightElements: z.boolean().optional(),
  defaultTimeout: positive.optional(),
  headless: z.boolean().optional(),
  executablePath: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  viewport: viewport.optional(),
  startUrl: z.string().min(1).optional(),
  launchTimeout: positive.optional(),
  connectTimeout: positive.optional(),
  // Staying logged in (issue 24); the storage state's own check reads its file and says which field is wrong.
  userDataDir: z.string().min(1).optional(),
  tabs: z.enum(['own', 'all', 'isolated']).optional(),
});

/**
 * Checks the options of any way of creating the driver.
 * @throws `ConfigError` naming the first field at fault and what it got.
 */
export function checkOptions(options: PuppeteerDriverOptions & Partial<PuppeteerLaunchOptions> & Partial<PuppeteerConnectOptions>): void {
  const checked = driverOptionsSchema.safeParse(options);
  if (checked.success) return;
  const issue = checked.error.issues[0];
  const field = issue?.path.map(String).join('.') ?? '';
  let got: unknown = options;
  for (const key of issue?.path ?? []) got = typeof got === 'object' && got !== null ? (got as Record<PropertyKey, unknown>)[key] : undefined;
  throw new ConfigError(`Option \`${field}\` of PuppeteerDriver is invalid (${issue?.message ?? 'bad value'}), got ${JSON.stringify(got) ?? String(got)}.`, {
    field,
  });
}

/** The viewport of launched browsers and of tabs opened in a connected one. */
export const defaultViewport = { width: 1280, height: 1100 } as const;

/**
 * Options of {@link PuppeteerDriver.pool}: those of {@link PuppeteerLaunchOptions}, for the one
 * Chromium the pool launches (`executablePath`, `headless`, `args`, `launchTimeout`, `viewport`)
 * and for each driver (`startUrl`, `settle`, `storageState`, …), and the pool's `size`. Not
 * `userDataDir`: one profile cannot serve many browser contexts.
 *
 * @example
 * ```ts
 * await using pool = PuppeteerDriver.pool({ size: 8 });
 * ```
 * @public
 */
export interface PuppeteerPoolOptions extends Omit<PuppeteerLaunchOptions, 'userDataDir'> {
  /**
   * The most drivers the pool holds open at once: the `size` of a `BrowserPool`.
   * @defaultValue 4
   */
  readonly size?: number | undefined;
}
