// PuppeteerDriver in real headless Chromium: tabs, settling, frames, element actions, screenshots,
// errors, cancellation, the three ways in, a whole Executor task and the demo shop's task.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { TargetType, type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { catalogue, type Product } from '../../src/demo/catalogue';
import { scriptedShopper } from '../../src/demo/scripted-shopper';
import { startDemoShop } from '../../src/demo/server';
import type { PageState } from '../../src/browser/page-state';
import { PageStateReader } from '../../src/dom/page-state-reader';
import { BrowserError, ConfigError, RequestCancelledError } from '../../src/errors';
import { defineAction, Executor } from '../../src/index';
import { linuxChromiumCandidates as playwrightCandidates } from '../../src/playwright/find-chromium';
import { findChromium, linuxChromiumCandidates } from '../../src/puppeteer/find-chromium';
import { PuppeteerDriver } from '../../src/puppeteer/index';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../../src/testing/index';
import { startFixtureServer, type FixtureServer } from './fixture-server';
import { indexWith, lineWith, scriptOptions } from './snapshot-helpers';

let server: FixtureServer;
let driver: PuppeteerDriver;

beforeAll(async () => {
  server = await startFixtureServer();
  driver = await PuppeteerDriver.launch({ settle: { maxWaitMs: 2000 }, highlightElements: true });
});

afterAll(async () => {
  await driver?.close();
  await server?.close();
});

/** Loads a fixture page (unless `path` is undefined) and captures it as the model sees it. */
async function capture(on: PuppeteerDriver, path: string | undefined): Promise<PageState & { reader: PageStateReader }> {
  if (path !== undefined) await on.goto(server.url(path));
  const reader = new PageStateReader(on, scriptOptions());
  return { ...(await reader.capture({ screenshot: false })), reader };
}

/** The element of a state whose line contains `needle`. */
function elementWith(state: PageState, needle: string) {
  const ref = state.elements.get(indexWith(state.elementsText, needle));
  if (!ref) throw new Error(`no element for ${needle}`);
  return ref;
}

/** Closes every tab but the first, so tests do not see each other's tabs. */
async function singleTab(): Promise<void> {
  const tabs = await driver.tabs();
  for (const tab of tabs.slice(1)) await driver.closeTab(tab.id);
  await driver.switchTab(tabs[0]!.id);
}

/** A system Chromium launched by Puppeteer itself, as a user of attach() or connect() has one. */
async function ownBrowser(extraArgs: string[] = []): Promise<Browser> {
  return puppeteer.launch({ executablePath: findChromium(), headless: true, args: ['--no-sandbox', '--disable-gpu', ...extraArgs] });
}

describe('tabs', () => {
  it('opens, switches and closes tabs', async () => {
    await singleTab();
    await driver.goto(server.url('tabs.html'));
    const first = await driver.activeTab();
    const second = await driver.openTab(server.url('tab-target.html'));
    expect(second.id).not.toBe(first.id);
    expect(second).toMatchObject({ url: server.url('tab-target.html'), title: 'Target page' });
    expect((await driver.activeTab()).id).toBe(second.id);
    expect((await driver.tabs()).map((tab) => tab.id)).toEqual([first.id, second.id]);
    await driver.switchTab(first.id);
    expect(await driver.currentUrl()).toBe(server.url('tabs.html'));
    await driver.switchTab(second.id);
    await driver.closeTab(second.id);
    expect((await driver.activeTab()).id).toBe(first.id);
    await expect(driver.switchTab(second.id)).rejects.toThrow(/There is no tab with id .*Open tabs: tab-/);
  });

  it('makes a tab opened by the page (target=_blank, window.open) the active tab and names its opener', async () => {
    await singleTab();
    const state = await capture(driver, 'tabs.html');
    const opener = state.activeTabId;
    await driver.click(elementWith(state, 'Open in new tab'));
    const afterLink = await state.reader.capture({ screenshot: false });
    expect(afterLink.tabs).toHaveLength(2);
    expect(afterLink.activeTabId).not.toBe(opener);
    expect(afterLink.url).toBe(server.url('tab-target.html'));
    expect(lineWith(afterLink.elementsText, 'Target button')).toBeDefined();
    expect(afterLink.tabs.find((tab) => tab.id === afterLink.activeTabId)?.openerId).toBe(opener);
    await driver.switchTab(opener);
    const back = await state.reader.capture({ screenshot: false });
    await driver.click(elementWith(back, 'Open with script'));
    const afterScript = await driver.activeTab();
    expect(afterScript.url).toBe(server.url('tab-target.html?from=script'));
    expect(afterScript.openerId).toBe(opener);
    expect(await driver.tabs()).toHaveLength(3);
  });

  it('opens a blank tab when the last one closes', async () => {
    await singleTab();
    const only = await driver.activeTab();
    await driver.closeTab(only.id);
    const tabs = await driver.tabs();
    expect(tabs).toHaveLength(1);
    expect(tabs[0]!.id).not.toBe(only.id);
    expect(await driver.currentUrl()).toBe('about:blank');
    // Nothing to go back to: the tab stays where it is, as with the Playwright driver.
    await driver.goBack();
    expect(await driver.currentUrl()).toBe('about:blank');
  });
});

