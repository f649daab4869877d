// `plannav ui` refuses everyone but this user's own page: the token, the Host and Origin checks, no CORS,
// its CSP and its loopback-only socket, by raw HTTP and by a hostile page in the same Chromium.
import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server';
import { currentState, launchChromium, recordStatuses, startRunPage, statesSeen, testId, type RunPage } from '../helpers/ui-run-page';

/** The words a run started by an attack would carry in its task, and so in the events. */
const attackMarker = 'ATTACKER-TASK-91c2';
/** The words of the one run this file starts itself, from the page: proof that a run that starts is seen. */
const controlMarker = 'CONTROL-RUN-5d1e';

let runPage: RunPage | undefined;
let browser: Browser | undefined;
let attacker: RecordingServer | undefined;
let context: BrowserContext;
/** The user's own page, open from the start: it sees any run begin. */
let ownPage: Page;
/** An authorised Server-Sent Events stream, read from the start: every event the server sent. */
let events = '';
let eventStream: ClientRequest | undefined;

beforeAll(async () => {
  const [started, launched] = await Promise.allSettled([
    startRunPage({ demo: true, open: false, demoStepDelayMs: 200 }),
    // Two names that resolve to loopback, as a DNS-rebinding attacker's names do (no DNS is asked).
    launchChromium(['--host-resolver-rules=MAP evil.example 127.0.0.1, MAP rebound.example 127.0.0.1']),
  ]);
  if (started.status === 'fulfilled') runPage = started.value;
  if (launched.status === 'fulfilled') browser = launched.value;
  if (started.status === 'rejected') throw started.reason;
  if (launched.status === 'rejected') throw launched.reason;
  attacker = await startRecordingServer('127.0.0.2', (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>A site on another origin</title><p>Nothing to see.</p>');
  });
  context = await launched.value.newContext();
  context.setDefaultTimeout(15_000);
  await recordStatuses(context);
  ownPage = await context.newPage();
  await ownPage.goto(started.value.url);
  await ownPage.locator(testId('task-input')).waitFor({ state: 'visible' });

  // An authorised reader of the events, from before anything else happens.
  const opened = await new Promise<{ request: ClientRequest; status: number | undefined; type: string | undefined }>((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port: started.value.port, path: `/events?token=${started.value.token}`, agent: false });
    outgoing.on('error', reject);
    outgoing.on('response', (incoming) => {
      incoming.setEncoding('utf8');
      incoming.on('data', (text: string) => (events += text));
      incoming.on('error', () => undefined); // destroyed at the end
      resolve({ request: outgoing, status: incoming.statusCode, type: incoming.headers['content-type'] });
    });
    outgoing.end();
  });
  eventStream = opened.request;
  expect(opened.status).toBe(200);
  expect(opened.type).toMatch(/^text\/event-stream/);
}, 60_000);

afterAll(async () => {
  eventStream?.destroy();
  await context?.close();
  await browser?.close();
  await attacker?.close();
  await runPage?.close();
});

function started(): RunPage {
  if (!runPage) throw new Error('the run page did not start');
  return runPage;
}

const origin = (): string => `http://127.0.0.1:${started().port}`;
const pagePath = (): string => new URL(started().url).pathname;

interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** Every response the raw requests got, to check none of them grants CORS. */
const rawResponses: { what: string; response: RawResponse }[] = [];

/**
 * A request by node:http, which sends the Host and Origin given (a browser would not let a page set them).
 * An event stream that is answered 200 is read no further.
 */
function raw(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({
      host: '127.0.0.1',
      port: started().port,
      method,
      path,
      agent: false,
      headers: { host: `127.0.0.1:${started().port}`, ...headers },
    });
    outgoing.setTimeout(10_000, () => outgoing.destroy(new Error(`${method} ${path}: no answer in 10 s`)));
    outgoing.on('error', reject);
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      const finish = (): void => {
        const response = { status: incoming.statusCode ?? 0, headers: incoming.headers, body: Buffer.concat(chunks).toString('utf8') };
        rawResponses.push({ what: `${method} ${path} ${JSON.stringify(headers)}`, response });
        resolve(response);
      };
      if (incoming.statusCode === 200 && String(incoming.headers['content-type']).startsWith('text/event-stream')) {
        finish();
        incoming.destroy();
        return;
      }
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', finish);
      incoming.on('error', reject);
    });
    outgoing.end(body);
  });
}

