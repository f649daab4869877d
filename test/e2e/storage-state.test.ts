// Storage state in real headless Chromium (issue 24, contract section B): a login on a local site
// (an HttpOnly session cookie and a localStorage value) saved with driver.storageState() as an
// object and as a 0600 file in Playwright's format, and loaded by a second browser that starts
// logged in, with either driver, across drivers and with Playwright's own files. A bad file is a
// typed error; the secrets never reach the history, the events or the model.
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Executor, PlannavError, type ExecutorEvent } from '../../src/index';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../../src/testing/index';
import { libraries, playwright, puppeteer, storageStateOf, type Library, type StorageStateShape } from '../helpers/state-drivers';
import { sessionCookieName, startLoginSite, storageKey, visitAccount, type LoginSite } from '../helpers/state-site';

let site: LoginSite;
let scratch: string;

beforeAll(async () => {
  site = await startLoginSite();
  scratch = mkdtempSync(join(tmpdir(), 'plannav-storage-state-test-'));
});

afterAll(async () => {
  await site?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true, maxRetries: 10 });
});

/** Launches a browser with `library`, logs in on the site, and returns the driver. */
async function loggedIn(library: Library) {
  const driver = await library.launch();
  const before = site.logins();
  await driver.goto(site.url('/login/submit?user=ada'));
  expect(site.logins()).toBe(before + 1);
  // The login page's script ran: the account page sees both the cookie and the localStorage value.
  expect(await visitAccount(site, (url) => driver.goto(url))).toEqual({ cookie: true, localStorage: site.storageValue });
  return driver;
}

/** Launches with `storageState` and returns what the account page found; closes the browser. */
async function accountWith(library: Library, storageState: StorageStateShape | string) {
  const driver = await library.launch({ storageState });
  try {
    return await visitAccount(site, (url) => driver.goto(url));
  } finally {
    await driver.close();
  }
}

/** The checks of Playwright's storage-state format on the site's login. */
function expectLoginState(state: StorageStateShape): void {
  expect(Object.keys(state).sort()).toEqual(['cookies', 'origins']);
  const cookie = state.cookies.find((item) => item.name === sessionCookieName);
  expect(cookie, JSON.stringify(state.cookies.map((item) => item.name))).toMatchObject({
    name: sessionCookieName,
    value: site.sessionValue,
    domain: '127.0.0.1',
    path: '/',
    httpOnly: true,
    secure: false,
    sameSite: 'Lax',
  });
  // Max-Age=86400: an absolute time in seconds since the epoch, about a day ahead (not milliseconds, not -1).
  const inADay = Date.now() / 1000 + 86_400;
  expect(cookie!.expires).toBeGreaterThan(inADay - 600);
  expect(cookie!.expires).toBeLessThan(inADay + 600);
  const origin = state.origins.find((item) => item.origin === site.origin);
  expect(origin, JSON.stringify(state.origins.map((item) => item.origin))).toBeDefined();
  expect(origin!.localStorage).toContainEqual({ name: storageKey, value: site.storageValue });
}

describe.each(libraries)('storage state with $name', (library) => {
  it('saves a login as an object and as a 0600 file in the same format, and a new browser starts logged in from either', async () => {
    const path = join(scratch, `${library.name}-state.json`);
    // An existing, world-readable file: saving replaces its content and tightens its mode.
    writeFileSync(path, '{}');
    chmodSync(path, 0o644);

    const driver = await loggedIn(library);
    let state: StorageStateShape;
    let returned: StorageStateShape;
    try {
      state = await storageStateOf(driver)();
      returned = await storageStateOf(driver)({ path });
    } finally {
      await driver.close();
    }
    expectLoginState(state);
    expectLoginState(returned);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const file = JSON.parse(readFileSync(path, 'utf8')) as StorageStateShape;
    expect(file).toEqual(JSON.parse(JSON.stringify(returned)));

    // Not logged in without it: the site does not remember this browser by itself.
    const fresh = await library.launch();
    try {
      expect(await visitAccount(site, (url) => fresh.goto(url))).toEqual({ cookie: false, localStorage: 'none' });
    } finally {
      await fresh.close();
    }
    expect(await accountWith(library, state)).toEqual({ cookie: true, localStorage: site.storageValue });
    expect(await accountWith(library, path)).toEqual({ cookie: true, localStorage: site.storageValue });
  });

  it('rejects a bad storage state with a typed error that says what is wrong, before any page loads', async () => {
    const missing = join(scratch, 'no-such-state.json');
    const notJson = join(scratch, `${library.name}-not-json.json`);
    writeFileSync(notJson, '{ "cookies": [ oops');
    const wrongShape = join(scratch, `${library.name}-wrong-shape.json`);
    writeFileSync(wrongShape, JSON.stringify({ cookies: 'sid=1', origins: [] }));

    const cases: [StorageStateShape | string, RegExp][] = [
      [missing, /no-such-state\.json/],
      [notJson, /not-json\.json[\s\S]*JSON|JSON[\s\S]*not-json\.json/i],
      [wrongShape, /cookies/],
      [{ cookies: [{ name: 'a' }], origins: [] } as unknown as StorageStateShape, /cookies/],
    ];
    for (const [storageState, message] of cases) {
      const requests = site.server.received.length;
      const error = await library.launch({ storageState }).then(
        async (driver) => {
          await driver.close();
          return undefined;
        },
        (caught: unknown) => caught,
      );
      expect(error, `launch with ${JSON.stringify(storageState)} should reject`).toBeInstanceOf(PlannavError);
      expect((error as Error).message).toMatch(message);
      expect(site.server.received.length).toBe(requests);
    }
  });
});