describe('settling', () => {
  it('waits for DOM changes a click starts, without a fixed sleep', async () => {
    await singleTab();
    const state = await capture(driver, 'tabs.html');
    await driver.click(elementWith(state, 'Slow update'));
    expect((await state.reader.capture({ screenshot: false })).elementsText).toContain('Late content');
  });

  it('waits for requests a click starts', async () => {
    await singleTab();
    const state = await capture(driver, 'tabs.html');
    await driver.click(elementWith(state, 'Fetch data'));
    expect((await state.reader.capture({ screenshot: false })).elementsText).toContain('slow done');
  });

  it('follows a same-tab link and goes back', async () => {
    await singleTab();
    const state = await capture(driver, 'tabs.html');
    await driver.click(elementWith(state, 'Same tab link'));
    expect(await driver.currentUrl()).toBe(server.url('tab-target.html'));
    expect((await driver.activeTab()).title).toBe('Target page');
    await driver.goBack();
    expect(await driver.currentUrl()).toBe(server.url('tabs.html'));
    expect((await driver.activeTab()).title).toBe('Tabs');
    await driver.waitForSettled();
  });

  it('ends the settle wait within its bound when a click starts a long-running script', async () => {
    const maxWaitMs = 1000;
    const busy = await PuppeteerDriver.launch({ settle: { maxWaitMs }, defaultTimeout: 30_000 });
    try {
      const state = await capture(busy, 'busy.html');
      const started = Date.now();
      await busy.click(elementWith(state, 'Start a long script'));
      // The script runs 10 s; the click must come back within the settle bound plus a margin.
      expect(Date.now() - started).toBeLessThan(maxWaitMs + 3000);
    } finally {
      await busy.close();
    }
  });
});

describe('failed loads', () => {
  it('rejects a load that fails, retryable, and leaves the tab ready for the next one', async () => {
    await singleTab();
    // A port that was just free refuses connections.
    const probe = createServer();
    await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
    const port = (probe.address() as { port: number }).port;
    await new Promise((done) => probe.close(done));
    const error = await driver.goto(`http://127.0.0.1:${port}/`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BrowserError);
    expect((error as BrowserError).message).toMatch(/^Could not load http:\/\/127\.0\.0\.1:\d+\/: net::ERR_CONNECTION_REFUSED$/);
    expect((error as BrowserError).retryable).toBe(true);
    await driver.goto(server.url('tabs.html'));
    expect(await driver.currentUrl()).toBe(server.url('tabs.html'));
  });
});

describe('the page runtime', () => {
  it('is in the document before the page scripts run, so listeners they add count', async () => {
    await singleTab();
    const state = await capture(driver, 'interactive.html');
    // The listener is added by an inline script at the end of the body: only a runtime installed before it sees it.
    await driver.click(elementWith(state, 'Listener div'));
    const after = await state.reader.capture({ screenshot: false });
    expect(after.elementsText).toContain('listener clicked');
  });
});

