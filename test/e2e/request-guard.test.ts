// The `all-requests` scope of both drivers' navigation guards in real headless Chromium: a page on
// 127.0.0.1 fires every kind of request at a recording server on 127.0.0.2, which must see none.
// The browser knows that server as denied.test: Chromium never sends a WebSocket to a loopback
// address through the drivers' proxy, and the policy's loopback case has its own test.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BlockedNavigation, BrowserDriver, NavigationGuard, NavigationGuardStatus } from '../../src/browser/types';
import { PlaywrightDriver } from '../../src/playwright/index';
import { PuppeteerDriver } from '../../src/puppeteer/index';
import { UrlPolicy } from '../../src/security/url-policy';

const fixturesDir = resolve(import.meta.dirname, '../fixtures');

/** A dedicated worker's own request and WebSocket, aimed at the origin in ?to=. */
const workerScript = `
const to = new URL(self.location.href).searchParams.get('to');
fetch(to + '/worker-fetch', { mode: 'no-cors' }).then(() => postMessage('fetch'), () => postMessage('fetch failed'));
try {
  const socket = new WebSocket(to.replace(/^http/, 'ws') + '/worker-websocket');
  socket.onerror = () => postMessage('websocket failed');
} catch (error) {
  postMessage('websocket ' + error.name);
}`;

/** A service worker that, asked by its page, sends its own request and opens a WebSocket. */
const serviceWorkerScript = `
const to = new URL(self.location.href).searchParams.get('to');
self.addEventListener('install', () => self.skipWaiting());
try {
  new WebSocket(to.replace(/^http/, 'ws') + '/service-worker-start-websocket');
} catch {}
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
self.addEventListener('message', (event) => {
  fetch(to + '/service-worker-fetch', { mode: 'no-cors' }).then(() => event.source.postMessage('fetch'), () => event.source.postMessage('fetch failed'));
  try {
    const socket = new WebSocket(to.replace(/^http/, 'ws') + '/service-worker-websocket');
    socket.onerror = () => event.source.postMessage('websocket failed');
  } catch (error) {
    event.source.postMessage('websocket ' + error.name);
  }
});`;

/** What the recording server received: HTTP requests and WebSocket upgrades, by path. */
interface Recording {
  readonly requests: string[];
  readonly upgrades: string[];
}

function listen(server: Server, host: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolvePromise(`http://${host}:${(server.address() as AddressInfo).port}`));
  });
}

const recording: Recording = { requests: [], upgrades: [] };
const recorder = createServer((request: IncomingMessage, response: ServerResponse) => {
  recording.requests.push(new URL(request.url ?? '/', 'http://recorder').pathname);
  response.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }).end('recorded');
});
recorder.on('upgrade', (request: IncomingMessage, socket) => {
  recording.upgrades.push(new URL(request.url ?? '/', 'http://recorder').pathname);
  socket.destroy();
});

