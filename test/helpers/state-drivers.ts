// Both drivers, launched and connected through one shape, with the issue-24 options (storage
// state, profile, downloads) that the drivers' option types gain with the feature. The options go
// through a spread of a typed variable, so the tests compile before and after the change.
import { PlaywrightDriver } from '../../src/playwright/index';
import { PuppeteerDriver } from '../../src/puppeteer/index';
import type { BrowserDriver } from '../../src/browser/types';

/** Playwright's storage-state format (contract section B). */
export interface StorageStateShape {
  cookies: {
    name: string;
    value: string;
    domain: string;
    path: string;
    expires: number;
    httpOnly: boolean;
    secure: boolean;
    sameSite: 'Strict' | 'Lax' | 'None';
  }[];
  origins: { origin: string; localStorage: { name: string; value: string }[]; indexedDB?: unknown[] }[];
}

/** The issue-24 launch options (contract sections B and C). */
export interface StateLaunchOptions {
  storageState?: StorageStateShape | string;
  userDataDir?: string;
  downloads?: { dir: string; maxBytes?: number };
  settle?: { maxWaitMs?: number };
}

/** A driver with the optional `storageState` member of contract section B. */
export type StateDriver = BrowserDriver & { storageState?(options?: { path?: string }): Promise<StorageStateShape> };

export interface Library {
  readonly name: 'playwright' | 'puppeteer';
  launch(options?: StateLaunchOptions): Promise<StateDriver>;
  /** Connects to a running Chromium by its DevTools HTTP address. */
  connect(debuggingUrl: string, options?: StateLaunchOptions): Promise<StateDriver>;
}

const settle = { maxWaitMs: 2000 };

export const playwright: Library = {
  name: 'playwright',
  // `storageState`, `userDataDir` and `downloads` are new launch options (issue 24).
  launch: (options = {}) => PlaywrightDriver.launch({ settle, ...options }),
  connect: (debuggingUrl, options = {}) => PlaywrightDriver.connect({ settle, cdpUrl: debuggingUrl, ...options }),
};

export const puppeteer: Library = {
  name: 'puppeteer',
  launch: (options = {}) => PuppeteerDriver.launch({ settle, ...options }),
  connect: (debuggingUrl, options = {}) => PuppeteerDriver.connect({ settle, browserURL: debuggingUrl, ...options }),
};

export const libraries: readonly Library[] = [playwright, puppeteer];

/** The driver's `storageState` member, or a failure that says the driver lacks it. */
export function storageStateOf(driver: StateDriver): (options?: { path?: string }) => Promise<StorageStateShape> {
  if (typeof driver.storageState !== 'function') throw new Error('The driver has no storageState() member (contract section B).');
  return (options) => driver.storageState!(options);
}
