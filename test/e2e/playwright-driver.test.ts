// PlaywrightDriver in real headless Chromium: tabs, settling, screenshots, element refs, errors,
// cancellation, and the three ways in (launch, attach, connect). One launched browser per file.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { pageRuntime } from '../../src/dom/page-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserError, RequestCancelledError } from '../../src/errors';
import { buildStateMessage } from '../../src/prompts/state-message';
import { PlaywrightDriver } from '../../src/playwright/index';
import { findChromium } from '../../src/playwright/find-chromium';
import { capture, indexWith, lineWith, startBrowser, type BrowserFixture } from './snapshot-helpers';

let fixture: BrowserFixture;

beforeAll(async () => {
  fixture = await startBrowser({ highlightElements: true });
});

afterAll(async () => {
  await fixture?.close();
});

/** Closes every tab but the first, so tests do not see each other's tabs. */
async function singleTab(): Promise<void> {
  const tabs = await fixture.driver.tabs();
  for (const tab of tabs.slice(1)) await fixture.driver.closeTab(tab.id);
  await fixture.driver.switchTab(tabs[0]!.id);
}

describe('tabs', () => {
  it('opens, switches and closes tabs', async () => {
    await singleTab();
    await fixture.driver.goto(fixture.server.url('tabs.html'));
    const first = await fixture.driver.activeTab();
    const second = await fixture.driver.openTab(fixture.server.url('tab-target.html'));
    expect(second.id).not.toBe(first.id);
    expect(second).toMatchObject({ url: fixture.server.url('tab-target.html'), title: 'Target page' });
    expect((await fixture.driver.activeTab()).id).toBe(second.id);
    expect((await fixture.driver.tabs()).map((tab) => tab.id)).toEqual([first.id, second.id]);
    await fixture.driver.switchTab(first.id);
    expect(await fixture.driver.currentUrl()).toBe(fixture.server.url('tabs.html'));
    await fixture.driver.switchTab(second.id);
    await fixture.driver.closeTab(second.id);
    expect((await fixture.driver.activeTab()).id).toBe(first.id);
    await expect(fixture.driver.switchTab(second.id)).rejects.toThrow(/There is no tab with id/);
  });

  it('makes a tab opened by a click (target=_blank, window.open) the active tab', async () => {
    await singleTab();
    const state = await capture(fixture, 'tabs.html');
    const opener = state.activeTabId;
    await fixture.driver.click(state.elements.get(indexWith(state.elementsText, 'Open in new tab'))!);
    const afterLink = await state.reader.capture({ screenshot: false });
    expect(afterLink.tabs).toHaveLength(2);
    expect(afterLink.activeTabId).not.toBe(opener);
    expect(afterLink.url).toBe(fixture.server.url('tab-target.html'));
    expect(lineWith(afterLink.elementsText, 'Target button')).toBeDefined();
    expect(afterLink.tabs.find((tab) => tab.id === afterLink.activeTabId)?.openerId).toBe(opener);
    const message = buildStateMessage({ state: afterLink, step: 2, maxSteps: 10, transientResults: [], includeScreenshot: false });
    expect(message).toContain(`"title":"Target page","openedBy":"${opener}"}`);
    await fixture.driver.switchTab(opener);
    const back = await state.reader.capture({ screenshot: false });
    await fixture.driver.click(back.elements.get(indexWith(back.elementsText, 'Open with script'))!);
    const afterScript = await fixture.driver.activeTab();
    expect(afterScript.url).toBe(fixture.server.url('tab-target.html?from=script'));
    expect(await fixture.driver.tabs()).toHaveLength(3);
  });
});

describe('settling', () => {
  it('waits for DOM changes a click starts, without a fixed sleep', async () => {
    await singleTab();
    const state = await capture(fixture, 'tabs.html');
    await fixture.driver.click(state.elements.get(indexWith(state.elementsText, 'Slow update'))!);
    const after = await state.reader.capture({ screenshot: false });
    expect(after.elementsText).toContain('Late content');
  });

  it('waits for requests a click starts', async () => {
    await singleTab();
    const state = await capture(fixture, 'tabs.html');
    await fixture.driver.click(state.elements.get(indexWith(state.elementsText, 'Fetch data'))!);
    const after = await state.reader.capture({ screenshot: false });
    expect(after.elementsText).toContain('slow done');
  });

  it('follows a same-tab link and goes back', async () => {
    await singleTab();
    const state = await capture(fixture, 'tabs.html');
    await fixture.driver.click(state.elements.get(indexWith(state.elementsText, 'Same tab link'))!);
    expect(await fixture.driver.currentUrl()).toBe(fixture.server.url('tab-target.html'));
    await fixture.driver.goBack();
    expect(await fixture.driver.currentUrl()).toBe(fixture.server.url('tabs.html'));
    await fixture.driver.waitForSettled();
  });
});

