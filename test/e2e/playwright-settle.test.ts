// How long PlaywrightDriver waits for a page to settle, in real headless Chromium: with page
// JavaScript off in a context the driver attached to (it cannot know), and on pages that mutate.
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlaywrightDriver } from '../../src/playwright/index';
import { findChromium } from '../../src/playwright/find-chromium';
import type { PlaywrightDriverOptions } from '../../src/playwright/options';

/** The pages of these tests, served by a route of each context (no server needed). */
const pages: Record<string, string> = {
  'quiet.html': '<!doctype html><title>Quiet</title><h1>Quiet</h1><a href="next.html">Next</a><button>Nothing</button>',
  'next.html': '<!doctype html><title>Next</title><h1>Next</h1><a href="quiet.html">Back</a>',
  // A click starts DOM mutations every 20 ms for 300 ms, then the page marks itself done.
  'burst.html': `<!doctype html><title>Burst</title><p id="out">idle</p>
<button onclick="const end = Date.now() + 300; const tick = () => { if (Date.now() < end) { out.textContent = String(Date.now()); setTimeout(tick, 20); } else { document.body.dataset.state = 'done'; } }; tick();">Start</button>`,
  // Mutates the DOM every 20 ms for as long as it is open.
  'endless.html': `<!doctype html><title>Endless</title><p id="out">0</p>
<script>let count = 0; setInterval(() => { out.textContent = String(++count); }, 20);</script>`,
};
const origin = 'http://settle.test';
/** Well under the driver's default settle bound (5 s): what one settle may take on a quiet page, however slow the machine. */
const quickMs = 1500;

let browser: Browser;

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: findChromium(), args: ['--no-sandbox', '--disable-gpu'] });
});

afterAll(async () => {
  await browser?.close();
});

/** A context of our own (JavaScript on or off) with the pages above, and a driver attached to its page. */
async function attached(
  javaScriptEnabled: boolean,
  options: PlaywrightDriverOptions = {},
): Promise<{ context: BrowserContext; page: Page; driver: PlaywrightDriver }> {
  const context = await browser.newContext({ javaScriptEnabled });
  await context.route(`${origin}/**`, async (route) => {
    const body = pages[new URL(route.request().url()).pathname.slice(1)];
    await (body === undefined ? route.fulfill({ status: 404, body: '' }) : route.fulfill({ contentType: 'text/html; charset=utf-8', body }));
  });
  const page = await context.newPage();
  const driver = await PlaywrightDriver.attach(page, { defaultTimeout: 20_000, ...options });
  return { context, page, driver };
}

/** Milliseconds `call` takes. */
async function timed(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await call();
  return performance.now() - started;
}

describe('settling with page JavaScript off, in a context the driver attached to', () => {
  it('takes milliseconds, not the settle bound, on every call', async () => {
    const { context, driver } = await attached(false);
    try {
      expect(await timed(() => driver.goto(`${origin}/quiet.html`))).toBeLessThan(quickMs);
      for (let call = 0; call < 3; call++) expect(await timed(() => driver.waitForSettled())).toBeLessThan(quickMs);
      // Actions settle the same way, in this document and in the next ones (each is checked again).
      expect(await timed(() => driver.scroll({ deltaY: 200 }))).toBeLessThan(quickMs);
      expect(await timed(() => driver.press('Tab'))).toBeLessThan(quickMs);
      expect(await timed(() => driver.goto(`${origin}/next.html`))).toBeLessThan(quickMs);
      expect(await timed(() => driver.goBack())).toBeLessThan(quickMs);
      expect(await driver.currentUrl()).toBe(`${origin}/quiet.html`);
    } finally {
      await driver.close();
      await context.close();
    }
  });
});

describe('settling on pages whose scripts run', () => {
  it('waits for a page that mutates its DOM for 300 ms after a click, until it stops', async () => {
    const { context, page, driver } = await attached(true);
    try {
      await driver.goto(`${origin}/burst.html`);
      const elapsed = await timed(async () => {
        await page.click('button');
        await driver.waitForSettled();
      });
      expect(elapsed).toBeGreaterThanOrEqual(300);
      // The wait ended after the mutations did, not during them.
      expect(await page.evaluate(() => document.body.dataset['state'])).toBe('done');
    } finally {
      await driver.close();
      await context.close();
    }
  });

  it('waits until the bound for a page that never stops mutating', async () => {
    const maxWaitMs = 1500;
    const { context, driver } = await attached(true, { settle: { maxWaitMs } });
    try {
      await driver.goto(`${origin}/endless.html`);
      const elapsed = await timed(() => driver.waitForSettled());
      expect(elapsed).toBeGreaterThanOrEqual(maxWaitMs - 100);
      expect(elapsed).toBeLessThan(maxWaitMs + 1000);
    } finally {
      await driver.close();
      await context.close();
    }
  });

  it('checks each new document again when page JavaScript is switched off and on', async () => {
    const { context, page, driver } = await attached(true);
    const session = await context.newCDPSession(page);
    try {
      await driver.goto(`${origin}/quiet.html`);
      await driver.waitForSettled();
      // Scripts off from the next document on: a driver that kept the first document's answer would wait out its bound.
      await session.send('Emulation.setScriptExecutionDisabled', { value: true });
      await driver.goto(`${origin}/next.html`);
      expect(await timed(() => driver.waitForSettled())).toBeLessThan(quickMs);
      // Scripts on again: a driver that kept the answer of the script-less document would not wait for the mutations.
      await session.send('Emulation.setScriptExecutionDisabled', { value: false });
      await driver.goto(`${origin}/burst.html`);
      const elapsed = await timed(async () => {
        await page.click('button');
        await driver.waitForSettled();
      });
      expect(elapsed).toBeGreaterThanOrEqual(300);
      expect(await page.evaluate(() => document.body.dataset['state'])).toBe('done');
    } finally {
      await session.detach().catch(() => undefined);
      await driver.close();
      await context.close();
    }
  });
});
