// extract() and observe() on a page another framework has just loaded, through both drivers attached to
// the user's own page: a script redirect after load, a page that navigates itself while it is read, one that never stops.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserDriver } from '../../src/browser/types';
import { PlannavError, TimeoutError } from '../../src/errors';
import { extract, observe } from '../../src/index';
import { findChromium } from '../../src/chromium/find-chromium';
import { PlaywrightDriver } from '../../src/playwright/index';
import { PuppeteerDriver } from '../../src/puppeteer/index';
import { ScriptedLLM } from '../../src/testing/scripted-llm';

const chromiumArgs = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];

/** Many elements, so that a snapshot takes long enough for a navigation to land inside it. */
const filler = (marker: string): string =>
  Array.from({ length: 400 }, (_, item) => `<li><a href="#${marker}-${item}">${marker} link ${item}</a> <button>${marker} button ${item}</button></li>`).join(
    '',
  );

function html(title: string, body: string, script = ''): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}<script>${script}</script></body></html>`;
}

/** Whether the /forever pages go on to the next one. */
let foreverOn = true;
/** How many /forever documents the server has sent since the test last set it to 0. */
let foreverServed = 0;

/** The pages: each says which document it is in its title, its URL and every line of its text. */
function respond(path: string, query: URLSearchParams): { body: string; delayMs: number } | undefined {
  switch (path) {
    case '/start':
      // The redirect runs shortly after load; the final page answers late, so the tab is still loading it for a while.
      return {
        body: html(
          'Start page',
          '<h1>START document</h1><p>START text</p>',
          "addEventListener('load', () => setTimeout(() => location.replace('/final'), 20));",
        ),
        delayMs: 0,
      };
    case '/final':
      return { body: html('Final page', `<h1>FINAL document</h1><p>FINAL text</p><button>FINAL buy</button>`), delayMs: 150 };
    case '/hop':
      return {
        body: html(
          'HOP page',
          `<h1>HOP document</h1><ul>${filler('HOP')}</ul>`,
          `addEventListener('DOMContentLoaded', () => setTimeout(() => { location.href = '/landing'; }, ${Number(query.get('ms') ?? 0)}));`,
        ),
        delayMs: 0,
      };
    case '/landing':
      return { body: html('LANDING page', `<h1>LANDING document</h1><ul>${filler('LANDING')}</ul>`), delayMs: 0 };
    case '/forever': {
      foreverServed++;
      // The first document loads; each one after it goes on to the next as soon as its parsing starts.
      const next = Number(query.get('n') ?? 0) + 1;
      // Once the test has its answer, the chain ends, so the user's next navigation is not raced by it.
      const go = foreverOn ? `location.replace('/forever?n=${next}')` : '';
      const body = `<script>${next === 1 ? `addEventListener('DOMContentLoaded', () => ${go})` : go}</script><h1>FOREVER document</h1><ul>${filler('FOREVER')}</ul>`;
      return { body: html(`FOREVER ${next - 1}`, body), delayMs: 0 };
    }
    default:
      return undefined;
  }
}

let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fixture');
    const page = respond(url.pathname, url.searchParams);
    if (!page) {
      response.writeHead(404).end();
      return;
    }
    setTimeout(() => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(page.body), page.delayMs);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

/** A user's browser with one page, driven by the user's library, and a plannav driver attached to that page. */
interface UserBrowser {
  /** The user's own navigation: resolves at `domcontentloaded`, as a crawler's does. */
  goto(url: string): Promise<void>;
  /**
   * Starts the user's navigation without waiting for it: for a page that navigates on before its first
   * document's `domcontentloaded` is seen, where the library's own wait ends only at its timeout.
   */
  start(url: string): void;
  readonly driver: BrowserDriver;
  close(): Promise<void>;
}

/**
 * The user's navigation, made again when the page's own navigation (a redirect of the page before)
 * interrupts it, as a crawler retries a request: what is tested is plannav's call after it.
 */
async function userGoto(load: () => Promise<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await load();
      return;
    } catch (error) {
      if (attempt === 5 || !/interrupted by another navigation|ERR_ABORTED/.test(String(error))) throw error;
      await new Promise((done) => setTimeout(done, 200 * attempt));
    }
  }
}

const userBrowsers: Record<'playwright' | 'puppeteer', () => Promise<UserBrowser>> = {
  playwright: async () => {
    const profile = mkdtempSync(join(tmpdir(), 'plannav-navigation-test-'));
    const context: BrowserContext = await chromium.launchPersistentContext(profile, { executablePath: findChromium(), headless: true, args: chromiumArgs });
    const page = context.pages()[0] ?? (await context.newPage());
    const driver = await PlaywrightDriver.attach(page, { settle: { maxWaitMs: 2000 } });
    return {
      goto: (url) => userGoto(() => page.goto(url, { waitUntil: 'domcontentloaded', timeout: 10_000 })),
      start: (url) => void page.goto(url, { waitUntil: 'commit', timeout: 10_000 }).catch(() => undefined),
      driver,
      close: async () => {
        await driver.close();
        await context.close();
        rmSync(profile, { recursive: true, force: true, maxRetries: 10 });
      },
    };
  },
  puppeteer: async () => {
    const profile = mkdtempSync(join(tmpdir(), 'plannav-navigation-test-'));
    const browser: Browser = await puppeteer.launch({ executablePath: findChromium(), headless: true, userDataDir: profile, args: chromiumArgs });
    const page = (await browser.pages())[0] ?? (await browser.newPage());
    const driver = await PuppeteerDriver.attach(page, { settle: { maxWaitMs: 2000 } });
    return {
      goto: (url) => userGoto(() => page.goto(url, { waitUntil: 'domcontentloaded', timeout: 10_000 })),
      start: (url) => void page.goto(url, { waitUntil: 'domcontentloaded', timeout: 10_000 }).catch(() => undefined),
      driver,
      close: async () => {
        await driver.close();
        await browser.close();
        rmSync(profile, { recursive: true, force: true, maxRetries: 10 });
      },
    };
  },
};

/** A model that answers with the page text it was sent, so the answer shows which document was read. */
function echoModel(): ScriptedLLM {
  return new ScriptedLLM({ respond: ({ lastUserText }) => ({ object: { data: lastUserText } }) });
}

/** The documents a text is from, by the markers each page writes. */
function documentsIn(text: string, markers: readonly string[]): string[] {
  return markers.filter((marker) => text.includes(marker));
}

describe.each(['playwright', 'puppeteer'] as const)('a page another framework loaded, through the %s driver', (library) => {
  let user: UserBrowser;

  beforeAll(async () => {
    user = await userBrowsers[library]();
  });

  afterAll(async () => {
    await user?.close();
  });

  it('extract() and observe() right after a goto that resolved before a script redirect read the final document', async () => {
    await user.goto(`${origin}/start`);
    const text = await extract(user.driver, { llm: echoModel(), instruction: 'what the page says' }, { timeout: 15_000 });
    expect(text).toContain(`Page: Final page (${origin}/final)`);
    expect(documentsIn(text, ['START', 'FINAL'])).toEqual(['FINAL']);

    await user.goto(`${origin}/start`);
    const state = await observe(user.driver, { timeout: 15_000 });
    expect(state.url).toBe(`${origin}/final`);
    expect(state.title).toBe('Final page');
    expect(documentsIn(state.elementsText, ['START', 'FINAL'])).toEqual(['FINAL']);
  });

  it('a page that navigates itself while it is read: 0 throws in 20 rounds, and every result is of one document', async () => {
    const failures: string[] = [];
    for (let round = 0; round < 20; round++) {
      const ms = Math.round((round * 50) / 19); // 0 to 50 ms
      await user.goto(`${origin}/hop?ms=${ms}`);
      const read =
        round % 2 === 0
          ? extract(user.driver, { llm: echoModel(), instruction: 'what the page says' }, { timeout: 15_000 }).then((text) => ({
              where: /^Page: (\w+) page \((.*?)\)$/m.exec(text)?.slice(1) ?? [],
              documents: documentsIn(text, ['HOP', 'LANDING']),
            }))
          : observe(user.driver, { timeout: 15_000, waitForSettled: round % 4 === 1 }).then((state) => ({
              where: [state.title.split(' ')[0] ?? '', state.url],
              documents: documentsIn(state.elementsText, ['HOP', 'LANDING']),
            }));
      try {
        const { where, documents } = await read;
        const [title, url] = where;
        // One document: its text holds one page's marker, which is also the page of the title and the URL.
        expect(documents, `round ${round}`).toHaveLength(1);
        expect(title, `round ${round}`).toBe(documents[0]);
        expect(url, `round ${round}`).toBe(documents[0] === 'HOP' ? `${origin}/hop?ms=${ms}` : `${origin}/landing`);
      } catch (error) {
        failures.push(`round ${round} (${ms} ms): ${error instanceof Error ? `${error.name}: ${error.message.split('\n')[0]}` : String(error)}`);
      }
    }
    // Every round's page goes on to /landing in the end: let the last one arrive before the next test.
    await new Promise((done) => setTimeout(done, 500));
    expect(failures).toEqual([]);
  }, 90_000);

  it('a page that never stops navigating: the call ends with a TimeoutError within its timeout', async () => {
    for (const call of ['extract', 'observe'] as const) {
      foreverOn = true;
      foreverServed = 0;
      // Whether the library's goto sees the first document's `domcontentloaded` before the second document
      // commits is a race of its own; what is tested is plannav's call once the chain is running.
      user.start(`${origin}/forever?n=0`);
      for (let waited = 0; foreverServed < 3; waited += 20) {
        if (waited > 10_000) throw new Error(`the /forever chain did not start: ${foreverServed} documents served in 10 s`);
        await new Promise((done) => setTimeout(done, 20));
      }
      const timeout = 3000;
      const started = Date.now();
      const error = await (
        call === 'extract' ? extract(user.driver, { llm: echoModel(), instruction: 'what the page says' }, { timeout }) : observe(user.driver, { timeout })
      ).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      const took = Date.now() - started;
      foreverOn = false;
      await new Promise((done) => setTimeout(done, 300));
      expect(TimeoutError.isInstance(error), `${call}: ${String(error)}`).toBe(true);
      expect(PlannavError.isInstance(error) && error.message).toBe(
        `${call}() did not finish within its timeout of ${timeout} ms. Give it a longer \`timeout\`, or none.`,
      );
      expect(took).toBeLessThan(timeout + 1500);
    }
    // The driver still reads a page that has stopped (once the last hop of the chain, already on its way, has landed).
    await new Promise((done) => setTimeout(done, 1000));
    await user.goto(`${origin}/landing`);
    expect((await observe(user.driver, { timeout: 10_000 })).title).toBe('LANDING page');
  });
});
