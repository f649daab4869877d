// Secrets the model never sees, end to end in headless Chromium: a login form on 127.0.0.1 gets
// the real values while every sink holds only the placeholders: each model request body as the
// provider server (OpenAI wire format, on loopback) receives it, the model cassette, the history
// file, the journal and the HTML report, every event payload, the result, its errors and causes,
// and the final answer. The page echoes the password back every way it can (text, title, an
// input's value, an attribute, the URL after a GET form and a redirect, a link to a denied host
// the model clicks), a custom action leaks it in its result and in an error, and a secret bound
// to a host the run never visits never shows.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAction, Executor, type ExecutorEvent } from '../../src/index';
import { createRunReport, recordRun, saveHistory } from '../../src/node/index';
import { OpenAIChatModel } from '../../src/openai/index';
import { PlaywrightDriver } from '../../src/playwright/index';
import { recordModelCalls, scriptedActions, scriptedPlan } from '../../src/testing/index';
import { openAIWireFormat } from '../../src/testing/model-conformance-openai';
import { LoopbackServer } from '../../src/testing/model-conformance-server';
import type { Answer, WireCall } from '../../src/testing/model-conformance-wire';

const USER = 'ada.lovelace@analytical.example';
const PASSWORD = 'Tr0ub4dor&3 "horse"<x>';
const NEVER = 'NEVER-SEEN-api-key-7731';

/** Every form a value may take in a sink. */
function forms(value: string): string[] {
  return [
    value,
    encodeURIComponent(value),
    encodeURIComponent(value).replace(/%20/g, '+'),
    encodeURI(value),
    value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'),
    JSON.stringify(value).slice(1, -1),
  ];
}

/** The sinks that hold a form of a secret value. */
function leaks(sinks: Readonly<Record<string, string>>): string[] {
  return Object.entries(sinks).flatMap(([sink, text]) =>
    [USER, PASSWORD, NEVER].flatMap((value) => (forms(value).some((form) => text.includes(form)) ? [`${sink} holds ${value}`] : [])),
  );
}

const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The login site: a GET form, a redirect that carries the password, and a page that echoes it every way. */
function site(denied: string): { server: Server; received: string[] } {
  const received: string[] = [];
  const page = (title: string, body: string): string => `<!doctype html><html><head><title>${escapeHtml(title)}</title></head><body>${body}</body></html>`;
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://site');
    const html = (body: string): void => void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    if (url.pathname === '/login') {
      html(
        page(
          'Sign in',
          `<form method="get" action="/session"><label>Email <input name="user" type="email"></label><label>Password <input name="password" type="password"></label><button type="submit">Sign in</button></form>`,
        ),
      );
    } else if (url.pathname === '/session') {
      received.push(`${url.searchParams.get('user') ?? ''}|${url.searchParams.get('password') ?? ''}`);
      // A redirect that carries the value in its URL, as careless sites do.
      response.writeHead(302, { location: `/home?token=${encodeURIComponent(url.searchParams.get('password') ?? '')}` }).end();
    } else if (url.pathname === '/home') {
      const token = url.searchParams.get('token') ?? '';
      html(
        page(
          `Welcome ${token}`,
          `<h1>Signed in as ${escapeHtml(USER)}</h1><p>Your password is ${escapeHtml(token)}.</p>` +
            `<label>Echo <input name="echo" value="${escapeHtml(token)}"></label>` +
            `<button type="button" title="${escapeHtml(token)}" aria-label="Copy ${escapeHtml(token)}">Copy</button>` +
            `<a href="${denied}/collect?pw=${encodeURIComponent(token)}">Continue to partner</a>`,
        ),
      );
    } else {
      response.writeHead(404).end('not found');
    }
  });
  return { server, received };
}

/** The state's index of the element whose line contains `label`. */
function indexOf(stateText: string, label: string): number | undefined {
  for (const line of stateText.split('\n')) {
    const match = /\[(\d+)\]<[^>]*>(.*) \/>/.exec(line);
    if (match?.[2]?.includes(label) || (match && line.includes(label))) return Number(match[1]);
  }
  return undefined;
}

/** How many Navigator calls the model has answered. */
let navigatorCalls = 0;

/** The model: signs in with the placeholders, clicks the partner link (denied), calls the leaky action twice, finishes. */
function model(call: WireCall): Answer {
  const text = call.lastUserText;
  if (call.agent === 'planner') {
    const finished = /Signed in, checked/.test(call.allText) && /"done"/.test(call.allText);
    return { object: JSON.parse(finished ? scriptedPlan({ done: true, finalAnswer: 'Signed in; the page greets <secret>user</secret>.' }) : scriptedPlan()) };
  }
  navigatorCalls++;
  const script: Record<string, unknown>[][] = [
    [
      { input_text: { index: indexOf(text, 'name="user"'), text: '<secret>user</secret>' } },
      { input_text: { index: indexOf(text, 'name="password"'), text: '<secret>password</secret>' } },
      { click_element: { index: indexOf(text, 'Sign in') } },
    ],
    [{ click_element: { index: indexOf(text, 'Continue to partner') } }],
    [{ check_account: {} }],
    [{ check_account: {} }],
    [{ done: { text: 'Signed in, checked the account.', success: true } }],
  ];
  return { object: JSON.parse(scriptedActions(script[Math.min(navigatorCalls, script.length) - 1] ?? [])) };
}

