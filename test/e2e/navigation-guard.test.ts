// PlaywrightDriver.setNavigationGuard in real headless Chromium: every way a page can navigate,
// aimed at a recording server on a denied host, must be stopped before any request reaches it.
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BlockedNavigation, NavigationGuard } from '../../src/browser/types';
import { URLNotAllowedError } from '../../src/errors';
import { findChromium } from '../../src/playwright/find-chromium';
import { PlaywrightDriver } from '../../src/playwright/index';
import { eventually } from '../helpers/eventually';

const fixturesDir = resolve(import.meta.dirname, '../fixtures');

/** A request a test server received. */
interface Received {
  readonly method: string;
  readonly url: string;
  readonly body: string;
  readonly cookie: string | undefined;
  readonly purpose: string | undefined;
}

interface TestServer {
  readonly origin: string;
  readonly host: string;
  readonly received: Received[];
  close(): Promise<void>;
}

function listen(host: string, handler: (request: IncomingMessage, response: ServerResponse, body: string) => void): Promise<Server> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => handler(request, response, body));
    });
    server.once('error', reject);
    server.listen(0, host, () => resolvePromise(server));
  });
}

/** A server that records every request; on `host`, or on 127.0.0.1 named `fallbackName` where the host cannot be bound (macOS). */
async function startServer(
  host: string,
  fallbackName: string | undefined,
  respond: (request: IncomingMessage, response: ServerResponse, body: string, self: TestServer) => void | Promise<void>,
): Promise<TestServer | undefined> {
  const received: Received[] = [];
  const self = { received } as { origin: string; host: string; received: Received[]; close(): Promise<void> };
  const handler = (request: IncomingMessage, response: ServerResponse, body: string): void => {
    received.push({
      method: request.method ?? 'GET',
      url: request.url ?? '/',
      body,
      cookie: request.headers.cookie,
      purpose: (request.headers['sec-purpose'] ?? request.headers['purpose']) as string | undefined,
    });
    void Promise.resolve(respond(request, response, body, self)).catch(() => response.writeHead(500).end());
  };
  let server: Server;
  let name = host;
  try {
    server = await listen(host, handler);
  } catch {
    if (!fallbackName) return undefined;
    server = await listen('127.0.0.1', handler);
    name = fallbackName;
  }
  self.host = name;
  self.origin = `http://${name}:${(server.address() as AddressInfo).port}`;
  self.close = async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  };
  return self;
}

const escapeHtml = (text: string): string => text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

let denied: TestServer;
let allowed: TestServer;
/** A second allowed site, so a frame runs in its own process (an out-of-process frame). */
let otherSite: TestServer | undefined;
let driver: PlaywrightDriver;

/**
 * A service worker that takes its pages at once and passes every request on to the network, as
 * analytics and offline workers often do. Its fetch handler puts it in the path of each navigation;
 * it must not be empty, or Chromium skips it.
 */
const serviceWorkerScript = `
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (event) => {
  if (new URL(event.request.url).pathname === '/sw/offline') event.respondWith(new Response('Offline'));
});`;

/**
 * The allowed server: `/fixtures/<file>?to=URL` serves a fixture with `{{TO}}` replaced,
 * `/redirect?status=302&to=URL[&cookie=name]` redirects, `/echo` shows what it received. Under
 * `/sw/` it serves the same, in the scope of `/sw/service-worker.js`.
 */
const allowedRoutes = async (request: IncomingMessage, response: ServerResponse, body: string): Promise<void> => {
  const url = new URL(request.url ?? '/', 'http://server');
  if (url.pathname === '/sw/service-worker.js') {
    return void response.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' }).end(serviceWorkerScript);
  }
  if (url.pathname.startsWith('/sw/')) url.pathname = url.pathname.slice('/sw'.length);
  if (url.pathname.startsWith('/fixtures/')) {
    const file = resolve(fixturesDir, url.pathname.slice('/fixtures/'.length));
    if (!file.startsWith(fixturesDir)) return void response.writeHead(403).end();
    const page = (await readFile(file, 'utf8')).replaceAll('{{TO}}', escapeHtml(url.searchParams.get('to') ?? ''));
    return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(page);
  }
  if (url.pathname === '/redirect') {
    const headers: Record<string, string> = { location: url.searchParams.get('to') ?? '/echo' };
    const cookie = url.searchParams.get('cookie');
    if (cookie) headers['set-cookie'] = `${cookie}=yes; Path=/`;
    return void response.writeHead(Number(url.searchParams.get('status') ?? 302), headers).end();
  }
  response
    .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
    .end(
      `<!doctype html><title>Echo</title><p id="method">${request.method}</p><p id="body">${escapeHtml(body)}</p><p id="cookie">${escapeHtml(request.headers.cookie ?? '')}</p>`,
    );
};