describe('failed loads', () => {
  it('rejects a load that fails and leaves the tab ready for the next one', async () => {
    // A port that was just free refuses connections.
    const server = createServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const port = (server.address() as { port: number }).port;
    await new Promise((done) => server.close(done));
    await expect(fixture.driver.goto(`http://127.0.0.1:${port}/`)).rejects.toThrow(/Could not load http:\/\/127\.0\.0\.1:\d+\/: .*ERR_CONNECTION_REFUSED/);
    await fixture.driver.goto(fixture.server.url('tabs.html'));
    expect(await fixture.driver.currentUrl()).toBe(fixture.server.url('tabs.html'));
  });
});

describe('element refs', () => {
  it('fails with a clear, recoverable error when the element is gone', async () => {
    await singleTab();
    const state = await capture(fixture, 'spa.html');
    const milk = state.elements.get(indexWith(state.elementsText, 'Remove Milk'))!;
    await fixture.driver.click(milk);
    const error = await fixture.driver.click(milk).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BrowserError);
    expect((error as BrowserError).message).toMatch(/Element \d+ \(<button>\) is no longer on the page: it was removed/);
    expect((error as BrowserError).retryable).toBe(true);
    await fixture.driver.goto(fixture.server.url('spa.html'));
    const add = state.elements.get(indexWith(state.elementsText, 'Add item'))!;
    await expect(fixture.driver.click(add)).rejects.toThrow(/new document/);
  });

  it('finds an element a later snapshot did not list by its id, while it lives', async () => {
    await singleTab();
    const state = await capture(fixture, 'forms.html');
    const email = state.elements.get(indexWith(state.elementsText, 'name="email"'))!;
    expect(email.selector).toBe('input[name="email"]');
    // A later snapshot of nothing (an empty clip) leaves the id out of the registry's map.
    await fixture.driver.page.evaluate(
      (key) =>
        (globalThis as unknown as Record<string, { call(method: string, argument: unknown): unknown }>)[key]!.call('snapshot', {
          viewportExpansion: 0,
          includeAttributes: [],
          maxTextLength: 100,
          clip: { x: 0, y: 0, width: 0, height: 0 },
        }),
      pageRuntime.version,
    );
    await fixture.driver.fill(email, 'fallback@example.com');
    expect(await fixture.driver.page.inputValue('input[name="email"]')).toBe('fallback@example.com');
  });

  it('fills, presses keys, selects, uploads and reports what cannot be done', async () => {
    await singleTab();
    const state = await capture(fixture, 'forms.html');
    const element = (needle: string) => state.elements.get(indexWith(state.elementsText, needle))!;
    await fixture.driver.fill(element('name="email"'), 'ada@example.com');
    await fixture.driver.press('Enter');
    await expect(fixture.driver.selectOption(element('name="size"'), 'Huge')).rejects.toThrow(/has no option "Huge". Options: Small, Medium, Large, Giant/);
    expect(await fixture.driver.selectOption(element('name="size"'), 'small')).toEqual(['Small']);
    await expect(fixture.driver.fill(element('name="size"'), 'text')).rejects.toThrow(BrowserError);
    await fixture.driver.uploadFiles(element('name="photo"'), [new URL('../fixtures/icons/trash.svg', import.meta.url).pathname]);
    const after = await state.reader.capture({ screenshot: false });
    expect(after.elementsText).toContain('Submitted ada@example.com');
    expect(lineWith(after.elementsText, 'name="photo"')).toContain('value="trash.svg"');
  });
});

