// Shared set-up of the tests of the issue-24 actions (hover, drag and drop, double and right click,
// coordinates, reload, dialogs, wait_for_text, evaluate): one Chromium per driver kind per file, a
// fresh context (and tab) per test attached to it, pages served from a map on 127.0.0.1, and
// bounded polls instead of sleeps.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser as PlaywrightBrowser } from 'playwright-core';
import puppeteer, { type Browser as PuppeteerBrowser } from 'puppeteer-core';
import type { PageState } from '../../src/browser/page-state';
import { findChromium } from '../../src/chromium/find-chromium';
import { PlaywrightDriver } from '../../src/playwright/index';
import { PuppeteerDriver } from '../../src/puppeteer/index';

/** A driver on a fresh tab of its own context, and a way to read the page without the driver. */
export interface TestTab {
  readonly driver: PlaywrightDriver | PuppeteerDriver;
  /** Evaluates an expression in the tab's main frame with the automation library itself (never while a dialog is open). */
  readonly evaluate: <T>(expression: string) => Promise<T>;
  readonly close: () => Promise<void>;
}

/** One kind of driver: its browser is launched once (`start`), each test gets a tab (`tab`). */
export interface DriverKind {
  readonly name: 'PlaywrightDriver' | 'PuppeteerDriver';
  start(): Promise<void>;
  tab(): Promise<TestTab>;
  stop(): Promise<void>;
}

const chromiumArgs = ['--no-sandbox', '--disable-gpu'];
const viewport = { width: 1280, height: 900 };
const settle = { maxWaitMs: 2000 };

function playwrightKind(): DriverKind {
  let browser: PlaywrightBrowser | undefined;
  return {
    name: 'PlaywrightDriver',
    start: async () => {
      browser = await chromium.launch({ executablePath: findChromium(), args: chromiumArgs });
    },
    tab: async () => {
      const context = await browser!.newContext({ viewport });
      const page = await context.newPage();
      const driver = await PlaywrightDriver.attach(page, { settle });
      return {
        driver,
        evaluate: <T>(expression: string) => page.evaluate<T>(expression),
        close: async () => {
          await driver.close().catch(() => undefined);
          await context.close().catch(() => undefined);
        },
      };
    },
    stop: async () => {
      await browser?.close();
    },
  };
}

function puppeteerKind(): DriverKind {
  let browser: PuppeteerBrowser | undefined;
  return {
    name: 'PuppeteerDriver',
    start: async () => {
      browser = await puppeteer.launch({ executablePath: findChromium(), headless: true, args: chromiumArgs, defaultViewport: viewport });
    },
    tab: async () => {
      const context = await browser!.createBrowserContext();
      const page = await context.newPage();
      await page.setViewport(viewport);
      const driver = await PuppeteerDriver.attach(page, { settle });
      return {
        driver,
        evaluate: <T>(expression: string) => page.evaluate(expression) as Promise<T>,
        close: async () => {
          await driver.close().catch(() => undefined);
          await context.close().catch(() => undefined);
        },
      };
    },
    stop: async () => {
      await browser?.close();
    },
  };
}

/** Both driver kinds, for `describe.each`. */
export function driverKinds(): DriverKind[] {
  return [playwrightKind(), puppeteerKind()];
}

/** A server of fixed pages on 127.0.0.1 (a free port); unknown paths are 404. */
export interface PageServer {
  readonly origin: string;
  url(path: string): string;
  close(): Promise<void>;
}

export async function servePages(pages: Readonly<Record<string, string>>): Promise<PageServer> {
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://pages').pathname;
    const body = pages[path];
    if (body === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (path) => `${origin}/${path.replace(/^\//, '')}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
}

/** A page with a title and a body (and a script). */
export function html(title: string, body: string, script = ''): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}<script>${script}</script></body></html>`;
}

/** Polls `read` until `accept` holds, at most `timeoutMs`; returns the last value read. */
export async function pollUntil<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 5000): Promise<T> {
  const until = Date.now() + timeoutMs;
  let value = await read();
  while (!accept(value) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

/** The element lines of a state text (lines with an index). */
function elementLines(text: string): string[] {
  return text.split('\n').filter((line) => /^\s*\*?\[\d+\]</.test(line));
}

/** Whether an element line of the state contains `needle`. */
export function hasElement(state: PageState, needle: string): boolean {
  return elementLines(state.elementsText).some((line) => line.includes(needle));
}

/** The index on the first element line containing `needle`; fails with the state text when there is none. */
export function indexOf(state: PageState, needle: string): number {
  const line = elementLines(state.elementsText).find((item) => item.includes(needle));
  const match = line ? /\[(\d+)\]/.exec(line) : null;
  if (!match) throw new Error(`no element line contains ${JSON.stringify(needle)} in:\n${state.elementsText}`);
  return Number(match[1]);
}

/** The first index of the state that is not one of its elements. */
export function missingIndex(state: PageState): number {
  return Math.max(0, ...state.elements.keys()) + 1000;
}

/** `promise`, or a rejection naming `what` after `ms`: a hang fails the test at once instead of at its timeout. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The JavaScript dialog open now, as the contract adds it to PageState (`state.dialog`). */
export interface OpenDialog {
  readonly type: 'alert' | 'confirm' | 'prompt' | 'beforeunload';
  readonly message: string;
  readonly defaultValue?: string | undefined;
}

/** `state.dialog`, read without depending on the field being declared yet. */
export function dialogOf(state: PageState): OpenDialog | undefined {
  return (state as PageState & { readonly dialog?: OpenDialog }).dialog;
}