const site = createServer((request: IncomingMessage, response: ServerResponse) => {
  const path = new URL(request.url ?? '/', 'http://site').pathname;
  const script = { '/request-guard/worker.js': workerScript, '/request-guard/service-worker.js': serviceWorkerScript }[path];
  if (script) return void response.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' }).end(script);
  if (path === '/request-guard/page.html') {
    return void readFile(resolve(fixturesDir, 'request-guard.html'), 'utf8').then((page) =>
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(page),
    );
  }
  if (path === '/request-guard/retry.html') {
    // Tries a WebSocket to ?to= every 100 ms (at /retry, or ?path=), for as long as it stays open.
    const retry = `const query = new URL(location.href).searchParams;
      const to = query.get('to').replace(/^http/, 'ws') + (query.get('path') ?? '/retry');
      setInterval(() => { try { new WebSocket(to); } catch {} }, 100);`;
    return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><title>Retry</title><script>${retry}</script>`);
  }
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Sink</title>');
});

/** The name the browsers resolve to the recording server. */
const deniedHost = 'denied.test';
const resolveDenied = `--host-resolver-rules=MAP ${deniedHost} 127.0.0.2`;
let deniedOrigin: string;
let siteOrigin: string;

beforeAll(async () => {
  deniedOrigin = (await listen(recorder, '127.0.0.2')).replace('127.0.0.2', deniedHost);
  siteOrigin = await listen(site, '127.0.0.1');
});

afterAll(async () => {
  for (const server of [recorder, site]) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

beforeEach(() => {
  recording.requests.length = 0;
  recording.upgrades.length = 0;
});

/** The recording server's host, denied; its rules let a driver check WebSockets inside the page. */
const policy = new UrlPolicy({ deny: [deniedHost] });

/** Denies the recording server's host; records what the driver reports. */
function hostGuard(
  scope: NavigationGuard['scope'],
): NavigationGuard & { readonly reports: BlockedNavigation[]; readonly rules: ReturnType<UrlPolicy['toRules']> } {
  const reports: BlockedNavigation[] = [];
  return {
    reports,
    scope,
    rules: policy.toRules(),
    check: (url) => {
      const { hostname } = new URL(url);
      return hostname === deniedHost ? { allowed: false, reason: `host ${deniedHost} is on the deny list` } : { allowed: true, reason: 'allowed' };
    },
    blocked: (navigation) => reports.push(navigation),
  };
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** The paths every run of the page aims at the recording server over HTTP. */
const httpPaths = ['/fetch', '/xhr', '/image', '/beacon', '/ping', '/worker-fetch', '/service-worker-fetch'];
/** The WebSockets of the page, a same-origin about:blank frame it makes, and its dedicated worker. */
const documentSocketPaths = ['/websocket', '/blank-frame-websocket', '/worker-websocket'];
/** The service worker's WebSockets, at its start and at a message. */
const serviceWorkerSocketPaths = ['/service-worker-start-websocket', '/service-worker-websocket'];
const socketPaths = [...documentSocketPaths, ...serviceWorkerSocketPaths];

/** Loads the page and waits until each of its requests either reached the recorder or was reported stopped. */
async function firePage(driver: BrowserDriver, guard: ReturnType<typeof hostGuard>): Promise<void> {
  await driver.goto(`${siteOrigin}/request-guard/page.html?to=${encodeURIComponent(deniedOrigin)}`);
  const settled = (): boolean =>
    httpPaths.every((path) => recording.requests.includes(path) || guard.reports.some((report) => new URL(report.url).pathname === path));
  for (const end = Date.now() + 8000; Date.now() < end && !settled();) await sleep(50);
  // A request that got through would arrive meanwhile.
  await sleep(500);
}

/**
 * `socketUrls`: whether a stopped WebSocket is reported with its URL. Both drivers' proxies refuse
 * the tunnel of a WebSocket to a denied host, reported as the host's URL; only Puppeteer has the
 * wrapper inside pages (Playwright's public API gives no session of the targets a CDP session
 * auto-attaches), which reports the whole URL.
 */
const drivers: readonly { readonly name: string; readonly launch: () => Promise<BrowserDriver>; readonly socketUrls: boolean }[] = [
  { name: 'PlaywrightDriver', launch: () => PlaywrightDriver.launch({ settle: { maxWaitMs: 1000 }, args: [resolveDenied] }), socketUrls: false },
  { name: 'PuppeteerDriver', launch: () => PuppeteerDriver.launch({ settle: { maxWaitMs: 1000 }, args: [resolveDenied] }), socketUrls: true },
];

describe.each(drivers)('$name', ({ launch, socketUrls }) => {
  let driver: BrowserDriver;

  beforeAll(async () => {
    driver = await launch();
  }, 60_000);

  afterAll(async () => {
    await driver?.close();
  });

  beforeEach(async () => {
    await driver.setNavigationGuard?.(undefined);
    await driver.goto('about:blank');
  });

  it('with the default scope, lets the page reach the denied host (the control: the tests below can fail)', async () => {
    const guard = hostGuard(undefined);
    const status = await driver.setNavigationGuard?.(guard);
    expect(status).toEqual({ scope: 'navigation' });
    await firePage(driver, guard);
    expect([...new Set(recording.requests)].sort()).toEqual([...httpPaths].sort());
    expect([...new Set(recording.upgrades)].sort()).toEqual([...socketPaths].sort());
    expect(guard.reports.filter((report) => report.kind === 'request')).toEqual([]);
  });

  it('with all-requests, stops every HTTP request of the page, its frames, its worker and its service worker', async () => {
    const guard = hostGuard('all-requests');
    const status = (await driver.setNavigationGuard?.(guard)) as NavigationGuardStatus;
    expect(status.scope).toBe('all-requests');
    expect(status.unenforced).toEqual([]);
    await firePage(driver, guard);
    expect(recording.requests).toEqual([]);
    const reported = guard.reports.map((report) => new URL(report.url).pathname);
    for (const path of httpPaths) expect(reported).toContain(path);
    expect(guard.reports.every((report) => report.kind === 'request' && report.reason === `host ${deniedHost} is on the deny list`)).toBe(true);
  });

  // Neither the Fetch domain nor Network.setBlockedURLs sees a WebSocket handshake in Chromium:
  // the launched browser's proxy refuses its tunnel, and Puppeteer's wrapper stops it in the page.
  it('with all-requests, stops WebSocket handshakes of the page, an about:blank frame, a worker and a service worker', async () => {
    const guard = hostGuard('all-requests');
    await driver.setNavigationGuard?.(guard);
    await firePage(driver, guard);
    // The service worker's second socket opens when the page messages it: wait (bounded) until every socket was reported.
    const expected = socketUrls
      ? documentSocketPaths.map((path) => `${deniedOrigin.replace(/^http/, 'ws')}${path}`)
      : [`${deniedOrigin.replace(/^http:/, 'https:')}/`];
    const allReported = (): boolean => expected.every((url) => guard.reports.some((report) => report.url === url));
    for (const end = Date.now() + 10_000; Date.now() < end && !allReported();) await sleep(50);
    expect(recording.upgrades).toEqual([]);
    const reported = guard.reports.map((report) => report.url);
    if (socketUrls) for (const path of documentSocketPaths) expect(reported).toContain(`${deniedOrigin.replace(/^http/, 'ws')}${path}`);
    else expect(reported).toContain(`${deniedOrigin.replace(/^http:/, 'https:')}/`);
    expect(guard.reports.every((report) => report.kind === 'request')).toBe(true);
  });

  // Playwright keeps a session of each service worker; one that the guard stopped without starting
  // it again answered none, and removing the guard waited for it forever (seen: context.unroute).
  it('restarts a service worker that ran before the guard, and the guard comes off again at once', async () => {
    await firePage(driver, hostGuard(undefined));
    await driver.goto('about:blank');
    const guard = hostGuard('all-requests');
    await driver.setNavigationGuard?.(guard, { timeout: 5000 });
    await driver.setNavigationGuard?.(undefined, { timeout: 5000 });
    await driver.setNavigationGuard?.(guard, { timeout: 5000 });
    recording.requests.length = 0;
    await firePage(driver, guard);
    expect(recording.requests).toEqual([]);
  });

  it('with all-requests, a policy with an exact-URL entry says the path of WebSocket handshakes is not checked', async () => {
    const rules = new UrlPolicy({ deny: [deniedHost, 'http://127.0.0.1/logout'] }).toRules();
    const status = (await driver.setNavigationGuard?.({ ...hostGuard('all-requests'), rules })) as NavigationGuardStatus;
    const workers = socketUrls ? ' of shared and service workers' : '';
    expect(status.unenforced).toEqual([expect.stringContaining(`the path of WebSocket handshakes${workers}: their host is checked`)]);
  });

  it('with all-requests, a policy that denies a loopback host says which WebSockets go unchecked, and the page wrapper still checks them', async () => {
    const loopback = new UrlPolicy({ deny: ['127.0.0.2'] });
    const guard = { ...hostGuard('all-requests'), rules: loopback.toRules(), check: (url: string) => loopback.check(url) };
    const status = (await driver.setNavigationGuard?.(guard)) as NavigationGuardStatus;
    const workers = socketUrls ? ' of shared and service workers' : '';
    expect(status.unenforced).toEqual([expect.stringContaining(`WebSocket handshakes${workers} to loopback and link-local hosts`)]);
    await driver.goto(`${siteOrigin}/request-guard/retry.html?path=/loopback&to=${encodeURIComponent(deniedOrigin.replace(deniedHost, '127.0.0.2'))}`);
    for (const end = Date.now() + 10_000; Date.now() < end && !recording.upgrades.includes('/loopback');) await sleep(50);
    // Puppeteer's wrapper stops the page's WebSocket to 127.0.0.2; with Playwright (no wrapper) it goes direct: the gap the status names.
    if (socketUrls) expect(recording.upgrades).not.toContain('/loopback');
    else expect(recording.upgrades).toContain('/loopback');
  });

  it('lets WebSockets through again once the guard goes back to the navigation scope', async () => {
    const guard = hostGuard('all-requests');
    await driver.setNavigationGuard?.(guard);
    await driver.goto(`${siteOrigin}/request-guard/retry.html?to=${encodeURIComponent(deniedOrigin)}`);
    // Waits (bounded) for the guard to report the page's first try, rather than a fixed time a loaded machine can overrun.
    const reported = (): boolean => guard.reports.some((report) => report.url.endsWith(socketUrls ? '/retry' : `${deniedOrigin.replace(/^http:/, 'https:')}/`));
    for (const end = Date.now() + 10_000; Date.now() < end && !reported();) await sleep(50);
    expect(reported()).toBe(true);
    expect(recording.upgrades).not.toContain('/retry');
    await driver.setNavigationGuard?.(hostGuard('navigation'));
    // The document loaded under the guard keeps its wrapper, switched off.
    for (const end = Date.now() + 10_000; Date.now() < end && !recording.upgrades.includes('/retry');) await sleep(50);
    expect(recording.upgrades).toContain('/retry');
  });

  it('stops checking requests when the guard goes back to the navigation scope', async () => {
    await driver.setNavigationGuard?.(hostGuard('all-requests'));
    const guard = hostGuard('navigation');
    expect(await driver.setNavigationGuard?.(guard)).toEqual({ scope: 'navigation' });
    await firePage(driver, guard);
    expect(recording.requests).toContain('/fetch');
  });
});

// Chromium's headless shell opens its WebSockets past the driver's PAC proxy: a driver launched on it must not count on
// the proxy, and says which WebSockets go unchecked (it said none, and all of them got through).
describe("a launch on Chromium's headless shell", () => {
  const shell = ['/usr/bin/chromium-headless-shell', process.env.PLANNAV_TEST_HEADLESS_SHELL].find((path) => path && existsSync(path));
  it.for([
    { name: 'PlaywrightDriver', launch: (executablePath: string) => PlaywrightDriver.launch({ executablePath }), uncovered: /^WebSocket handshakes \(/ },
    {
      name: 'PuppeteerDriver',
      launch: (executablePath: string) => PuppeteerDriver.launch({ executablePath }),
      uncovered: /^WebSocket handshakes of shared and service workers$/,
    },
  ])('$name says which WebSockets go unchecked', async ({ launch, uncovered }, context) => {
    if (!shell) return context.skip('chromium-headless-shell is not installed (npm test installs it on Debian)');
    const driver = await launch(shell);
    try {
      const status = await driver.setNavigationGuard?.(hostGuard('all-requests'));
      expect(status.unenforced).toEqual([expect.stringMatching(uncovered)]);
    } finally {
      await driver.close();
    }
  });

  it.for([
    { name: 'PlaywrightDriver', pool: (executablePath: string) => PlaywrightDriver.pool({ executablePath, size: 1 }), uncovered: /^WebSocket handshakes \(/ },
    {
      name: 'PuppeteerDriver',
      pool: (executablePath: string) => PuppeteerDriver.pool({ executablePath, size: 1 }),
      uncovered: /^WebSocket handshakes of shared and service workers$/,
    },
  ])('$name: a pool on it says so too', async ({ pool: makePool, uncovered }, context) => {
    if (!shell) return context.skip('chromium-headless-shell is not installed (npm test installs it on Debian)');
    const pool = makePool(shell);
    try {
      const driver = await pool.create();
      const status = await driver.setNavigationGuard?.(hostGuard('all-requests'));
      expect(status.unenforced).toEqual([expect.stringMatching(uncovered)]);
    } finally {
      await pool.close();
    }
  });
});

describe('a launch with a proxy of its own', () => {
  it.each([
    { name: 'PlaywrightDriver', launch: () => PlaywrightDriver.launch({ args: ['--proxy-server=direct://'] }), uncovered: /^WebSocket handshakes \(/ },
    {
      name: 'PuppeteerDriver',
      launch: () => PuppeteerDriver.launch({ args: ['--proxy-server=direct://'] }),
      uncovered: /^WebSocket handshakes of shared and service workers$/,
    },
  ])('$name keeps it, and says which WebSockets go unchecked', async ({ launch, uncovered }) => {
    const driver = await launch();
    try {
      const status = await driver.setNavigationGuard?.(hostGuard('all-requests'));
      expect(status.unenforced).toEqual([expect.stringMatching(uncovered)]);
    } finally {
      await driver.close();
    }
  });
});