describe('screenshots', () => {
  it('takes JPEGs whose quality is configurable, with index boxes drawn only in the image', async () => {
    await singleTab();
    const state = await capture(fixture, 'forms.html');
    const low = await fixture.driver.screenshot({ quality: 10 });
    const high = await fixture.driver.screenshot({ quality: 95 });
    expect([...low.slice(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    expect(high.byteLength).toBeGreaterThan(low.byteLength);
    const plain = await fixture.driver.screenshot({ quality: 95 });
    const marked = await fixture.driver.screenshot({ quality: 95, elements: [...state.elements.values()] });
    expect(Buffer.from(marked).equals(Buffer.from(plain))).toBe(false);
    expect(await fixture.driver.page.evaluate(() => document.getElementById('__plannav-highlights'))).toBeNull();
    const withState = await state.reader.capture({ screenshot: true });
    expect(withState.screenshot?.startsWith('/9j/')).toBe(true);
  });
});

describe('cancellation and time limits', () => {
  it('rejects at once with an aborted signal and honours a timeout', async () => {
    await singleTab();
    const controller = new AbortController();
    controller.abort();
    await expect(fixture.driver.goto(fixture.server.url('forms.html'), { signal: controller.signal })).rejects.toBeInstanceOf(RequestCancelledError);
    const slow = fixture.driver.goto(fixture.server.url('slow?ms=2000'), { timeout: 200 });
    await expect(slow).rejects.toThrow(BrowserError);
    const aborting = new AbortController();
    const pending = fixture.driver.goto(fixture.server.url('slow?ms=2000'), { signal: aborting.signal });
    aborting.abort();
    await expect(pending).rejects.toBeInstanceOf(RequestCancelledError);
  });
});

describe('ways in', () => {
  it('finds Chromium at the usual places', () => {
    expect(findChromium('linux', {}, (path) => path === '/usr/bin/chromium-browser')).toBe('/usr/bin/chromium-browser');
    expect(findChromium('linux', { CHROME_PATH: '/opt/custom/chrome' }, (path) => path === '/opt/custom/chrome')).toBe('/opt/custom/chrome');
    expect(findChromium('darwin', {}, (path) => path.includes('Google Chrome.app'))).toContain('Google Chrome.app');
    expect(findChromium('linux', {}, () => false)).toBeUndefined();
  });

  it('reports a launch failure clearly', async () => {
    await expect(PlaywrightDriver.launch({ executablePath: '/nonexistent/chromium', launchTimeout: 5000 })).rejects.toThrow(
      /Could not launch Chromium from \/nonexistent\/chromium.*pass `executablePath`/,
    );
  });

  it('attaches to a user\u2019s page and never closes it', async () => {
    const browser = await chromium.launch({ executablePath: findChromium(), args: ['--no-sandbox', '--disable-gpu'] });
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(fixture.server.url('interactive.html'));
      const driver = await PlaywrightDriver.attach(page);
      const state = await capture({ ...fixture, driver }, undefined);
      expect(lineWith(state.elementsText, 'Native button')).toBeDefined();
      await driver.close();
      await driver.close();
      expect(page.isClosed()).toBe(false);
      expect(await page.title()).toBe('Interactive');
      await expect(driver.currentUrl()).rejects.toThrow(/closed/);
      const contextDriver = await PlaywrightDriver.attach(context);
      expect((await contextDriver.activeTab()).title).toBe('Interactive');
      await contextDriver[Symbol.asyncDispose]();
      expect(context.pages()).toHaveLength(1);
    } finally {
      await browser.close();
    }
  });

  it('connects to a Playwright server by wsEndpoint and closes only its own context', async () => {
    const server = await chromium.launchServer({ executablePath: findChromium(), args: ['--no-sandbox', '--disable-gpu'], host: '127.0.0.1' });
    try {
      const driver = await PlaywrightDriver.connect({ wsEndpoint: server.wsEndpoint() });
      await driver.goto(fixture.server.url('tab-target.html'));
      expect((await driver.activeTab()).title).toBe('Target page');
      await driver.close();
      const again = await PlaywrightDriver.connect({ wsEndpoint: server.wsEndpoint() });
      expect(await again.currentUrl()).toBe('about:blank');
      await again.close();
    } finally {
      await server.close();
    }
  });

  it('connects to a Chromium by CDP URL and leaves the browser running', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    const browser = await chromium.launch({
      executablePath: findChromium(),
      args: ['--no-sandbox', '--disable-gpu', `--remote-debugging-port=${port}`, '--remote-debugging-address=127.0.0.1'],
    });
    try {
      const driver = await PlaywrightDriver.connect({ cdpUrl: `http://127.0.0.1:${port}` });
      await driver.goto(fixture.server.url('tab-target.html'));
      const state = await capture({ ...fixture, driver }, undefined);
      expect(lineWith(state.elementsText, 'Target button')).toBeDefined();
      await driver.close();
      expect(browser.isConnected()).toBe(true);
    } finally {
      await browser.close();
    }
  });

  it('works with page JavaScript off: nothing a script would add, the markup still counts', async () => {
    const driver = await PlaywrightDriver.launch({ contextOptions: { javaScriptEnabled: false }, settle: { maxWaitMs: 2000 } });
    try {
      const state = await capture({ ...fixture, driver }, 'interactive.html');
      expect(lineWith(state.elementsText, 'Inline onclick div')).toBeDefined();
      expect(lineWith(state.elementsText, 'Native button')).toBeDefined();
      expect(lineWith(state.elementsText, 'Listener div')).toBeUndefined();
      await driver.waitForSettled();
    } finally {
      await driver.close();
    }
  });

  it('closes the browser and removes its profile when startup fails', async () => {
    // os.tmpdir() follows TMPDIR, and this worker's environment is its own: the folder below sees
    // only this launch, whatever other test files run meanwhile.
    const scratch = mkdtempSync(join(tmpdir(), 'plannav-launch-test-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = scratch;
    try {
      const profiles = (): string[] => readdirSync(scratch).filter((name) => name.startsWith('plannav-chromium-'));
      expect(profiles()).toEqual([]);
      await expect(PlaywrightDriver.launch({ startUrl: 'http://127.0.0.1:1/' })).rejects.toThrow(BrowserError);
      expect(profiles()).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      rmSync(scratch, { recursive: true, force: true, maxRetries: 10 });
    }
  });

  it('leaves no listener on an attached page after close, however often it attaches', async () => {
    const browser = await chromium.launch({ executablePath: findChromium(), args: ['--no-sandbox', '--disable-gpu'] });
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(fixture.server.url('frames.html'));
      const events = ['request', 'requestfinished', 'requestfailed', 'close', 'load', 'domcontentloaded', 'framenavigated'] as const;
      // Playwright's pages and contexts are event emitters; the typings leave listenerCount out.
      type Emitter = { listenerCount(event: string): number };
      const counts = (): number[] => [
        ...events.map((event) => (page as unknown as Emitter).listenerCount(event)),
        (context as unknown as Emitter).listenerCount('page'),
      ];
      const before = counts();
      for (let round = 0; round < 3; round++) {
        const driver = await PlaywrightDriver.attach(page);
        await capture({ ...fixture, driver }, undefined); // measures the iframes: frame element handles are kept
        expect(counts()).not.toEqual(before);
        await driver.close();
      }
      expect(counts()).toEqual(before);
    } finally {
      await browser.close();
    }
  });

  it('closes on close() the blank tab it opened after closing the last tab of an attached context', async () => {
    const browser = await chromium.launch({ executablePath: findChromium(), args: ['--no-sandbox', '--disable-gpu'] });
    try {
      const context = await browser.newContext();
      await context.newPage();
      const driver = await PlaywrightDriver.attach(context);
      await driver.closeTab((await driver.activeTab()).id);
      expect(context.pages()).toHaveLength(1);
      await driver.close();
      expect(context.pages()).toHaveLength(0);
    } finally {
      await browser.close();
    }
  });

  it('clicks once when the click handler runs past the pointer click bound, however the page stops its presses', async () => {
    const state = await capture(fixture, 'busy-handler.html');
    // The pointer click gives up after 5 s while the handler still runs; the page then says the press reached the
    // button (its own listeners that stop every press come after the runtime's), so no click is dispatched after it.
    const result = await fixture.driver.click(state.elements.get(indexWith(state.elementsText, 'Order once'))!);
    expect(result).toEqual({ method: 'pointer' });
    const after = await state.reader.capture({ screenshot: false });
    expect(lineWith(after.elementsText, 'Ordered 1 times')).toBeDefined();
  });

  it('ends the settle wait within its bound when a click starts a long-running script', async () => {
    const maxWaitMs = 1000;
    const driver = await PlaywrightDriver.launch({ settle: { maxWaitMs }, defaultTimeout: 30_000 });
    try {
      const state = await capture({ ...fixture, driver }, 'busy.html');
      const started = Date.now();
      await driver.click(state.elements.get(indexWith(state.elementsText, 'Start a long script'))!);
      // The script runs 10 s; the click must come back within the settle bound plus a generous margin.
      expect(Date.now() - started).toBeLessThan(maxWaitMs + 5000);
    } finally {
      await driver.close();
    }
  });

  it('needs exactly one of wsEndpoint and cdpUrl', async () => {
    await expect(PlaywrightDriver.connect({})).rejects.toThrow(/exactly one of `wsEndpoint`/);
  });
});