describe('frames', () => {
  it('lists child frames with the box of their element, and none for a frame that is not rendered', async () => {
    await singleTab();
    await driver.goto(server.url('frames.html'));
    const frames = await driver.frames();
    const [top, ...children] = frames;
    expect(top).toEqual({ id: expect.any(String), url: server.url('frames.html') });
    const byName = (name: string) => children.find((frame) => frame.url.endsWith(`name=${name}`));
    expect(byName('same')).toMatchObject({ parentId: top!.id, offset: { x: expect.any(Number), y: expect.any(Number) }, size: { width: 400, height: 150 } });
    expect(byName('cross')?.url.startsWith(server.otherOrigin)).toBe(true);
    expect(byName('cross')?.offset?.x).toBeGreaterThan(byName('same')!.offset!.x);
    expect(byName('hidden')?.offset).toBeUndefined();
    // Ids stay the same while the frames live.
    expect((await driver.frames()).map((frame) => frame.id)).toEqual(frames.map((frame) => frame.id));
  });

  it('clicks with the mouse inside a cross-origin frame', async () => {
    await singleTab();
    const state = await capture(driver, 'frames.html');
    const button = elementWith(state, 'Frame button cross');
    const result = await driver.click(button);
    expect(result).toEqual({ method: 'pointer' });
    const log = await driver.evaluate(button.frameId, { id: 'test.log', source: '() => document.getElementById("log").textContent' }, undefined);
    expect(log).toBe('clicked cross');
  });
});

describe('clicks', () => {
  it('clicks with the real mouse (trusted), and dispatches the click in the page when the element is covered', async () => {
    await singleTab();
    await driver.page.setContent('<button id="b" onclick="this.textContent = String(event.isTrusted)">Trusted?</button>');
    const state = await capture(driver, undefined);
    const button = elementWith(state, 'Trusted?');
    expect(await driver.click(button)).toEqual({ method: 'pointer' });
    expect(await driver.page.evaluate('document.getElementById("b").textContent')).toBe('true');
    await driver.page.evaluate('document.body.insertAdjacentHTML("beforeend", `<div id="cover" class="cookie-wall" style="position:fixed;inset:0"></div>`)');
    expect(await driver.click(button)).toEqual({ method: 'dom', coveredBy: 'div#cover.cookie-wall' });
    expect(await driver.page.evaluate('document.getElementById("b").textContent')).toBe('false');
  });

  it('clicks another visible point of an element whose centre is covered', async () => {
    await singleTab();
    await driver.page.setContent(
      '<button id="wide" style="width:300px;height:40px" onclick="this.textContent = \'hit\'">Wide button</button><div style="position:absolute;left:100px;top:0;width:120px;height:80px;background:#eee" class="badge"></div>',
    );
    const state = await capture(driver, undefined);
    const result = await driver.click(elementWith(state, 'Wide button'));
    expect(result).toEqual({ method: 'pointer-offset', coveredBy: 'div.badge' });
    expect(await driver.page.evaluate('document.getElementById("wide").textContent')).toBe('hit');
  });

  it('refuses a disabled element, saying why', async () => {
    await singleTab();
    const state = await capture(driver, 'forms.html');
    const send = elementWith(state, 'Send form');
    await driver.page.evaluate('document.querySelector("input[type=submit]").disabled = true');
    await expect(driver.click(send)).rejects.toThrow(/Element \d+ \(<input>\) is disabled, so clicking it does nothing/);
  });
});

