// A goto in a tab that closes while it loads (a popup the URL policy stops, a page that closes
// itself): the load goes to the tab that is active now, instead of failing with ERR_ABORTED
// ("frame was detached"), as was seen in CI under load.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserDriver } from '../../src/index';
import { PlaywrightDriver } from '../../src/playwright/index';
import { PuppeteerDriver } from '../../src/puppeteer/index';
import { startFixtureServer, type FixtureServer } from './fixture-server';

let server: FixtureServer;
beforeAll(async () => {
  server = await startFixtureServer();
});
afterAll(async () => {
  await server?.close();
});

const drivers: { readonly name: string; readonly launch: () => Promise<BrowserDriver & { readonly page: { close(): Promise<unknown> } }> }[] = [
  { name: 'PlaywrightDriver', launch: () => PlaywrightDriver.launch({ headless: true }) },
  { name: 'PuppeteerDriver', launch: () => PuppeteerDriver.launch() },
];

describe.each(drivers)('$name: a goto in a tab that closes while it loads', ({ launch }) => {
  it('loads in the tab that is active now', { timeout: 60_000 }, async () => {
    const driver = await launch();
    try {
      await driver.goto(server.url('executor.html'));
      const popup = await driver.openTab(server.url('frame-inner.html'));
      const closing = driver.page;
      // The tab goes away in the middle of the load, as a stopped popup does.
      const closed = new Promise<void>((resolve) => setTimeout(() => void closing.close().then(() => resolve()), 150));
      await driver.goto(server.url('slow?ms=1000'));
      await closed;
      const tabs = await driver.tabs();
      expect(tabs.map((tab) => tab.id)).not.toContain(popup.id);
      expect((await driver.activeTab()).url).toBe(server.url('slow?ms=1000'));
    } finally {
      await driver.close();
    }
  });
});

describe.each(drivers)('$name: a goto that another navigation of its tab interrupts', ({ launch }) => {
  it('loads the URL it was given (the page\u2019s own navigation aborted the load: ERR_ABORTED)', { timeout: 60_000 }, async () => {
    const driver = await launch();
    try {
      await driver.goto(server.url('self-navigate.html'));
      // The page's timer fires while the slow load is pending, and aborts it.
      await driver.goto(server.url('slow?ms=1500'));
      expect((await driver.activeTab()).url).toBe(server.url('slow?ms=1500'));
    } finally {
      await driver.close();
    }
  });
});
