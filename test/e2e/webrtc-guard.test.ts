// WebRTC under the `all-requests` scope, in real headless Chromium with both drivers: a page on
// 127.0.0.1 points ICE at UDP listeners on 127.0.0.2 (a STUN server, a remote peer given by
// addIceCandidate, one written into a remote description), which must receive no packet.
import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BlockedNavigation, BrowserDriver, NavigationGuard, NavigationGuardStatus } from '../../src/browser/types';
import { Executor, type ExecutorEventMap } from '../../src/index';
import { PlaywrightDriver } from '../../src/playwright/index';
import { PuppeteerDriver } from '../../src/puppeteer/index';
import { UrlPolicy } from '../../src/security/url-policy';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../../src/testing/index';

/** A UDP listener on the denied host that answers nothing and counts what it receives. */
interface Listener {
  readonly address: string;
  readonly packets: number[];
  readonly socket: Socket;
}

async function listen(): Promise<Listener> {
  const socket = createSocket('udp4');
  const packets: number[] = [];
  socket.on('message', (message) => packets.push(message.length));
  await new Promise<void>((done) => socket.bind(0, '127.0.0.2', done));
  return { address: `127.0.0.2:${socket.address().port}`, packets, socket };
}

/**
 * Four ways to reach the denied host by ICE: a STUN server of the page, the same from a fresh
 * about:blank frame's own `RTCPeerConnection`, a remote candidate given to `addIceCandidate`, and
 * one written into the remote description. `window.webrtcDone` is set when all four ran.
 */
const pageScript = `
const query = new URLSearchParams(location.search);
window.outcome = {};
async function server(Connection, label, address) {
  try {
    const connection = new Connection({ iceServers: [{ urls: ['stun:' + address] }] });
    connection.createDataChannel('data');
    await connection.setLocalDescription(await connection.createOffer());
    outcome[label] = 'ok';
  } catch (error) { outcome[label] = 'error ' + error.name; }
}
async function peer(label, address, inDescription) {
  try {
    const local = new RTCPeerConnection();
    const remote = new RTCPeerConnection();
    local.createDataChannel('data');
    await local.setLocalDescription(await local.createOffer());
    await remote.setRemoteDescription(local.localDescription);
    await remote.setLocalDescription(await remote.createAnswer());
    const [host, port] = address.split(':');
    const candidate = 'candidate:1 1 udp 2122260223 ' + host + ' ' + port + ' typ host';
    let sdp = remote.localDescription.sdp;
    const mid = /a=mid:(\\S+)/.exec(sdp)[1];
    if (inDescription) sdp = sdp.replace(/(a=mid:[^\\r\\n]*\\r\\n)/, '$1a=' + candidate + '\\r\\n');
    await local.setRemoteDescription({ type: 'answer', sdp });
    if (!inDescription) await local.addIceCandidate({ candidate, sdpMid: mid });
    outcome[label] = 'ok';
  } catch (error) { outcome[label] = 'error ' + error.name; }
}
addEventListener('load', async () => {
  const frame = document.createElement('iframe');
  document.body.append(frame);
  await Promise.all([
    server(RTCPeerConnection, 'server', query.get('server')),
    server(frame.contentWindow.RTCPeerConnection, 'frame', query.get('frame')),
    peer('candidate', query.get('candidate'), false),
    peer('description', query.get('description'), true),
  ]);
  window.webrtcDone = true;
});`;

let site: Server;
let siteOrigin: string;