/** Denies every URL of the recording server's host; records what the driver reports. */
function hostGuard(host = () => denied.host): NavigationGuard & { readonly reports: BlockedNavigation[] } {
  const reports: BlockedNavigation[] = [];
  return {
    reports,
    check: (url) => {
      const target = new URL(url);
      return target.hostname === host() ? { allowed: false, reason: `host ${target.hostname} is on the deny list` } : { allowed: true, reason: 'allowed' };
    },
    blocked: (navigation) => reports.push(navigation),
  };
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** Whether the denied host received a request for `path` (a page it serves also gets a favicon request). */
const reached = (path: string): boolean => denied.received.some((request) => request.url === path);

/** A redirect from the allowed server to `to`. */
const redirect = (to: string, status = 302, cookie?: string): string =>
  `${allowed.origin}/redirect?status=${status}&to=${encodeURIComponent(to)}${cookie ? `&cookie=${cookie}` : ''}`;
const fixture = (file: string, to: string): string => `${allowed.origin}/fixtures/${file}?to=${encodeURIComponent(to)}`;

/** Waits for the guard's report, then a moment more: a request that got through would arrive meanwhile. */
async function expectStopped(guard: ReturnType<typeof hostGuard>, kind: BlockedNavigation['kind'], url: string): Promise<void> {
  expect(await eventually(() => guard.reports.length > 0)).toBe(true);
  await sleep(300);
  expect(denied.received).toEqual([]);
  expect(guard.reports).toEqual([expect.objectContaining({ url, kind, reason: `host ${denied.host} is on the deny list` })]);
}

/**
 * Waits for the next tab of `context` to appear, then for the guard to close it: the tab of a stopped popup may
 * show up after the guard's report (a stopped form post's error page, on a loaded machine), and a check of the tab
 * count alone would pass before it, leaving it open into the next case.
 */
function stoppedPopupOf(context: BrowserContext): { closed(): Promise<void> } {
  const opened = context.waitForEvent('page', { timeout: 30_000 });
  opened.catch(() => undefined);
  return {
    async closed() {
      const popup = await opened;
      expect(await eventually(() => popup.isClosed())).toBe(true);
      expect(context.pages()).toHaveLength(1);
    },
  };
}

/** Closes every tab but the first, leaves it on a blank page and makes it active. */
async function singleTab(): Promise<void> {
  await driver.setNavigationGuard(undefined);
  const tabs = await driver.tabs();
  for (const tab of tabs.slice(1)) {
    // A tab the guard stopped closes itself, and may be gone between the list and the close: only a tab still open
    // that would not close is an error.
    await driver.closeTab(tab.id).catch(async (error: unknown) => {
      if ((await driver.tabs()).some((open) => open.id === tab.id)) throw error;
    });
  }
  await driver.switchTab(tabs[0]!.id);
  await driver.goto('about:blank');
}

beforeAll(async () => {
  denied = (await startServer('127.0.0.2', 'localhost', (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Denied host</title><p>This page must never load.</p>');
  }))!;
  allowed = (await startServer('127.0.0.1', undefined, allowedRoutes))!;
  otherSite = await startServer('127.0.0.3', undefined, allowedRoutes);
  driver = await PlaywrightDriver.launch({ settle: { maxWaitMs: 1500 } });
});

afterAll(async () => {
  await driver?.close();
  await Promise.all([denied?.close(), allowed?.close(), otherSite?.close()]);
});

beforeEach(async () => {
  await singleTab();
  denied.received.length = 0;
  allowed.received.length = 0;
});

describe('without a guard (the control: the tests below can fail)', () => {
  it('lets a link through a redirect chain reach the denied host', async () => {
    await driver.goto(fixture('guard-triggers.html', redirect(redirect(`${denied.origin}/control`))));
    await driver.page.locator('#link').click();
    expect(await eventually(() => reached('/control'))).toBe(true);
    expect(await driver.currentUrl()).toBe(`${denied.origin}/control`);
  });
});

describe('navigations the driver starts', () => {
  it('refuses goto() to a denied URL with a URLNotAllowedError, before any request', async () => {
    const guard = hostGuard();
    await driver.goto(allowed.origin + '/echo');
    await driver.setNavigationGuard(guard);
    const refusal = await driver.goto(`${denied.origin}/goto`).catch((error: unknown) => error);
    expect(URLNotAllowedError.isInstance(refusal)).toBe(true);
    expect((refusal as URLNotAllowedError).message).toContain(`host ${denied.host} is on the deny list`);
    await expectStopped(guard, 'navigation', `${denied.origin}/goto`);
    expect(await driver.currentUrl()).toBe(allowed.origin + '/echo');
  });

  it('refuses openTab() to a denied URL without opening a tab', async () => {
    const guard = hostGuard();
    await driver.setNavigationGuard(guard);
    await expect(driver.openTab(`${denied.origin}/tab`)).rejects.toSatisfy((error: unknown) => URLNotAllowedError.isInstance(error));
    await expectStopped(guard, 'navigation', `${denied.origin}/tab`);
    expect(await driver.tabs()).toHaveLength(1);
  });

  it('fails goto() to an allowed URL that redirects to a denied one with a URLNotAllowedError naming the hop', async () => {
    const guard = hostGuard();
    await driver.setNavigationGuard(guard);
    const refusal = await driver.goto(redirect(`${denied.origin}/hop`)).catch((error: unknown) => error);
    expect(URLNotAllowedError.isInstance(refusal)).toBe(true);
    expect((refusal as URLNotAllowedError).url).toBe(`${denied.origin}/hop`);
    await expectStopped(guard, 'redirect', `${denied.origin}/hop`);
  });
});

describe('navigations the page starts', () => {
  it.each([
    ['a link', '#link'],
    ['location.href', '#assign'],
    ['location.replace', '#replace'],
  ])('stops %s and keeps the tab on its page', async (_name, trigger) => {
    const guard = hostGuard();
    const page = fixture('guard-triggers.html', `${denied.origin}/target`);
    await driver.goto(page);
    await driver.setNavigationGuard(guard);
    await driver.page.locator(trigger).click();
    await expectStopped(guard, 'navigation', `${denied.origin}/target`);
    expect(await driver.currentUrl()).toBe(page);
    expect((await driver.activeTab()).title).toBe('Guard triggers');
  });

  it('stops a meta refresh', async () => {
    const guard = hostGuard();
    await driver.setNavigationGuard(guard);
    await driver.goto(fixture('guard-meta-refresh.html', `${denied.origin}/refresh`));
    await expectStopped(guard, 'navigation', `${denied.origin}/refresh`);
  });

  it('stops a form submitted with GET and with POST', async () => {
    const guard = hostGuard();
    await driver.goto(fixture('guard-triggers.html', `${denied.origin}/form`));
    await driver.setNavigationGuard(guard);
    await driver.page.locator('#form-get button').click();
    await expectStopped(guard, 'navigation', `${denied.origin}/form?q=hello`);
    guard.reports.length = 0;
    await driver.page.locator('#form-post button').click();
    await expectStopped(guard, 'navigation', `${denied.origin}/form`);
  });
});

describe('redirect hops', () => {
  it.each([301, 302, 307, 308])('stops a %i redirect to a denied host and keeps the tab on its page', async (status) => {
    const guard = hostGuard();
    const page = fixture('guard-triggers.html', redirect(`${denied.origin}/hop-${status}`, status));
    await driver.goto(page);
    await driver.setNavigationGuard(guard);
    await driver.page.locator('#link').click();
    await expectStopped(guard, 'redirect', `${denied.origin}/hop-${status}`);
    expect(await driver.currentUrl()).toBe(page);
  });

  it('stops a 307 redirect of a POST form, body and all', async () => {
    const guard = hostGuard();
    await driver.goto(fixture('guard-triggers.html', redirect(`${denied.origin}/post-hop`, 307)));
    await driver.setNavigationGuard(guard);
    await driver.page.locator('#form-post button').click();
    await expectStopped(guard, 'redirect', `${denied.origin}/post-hop`);
    expect(allowed.received.at(-1)).toMatchObject({ method: 'POST', body: 'secret=s3cret' });
  });

  it('stops a chain 127.0.0.1 -> 127.0.0.1 -> denied host at its last hop', async () => {
    const guard = hostGuard();
    await driver.goto(fixture('guard-triggers.html', redirect(redirect(`${denied.origin}/chain`, 301), 302)));
    await driver.setNavigationGuard(guard);
    await driver.page.locator('#link').click();
    await expectStopped(guard, 'redirect', `${denied.origin}/chain`);
    expect(allowed.received.filter((request) => request.url.startsWith('/redirect'))).toHaveLength(2);
  });
});

describe('new tabs and windows', () => {
  it.each([
    ['a target=_blank link', '#blank'],
    ['window.open', '#open'],
    ['a form with target=_blank', '#form-blank button'],
  ])('stops %s and closes the tab it opened', async (_name, trigger) => {
    const guard = hostGuard();
    await driver.goto(fixture('guard-triggers.html', `${denied.origin}/popup`));
    const opener = await driver.activeTab();
    await driver.setNavigationGuard(guard);
    const popup = stoppedPopupOf(driver.context);
    await driver.page.locator(trigger).click();
    await expectStopped(guard, 'popup', `${denied.origin}/popup`);
    await popup.closed();
    expect((await driver.tabs()).map((tab) => tab.id)).toEqual([opener.id]);
    expect((await driver.activeTab()).id).toBe(opener.id);
  });

  it.each<[string, Parameters<Locator['click']>[0]]>([
    ['with Ctrl', { modifiers: ['ControlOrMeta'] }],
    ['with the middle button', { button: 'middle' }],
  ])('stops a link opened %s (a tab the browser opens itself, which no route sees) and closes the tab', async (_name, clickOptions) => {
    const guard = hostGuard();
    await driver.goto(fixture('guard-triggers.html', `${denied.origin}/background-tab`));
    const opener = await driver.activeTab();
    await driver.setNavigationGuard(guard);
    const popup = stoppedPopupOf(driver.context);
    await driver.page.locator('#link').click(clickOptions);
    await expectStopped(guard, 'popup', `${denied.origin}/background-tab`);
    await popup.closed();
    expect((await driver.activeTab()).id).toBe(opener.id);
  });

  it.each([
    ['a target=_blank link', '#blank'],
    ['window.open', '#open'],
  ])('stops %s whose URL redirects to a denied host, before the new tab has a page', async (_name, trigger) => {
    const guard = hostGuard();
    await driver.goto(fixture('guard-triggers.html', redirect(redirect(`${denied.origin}/popup-hop`))));
    const opener = await driver.activeTab();
    await driver.setNavigationGuard(guard);
    const popup = stoppedPopupOf(driver.context);
    await driver.page.locator(trigger).click();
    await expectStopped(guard, 'redirect', `${denied.origin}/popup-hop`);
    await popup.closed();
    expect((await driver.activeTab()).id).toBe(opener.id);
  });
});

describe('frames', () => {
  it('stops a frame of the markup and a frame a script adds', async () => {
    const guard = hostGuard();
    await driver.setNavigationGuard(guard);
    await driver.goto(fixture('guard-frame.html', `${denied.origin}/frame`));
    await expectStopped(guard, 'frame', `${denied.origin}/frame`);
    guard.reports.length = 0;
    await driver.goto(fixture('guard-triggers.html', `${denied.origin}/added-frame`));
    await driver.page.locator('#frame').click();
    await expectStopped(guard, 'frame', `${denied.origin}/added-frame`);
  });

  it('stops a frame whose URL redirects to a denied host', async () => {
    const guard = hostGuard();
    await driver.setNavigationGuard(guard);
    await driver.goto(fixture('guard-frame.html', redirect(`${denied.origin}/frame-hop`)));
    await expectStopped(guard, 'redirect', `${denied.origin}/frame-hop`);
  });

  it('stops a redirect inside a frame of another site (its own process)', async (context) => {
    if (!otherSite) return context.skip('127.0.0.3 is not a loopback address here');
    const guard = hostGuard();
    const inner = `${otherSite.origin}/fixtures/guard-triggers.html?to=${encodeURIComponent(`${otherSite.origin}/redirect?to=${encodeURIComponent(`${denied.origin}/oopif-hop`)}`)}`;
    await driver.setNavigationGuard(guard);
    await driver.goto(fixture('guard-frame.html', inner));
    const frame = driver.page.frames().find((candidate) => candidate.url().startsWith(otherSite!.origin));
    expect(frame).toBeDefined();
    await frame!.locator('#link').click();
    await expectStopped(guard, 'redirect', `${denied.origin}/oopif-hop`);
  });
});

describe('pages a service worker controls', () => {
  /** The fixture under the worker's scope, its links going through a redirect to `to`. */
  const workerPage = (to: string): string =>
    `${allowed.origin}/sw/fixtures/guard-service-worker.html?to=${encodeURIComponent(`${allowed.origin}/sw/redirect?to=${encodeURIComponent(to)}`)}`;

  afterEach(async () => {
    // A failed case may leave its new tab open and active: back to the first tab before unregistering the worker.
    await singleTab();
    await driver.goto(`${allowed.origin}/echo`);
    await driver.page.evaluate(async () => Promise.all((await navigator.serviceWorker.getRegistrations()).map((registration) => registration.unregister())));
  });

  // The worker passes the navigation on to the network, and Chromium then sends each redirect hop
  // as a request of its own: neither the route nor a session sees it as a redirect.
  it('stops a redirect hop of a link, in the tab and in a new one', async () => {
    const guard = hostGuard();
    const page = workerPage(`${denied.origin}/worker-hop`);
    await driver.setNavigationGuard(guard);
    await driver.goto(page);
    await driver.page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 5000 });
    await driver.page.locator('#link').click();
    await expectStopped(guard, 'navigation', `${denied.origin}/worker-hop`);
    expect(await driver.currentUrl()).toBe(page);
    guard.reports.length = 0;
    const popup = stoppedPopupOf(driver.context);
    await driver.page.locator('#blank').click();
    await expectStopped(guard, 'popup', `${denied.origin}/worker-hop`);
    await popup.closed();
  });
});

