// Launching Chromium and opening a driver over it, the same for both drivers: a fresh profile (when
// the library does not make its own) or the user's persistent one, the WebSocket proxy, the switches,
// and no process or folder of ours left behind when a step fails. How the library launches stays the caller's.

import { rmSync } from 'node:fs';
import { BrowserError } from '../errors';
import { firstLine } from './call';
import { startLaunchProxy, type EgressProxy } from './egress-proxy';
import { chromiumLaunchArgs } from './launch-args';
import { valueWithin } from '../util/value-within';
import type { SharedBrowser } from './browser-pool';
import { createProfile, prepareUserProfile, removeProfile, removeProfileWhenGone } from './profile';

/** What to launch: the browser, the user's switches, whether a proxy of the user's replaces the driver's, whether to make a profile. */
export interface LaunchRequest {
  /** The browser to start; undefined lets the library choose, named then by `unnamed` in an error. */
  readonly executablePath: string | undefined;
  readonly unnamed?: string | undefined;
  readonly args?: readonly string[] | undefined;
  readonly ownProxy?: boolean | undefined;
  readonly profile: boolean;
  /** A persistent profile of the user's (issue 24): used instead of a fresh one, checked for a lock, and kept. */
  readonly userDataDir?: string | undefined;
}

/** A launched browser with its proxy and profile folder (when one was made). */
export interface LaunchedChromium<B> {
  readonly browser: B;
  readonly proxy: EgressProxy | undefined;
  readonly userDataDir: string | undefined;
  /** Whether `userDataDir` is the user's, to keep: never removed with the browser. */
  readonly keepProfile?: boolean | undefined;
}

/** How long a launch waits for the browser to name itself (`Browser.getVersion`); one that does not is not counted on. */
const productTimeoutMs = 5000;

/**
 * Whether the browser `product` names (the DevTools protocol's `Browser.getVersion`) opens its
 * WebSockets through a `--proxy-pac-url` proxy: full Chrome and Chromium, `Chrome/<version>`,
 * headless or not. Chromium's headless shell says `HeadlessChrome/<version>` and does not; a
 * browser that did not answer, or names itself otherwise, is not counted on either.
 */
function proxiesWebSockets(product: string | undefined): boolean {
  return product?.startsWith('Chrome/') === true;
}

/**
 * Launches Chromium through `launch` (given the switches and the profile folder); a browser that
 * dies (killed, crashed) takes its profile folder and proxy with it, close() or not (`onGone`).
 *
 * Chromium's headless shell does not open its WebSockets through a `--proxy-pac-url` proxy (seen
 * with Chromium 156): on it the proxy would check nothing. So the proxy is returned only for a
 * browser that names itself full Chrome or Chromium (`product`); otherwise the request guard says
 * that WebSockets go unchecked instead of counting on it. The proxy runs on until the browser is gone.
 * @throws `BrowserError` saying where it looked when the browser could not be started; with code
 * `PROFILE_IN_USE` when a running browser holds the user's `userDataDir`.
 */
export async function launchChromium<B>(
  request: LaunchRequest,
  launch: (args: string[], userDataDir: string | undefined) => Promise<B>,
  onGone: (browser: B, listener: () => void) => void,
  product: (browser: B) => Promise<string | undefined>,
): Promise<LaunchedChromium<B>> {
  let userDataDir: string | undefined;
  let proxy: EgressProxy | undefined;
  let browser: B;
  // A profile in use is the user's to resolve: say so before anything starts (a launch would hand over to that browser).
  const userProfile = request.userDataDir === undefined ? undefined : prepareUserProfile(request.userDataDir);
  try {
    if (userProfile) userDataDir = userProfile;
    else if (request.profile) userDataDir = createProfile();
    proxy = await startLaunchProxy(request.args, request.ownProxy);
    browser = await launch([...chromiumLaunchArgs, ...(proxy?.launchArgs ?? []), ...(request.args ?? [])], userDataDir);
  } catch (error) {
    if (userDataDir && !userProfile) rmSync(userDataDir, { recursive: true, force: true, maxRetries: 3 });
    await proxy?.close();
    const where = request.executablePath ?? request.unnamed;
    throw new BrowserError(`Could not launch Chromium from ${where}: ${firstLine(error)}. Install Chromium or pass \`executablePath\`.`, { cause: error });
  }
  if (userDataDir && !userProfile) removeProfileWhenGone(userDataDir, (listener) => onGone(browser, listener));
  const started = proxy;
  onGone(browser, () => void started?.close());
  const tunnels = started !== undefined && proxiesWebSockets(await valueWithin(product(browser), productTimeoutMs));
  return { browser, proxy: tunnels ? started : undefined, userDataDir, keepProfile: userProfile !== undefined };
}

