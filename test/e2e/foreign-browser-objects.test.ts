// A Playwright or Puppeteer object passed where a BrowserDriver belongs (a Page, a BrowserContext,
// a Browser) is named in the ConfigError with the call that makes a driver of it; real objects of both libraries.
import { chromium, type Browser as PlaywrightBrowser } from 'playwright-core';
import puppeteer, { type Browser as PuppeteerBrowser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { BrowserDriver } from '../../src/browser/types';
import { findChromium } from '../../src/chromium/find-chromium';
import { collect } from '../../src/collect/collector';
import { resolveDriver } from '../../src/driver';
import { ConfigError, Executor, HistoryReplay, observe } from '../../src/index';
import { PlaywrightDriver } from '../../src/playwright/index';
import { ScriptedLLM } from '../../src/testing/index';

let playwrightBrowser: PlaywrightBrowser;
let puppeteerBrowser: PuppeteerBrowser;
/** Each object as it would be passed, and what the error must tell the user to do. */
const cases: { what: string; object: unknown; fix: string }[] = [];

beforeAll(async () => {
  playwrightBrowser = await chromium.launch({ executablePath: findChromium(), args: ['--no-sandbox', '--disable-gpu'] });
  puppeteerBrowser = await puppeteer.launch({ executablePath: findChromium(), args: ['--no-sandbox', '--disable-gpu'], headless: true });
  const playwrightContext = await playwrightBrowser.newContext();
  const puppeteerContext = await puppeteerBrowser.createBrowserContext();
  cases.push(
    { what: 'a Playwright Page', object: await playwrightContext.newPage(), fix: 'PlaywrightDriver.attach(page)' },
    { what: 'a Playwright BrowserContext', object: playwrightContext, fix: 'PlaywrightDriver.attach(context)' },
    { what: 'a Playwright Browser', object: playwrightBrowser, fix: 'PlaywrightDriver.attach(await browser.newContext())' },
    { what: "Playwright's chromium launcher", object: chromium, fix: 'PlaywrightDriver.launch()' },
    { what: 'a Puppeteer Page', object: await puppeteerContext.newPage(), fix: 'PuppeteerDriver.attach(page)' },
    { what: 'a Puppeteer BrowserContext', object: puppeteerContext, fix: 'PuppeteerDriver.attach(context)' },
    { what: 'a Puppeteer Browser', object: puppeteerBrowser, fix: 'PuppeteerDriver.attach(browser)' },
    { what: 'the class PlaywrightDriver', object: PlaywrightDriver, fix: 'PlaywrightDriver.launch()' },
  );
}, 60_000);

afterAll(async () => {
  await playwrightBrowser?.close();
  await puppeteerBrowser?.close();
});

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

async function rejected(run: () => Promise<unknown>): Promise<unknown> {
  return run().then(
    () => undefined,
    (error: unknown) => error,
  );
}

function expectNamed(error: unknown, what: string, fix: string): void {
  expect(ConfigError.isInstance(error), String(error)).toBe(true);
  const { message, field } = error as ConfigError;
  expect(message).toContain(`not ${what}`);
  expect(message).toContain(fix);
  expect(field).toMatch(/^browser/);
}

describe('a Playwright or Puppeteer object given as the browser', () => {
  it('is named by new Executor, with the call that makes a driver of it', () => {
    for (const { what, object, fix } of cases) {
      expectNamed(
        thrown(() => new Executor({ task: 'x', llm: new ScriptedLLM({ responses: [] }), browser: object as BrowserDriver })),
        what,
        fix,
      );
    }
  });

  it('is named by observe(), collect(), a history replay and resolveDriver too', async () => {
    for (const { what, object, fix } of cases) {
      expectNamed(await rejected(() => observe(object as BrowserDriver)), what, fix);
      expectNamed(
        thrown(() =>
          collect({
            llm: new ScriptedLLM({ responses: [] }),
            browser: object as BrowserDriver,
            start: 'http://127.0.0.1:9/',
            instruction: 'x',
            schema: z.object({}),
          }),
        ),
        what,
        fix,
      );
      expectNamed(
        thrown(() => new HistoryReplay({ schemaVersion: 1, tasks: [], steps: [], screenshots: new Map() } as never, { browser: object as BrowserDriver })),
        what,
        fix,
      );
      const fromResolve = thrown(() => resolveDriver(object as BrowserDriver));
      expect(ConfigError.isInstance(fromResolve), String(fromResolve)).toBe(true);
      expect((fromResolve as Error).message).toContain(fix);
    }
  });

  it('a promise of a driver is answered with "await it"', () => {
    const pending = new Promise<BrowserDriver>(() => undefined);
    const error = thrown(() => new Executor({ task: 'x', llm: new ScriptedLLM({ responses: [] }), browser: pending as unknown as BrowserDriver }));
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('not a Promise: await it');
  });
});