beforeAll(async () => {
  site = createServer((_request, response) => {
    response
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
      .end(`<!doctype html><title>WebRTC</title><script>${pageScript}</script>`);
  });
  await new Promise<void>((done) => site.listen(0, '127.0.0.1', done));
  siteOrigin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

afterAll(async () => {
  site.closeAllConnections();
  await new Promise((done) => site.close(done));
});

const cases = ['server', 'frame', 'candidate', 'description'] as const;
let listeners: Record<(typeof cases)[number], Listener>;

beforeEach(async () => {
  listeners = Object.fromEntries(await Promise.all(cases.map(async (name) => [name, await listen()] as const))) as typeof listeners;
  return async () => {
    await Promise.all(Object.values(listeners).map((listener) => new Promise<void>((done) => listener.socket.close(() => done()))));
  };
});

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** The page's URL, with each case aimed at its own listener. */
function pageUrl(): string {
  const query = new URLSearchParams(Object.fromEntries(cases.map((name) => [name, listeners[name].address])));
  return `${siteOrigin}/webrtc.html?${query}`;
}

/** Loads the page and waits until its four cases ran, then a moment for packets in flight. */
async function runPage(driver: BrowserDriver, until: () => boolean = () => false): Promise<Record<string, string>> {
  await driver.goto(pageUrl());
  const [top] = await driver.frames();
  const read = { id: 'test/webrtc-outcome', source: '() => window.webrtcDone ? window.outcome : null' };
  let outcome: Record<string, string> | null = null;
  for (const end = Date.now() + 8000; Date.now() < end && outcome === null; await sleep(50)) outcome = await driver.evaluate(top!.id, read, undefined);
  for (const end = Date.now() + 2500; Date.now() < end && !until();) await sleep(50);
  return outcome ?? {};
}

const policy = new UrlPolicy({ deny: ['127.0.0.2'] });

function guard(scope: NavigationGuard['scope']): NavigationGuard & { readonly reports: BlockedNavigation[] } {
  const reports: BlockedNavigation[] = [];
  return { reports, scope, rules: policy.toRules(), check: (url) => policy.check(url), blocked: (navigation) => reports.push(navigation) };
}

const drivers: readonly [string, () => Promise<BrowserDriver>][] = [
  ['PlaywrightDriver', () => PlaywrightDriver.launch({ settle: { maxWaitMs: 1000 } })],
  ['PuppeteerDriver', () => PuppeteerDriver.launch({ settle: { maxWaitMs: 1000 } })],
];

describe.each(drivers)('WebRTC with %s', (_name, launch) => {
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

  it('reaches every listener with the navigation scope (the control: the tests below can fail)', async () => {
    const navigationGuard = guard('navigation');
    await driver.setNavigationGuard?.(navigationGuard);
    const outcome = await runPage(driver, () => cases.every((name) => listeners[name].packets.length > 0));
    expect(outcome).toEqual({ server: 'ok', frame: 'ok', candidate: 'ok', description: 'ok' });
    for (const name of cases) expect(listeners[name].packets.length, name).toBeGreaterThan(0);
    expect(navigationGuard.reports).toEqual([]);
  });

  it('with all-requests, sends no packet to a denied STUN server or peer and reports each as a stopped request', async () => {
    const requestGuard = guard('all-requests');
    const status = (await driver.setNavigationGuard?.(requestGuard)) as NavigationGuardStatus;
    expect(status).toEqual({ scope: 'all-requests', unenforced: expect.not.arrayContaining([expect.stringMatching(/WebRTC/)]) as unknown });
    const outcome = await runPage(driver);
    // The page goes on working: a denied server or candidate is left out, not an error.
    expect(outcome).toEqual({ server: 'ok', frame: 'ok', candidate: 'ok', description: 'ok' });
    for (const name of cases) expect(listeners[name].packets, name).toEqual([]);
    const reported = requestGuard.reports.map((report) => report.url);
    expect(reported).toEqual(
      expect.arrayContaining([
        `stun:${listeners.server.address}`,
        `stun:${listeners.frame.address}`,
        `udp://${listeners.candidate.address}`,
        `udp://${listeners.description.address}`,
      ]),
    );
    expect(
      requestGuard.reports.every((report) => report.kind === 'request' && report.reason === 'host 127.0.0.2 is on the deny list (entry "127.0.0.2")'),
    ).toBe(true);
  });

  it('with all-requests and a guard that gives no rules, says WebRTC goes unchecked, and it does', async () => {
    const { rules: _rules, ...withoutRules } = guard('all-requests');
    const status = (await driver.setNavigationGuard?.(withoutRules)) as NavigationGuardStatus;
    expect(status.unenforced).toEqual(expect.arrayContaining([expect.stringMatching(/^WebRTC connections to STUN and TURN servers and remote peers/)]));
    await runPage(driver, () => listeners.server.packets.length > 0);
    expect(listeners.server.packets.length).toBeGreaterThan(0);
  });

  it('lets WebRTC through again once the guard goes back to the navigation scope', async () => {
    await driver.setNavigationGuard?.(guard('all-requests'));
    await driver.setNavigationGuard?.(guard('navigation'));
    await runPage(driver, () => listeners.server.packets.length > 0);
    expect(listeners.server.packets.length).toBeGreaterThan(0);
  });

  it('is a url-blocked event of kind request in a task of an Executor with that policy', async () => {
    const llm = new ScriptedLLM({
      respond: (request) => {
        if (request.agent === 'navigator')
          return scriptedActions([{ go_to_url: { url: pageUrl() } }, { wait: { seconds: 2 } }, { done: { text: 'Loaded', success: true } }]);
        return request.callIndex === 0 ? scriptedPlan({ nextSteps: 'Open the page' }) : scriptedPlan({ done: true, finalAnswer: 'Loaded' });
      },
    });
    const executor = new Executor({
      sensitiveActions: false,
      task: 'Open the page',
      llm,
      browser: driver,
      urlPolicy: { deny: ['127.0.0.2'], scope: 'all-requests' },
      planningInterval: 1,
    });
    const blocked: ExecutorEventMap['url-blocked'][] = [];
    executor.on('url-blocked', (event) => blocked.push(event));
    try {
      const result = await executor.execute();
      expect(result.status).toBe('ok');
      expect(listeners.server.packets).toEqual([]);
      expect(blocked).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            taskId: result.taskId,
            url: `stun:${listeners.server.address}`,
            kind: 'request',
            reason: 'host 127.0.0.2 is on the deny list (entry "127.0.0.2")',
          }),
        ]),
      );
    } finally {
      await executor.close();
    }
  });
});