const runBody = JSON.stringify({ task: `${attackMarker}: buy everything in the shop` });
const json = { 'content-type': 'application/json' };

/** Expects a refusal that gives nothing away: the status, and no token in the body. */
function expectRefused(response: RawResponse, status: 401 | 403): void {
  expect(response.status).toBe(status);
  expect(response.body).not.toContain(started().token);
}

describe('plannav ui: who may use it', () => {
  it('hands out a long random token in a loopback URL', () => {
    const url = new URL(started().url);
    expect(url.host).toBe(`127.0.0.1:${started().port}`);
    expect(url.searchParams.get('token')).toBe(started().token);
    expect(started().token).toMatch(/^[A-Za-z0-9_-]{22,}$/);
  });

  it('serves the page with its token only, under a strict Content-Security-Policy', async () => {
    expectRefused(await raw('GET', pagePath()), 401);
    const wrongToken = started().token.replace(/^./, (first) => (first === 'a' ? 'b' : 'a'));
    expectRefused(await raw('GET', `${pagePath()}?token=${wrongToken}`), 401);

    const served = await raw('GET', `${pagePath()}?token=${started().token}`);
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toMatch(/text\/html/);
    const policy = String(served.headers['content-security-policy'] ?? '');
    const directives = new Map(
      policy
        .split(';')
        .map((directive) => directive.trim().split(/\s+/))
        .filter(([name]) => name)
        .map(([name, ...sources]) => [name?.toLowerCase() ?? '', sources]),
    );
    // Like the HTML report's: nothing is allowed unless named, and nothing is named off the page's own origin.
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    for (const [name, sources] of directives) {
      for (const source of sources) {
        expect(source, `${name} ${source}`).toMatch(/^(?:'self'|'none'|data:|blob:|'nonce-[^']+'|'sha(?:256|384|512)-[^']+'|'unsafe-inline')$/);
        if (source === "'unsafe-inline'") expect(name, "'unsafe-inline' outside style-src").toMatch(/^style-src/);
      }
    }

    // The other loopback name a person may type works too.
    const byName = await raw('GET', `${pagePath()}?token=${started().token}`, { host: `localhost:${started().port}` });
    expect(byName.status).toBe(200);
  });

  it('refuses a foreign Host, as a DNS-rebinding page sends it, even with the token', async () => {
    const port = started().port;
    const token = started().token;
    const foreignHosts = [`evil.example:${port}`, `127.0.0.1.nip.io:${port}`, `localhost.evil.example:${port}`, `[::1]:${port}`, '127.0.0.1', `127.0.0.1:1`];
    for (const host of foreignHosts) {
      expectRefused(await raw('GET', `${pagePath()}?token=${token}`, { host }), 403);
      expectRefused(await raw('GET', `/events?token=${token}`, { host }), 403);
      expectRefused(await raw('POST', '/api/run', { host, ...json, 'x-plannav-token': token }, runBody), 403);
    }
  });

  it('refuses a foreign Origin, even with the token', async () => {
    const token = started().token;
    const foreignOrigins = [
      'http://evil.example',
      `http://evil.example:${started().port}`,
      'null',
      `http://127.0.0.2:${started().port}`,
      `https://127.0.0.1:${started().port}`,
    ];
    for (const foreign of foreignOrigins) {
      expectRefused(await raw('POST', '/api/run', { origin: foreign, ...json, 'x-plannav-token': token }, runBody), 403);
      expectRefused(await raw('POST', `/api/run?token=${token}`, { origin: foreign, ...json, authorization: `Bearer ${token}` }, runBody), 403);
      expectRefused(await raw('GET', `/events?token=${token}`, { origin: foreign }), 403);
    }
  });

  it('asks for the token on every command and on the event stream', async () => {
    const ownOrigin = { origin: origin() };
    expectRefused(await raw('POST', '/api/run', { ...ownOrigin, ...json }, runBody), 401);
    expectRefused(await raw('POST', '/api/run', { ...ownOrigin, ...json, 'x-plannav-token': 'not-the-token' }, runBody), 401);
    expectRefused(await raw('POST', '/api/run', { ...ownOrigin, ...json, authorization: 'Bearer not-the-token' }, runBody), 401);
    expectRefused(await raw('GET', '/events'), 401);
    expectRefused(await raw('GET', '/events?token=not-the-token'), 401);

    // Each form of the token opens the stream.
    expect((await raw('GET', `/events?token=${started().token}`)).status).toBe(200);
    expect((await raw('GET', '/events', { authorization: `Bearer ${started().token}` })).status).toBe(200);
    expect((await raw('GET', '/events', { 'x-plannav-token': started().token })).status).toBe(200);
  });

  it('grants no CORS preflight, and no response carries a CORS header', async () => {
    const preflight = { 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-plannav-token' };
    const foreign = await raw('OPTIONS', '/api/run', { origin: 'http://evil.example', ...preflight });
    expect(foreign.status).toBeGreaterThanOrEqual(400);
    await raw('OPTIONS', '/api/run', { origin: origin(), ...preflight });

    expect(rawResponses.length).toBeGreaterThan(40);
    const granting = rawResponses.filter(({ response }) => Object.keys(response.headers).some((name) => name.startsWith('access-control-allow')));
    expect(granting.map(({ what }) => what)).toEqual([]);
  });

  it('listens on 127.0.0.1 only', async () => {
    const refusal = (host: string): Promise<string> =>
      new Promise((resolve) => {
        const socket = connect({ host, port: started().port });
        socket.setTimeout(5_000, () => {
          socket.destroy();
          resolve('timeout');
        });
        socket.once('connect', () => {
          socket.destroy();
          resolve('connected');
        });
        socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      });
    expect(await refusal('127.0.0.2')).toBe('ECONNREFUSED');
    expect(await refusal('::1')).not.toBe('connected');
    const outward = Object.values(networkInterfaces())
      .flat()
      .filter((address) => address && !address.internal && address.family === 'IPv4')
      .map((address) => address?.address ?? '');
    for (const address of outward) expect(await refusal(address), address).not.toBe('connected');
  });
});

describe('plannav ui: a hostile page in the same browser', () => {
  it('is refused at the Host check when it reaches the server by a rebound name', async () => {
    const page = await context.newPage();
    try {
      for (const name of ['evil.example', 'rebound.example']) {
        const response = await page.goto(`http://${name}:${started().port}${pagePath()}?token=${started().token}`);
        expect(response?.status(), name).toBe(403);
        expect(await page.content()).not.toContain(started().token);
      }
    } finally {
      await page.close();
    }
  });

  it('cannot start a run from another origin, with or without the token', { timeout: 30_000 }, async () => {
    const page = await context.newPage();
    const apiResponses: { method: string; url: string; status: number; corsHeaders: string[] }[] = [];
    page.on('response', (response) => {
      if (!response.url().startsWith(`${origin()}/`)) return;
      const corsHeaders = Object.keys(response.headers()).filter((name) => name.startsWith('access-control-allow'));
      apiResponses.push({ method: response.request().method(), url: response.url(), status: response.status(), corsHeaders });
    });
    try {
      await page.goto(`${attacker?.origin ?? ''}/`);
      const outcome = await page.evaluate(
        async ({ target, token, task }) => {
          const body = JSON.stringify({ task });
          const settle = (promise: Promise<unknown>): Promise<string> =>
            promise.then(
              () => 'sent',
              (error: unknown) => `rejected: ${String(error)}`,
            );
          const withTimeout = (promise: Promise<unknown>): Promise<unknown> =>
            Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve('timeout'), 5_000))]);
          const results: Record<string, string> = {};
          // Simple requests, which a browser sends without asking first (the answer is opaque to the page).
          results.simpleWithoutToken = await settle(
            fetch(`${target}/api/run`, { method: 'POST', mode: 'no-cors', body, headers: { 'content-type': 'text/plain' } }),
          );
          results.simpleWithToken = await settle(
            fetch(`${target}/api/run?token=${token}`, { method: 'POST', mode: 'no-cors', body, headers: { 'content-type': 'text/plain' } }),
          );
          // Requests that need a CORS preflight: the server must not grant it.
          results.headerToken = await settle(
            fetch(`${target}/api/run`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-plannav-token': token } }),
          );
          results.bearerToken = await settle(
            fetch(`${target}/api/run`, { method: 'POST', body, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` } }),
          );
          // An image: a GET with no Origin header at all.
          for (const [name, source] of [
            ['imageWithoutToken', `${target}/api/run`],
            ['imageWithToken', `${target}/api/run?token=${token}&task=${encodeURIComponent(task)}`],
          ] as const) {
            const image = new Image();
            results[name] = String(
              await withTimeout(
                new Promise((resolve) => {
                  image.onload = () => resolve('loaded');
                  image.onerror = () => resolve('error');
                  image.src = source;
                }),
              ),
            );
          }
          // A form posted into a frame, crafted so that its text/plain body reads as the command's JSON.
          for (const [name, action] of [
            ['formWithoutToken', `${target}/api/run`],
            ['formWithToken', `${target}/api/run?token=${token}`],
          ] as const) {
            const frame = document.createElement('iframe');
            frame.name = name;
            document.body.append(frame);
            const form = document.createElement('form');
            Object.assign(form, { method: 'POST', action, target: name, enctype: 'text/plain' });
            const field = document.createElement('input');
            field.name = `{"task":"${task}","padding":"`;
            field.value = '"}';
            form.append(field);
            document.body.append(form);
            const loaded = new Promise((resolve) => frame.addEventListener('load', () => resolve('loaded'), { once: true }));
            form.submit();
            results[name] = String(await withTimeout(loaded));
          }
          // Reading the events from another origin.
          const source = new EventSource(`${target}/events?token=${token}`);
          let messages = 0;
          source.onmessage = () => messages++;
          results.events = String(
            await withTimeout(
              new Promise((resolve) => {
                source.onerror = () => resolve('error');
                source.onopen = () => resolve('open');
              }),
            ),
          );
          source.close();
          results.eventMessages = String(messages);
          return results;
        },
        { target: origin(), token: started().token, task: `${attackMarker}: buy everything in the shop` },
      );

      // What needs a preflight never leaves the browser; the event stream does not open.
      expect(outcome.headerToken).toMatch(/^rejected/);
      expect(outcome.bearerToken).toMatch(/^rejected/);
      expect(outcome.events).toBe('error');
      expect(outcome.eventMessages).toBe('0');
      // The rest reached the server, which refused each one: two fetches and two forms (POST), two images.
      await expect.poll(() => apiResponses.filter((response) => response.method === 'POST').length).toBeGreaterThanOrEqual(4);
      await expect.poll(() => apiResponses.length).toBeGreaterThanOrEqual(6);
      expect(apiResponses.filter((response) => response.status < 400)).toEqual([]);
      expect(apiResponses.filter((response) => response.corsHeaders.length > 0)).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('started no run: the own page and the event stream saw none until the user started one', { timeout: 30_000 }, async () => {
    // Nothing so far: no run state on the user's page, no step card, and the attack's task in no event.
    expect(await statesSeen(ownPage)).toEqual([]);
    expect(await ownPage.locator(testId('step-card')).count()).toBe(0);
    expect(events).not.toContain(attackMarker);

    // The control: a run the user starts shows on the page and in the events, so the checks above can fail.
    const input = ownPage.locator(testId('task-input'));
    const demoTask = (await input.inputValue()) || ((await input.getAttribute('placeholder')) ?? '');
    await input.fill(`${demoTask} (${controlMarker})`);
    await ownPage.locator(testId('submit')).click();
    await expect.poll(() => events, { timeout: 15_000 }).toContain(controlMarker);
    await expect.poll(() => currentState(ownPage)).toBe('running');
    await ownPage.locator(testId('stop')).click();
    await expect.poll(() => statesSeen(ownPage), { timeout: 15_000 }).toEqual(['running', 'cancelled']);
    // The events are in order: a run the attack had started would have come before the control's.
    expect(events).not.toContain(attackMarker);
  });
});
