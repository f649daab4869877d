// Drivers attached to pages of one browser context, in real headless Chromium with both libraries:
// each drives the page it was attached to (and the popups that page opens), never its neighbours'.
import { chromium, type Browser as PlaywrightBrowser, type Page as PlaywrightPage } from 'playwright-core';
import puppeteer, { type Browser as PuppeteerBrowser, type Page as PuppeteerPage } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserDriver } from '../../src/browser/types';
import { Executor } from '../../src/index';
import { findChromium } from '../../src/chromium/find-chromium';
import { PlaywrightDriver } from '../../src/playwright/index';
import { PuppeteerDriver } from '../../src/puppeteer/index';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../../src/testing/index';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server';

/** How many pages (and attached drivers) share the context. */
const pageCount = 10;

let server: RecordingServer;

beforeAll(async () => {
  server = await startRecordingServer('127.0.0.1', (request, response) => {
    const url = new URL(request.url ?? '/', 'http://server');
    const page = /^\/page\/(\d+)$/.exec(url.pathname);
    if (page) {
      const number = page[1] as string;
      // The answer shows only after a click, so a task that clicked another page's button cannot read it here.
      const html = `<!doctype html><title>Page ${number}</title><h1>Page ${number}</h1>
        <button onclick="document.getElementById('out').textContent = 'Answer: ' + 'code-${number}'">Reveal the answer</button>
        <p id="out"></p><a href="/popup/${number}" target="_blank">Open details</a>`;
      return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
    }
    const popup = /^\/popup\/(\d+)$/.exec(url.pathname);
    if (popup) return void response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>Details ${popup[1]}</title><p>Details</p>`);
    response.writeHead(404).end();
  });
});

afterAll(async () => {
  await server?.close();
});

/** A model that clicks "Reveal the answer" in the state it is shown, then answers what the page revealed. */
function revealingModel(): ScriptedLLM {
  return new ScriptedLLM({
    respond: (request) => {
      const answer = /Answer: (code-\d+)/.exec(request.lastUserText)?.[1];
      if (request.agent === 'planner') return answer ? scriptedPlan({ done: true, finalAnswer: answer }) : scriptedPlan({ nextSteps: 'Reveal the answer' });
      if (answer) return scriptedActions([{ done: { text: answer, success: true } }]);
      const reveal = /\[(\d+)\]<button>Reveal the answer/.exec(request.lastUserText)?.[1];
      if (reveal === undefined) return scriptedActions([{ done: { text: 'No button to reveal the answer', success: false } }]);
      return scriptedActions([{ click_element: { index: Number(reveal) } }]);
    },
  });
}

interface Library {
  /** Opens `count` pages in one new context, each at `/page/N`, and attaches a driver to each. */
  attachAll(count: number): Promise<{ drivers: BrowserDriver[]; pageUrl: (index: number) => Promise<string> }>;
  close(): Promise<void>;
}

async function playwrightLibrary(): Promise<Library> {
  const browser: PlaywrightBrowser = await chromium.launch({ executablePath: findChromium(), args: ['--no-sandbox', '--disable-gpu'] });
  return {
    attachAll: async (count) => {
      const context = await browser.newContext();
      const drivers: BrowserDriver[] = [];
      const pages: PlaywrightPage[] = [];
      // Each page opens after the drivers before it attached: a new page of the context must not become their tab.
      for (let index = 0; index < count; index++) {
        const page = await context.newPage();
        await page.goto(`${server.origin}/page/${index}`);
        pages.push(page);
        drivers.push(await PlaywrightDriver.attach(page, { settle: { maxWaitMs: 1500 } }));
      }
      return { drivers, pageUrl: async (index) => pages[index]!.url() };
    },
    close: () => browser.close(),
  };
}

async function puppeteerLibrary(): Promise<Library> {
  const browser: PuppeteerBrowser = await puppeteer.launch({ executablePath: findChromium(), args: ['--no-sandbox', '--disable-gpu'], headless: true });
  return {
    attachAll: async (count) => {
      const context = await browser.createBrowserContext();
      const drivers: BrowserDriver[] = [];
      const pages: PuppeteerPage[] = [];
      for (let index = 0; index < count; index++) {
        const page = await context.newPage();
        await page.goto(`${server.origin}/page/${index}`);
        pages.push(page);
        drivers.push(await PuppeteerDriver.attach(page, { settle: { maxWaitMs: 1500 } }));
      }
      return { drivers, pageUrl: async (index) => pages[index]!.url() };
    },
    close: () => browser.close(),
  };
}

describe.each([
  ['PlaywrightDriver', playwrightLibrary],
  ['PuppeteerDriver', puppeteerLibrary],
] as const)('drivers attached to pages of one context, with %s', (_name, start) => {
  let library: Library;

  beforeAll(async () => {
    library = await start();
  });

  afterAll(async () => {
    await library?.close();
  });

  it(`runs ${pageCount} concurrent tasks, each on its own page, and gets ${pageCount} right answers`, async () => {
    const { drivers } = await library.attachAll(pageCount);
    try {
      const results = await Promise.all(
        drivers.map((driver) =>
          new Executor({
            task: 'Reveal the answer and tell me what it is',
            llm: revealingModel(),
            browser: driver,
            planningInterval: 1,
            sensitiveActions: false,
          }).execute(),
        ),
      );
      expect(results.map((result) => result.status)).toEqual(drivers.map(() => 'ok'));
      expect(results.map((result) => result.finalAnswer)).toEqual(drivers.map((_driver, index) => `code-${index}`));
      for (const [index, driver] of drivers.entries()) expect(await driver.currentUrl!()).toBe(`${server.origin}/page/${index}`);
    } finally {
      await Promise.all(drivers.map((driver) => driver.close()));
    }
  });

  it('lists only its own page as a tab, and adopts the popups its page opens but not the pages opened after it', async () => {
    const { drivers, pageUrl } = await library.attachAll(2);
    const [first, second] = drivers as [BrowserDriver, BrowserDriver];
    try {
      expect((await first.tabs()).map((tab) => tab.url)).toEqual([`${server.origin}/page/0`]);
      expect((await second.tabs()).map((tab) => tab.url)).toEqual([`${server.origin}/page/1`]);
      // A popup opened by the first driver's page becomes its active tab, and not the second's.
      const [top] = await first.frames();
      await first.evaluate(top!.id, { id: 'test/open-popup', source: '() => { document.querySelector("a").click(); return true; }' }, undefined);
      const until = Date.now() + 5000;
      while (Date.now() < until && (await first.tabs()).length < 2) await new Promise((done) => setTimeout(done, 50));
      expect((await first.tabs()).map((tab) => tab.url)).toEqual([`${server.origin}/page/0`, `${server.origin}/popup/0`]);
      expect(await first.currentUrl!()).toBe(`${server.origin}/popup/0`);
      expect((await second.tabs()).map((tab) => tab.url)).toEqual([`${server.origin}/page/1`]);
      expect(await second.currentUrl!()).toBe(await pageUrl(1));
    } finally {
      await Promise.all(drivers.map((driver) => driver.close()));
    }
  });
});