describe('element refs', () => {
  it('fails with a clear, recoverable error when the element is gone', async () => {
    await singleTab();
    const state = await capture(driver, 'spa.html');
    const milk = elementWith(state, 'Remove Milk');
    await driver.click(milk);
    const error = await driver.click(milk).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BrowserError);
    expect((error as BrowserError).message).toMatch(/Element \d+ \(<button>\) is no longer on the page: it was removed/);
    expect((error as BrowserError).retryable).toBe(true);
    await driver.goto(server.url('spa.html'));
    await expect(driver.click(elementWith(state, 'Add item'))).rejects.toThrow(/new document/);
  });

  it('fills, presses keys, selects, uploads and reports what cannot be done', async () => {
    await singleTab();
    const state = await capture(driver, 'forms.html');
    const element = (needle: string) => elementWith(state, needle);
    await driver.fill(element('name="name"'), 'Grace');
    expect(await driver.page.evaluate('document.querySelector("[name=name]").value')).toBe('Grace');
    await driver.fill(element('name="bio"'), '');
    expect(await driver.page.evaluate('document.querySelector("[name=bio]").value')).toBe('');
    await driver.fill(element('name="birthday"'), '2011-10-11');
    expect(await driver.page.evaluate('document.querySelector("[name=birthday]").value')).toBe('2011-10-11');
    await expect(driver.fill(element('name="birthday"'), 'next Tuesday')).rejects.toThrow(/did not take "next Tuesday"/);
    await driver.fill(element('name="email"'), 'ada@example.com');
    await driver.press('Enter');
    await expect(driver.selectOption(element('name="size"'), 'Huge')).rejects.toThrow(/has no option "Huge". Options: Small, Medium, Large, Giant/);
    expect(await driver.selectOption(element('name="size"'), 'small')).toEqual(['Small']);
    await expect(driver.fill(element('name="size"'), 'text')).rejects.toThrow(/is a <select>, which cannot take text/);
    await driver.uploadFiles(element('name="photo"'), [new URL('../fixtures/icons/trash.svg', import.meta.url).pathname]);
    await expect(driver.uploadFiles(element('name="photo"'), ['/nonexistent/file.txt'])).rejects.toThrow(
      /Cannot upload \/nonexistent\/file.txt: there is no such file/,
    );
    await expect(driver.uploadFiles(element('name="photo"'), [tmpdir()])).rejects.toThrow(/it is a folder/);
    const after = await state.reader.capture({ screenshot: false });
    expect(after.elementsText).toContain('Submitted ada@example.com');
    expect(lineWith(after.elementsText, 'name="photo"')).toContain('value="trash.svg"');
  });

  it('types into an editable element and into a field inside a frame, where the keys then go', async () => {
    await singleTab();
    await driver.page.setContent('<div contenteditable id="editor">old text</div><iframe srcdoc="<input id=inner>"></iframe>');
    const state = await capture(driver, undefined);
    await driver.fill(elementWith(state, 'old text'), 'new text');
    expect(await driver.page.evaluate('document.getElementById("editor").textContent')).toBe('new text');
    const inner = [...state.elements.values()].find((ref) => ref.tagName === 'input');
    expect(inner?.frameId).not.toBe(elementWith(state, 'old text').frameId);
    await driver.fill(inner!, 'abc');
    await driver.press('Backspace');
    expect(await driver.page.frames()[1]!.evaluate('document.getElementById("inner").value')).toBe('ab');
  });

  it('presses chords and several keys in turn, and names an unknown key', async () => {
    await singleTab();
    const state = await capture(driver, 'forms.html');
    await driver.fill(elementWith(state, 'name="q"'), 'hello');
    await driver.press('Control+a Backspace x');
    expect(await driver.page.evaluate('document.querySelector("[name=q]").value')).toBe('x');
    await expect(driver.press('Hyper')).rejects.toThrow(/Unknown key "Hyper"/);
  });

  it('scrolls the page and inside an element', async () => {
    await singleTab();
    await driver.goto(server.url('long.html'));
    await driver.scroll({ deltaY: 400 });
    expect(await driver.page.evaluate('Math.round(window.scrollY)')).toBe(400);
    await driver.scroll({ toPercent: 0 });
    expect(await driver.page.evaluate('window.scrollY')).toBe(0);
  });
});