/**
 * Makes a driver and starts it. Whatever fails (bad options, an unreachable start URL) leaves
 * nothing running: the driver is closed, or, when it was never made, `cleanUp` closes what was
 * opened for it.
 */
export async function openDriver<D extends { close(): Promise<void> }>(
  make: () => D,
  start: (driver: D) => Promise<void>,
  cleanUp: () => Promise<unknown>,
): Promise<D> {
  let driver: D | undefined;
  try {
    driver = make();
    await start(driver);
    return driver;
  } catch (error) {
    if (driver) await driver.close().catch(() => undefined);
    else await cleanUp().catch(() => undefined);
    throw error;
  }
}

/**
 * A driver on a remote browser: opens a context of its own there, makes and starts the driver in
 * it, and on any failure closes that context and lets go of the browser (`release`: disconnect or
 * close the connection). The remote browser itself is not ours and is never closed.
 */
export async function openInRemoteContext<C extends { close(): Promise<void> }, D extends { close(): Promise<void> }>(
  newContext: () => Promise<C>,
  release: () => Promise<void>,
  make: (context: C) => D,
  start: (driver: D) => Promise<void>,
): Promise<D> {
  const context = await newContext().catch(async (error: unknown) => {
    await release().catch(() => undefined);
    throw error;
  });
  return openDriver(
    () => make(context),
    start,
    async () => {
      await context.close().catch(() => undefined);
      await release();
    },
  );
}

/**
 * A driver on a running browser the user started, in its default context, where the user's logins are: with `tabs:
 * 'all'` on every tab of it; with `'own'`, on a tab of its own (`make` is told which), which it closes on `close()`
 * with the tabs it opened, leaving the user's alone. On failure it lets go of the browser (`release`).
 */
export async function openInDefaultContext<P extends { close(): Promise<unknown> }, D extends { close(): Promise<void> }>(
  tabs: 'own' | 'all',
  newPage: () => Promise<P>,
  release: () => Promise<void>,
  make: (owns: 'context' | 'page') => D,
  start: (driver: D, page?: P) => Promise<void>,
): Promise<D> {
  if (tabs === 'all') {
    return openDriver(
      () => make('context'),
      (driver) => start(driver),
      release,
    );
  }
  let own: P | undefined;
  return openDriver(
    () => make('page'),
    async (driver) => {
      own = await newPage();
      await start(driver, own);
    },
    async () => {
      await own?.close().catch(() => undefined);
      await release();
    },
  );
}

/** A launched browser as a pool's shared one: closing it closes the proxy and removes the profile folder (if it made one). */
export function sharedBrowser<B extends { close(): Promise<unknown>; once(event: 'disconnected', listener: () => void): unknown }>(
  launched: LaunchedChromium<B>,
): SharedBrowser<B> {
  const { browser, proxy, userDataDir, keepProfile } = launched;
  return {
    browser,
    proxy,
    onGone: (listener) => void browser.once('disconnected', listener),
    close: async () => {
      await browser.close().catch(() => undefined);
      await proxy?.close();
      try {
        if (userDataDir && !keepProfile) removeProfile(userDataDir);
      } catch {
        // Left for the removal that runs when the browser is gone (removeProfileWhenGone).
      }
    },
  };
}
