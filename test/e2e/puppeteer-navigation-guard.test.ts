// PuppeteerDriver.setNavigationGuard in real headless Chromium: the ways a page navigates, aimed at
// a recording server on a denied host, must be stopped before any request reaches it.
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import puppeteer, { TargetType } from 'puppeteer-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BlockedNavigation, NavigationGuard } from '../../src/browser/types';
import { URLNotAllowedError } from '../../src/errors';
import { findChromium } from '../../src/puppeteer/find-chromium';
import { PuppeteerDriver } from '../../src/puppeteer/index';
import { eventually } from '../helpers/eventually';

const fixturesDir = resolve(import.meta.dirname, '../fixtures');

/** A server that records the path of every request it gets. */
interface RecordingServer {
  readonly origin: string;
  readonly host: string;
  readonly received: string[];
  close(): Promise<void>;
}

async function startServer(host: string, respond: (request: IncomingMessage, response: ServerResponse) => void | Promise<void>): Promise<RecordingServer> {
  const received: string[] = [];
  const server: Server = createServer((request, response) => {
    received.push(request.url ?? '/');
    void Promise.resolve(respond(request, response)).catch(() => response.writeHead(500).end());
  });
  // 127.0.0.2 is loopback on Linux; elsewhere `localhost` is another site for the browser all the same.
  const name = await new Promise<string>((done, reject) => {
    server.once('error', () => (host === '127.0.0.1' ? reject(new Error('cannot listen')) : server.listen(0, '127.0.0.1', () => done('localhost'))));
    server.listen(0, host, () => done(host));
  });
  return {
    host: name,
    origin: `http://${name}:${(server.address() as AddressInfo).port}`,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
}

const escapeHtml = (text: string): string => text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** The allowed server: `/fixtures/<file>?to=URL` serves a fixture with `{{TO}}` replaced, `/redirect?to=URL` redirects, anything else a small page. */
async function allowedRoutes(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://server');
  if (url.pathname.startsWith('/fixtures/')) {
    const file = resolve(fixturesDir, url.pathname.slice('/fixtures/'.length));
    if (!file.startsWith(fixturesDir)) return void response.writeHead(403).end();
    const page = (await readFile(file, 'utf8')).replaceAll('{{TO}}', escapeHtml(url.searchParams.get('to') ?? ''));
    return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(page);
  }
  if (url.pathname === '/redirect') return void response.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end();
  response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Allowed</title><p>Allowed page</p>');
}

let denied: RecordingServer;
let allowed: RecordingServer;
let driver: PuppeteerDriver;

/** Denies every URL of the recording server's host; records what the driver reports. */
function hostGuard(): NavigationGuard & { readonly reports: BlockedNavigation[] } {
  const reports: BlockedNavigation[] = [];
  return {
    reports,
    check: (url) => {
      const target = new URL(url);
      return target.hostname === denied.host ? { allowed: false, reason: `host ${target.hostname} is on the deny list` } : { allowed: true, reason: 'allowed' };
    },
    blocked: (navigation) => reports.push(navigation),
  };
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

const redirect = (to: string): string => `${allowed.origin}/redirect?to=${encodeURIComponent(to)}`;
const fixture = (file: string, to: string): string => `${allowed.origin}/fixtures/${file}?to=${encodeURIComponent(to)}`;

/** Waits for the guard's report, then a moment more: a request that got through would arrive meanwhile. */
async function expectStopped(guard: ReturnType<typeof hostGuard>, kind: BlockedNavigation['kind'], url: string): Promise<void> {
  expect(await eventually(() => guard.reports.length > 0)).toBe(true);
  await sleep(300);
  expect(denied.received).toEqual([]);
  expect(guard.reports).toEqual([expect.objectContaining({ url, kind, reason: `host ${denied.host} is on the deny list` })]);
}

/** Clicks the element with this id in the active tab with the driver's own (trusted) mouse. */
async function clickId(id: string): Promise<void> {
  const box = await (await driver.page.$(`#${id}`))!.boundingBox();
  await driver.mouseClick(box!.x + box!.width / 2, box!.y + box!.height / 2);
  await driver.waitForSettled();
}

beforeAll(async () => {
  denied = await startServer('127.0.0.2', (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Denied host</title><p>This page must never load.</p>');
  });
  allowed = await startServer('127.0.0.1', allowedRoutes);
  driver = await PuppeteerDriver.launch({ settle: { maxWaitMs: 1500 } });
});

afterAll(async () => {
  await driver?.close();
  await Promise.all([denied?.close(), allowed?.close()]);
});

beforeEach(async () => {
  await driver.setNavigationGuard(undefined);
  const tabs = await driver.tabs();
  for (const tab of tabs.slice(1)) await driver.closeTab(tab.id);
  await driver.switchTab(tabs[0]!.id);
  await driver.goto('about:blank');
  denied.received.length = 0;
});

describe('without a guard (the control: the tests below can fail)', () => {
  it('lets a link reach the denied host', async () => {
    await driver.goto(fixture('guard-triggers.html', `${denied.origin}/control`));
    await clickId('link');
    expect(await eventually(() => denied.received.includes('/control'))).toBe(true);
    expect(await driver.currentUrl()).toBe(`${denied.origin}/control`);
  });

  it('prefetches a link rel=prefetch', async () => {
    await driver.goto(fixture('guard-prefetch.html', `${denied.origin}/prefetch-control`));
    expect(await eventually(() => denied.received.includes('/prefetch-control'))).toBe(true);
  });
});

describe('with a guard', () => {
  it('refuses goto and openTab to a denied URL before any request, and lets allowed ones through', async () => {
    const guard = hostGuard();
    await driver.setNavigationGuard(guard);
    const refusal = await driver.goto(`${denied.origin}/goto`).catch((error: unknown) => error);
    expect(URLNotAllowedError.isInstance(refusal)).toBe(true);
    await expect(driver.openTab(`${denied.origin}/tab`)).rejects.toThrow(/not allowed by the URL policy \(host .* is on the deny list\)/);
    expect(await driver.tabs()).toHaveLength(1);
    expect(denied.received).toEqual([]);
    expect(guard.reports.map((report) => report.kind)).toEqual(['navigation', 'navigation']);
    await driver.goto(`${allowed.origin}/fine`);
    expect(await driver.currentUrl()).toBe(`${allowed.origin}/fine`);
  });

  it('stops a link, a location change and a meta refresh, and the tab stays on its page', async () => {
    for (const trigger of ['link', 'assign'] as const) {
      const guard = hostGuard();
      await driver.setNavigationGuard(guard);
      const page = fixture('guard-triggers.html', `${denied.origin}/${trigger}`);
      await driver.goto(page);
      await clickId(trigger);
      await expectStopped(guard, 'navigation', `${denied.origin}/${trigger}`);
      expect(guard.reports[0]?.tabId).toBe((await driver.activeTab()).id);
    }
    const guard = hostGuard();
    await driver.setNavigationGuard(guard);
    await driver.goto(fixture('guard-meta-refresh.html', `${denied.origin}/refresh`));
    await expectStopped(guard, 'navigation', `${denied.origin}/refresh`);
  });

  it('stops a redirect hop, and goto to an allowed URL that redirects there fails naming the hop', async () => {
    const guard = hostGuard();
    await driver.setNavigationGuard(guard);
    const refusal = await driver.goto(redirect(`${denied.origin}/hop`)).catch((error: unknown) => error);
    expect(URLNotAllowedError.isInstance(refusal)).toBe(true);
    expect((refusal as Error).message).toMatch(/it led to http:\/\/.*\/hop, which the URL policy does not allow/);
    await expectStopped(guard, 'redirect', `${denied.origin}/hop`);
    guard.reports.length = 0;
    await driver.goto(fixture('guard-triggers.html', redirect(`${denied.origin}/link-hop`)));
    await clickId('link');
    await expectStopped(guard, 'redirect', `${denied.origin}/link-hop`);
  });

  it('stops popups (target=_blank, window.open), closes them and keeps the opener active', async () => {
    for (const trigger of ['blank', 'open'] as const) {
      const guard = hostGuard();
      await driver.setNavigationGuard(guard);
      await driver.goto(fixture('guard-triggers.html', `${denied.origin}/${trigger}`));
      const opener = await driver.activeTab();
      await clickId(trigger);
      await expectStopped(guard, 'popup', `${denied.origin}/${trigger}`);
      expect(await eventually(() => driver.page.url() === opener.url)).toBe(true);
      expect((await driver.activeTab()).id).toBe(opener.id);
      expect(
        await eventually(
          () =>
            driver.page
              .browser()
              .targets()
              .filter((target) => target.type() === TargetType.PAGE).length === 1,
        ),
      ).toBe(true);
    }
  });

  it('stops a frame and a prefetch of the denied host, and the page around them loads', async () => {
    const guard = hostGuard();
    await driver.setNavigationGuard(guard);
    await driver.goto(fixture('guard-frame.html', `${denied.origin}/frame`));
    await expectStopped(guard, 'frame', `${denied.origin}/frame`);
    expect((await driver.activeTab()).title).toBe('Guard frame');
    const prefetch = hostGuard();
    await driver.setNavigationGuard(prefetch);
    await driver.goto(fixture('guard-prefetch.html', `${denied.origin}/prefetch`));
    await expectStopped(prefetch, 'prefetch', `${denied.origin}/prefetch`);
  });

  it('lets everything through again once the guard is removed', async () => {
    await driver.setNavigationGuard(hostGuard());
    await driver.setNavigationGuard(undefined);
    await driver.goto(`${denied.origin}/after`);
    expect(denied.received).toContain('/after');
  });
});

describe('the check after commit', () => {
  it('leaves a page that loaded without a request (a blob: document) for about:blank', async () => {
    const guard = hostGuard();
    await driver.goto(fixture('guard-blob.html', ''));
    await driver.setNavigationGuard({
      ...guard,
      check: (url) => (url.startsWith('blob:') ? { allowed: false, reason: 'blob: pages are not allowed' } : { allowed: true, reason: 'allowed' }),
    });
    await clickId('blob');
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
    await clickId('data-frame');
    expect(await eventually(() => guard.reports.length > 0)).toBe(true);
    expect(guard.reports[0]).toMatchObject({ kind: 'frame', reason: 'data: frames are not allowed' });
    expect(await eventually(() => driver.page.frames()[1]?.url() === 'about:blank')).toBe(true);
  });
});

describe('an out-of-process frame', () => {
  it('stops the frame when it navigates itself to the denied host', async () => {
    // A frame on another site (localhost is not 127.0.0.1 to the browser) runs in its own process.
    const crossSite = fixture('guard-triggers.html', `${denied.origin}/from-frame`).replace('127.0.0.1', 'localhost');
    await driver.goto(`${allowed.origin}/outer`);
    await driver.page.evaluate(`document.body.insertAdjacentHTML('beforeend', '<iframe id="cross" src="${crossSite}"></iframe>')`);
    await driver.waitForSettled();
    const frame = driver.page.frames().find((candidate) => candidate.url().startsWith('http://localhost'));
    expect(frame?.url()).toBe(crossSite);
    const guard = hostGuard();
    await driver.setNavigationGuard(guard);
    await frame!.evaluate('document.getElementById("assign").click()');
    await expectStopped(guard, 'frame', `${denied.origin}/from-frame`);
  });
});

describe('speculation rules', () => {
  it('are never run by a launched browser (they cannot be intercepted), where another profile runs them', async () => {
    const control = await puppeteer.launch({ executablePath: findChromium(), headless: true, args: ['--no-sandbox', '--disable-gpu'] });
    try {
      const page = await control.newPage();
      await page.goto(fixture('guard-speculation.html', `${denied.origin}/control`));
      // Without the driver's profile this browser prefetches: the check below can fail.
      expect(await eventually(() => denied.received.some((path) => path.startsWith('/control?speculation=')))).toBe(true);
    } finally {
      await control.close();
    }
    await sleep(200);
    denied.received.length = 0;
    await driver.setNavigationGuard(hostGuard());
    await driver.goto(fixture('guard-speculation.html', `${denied.origin}/speculation`));
    await sleep(1000);
    expect(denied.received).toEqual([]);
  });
});

describe('an attached browser', () => {
  // A browser the driver did not launch runs speculation rules (the test above shows it), and no interception sees
  // their prefetches: the guard removes the rules from the tab's documents.
  it('removes speculation rules from its tab, where the browser would prefetch past the guard', async () => {
    const browser = await puppeteer.launch({ executablePath: findChromium(), headless: true, args: ['--no-sandbox', '--disable-gpu'] });
    try {
      const attached = await PuppeteerDriver.attach(await browser.newPage());
      await attached.setNavigationGuard(hostGuard());
      await attached.goto(fixture('guard-speculation.html', `${denied.origin}/attached-speculation`));
      // The control, after it: the same rules in another context of this browser, which the driver does not drive, are
      // prefetched; once that prefetch arrived, the guarded tab's would have too.
      const control = await (await browser.createBrowserContext()).newPage();
      await control.goto(fixture('guard-speculation.html', `${denied.origin}/control-speculation`));
      expect(await eventually(() => denied.received.some((path) => path.startsWith('/control-speculation?speculation=')))).toBe(true);
      expect(denied.received.filter((path) => path.startsWith('/attached-speculation'))).toEqual([]);
      await attached.close();
    } finally {
      await browser.close();
    }
  });

  it('guards only the context the driver drives', async () => {
    const browser = await puppeteer.launch({ executablePath: findChromium(), headless: true, args: ['--no-sandbox', '--disable-gpu'] });
    try {
      const mine = await browser.createBrowserContext();
      const theirs = await browser.createBrowserContext();
      const attached = await PuppeteerDriver.attach(await mine.newPage());
      const guard = hostGuard();
      await attached.setNavigationGuard(guard);
      await expect(attached.goto(redirect(`${denied.origin}/mine`))).rejects.toThrow(URLNotAllowedError);
      const other = await theirs.newPage();
      await other.goto(redirect(`${denied.origin}/theirs`));
      expect(other.url()).toBe(`${denied.origin}/theirs`);
      expect(denied.received).toContain('/theirs');
      expect(denied.received).not.toContain('/mine');
      await attached.close();
    } finally {
      await browser.close();
    }
  });
});