describe('screenshots', () => {
  it('takes JPEGs whose quality is configurable, with index boxes drawn only in the image', async () => {
    await singleTab();
    const state = await capture(driver, 'forms.html');
    const low = await driver.screenshot({ quality: 10 });
    const high = await driver.screenshot({ quality: 95 });
    expect([...low.slice(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    expect(high.byteLength).toBeGreaterThan(low.byteLength);
    const plain = await driver.screenshot({ quality: 95 });
    const marked = await driver.screenshot({ quality: 95, elements: [...state.elements.values()] });
    expect(Buffer.from(marked).equals(Buffer.from(plain))).toBe(false);
    expect(await driver.page.evaluate('document.getElementById("__plannav-highlights")')).toBeNull();
    const full = await driver.screenshot({ fullPage: true, quality: 10 });
    expect([...full.slice(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
  });
});

describe('cancellation and time limits', () => {
  it('rejects at once with an aborted signal, promptly on abort, and with a retryable error on timeout', async () => {
    await singleTab();
    const aborted = new AbortController();
    aborted.abort();
    await expect(driver.goto(server.url('forms.html'), { signal: aborted.signal })).rejects.toBeInstanceOf(RequestCancelledError);
    const slow = await driver.goto(server.url('slow?ms=2000'), { timeout: 200 }).catch((caught: unknown) => caught);
    expect(slow).toBeInstanceOf(BrowserError);
    expect((slow as BrowserError).retryable).toBe(true);
    const aborting = new AbortController();
    const started = Date.now();
    const pending = driver.goto(server.url('slow?ms=2000'), { signal: aborting.signal });
    setTimeout(() => aborting.abort(), 50);
    await expect(pending).rejects.toBeInstanceOf(RequestCancelledError);
    expect(Date.now() - started).toBeLessThan(1500);
    await driver.waitForSettled({ timeout: 5000 });
  });
});

describe('ways in', () => {
  it('finds Chromium at the same places as the Playwright driver', () => {
    expect(linuxChromiumCandidates).toEqual(playwrightCandidates);
    expect(findChromium('linux', {}, (path) => path === '/usr/bin/chromium-browser')).toBe('/usr/bin/chromium-browser');
    expect(findChromium('linux', { CHROME_PATH: '/opt/custom/chrome' }, (path) => path === '/opt/custom/chrome')).toBe('/opt/custom/chrome');
    expect(findChromium('darwin', {}, (path) => path.includes('Google Chrome.app'))).toContain('Google Chrome.app');
    expect(findChromium('linux', {}, () => false)).toBeUndefined();
  });

  it('reports a launch failure and bad options clearly, before touching a browser', async () => {
    await expect(PuppeteerDriver.launch({ executablePath: '/nonexistent/chromium', launchTimeout: 5000 })).rejects.toThrow(
      /Could not launch Chromium from \/nonexistent\/chromium.*pass `executablePath`/,
    );
    const bad = await PuppeteerDriver.launch({ defaultTimeout: 0 }).catch((caught: unknown) => caught);
    expect(bad).toBeInstanceOf(ConfigError);
    expect((bad as ConfigError).field).toBe('defaultTimeout');
    expect((bad as ConfigError).message).toMatch(/Option `defaultTimeout` of PuppeteerDriver is invalid .*got 0/);
    await expect(PuppeteerDriver.connect({})).rejects.toThrow(/exactly one of `browserWSEndpoint`/);
  });

  it('launches headless with a fresh profile and removes it on close, also when startup fails', async () => {
    // os.tmpdir() follows TMPDIR, and this worker's environment is its own: the folder sees only these launches.
    const scratch = mkdtempSync(join(tmpdir(), 'plannav-puppeteer-test-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = scratch;
    try {
      const profiles = (): string[] => readdirSync(scratch).filter((name) => name.startsWith('plannav-chromium-'));
      const launched = await PuppeteerDriver.launch({ startUrl: server.url('tab-target.html') });
      expect(profiles()).toHaveLength(1);
      expect((await launched.activeTab()).title).toBe('Target page');
      expect(await launched.page.evaluate('navigator.userAgent')).toContain('HeadlessChrome');
      expect(launched.page.browser().process()?.spawnargs).toEqual(
        expect.arrayContaining([
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--no-first-run',
          '--disable-sync',
        ]),
      );
      await launched.close();
      await launched.close();
      await launched[Symbol.asyncDispose]();
      expect(profiles()).toEqual([]);
      await expect(launched.currentUrl()).rejects.toThrow(/closed/);
      await expect(PuppeteerDriver.launch({ startUrl: 'http://127.0.0.1:1/' })).rejects.toThrow(BrowserError);
      expect(profiles()).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      rmSync(scratch, { recursive: true, force: true, maxRetries: 10 });
    }
  });

  it('attaches to a user\u2019s page and browser, never closes them, and leaves no listener or script behind', async () => {
    const browser = await ownBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(server.url('interactive.html'));
      const events = ['request', 'requestfinished', 'requestfailed', 'close', 'load', 'domcontentloaded', 'framenavigated', 'dialog'] as const;
      const counts = (): number[] => events.map((event) => page.listenerCount(event));
      const before = counts();
      for (let round = 0; round < 2; round++) {
        const attached = await PuppeteerDriver.attach(page);
        // The document loaded before the driver came gets the runtime too.
        const state = await capture(attached, undefined);
        expect(lineWith(state.elementsText, 'Native button')).toBeDefined();
        expect(counts()).not.toEqual(before);
        await attached.close();
        await attached.close();
        expect(page.isClosed()).toBe(false);
        await expect(attached.currentUrl()).rejects.toThrow(/closed/);
      }
      expect(counts()).toEqual(before);
      // The new-document script went with the driver: a new document has no runtime.
      await page.goto(server.url('tab-target.html'));
      expect(await page.evaluate('Object.getOwnPropertyNames(window).some((name) => name.startsWith("__plannav"))')).toBe(false);
      const browserDriver = await PuppeteerDriver.attach(browser);
      expect((await browserDriver.tabs()).map((tab) => tab.title)).toContain('Target page');
      await browserDriver.closeTab((await browserDriver.tabs())[0]!.id);
      await browserDriver[Symbol.asyncDispose]();
      expect(browser.connected).toBe(true);
      expect((await browser.pages()).some((open) => open === page)).toBe(true);
    } finally {
      await browser.close();
    }
  });

  it('closes on close() the blank tab it opened after closing the last tab of an attached browser', async () => {
    const browser = await ownBrowser();
    try {
      const context = await browser.createBrowserContext();
      await context.newPage();
      const attached = await PuppeteerDriver.attach(context);
      await attached.closeTab((await attached.activeTab()).id);
      expect(await context.pages()).toHaveLength(1);
      await attached.close();
      expect(await context.pages()).toHaveLength(0);
    } finally {
      await browser.close();
    }
  });

  it('connects by browserWSEndpoint and by browserURL, and closes only its own context', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    const browser = await ownBrowser([`--remote-debugging-port=${port}`, '--remote-debugging-address=127.0.0.1']);
    try {
      const byEndpoint = await PuppeteerDriver.connect({ browserWSEndpoint: browser.wsEndpoint() });
      await byEndpoint.goto(server.url('tab-target.html'));
      expect((await byEndpoint.activeTab()).title).toBe('Target page');
      // The driver's tab lives in a context of its own: closing the driver closes that context's tabs.
      const pageUrls = (): string[] =>
        browser
          .targets()
          .filter((target) => target.type() === TargetType.PAGE)
          .map((target) => target.url());
      expect(pageUrls()).toContain(server.url('tab-target.html'));
      await byEndpoint.close();
      await expect.poll(pageUrls).not.toContain(server.url('tab-target.html'));
      const byUrl = await PuppeteerDriver.connect({ browserURL: `http://127.0.0.1:${port}` });
      expect(await byUrl.currentUrl()).toBe('about:blank');
      const state = await capture(byUrl, 'tab-target.html');
      expect(lineWith(state.elementsText, 'Target button')).toBeDefined();
      await byUrl.close();
      expect(browser.connected).toBe(true);
      await expect(PuppeteerDriver.connect({ browserURL: 'http://127.0.0.1:1', connectTimeout: 3000 })).rejects.toThrow(
        /^Could not connect to http:\/\/127\.0\.0\.1:1: \S/,
      );
    } finally {
      await browser.close();
    }
  });

  it('works on a page with JavaScript off without waiting out the settle bound', async () => {
    const browser = await ownBrowser();
    try {
      const page = await browser.newPage();
      await page.setJavaScriptEnabled(false);
      const maxWaitMs = 4000;
      const attached = await PuppeteerDriver.attach(page, { settle: { maxWaitMs } });
      const started = Date.now();
      await attached.goto(server.url('interactive.html'));
      await attached.waitForSettled();
      expect(Date.now() - started).toBeLessThan(maxWaitMs);
      const state = await capture(attached, undefined);
      expect(lineWith(state.elementsText, 'Inline onclick div')).toBeDefined();
      expect(lineWith(state.elementsText, 'Native button')).toBeDefined();
      expect(lineWith(state.elementsText, 'Listener div')).toBeUndefined();
      await attached.close();
    } finally {
      await browser.close();
    }
  });
});

describe('dialogs', () => {
  // Issue 24: a dialog stays open for the model to answer (and is dismissed only when nobody does in time).
  it('reports a dialog a click opened, without hanging, and answers it so the page goes on', async () => {
    await singleTab();
    await driver.page.setContent('<button onclick="document.title = String(confirm(\'Sure?\'))">Ask</button>');
    const state = await capture(driver, undefined);
    await driver.click(elementWith(state, 'Ask'));
    expect((await driver.dialogs()).open).toEqual({ type: 'confirm', message: 'Sure?' });
    const closed = await driver.handleDialog({ accept: false });
    expect(closed).toMatchObject({ type: 'confirm', message: 'Sure?', accepted: false, answeredBy: 'request' });
    expect((await driver.activeTab()).title).toBe('false');
  });
});

const clickElement = defineAction({
  name: 'click_element',
  description: 'Click the element with this index',
  schema: z.object({ index: z.number().int() }),
  handler: async ({ index }, context) => {
    await context.driver.click(context.element(index), { signal: context.signal });
    return `Clicked element ${index}`;
  },
});

describe('Executor with PuppeteerDriver', () => {
  it('clicks by the index in the state text and answers from the page it revealed', async () => {
    await singleTab();
    await driver.goto(server.url('executor.html'));
    const navigatorStates: string[] = [];
    const llm = new ScriptedLLM({
      respond: (request) => {
        if (request.agent === 'planner') {
          const status = /Status: ([^\n<]+)/.exec(request.lastUserText);
          return status ? scriptedPlan({ done: true, finalAnswer: status[1]!.trim() }) : scriptedPlan({ nextSteps: 'Reveal the order status' });
        }
        navigatorStates.push(request.lastUserText);
        const reveal = /\[(\d+)\]<[^>]*>Show order status/.exec(request.lastUserText);
        if (reveal) return scriptedActions([{ click_element: { index: Number(reveal[1]) } }]);
        return scriptedActions([{ done: { text: 'The status is shown', success: true } }]);
      },
    });
    const result = await new Executor({
      sensitiveActions: false,
      task: 'What is the status of order 1042?',
      llm,
      browser: driver,
      actions: [clickElement],
      planningInterval: 1,
    }).execute();
    expect(result.status).toBe('ok');
    expect(result.finalAnswer).toBe('shipped on Monday');
    expect(navigatorStates[0]).toMatch(/\[\d+\]<button>Show order status \/>/);
    expect(navigatorStates[0]).not.toContain('shipped');
    expect(result.history.steps.flatMap((step) => step.actions).find((action) => action.name === 'click_element')).toMatchObject({
      element: { tagName: 'button' },
    });
  });

  it('does the demo shop task: the cheapest blue kitchen item under $25 ends up in the server\u2019s cart', { timeout: 90_000 }, async () => {
    const cheapest = (products: readonly Product[]): Product =>
      products
        .filter((product) => product.category === 'kitchen' && product.colour === 'Blue' && product.priceCents < 2500)
        .sort((a, b) => a.priceCents - b.priceCents)[0]!;
    // A shuffled shop whose answer differs from the fixed one: a fixed index or name cannot pass.
    const seed = 2;
    expect(cheapest(catalogue(seed)).id).not.toBe(cheapest(catalogue()).id);
    for (const options of [{}, { seed }]) {
      const shop = await startDemoShop(options);
      const browser = await PuppeteerDriver.launch();
      try {
        const task = `Find the cheapest blue item under $25 in the Kitchen section of the shop at ${shop.url} and add it to the cart.`;
        const result = await new Executor({
          sensitiveActions: false,
          task,
          llm: scriptedShopper(),
          browser,
          maxSteps: 20,
          urlPolicy: { allow: [new URL(shop.url).hostname] },
        }).execute();
        expect(result.status).toBe('ok');
        expect(result.success).toBe(true);
        const expected = cheapest(shop.products);
        expect(shop.cart().map(({ product, quantity }) => ({ id: product.id, quantity }))).toEqual([{ id: expected.id, quantity: 1 }]);
        expect(result.finalAnswer).toContain(expected.name);
        const actions = result.history.steps.flatMap((step) => step.actions);
        expect(actions.map((action) => action.name)).toEqual(
          expect.arrayContaining(['go_to_url', 'click_element', 'select_dropdown_option', 'input_text', 'done']),
        );
        expect(actions.every((action) => action.error === undefined)).toBe(true);
      } finally {
        await browser.close();
        await shop.close();
      }
    }
  });
});