describe('speculative loads', () => {
  it('cancels a link rel=prefetch to a denied host', async () => {
    const guard = hostGuard();
    await driver.setNavigationGuard(guard);
    await driver.goto(fixture('guard-prefetch.html', `${denied.origin}/prefetch`));
    await expectStopped(guard, 'prefetch', `${denied.origin}/prefetch`);
  });

  it('sends nothing for a link rel=prerender (Chromium ignores the old hint; the test keeps it that way)', async () => {
    await driver.setNavigationGuard(hostGuard());
    await driver.goto(fixture('guard-prerender-hint.html', `${denied.origin}/prerender`));
    await sleep(800);
    expect(denied.received).toEqual([]);
  });

  it('runs no speculation rules in a launched browser, with or without a guard', async () => {
    await driver.goto(fixture('guard-speculation.html', `${denied.origin}/speculation`));
    await sleep(1000);
    expect(denied.received).toEqual([]);
    await driver.setNavigationGuard(hostGuard());
    await driver.goto(fixture('guard-speculation.html', `${denied.origin}/speculation`));
    await sleep(1000);
    expect(denied.received).toEqual([]);
  });
});

describe('the check after commit', () => {
  it('leaves a page that loaded without a request (a blob: document) for about:blank', async () => {
    const guard = hostGuard();
    const page = fixture('guard-blob.html', '');
    await driver.goto(page);
    await driver.setNavigationGuard({
      ...guard,
      check: (url) => (url.startsWith('blob:') ? { allowed: false, reason: 'blob: pages are not allowed' } : { allowed: true, reason: 'allowed' }),
    });
    await driver.page.locator('#blob').click();
    expect(await eventually(() => guard.reports.length > 0)).toBe(true);
    expect(guard.reports[0]).toMatchObject({ kind: 'navigation', reason: 'blob: pages are not allowed' });
    expect(guard.reports[0]!.url).toMatch(/^blob:/);
    expect(await eventually(() => driver.page.url() === 'about:blank')).toBe(true);
  });

  it('leaves a data: frame the guard denies for about:blank', async () => {
    const guard = hostGuard();
    await driver.goto(fixture('guard-blob.html', ''));
    await driver.setNavigationGuard({
      ...guard,
      check: (url) => (url.startsWith('data:') ? { allowed: false, reason: 'data: frames are not allowed' } : { allowed: true, reason: 'allowed' }),
    });
    await driver.page.locator('#data-frame').click();
    expect(await eventually(() => guard.reports.length > 0)).toBe(true);
    expect(guard.reports[0]).toMatchObject({ kind: 'frame', reason: 'data: frames are not allowed' });
    expect(await eventually(() => driver.page.frames()[1]?.url() === 'about:blank')).toBe(true);
  });
});

