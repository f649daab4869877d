// The browser pool of PuppeteerDriver: the one Chromium it launches (same switches, profile and
// WebSocket proxy as launch()), and the pool's public type. Opening a driver in it is the driver's own code.

import { rmSync } from 'node:fs';
import puppeteer, { type Browser } from 'puppeteer-core';
import { BrowserError } from '../errors';
import type { SharedBrowser } from '../chromium/browser-pool';
import { firstLine } from '../chromium/call';
import { startLaunchProxy, type EgressProxy } from '../chromium/egress-proxy';
import { chromiumCandidates, findChromium } from '../chromium/find-chromium';
import { chromiumLaunchArgs } from '../chromium/launch-args';
import { createProfile, removeProfile, removeProfileWhenGone } from '../chromium/profile';
import { defaultViewport, type PuppeteerPoolOptions } from './options';
import type { PuppeteerDriver } from './puppeteer-driver';

/**
 * Drivers that share one Chromium, each over a browser context of its own (its own cookies,
 * storage, cache and tabs): a `BrowserPool` for the `browsers` option of `collect()` and the
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

/** Launches the pool's Chromium with a fresh profile, removed with the browser however it ends. */
export async function launchPooledChromium(options: PuppeteerPoolOptions): Promise<SharedBrowser<Browser>> {
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
  const profile = userDataDir;
  removeProfileWhenGone(profile, (listener) => browser.once('disconnected', listener));
  browser.once('disconnected', () => void proxy?.close());
  return {
    browser,
    proxy,
    onGone: (listener) => void browser.once('disconnected', listener),
    close: async () => {
      await browser.close().catch(() => undefined);
      await proxy?.close();
      try {
        removeProfile(profile);
      } catch {
        // Left for the removal that runs when the browser is gone (removeProfileWhenGone).
      }
    },
  };
}