describe('storage state across drivers and with Playwright itself', () => {
  it('a file saved by PlaywrightDriver logs in a PuppeteerDriver, and one saved by PuppeteerDriver logs in a PlaywrightDriver', async () => {
    const fromPlaywright = join(scratch, 'cross-playwright.json');
    const fromPuppeteer = join(scratch, 'cross-puppeteer.json');
    for (const [library, path] of [
      [playwright, fromPlaywright],
      [puppeteer, fromPuppeteer],
    ] as const) {
      const driver = await loggedIn(library);
      try {
        await storageStateOf(driver)({ path });
      } finally {
        await driver.close();
      }
    }
    expect(await accountWith(puppeteer, fromPlaywright)).toEqual({ cookie: true, localStorage: site.storageValue });
    expect(await accountWith(playwright, fromPuppeteer)).toEqual({ cookie: true, localStorage: site.storageValue });
  });

  it("reads a file written by Playwright's own context.storageState(), and Playwright reads the driver's", async () => {
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
    try {
      const written = join(scratch, 'by-playwright-itself.json');
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(site.url('/login/submit?user=ada'));
      await context.storageState({ path: written });
      await context.close();
      expect(await accountWith(puppeteer, written)).toEqual({ cookie: true, localStorage: site.storageValue });

      const driver = await loggedIn(puppeteer);
      const saved = join(scratch, 'for-playwright-itself.json');
      try {
        await storageStateOf(driver)({ path: saved });
      } finally {
        await driver.close();
      }
      const restored = await browser.newContext({ storageState: saved });
      const before = site.visits.length;
      await (await restored.newPage()).goto(site.url('/account'));
      await expect.poll(() => site.visits[before], { timeout: 10_000 }).toEqual({ cookie: true, localStorage: site.storageValue });
      await restored.close();
    } finally {
      await browser.close();
    }
  });

  it('never puts the cookie or the localStorage value in the history, the events or the model requests of a run', async () => {
    const state: StorageStateShape = {
      cookies: [
        {
          name: sessionCookieName,
          value: site.sessionValue,
          domain: '127.0.0.1',
          path: '/',
          expires: Math.floor(Date.now() / 1000) + 3600,
          httpOnly: true,
          secure: false,
          sameSite: 'Lax',
        },
      ],
      origins: [{ origin: site.origin, localStorage: [{ name: storageKey, value: site.storageValue }] }],
    };
    const driver = await playwright.launch({ storageState: state });
    try {
      let navigatorStep = 0;
      const llm = new ScriptedLLM({
        respond: (request) => {
          if (request.agent === 'planner') {
            return /Welcome back, ada/.test(request.lastUserText)
              ? scriptedPlan({ done: true, finalAnswer: 'Logged in' })
              : scriptedPlan({ nextSteps: 'Open the account' });
          }
          navigatorStep++;
          if (navigatorStep === 1) return scriptedActions([{ go_to_url: { url: site.url('/account') } }]);
          return scriptedActions([{ done: { text: 'Logged in', success: true } }]);
        },
      });
      const executor = new Executor({
        task: 'Check that I am logged in to my account',
        llm,
        browser: driver,
        sensitiveActions: false,
        maxSteps: 4,
        planningInterval: 1,
      });
      const events: ExecutorEvent[] = [];
      const stream = executor.events({ scope: 'session' });
      const reading = (async () => {
        for await (const event of stream) events.push(event);
      })();
      const visitsBefore = site.visits.length;
      const result = await executor.execute();
      // The run was logged in through the loaded state: the test can fail only if the secrets leak.
      expect(site.visits.slice(visitsBefore)).toContainEqual({ cookie: true, localStorage: site.storageValue });
      expect(result.status).toBe('ok');
      const history = JSON.stringify(executor.history);
      await executor.close();
      await reading;
      expect(events.length).toBeGreaterThan(5);
      const everything = [history, JSON.stringify(events), JSON.stringify(llm.requests.map((request) => request.messages))].join('\n');
      expect(everything).toContain('Welcome back, ada');
      expect(everything).not.toContain(site.sessionValue);
      expect(everything).not.toContain(site.storageValue);
    } finally {
      await driver.close();
    }
  });
});
