// The drivers' browser pools in real headless Chromium (issue 20): one shared Chromium, launched once,
// a context per driver (own cookies), concurrent drivers reading their own pages, the guard per
// context, the browser gone with the last driver, and a killed browser failing every driver.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserDisconnectedError, ConfigError, URLNotAllowedError } from '../../src/errors';
import { observe } from '../../src/index';
import { PlaywrightDriver } from '../../src/playwright/index';
import { PuppeteerDriver } from '../../src/puppeteer/index';
import { rejectionOf } from '../helpers/rejection';
import { eventually } from '../helpers/eventually';
import { onFullChromium } from '../helpers/page-chromium';

let server: Server;
let origin: string;

beforeAll(async () => {
  // /page/N answers after a short delay (so concurrent loads overlap); /set?who=X sets a cookie; /who shows the cookie it got.
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://pool.test');
    const html = (title: string, body: string): void =>
      void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(`<title>${title}</title>${body}`);
    const page = /^\/page\/(\d+)$/.exec(url.pathname);
    if (page) {
      const number = page[1] as string;
      setTimeout(() => html(`Page ${number}`, `<h1>Content of page ${number}</h1><button>Button ${number}</button>`), 50 + Math.random() * 150);
    } else if (url.pathname === '/set') {
      response.setHeader('set-cookie', `who=${url.searchParams.get('who') ?? ''}; Path=/`);
      html('Set', '<p>cookie set</p>');
    } else if (url.pathname === '/who') {
      html('Who', `<p>cookie: ${request.headers.cookie ?? 'none'}</p>`);
    } else html('Other', '<p>other page</p>');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((done) => server?.close(done));
});

/**
 * Every process (browser and helpers) whose command line names a folder under `scratch`. Chromium
 * rewrites its helpers' command lines into one string, so `--type=` is looked for anywhere in it.
 */
function processesUnder(scratch: string): { pid: number; browser: boolean }[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const commandLine = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
        if (!commandLine.includes(scratch)) return [];
        return [{ pid: Number(entry), browser: !/(^| )--type=/.test(commandLine) }];
      } catch {
        return [];
      }
    });
}

/** The browser processes (not their helpers) under `scratch`. */
const browsersUnder = (scratch: string): number[] =>
  processesUnder(scratch)
    .filter((process) => process.browser)
    .map((process) => process.pid);

/** Runs `body` with the temporary folder (where each launch makes its profile) set to a fresh one, then removes it. */
async function inScratch(body: (scratch: string) => Promise<void>): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'plannav-pool-test-'));
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = scratch;
  try {
    await body(scratch);
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    rmSync(scratch, { recursive: true, force: true, maxRetries: 10 });
  }
}

type Driver = PlaywrightDriver | PuppeteerDriver;

interface Pool {
  readonly size: number;
  create(): Promise<Driver>;
  close(): Promise<void>;
}

