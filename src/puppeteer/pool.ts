// The browser pool of PuppeteerDriver: the one Chromium it launches (same switches, profile and
// WebSocket proxy as launch()), and the pool's public type. Opening a driver in it is the driver's own code.

import puppeteer, { type Browser } from 'puppeteer-core';
import { BrowserError } from '../errors';
import type { SharedBrowser } from '../chromium/browser-pool';
import { chromiumCandidates, findChromium } from '../chromium/find-chromium';
import { launchChromium, sharedBrowser, type LaunchedChromium } from '../chromium/launch';
import { defaultViewport, type PuppeteerLaunchOptions, type PuppeteerPoolOptions } from './options';
import type { PuppeteerDriver } from './puppeteer-driver';

/**
 * Drivers that share one Chromium, each over a browser context of its own (its own cookies,
 * storage, cache and tabs): a `BrowserPool` for the `browsers` option of the `Collector` and the
 * `browser` option of the BullMQ worker. Make one with {@link PuppeteerDriver.pool}.
 * @public
 */
export interface PuppeteerPool {
  /** The most drivers the pool holds open at once. */
  readonly size: number;
  /**
   * Opens a driver over a new context of the pool's Chromium, launching it first when none runs;
   * calls that overlap share one launch.
   * @throws `ConfigError` when `size` drivers are open already; `BrowserDisconnectedError` once
   * the pool is closed; `BrowserError` when Chromium cannot be launched.
   */
  create(): Promise<PuppeteerDriver>;
  /** Closes the drivers still open and the browser. Idempotent; `create()` rejects from then on. */
  close(): Promise<void>;
  /** Same as `close()`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Launches Chromium with a fresh profile, removed with the browser however it ends (launch() and the pool).
 * @throws `BrowserError` when no browser is found (puppeteer-core downloads none) or it cannot start.
 */
export async function launchPuppeteer(options: PuppeteerPoolOptions | PuppeteerLaunchOptions): Promise<LaunchedChromium<Browser>> {
  const executablePath = options.executablePath ?? findChromium();
  if (!executablePath) {
    const looked = chromiumCandidates(process.platform, process.env).join(', ');
    throw new BrowserError(`No Chromium or Chrome found (looked at ${looked}): install one or pass \`executablePath\`. puppeteer-core downloads no browser.`);
  }
  return launchChromium(
    { executablePath, args: options.args, profile: true, userDataDir: 'userDataDir' in options ? options.userDataDir : undefined },
    (args, userDataDir) =>
      puppeteer.launch({
        executablePath,
        headless: options.headless ?? true,
        args,
        userDataDir,
        defaultViewport: options.viewport ?? defaultViewport,
        timeout: options.launchTimeout ?? 30_000,
      }),
    (browser, listener) => void browser.once('disconnected', listener),
    (browser) => browser.version(),
  );
}

/** Launches the pool's Chromium with a fresh profile, removed with the browser however it ends. */
export async function launchPooledChromium(options: PuppeteerPoolOptions): Promise<SharedBrowser<Browser>> {
  return sharedBrowser(await launchPuppeteer(options));
}