describe('what the guard allows', () => {
  it('follows an allowed redirect chain, keeping cookies set on the way', async () => {
    const guard = hostGuard();
    await driver.setNavigationGuard(guard);
    await driver.goto(redirect(redirect(`${allowed.origin}/echo`, 307, 'second'), 302, 'first'));
    expect(await driver.currentUrl()).toBe(`${allowed.origin}/echo`);
    expect(await driver.page.locator('#cookie').textContent()).toBe('first=yes; second=yes');
    expect(guard.reports).toEqual([]);
  });

  it('submits an allowed POST form, through a 307 redirect, with its body', async () => {
    const guard = hostGuard();
    await driver.goto(fixture('guard-triggers.html', redirect(`${allowed.origin}/echo`, 307)));
    await driver.setNavigationGuard(guard);
    await driver.page.locator('#form-post button').click();
    await driver.waitForSettled();
    expect(await driver.page.locator('#method').textContent()).toBe('POST');
    expect(await driver.page.locator('#body').textContent()).toBe('secret=s3cret');
    expect(guard.reports).toEqual([]);
  });

  it('opens an allowed popup, through a redirect, as a new active tab', async () => {
    const guard = hostGuard();
    await driver.goto(fixture('guard-triggers.html', redirect(`${allowed.origin}/echo`)));
    await driver.setNavigationGuard(guard);
    await driver.page.locator('#blank').click();
    expect(await eventually(() => driver.context.pages().length === 2)).toBe(true);
    await driver.waitForSettled();
    expect((await driver.activeTab()).url).toBe(`${allowed.origin}/echo`);
    expect((await driver.tabs()).length).toBe(2);
    expect(guard.reports).toEqual([]);
  });

  it('loads an allowed frame through a redirect, and one of another site (its own process)', async () => {
    const guard = hostGuard();
    await driver.setNavigationGuard(guard);
    await driver.goto(fixture('guard-frame.html', redirect(`${allowed.origin}/echo`)));
    expect(await eventually(() => driver.page.frames()[1]?.url() === `${allowed.origin}/echo`)).toBe(true);
    const site = otherSite ?? allowed;
    await driver.goto(fixture('guard-frame.html', `${site.origin}/redirect?to=${encodeURIComponent(`${site.origin}/echo`)}`));
    expect(await eventually(() => driver.page.frames()[1]?.url() === `${site.origin}/echo`)).toBe(true);
    expect(guard.reports).toEqual([]);
  });
});