describe.each([
  ['PlaywrightDriver', (size: number): Pool => PlaywrightDriver.pool({ size, settle: { maxWaitMs: 2000 } })],
  ['PuppeteerDriver', (size: number): Pool => PuppeteerDriver.pool({ size, settle: { maxWaitMs: 2000 } })],
] as const)('%s.pool()', (name, makePool) => {
  it('gives each driver its own cookies', async () => {
    const pool = makePool(2);
    try {
      const first = await pool.create();
      const second = await pool.create();
      await first.goto(`${origin}/set?who=first`);
      await second.goto(`${origin}/set?who=second`);
      await first.goto(`${origin}/who`);
      await second.goto(`${origin}/who`);
      expect((await observe(first)).elementsText).toContain('cookie: who=first');
      expect((await observe(second)).elementsText).toContain('cookie: who=second');
    } finally {
      await pool.close();
    }
  });

  it('4 drivers load and read their own pages at the same time', { timeout: 60_000 }, async () => {
    const pool = makePool(4);
    try {
      const drivers = await Promise.all([0, 1, 2, 3].map(() => pool.create()));
      for (let round = 0; round < 3; round++) {
        const states = await Promise.all(
          drivers.map(async (driver, slot) => {
            const number = round * 4 + slot;
            await driver.goto(`${origin}/page/${number}`);
            return { number, state: await observe(driver) };
          }),
        );
        for (const { number, state } of states) {
          expect(state.url).toBe(`${origin}/page/${number}`);
          expect(state.title).toBe(`Page ${number}`);
          expect(state.elementsText).toContain(`Content of page ${number}`);
          expect(state.elementsText).toMatch(new RegExp(`\\[\\d+\\]<button>Button ${number}\\b`));
          expect(state.tabs).toHaveLength(1);
        }
      }
    } finally {
      await pool.close();
    }
  });

  it("enforces a driver's navigation guard in its own context only", async () => {
    const pool = makePool(2);
    try {
      const [guarded, free] = await Promise.all([pool.create(), pool.create()]);
      const blocked: string[] = [];
      await guarded.setNavigationGuard({
        check: (url) => (url.includes('/page/') ? { allowed: false, reason: 'no pages' } : { allowed: true, reason: 'allowed' }),
        blocked: (navigation) => void blocked.push(navigation.url),
      });
      expect(await rejectionOf(guarded.goto(`${origin}/page/1`))).toBeInstanceOf(URLNotAllowedError);
      await free.goto(`${origin}/page/1`);
      expect(await free.currentUrl()).toBe(`${origin}/page/1`);
      await guarded.goto(`${origin}/who`);
      expect(blocked).toEqual([`${origin}/page/1`]);
    } finally {
      await pool.close();
    }
  });

  // The browser's processes are what these two cases read, and the headless shell's differ: they run on full Chromium.
  it(
    'launches the browser once, closes it with the last driver and leaves nothing behind',
    { timeout: 60_000 },
    onFullChromium(async () => {
      await inScratch(async (scratch) => {
        const pool = makePool(4);
        expect(browsersUnder(scratch)).toEqual([]); // lazy: nothing before the first create()
        const drivers = await Promise.all([0, 1, 2, 3].map(() => pool.create()));
        const [browser] = browsersUnder(scratch);
        expect(browsersUnder(scratch)).toEqual([browser]);
        expect(await rejectionOf(pool.create())).toBeInstanceOf(ConfigError); // size 4
        for (const driver of drivers.slice(0, 3)) await driver.close();
        expect(browsersUnder(scratch)).toEqual([browser]);
        // The driver left still works after the others' contexts closed.
        await drivers[3]?.goto(`${origin}/page/7`);
        expect((await observe(drivers[3] as Driver)).title).toBe('Page 7');
        await drivers[3]?.close();
        expect(await eventually(() => processesUnder(scratch).length === 0 && readdirSync(scratch).length === 0)).toBe(true);

        // The next create() launches again; close() ends it, and the pool then refuses.
        const again = await pool.create();
        await again.goto(`${origin}/page/8`);
        expect(browsersUnder(scratch)).toHaveLength(1);
        await pool.close();
        await pool.close(); // idempotent
        expect(await rejectionOf(again.currentUrl())).toBeInstanceOf(BrowserDisconnectedError);
        expect(await rejectionOf(pool.create())).toBeInstanceOf(BrowserDisconnectedError);
        expect(await eventually(() => processesUnder(scratch).length === 0 && readdirSync(scratch).length === 0)).toBe(true);
      });
    }),
  );

  it(
    'fails every driver with BROWSER_DISCONNECTED when the shared browser is killed',
    { timeout: 60_000 },
    onFullChromium(async () => {
      await inScratch(async (scratch) => {
        const pool = makePool(3);
        try {
          const drivers = await Promise.all([0, 1, 2].map(() => pool.create()));
          await Promise.all(drivers.map((driver, slot) => driver.goto(`${origin}/page/${slot}`)));
          for (const pid of browsersUnder(scratch)) process.kill(pid, 'SIGKILL');
          for (const driver of drivers) {
            const error = await rejectionOf(driver.goto(`${origin}/page/9`));
            expect(error).toBeInstanceOf(BrowserDisconnectedError);
            expect((error as BrowserDisconnectedError).code).toBe('BROWSER_DISCONNECTED');
          }
          await Promise.all(drivers.map((driver) => driver.close()));
          // Playwright's non-persistent launch removes its profile, but not the singleton-socket folder a killed Chromium leaves.
          const leftover = (): string[] => readdirSync(scratch).filter((entry) => name !== 'PlaywrightDriver' || !entry.startsWith('org.chromium.Chromium.'));
          expect(await eventually(() => processesUnder(scratch).length === 0 && leftover().length === 0)).toBe(true);
          // A new browser for the next driver.
          const next = await pool.create();
          await next.goto(`${origin}/page/5`);
          expect((await observe(next)).title).toBe('Page 5');
        } finally {
          await pool.close();
        }
      });
    }),
  );
});

describe('pool options', () => {
  it('refuses a size that is not a positive integer, before any browser starts', () => {
    expect(() => PlaywrightDriver.pool({ size: 0 })).toThrow(ConfigError);
    expect(() => PuppeteerDriver.pool({ size: 1.5 })).toThrow(/Option `size` of PuppeteerDriver.pool\(\) must be a positive integer/);
  });
});