let folder: string;
let provider: LoopbackServer;
let login: { server: Server; received: string[] };
let deniedServer: Server;
let deniedHits = 0;
let origin: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'plannav-secrets-'));
  provider = await LoopbackServer.start((request) => openAIWireFormat.write(model(openAIWireFormat.read(request)), request));
  deniedServer = createServer((_request, response) => {
    deniedHits++;
    response.end('collected');
  });
  await new Promise<void>((resolve) => deniedServer.listen(0, '127.0.0.2', resolve));
  const denied = `http://127.0.0.2:${(deniedServer.address() as AddressInfo).port}`;
  login = site(denied);
  await new Promise<void>((resolve) => login.server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(login.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await provider?.close();
  login?.server.closeAllConnections();
  await new Promise((resolve) => login?.server.close(resolve));
  deniedServer?.closeAllConnections();
  await new Promise((resolve) => deniedServer?.close(resolve));
  await rm(folder, { recursive: true, force: true });
});

describe('secrets', () => {
  it('the form gets the real values; every sink holds only the placeholders; the leaky action is caught', { timeout: 120_000 }, async () => {
    // A custom action that leaks: it returns the password and throws with it.
    let leaked = 0;
    const checkAccount = defineAction({
      name: 'check_account',
      description: 'Check the signed-in account',
      schema: z.object({}),
      handler: () => {
        leaked++;
        if (leaked > 1) throw new Error(`account check failed for ${USER} with ${PASSWORD}`);
        return Promise.resolve(`Account ok: ${USER} / ${PASSWORD}`);
      },
    });
    const browser = await PlaywrightDriver.launch({ headless: true });
    const cassette = join(folder, 'cassette.json');
    const llm = recordModelCalls(new OpenAIChatModel({ model: 'gpt-test', apiKey: 'sk-test', baseURL: `${provider.url}/v1` }), cassette);
    try {
      const executor = new Executor({
        sensitiveActions: false,
        task: `Sign in at ${origin}/login and check the account.`,
        llm,
        browser,
        maxSteps: 8,
        actions: [checkAccount],
        urlPolicy: { allow: ['127.0.0.1'] },
        recordScreenshots: true,
        secrets: { [origin]: { user: USER, password: PASSWORD }, 'https://never.example': { apiKey: NEVER } },
      });
      const events: ExecutorEvent[] = [];
      const stream = (async () => {
        for await (const event of executor.events({ scope: 'session' })) events.push(event);
      })();
      const journal = recordRun(executor, join(folder, 'journal'));
      await browser.goto(`${origin}/login`);
      const result = await executor.execute();
      journal.stop();
      await executor.close();
      await stream;

      // The page really got the values, and the model really acted with the placeholders.
      expect(login.received).toEqual([`${USER}|${PASSWORD}`]);
      expect(deniedHits).toBe(0);
      expect(leaked).toBe(2);
      const typed = events.filter((event) => event.type === 'action-end' && event.action === 'input_text');
      expect(typed.map((event) => (event.type === 'action-end' ? event.result : ''))).toEqual([
        expect.stringContaining('secret `user`'),
        expect.stringContaining('secret `password`'),
      ]);
      expect(events.some((event) => event.type === 'url-blocked' && event.url.includes('<secret>password</secret>'))).toBe(true);
      expect(
        events.some((event) => event.type === 'action-end' && event.action === 'check_account' && event.result?.includes('<secret>password</secret>')),
      ).toBe(true);
      expect(
        events.some((event) => event.type === 'action-end' && event.action === 'check_account' && event.error?.message.includes('<secret>password</secret>')),
      ).toBe(true);
      // Only the names of this site's secrets were told, never the other's.
      const bodies = provider.requests.map((request) => JSON.stringify(request.body)).join('\n');
      expect(bodies).toContain('<secret>password</secret>');
      expect(bodies).not.toContain('apiKey');

      const historyFile = join(folder, 'history.json');
      await saveHistory(historyFile, result.history);
      const report = await createRunReport(result.history, join(folder, 'report.html'));
      const errors: string[] = [];
      for (let error: unknown = result.error; error instanceof Error; error = error.cause) errors.push(`${error.message}\n${error.stack ?? ''}`);
      const sinks: Record<string, string> = {
        'model requests': bodies,
        cassette: await readFile(cassette, 'utf8'),
        'history file': await readFile(historyFile, 'utf8'),
        journal: await readFile(join(folder, 'journal', 'journal.jsonl'), 'utf8'),
        report: await readFile(report.path, 'utf8'),
        events: JSON.stringify(events),
        result: JSON.stringify({ ...result, history: { ...result.history, screenshots: undefined } }),
        errors: errors.join('\n'),
        'final answer': result.finalAnswer ?? '',
      };
      expect(leaks(sinks)).toEqual([]);
      expect(result.finalAnswer).toBe('Signed in; the page greets <secret>user</secret>.');

      // The scan can fail: the same sinks with the value put back are caught.
      expect(leaks({ control: sinks.events!.replaceAll('<secret>password</secret>', PASSWORD) })).toEqual([`control holds ${PASSWORD}`]);
    } finally {
      await browser.close();
    }
  });
});