describe('installing and removing', () => {
  it('removes everything it added when the guard is removed, and navigations reach the host again', async () => {
    await driver.goto(allowed.origin + '/echo');
    // Playwright's pages and contexts are event emitters; the typings leave listenerCount out.
    type Emitter = { listenerCount(event: string): number };
    const page = driver.page as unknown as Emitter;
    const context = driver.context as unknown as Emitter;
    const counts = (): number[] => [page.listenerCount('framenavigated'), page.listenerCount('close'), context.listenerCount('page')];
    const before = counts();
    await driver.setNavigationGuard(hostGuard());
    await driver.setNavigationGuard(hostGuard()); // a second guard replaces the first
    expect(counts()).toEqual([before[0]! + 1, before[1]! + 1, before[2]! + 1]);
    await driver.setNavigationGuard(undefined);
    expect(counts()).toEqual(before);
    await driver.goto(fixture('guard-triggers.html', `${denied.origin}/after-removal`));
    await driver.page.locator('#link').click();
    expect(await eventually(() => reached('/after-removal'))).toBe(true);
  });

  it('leaves a page that a replacing guard denies, as installing it would', async () => {
    await driver.setNavigationGuard(hostGuard(() => 'nothing.invalid'));
    await driver.goto(`${denied.origin}/before-replacement`);
    const guard = hostGuard();
    await driver.setNavigationGuard(guard);
    expect(await eventually(() => driver.page.url() === 'about:blank')).toBe(true);
    expect(guard.reports).toEqual([expect.objectContaining({ kind: 'navigation', url: `${denied.origin}/before-replacement` })]);
  });

  it('reports to the latest guard after a replacement', async () => {
    const first = hostGuard();
    const second = hostGuard();
    await driver.setNavigationGuard(first);
    await driver.setNavigationGuard(second);
    await expect(driver.goto(`${denied.origin}/replaced`)).rejects.toThrow(URLNotAllowedError);
    expect(first.reports).toEqual([]);
    expect(second.reports).toHaveLength(1);
  });

  it('denies what a failing guard cannot judge', async () => {
    const reports: BlockedNavigation[] = [];
    await driver.setNavigationGuard({
      check: () => {
        throw new Error('policy store unreachable');
      },
      blocked: (navigation) => reports.push(navigation),
    });
    await expect(driver.goto(`${allowed.origin}/echo`)).rejects.toThrow(/the URL policy failed: policy store unreachable/);
    expect(reports).toHaveLength(1);
  });
});

describe('a browser the driver attached to', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: findChromium(), args: ['--no-sandbox', '--disable-gpu'] });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('removes speculation rules from documents while a guard is set (a profile it did not make may run them)', async () => {
    const control = await browser.newContext();
    const context = await browser.newContext();
    try {
      const page = await control.newPage();
      await page.goto(fixture('guard-speculation.html', `${denied.origin}/speculation`));
      // Without the guard this browser prefetches: the check below can fail.
      expect(await eventually(() => denied.received.length > 0)).toBe(true);
      await control.close();
      await sleep(200);
      denied.received.length = 0;
      const attached = await PlaywrightDriver.attach(context);
      await attached.setNavigationGuard(hostGuard());
      await attached.goto(fixture('guard-speculation.html', `${denied.origin}/speculation`));
      await sleep(1000);
      expect(denied.received).toEqual([]);
      await attached.close();
    } finally {
      await context.close();
    }
  });

  it('stops a redirect in a frame no session saw (in a new tab, inside a frame of another site), and only in its own context', async () => {
    const other = await browser.newContext();
    const context = await browser.newContext();
    try {
      const guard = hostGuard();
      const attached = await PlaywrightDriver.attach(context);
      await attached.setNavigationGuard(guard);
      // The control: the same kind of frame in another context is not this guard's to stop.
      await (await other.newPage()).goto(fixture('guard-frame.html', redirect(`${denied.origin}/other-frame`)));
      expect(await eventually(() => reached('/other-frame'))).toBe(true);
      expect(guard.reports).toEqual([]);
      denied.received.length = 0;
      await attached.goto(fixture('guard-triggers.html', redirect(`${denied.origin}/new-tab-frame`)));
      await attached.page.locator('#open-frame').click();
      await expectStopped(guard, 'redirect', `${denied.origin}/new-tab-frame`);
      if (otherSite) {
        guard.reports.length = 0;
        const inner = `${otherSite.origin}/fixtures/guard-frame.html?to=${encodeURIComponent(redirect(`${denied.origin}/nested-frame`))}`;
        await attached.goto(fixture('guard-frame.html', inner));
        await expectStopped(guard, 'redirect', `${denied.origin}/nested-frame`);
      }
      await attached.close();
    } finally {
      await Promise.all([other.close(), context.close()]);
    }
  });

  it('acts only on its own context: another context of the browser is left alone', async () => {
    const other = await browser.newContext();
    const context = await browser.newContext();
    try {
      const guard = hostGuard();
      const attached = await PlaywrightDriver.attach(context);
      await attached.setNavigationGuard(guard);
      const page = await other.newPage();
      await page.goto(fixture('guard-triggers.html', redirect(`${denied.origin}/other-context`)));
      await page.locator('#open').click();
      expect(await eventually(() => reached('/other-context'))).toBe(true);
      expect(guard.reports).toEqual([]);
      // Its own popups and frames are guarded all the same.
      await attached.goto(fixture('guard-triggers.html', redirect(`${denied.origin}/own-popup`)));
      const ownPopup = stoppedPopupOf(context);
      await attached.page.locator('#open').click();
      expect(await eventually(() => guard.reports.length === 1)).toBe(true);
      // The guard reports the popup's denied hop, then closes the popup: load the next page once
      // it is gone, or the load may start in the popup as it closes (net::ERR_ABORTED).
      await ownPopup.closed();
      await attached.goto(fixture('guard-frame.html', redirect(`${denied.origin}/own-frame`)));
      expect(await eventually(() => guard.reports.length === 2)).toBe(true);
      await sleep(300);
      expect(guard.reports).toEqual([
        expect.objectContaining({ kind: 'redirect', url: `${denied.origin}/own-popup` }),
        expect.objectContaining({ kind: 'redirect', url: `${denied.origin}/own-frame` }),
      ]);
      expect(reached('/own-popup') || reached('/own-frame')).toBe(false);
      await attached.close();
    } finally {
      await Promise.all([other.close(), context.close()]);
    }
  });
});
