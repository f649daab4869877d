// Secrets never leave in pieces, end to end in headless Chromium: a page of our own shows two
// values the ways that used to leak parts of them (a value across the 100-character cut of the
// view, one digit per box, split over two inline elements with a space, partly bold, in the title,
// percent-encoded in a link), and the model searches inside a value, searches with a context window
// that starts inside one, and extracts the page as markdown while the provider first fails with an
// error that quotes the request. No sink holds any piece of 6 characters of either value, in any
// case or with separators between its characters.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Executor, type ExecutorEvent } from '../../src/index';
import { createRunReport, recordRun, saveHistory } from '../../src/node/index';
import { OpenAIChatModel } from '../../src/openai/index';
import { PlaywrightDriver } from '../../src/playwright/index';
import { recordModelCalls, scriptedActions, scriptedPlan } from '../../src/testing/index';
import { openAIWireFormat } from '../../src/testing/model-conformance-openai';
import { LoopbackServer } from '../../src/testing/model-conformance-server';
import type { Answer, WireCall } from '../../src/testing/model-conformance-wire';

const TOKEN = 'Qv7Xk2Lm9Rz4Tb';
const OTP = '947261';

/** Every piece of 6 characters of a value in `text`, ignoring case and anything between characters that is not a letter or digit. */
function pieces(text: string): string[] {
  const squeezed = text.toLowerCase().replace(/[^a-z0-9]/g, '');
  const found = new Set<string>();
  for (const value of [TOKEN, OTP]) {
    for (let start = 0; start + 6 <= value.length; start++) {
      const piece = value.slice(start, start + 6).toLowerCase();
      if (squeezed.includes(piece)) found.add(piece);
    }
  }
  return [...found];
}

const page = `<!doctype html><html><head><title>Account ${TOKEN.slice(0, 8)}</title></head><body>
<p>${'Lorem ipsum dolor sit amet '.repeat(3)}and more text up to here: ${TOKEN} keep it safe.</p>
<p>Your code: ${Array.from(OTP)
  .map((digit) => `<input maxlength="1" size="1" value="${digit}">`)
  .join('')}</p>
<p>Also shown: ${Array.from(OTP)
  .map((digit) => `<span class="box">${digit}</span>`)
  .join(' ')}</p>
<p>Split: <span>${TOKEN.slice(0, 7)}</span> <span>${TOKEN.slice(7)}</span> (two parts)</p>
<p>Bold: ${TOKEN.slice(0, 4)}<b>${TOKEN.slice(4, 10)}</b>${TOKEN.slice(10)}</p>
<p><a href="/next?key=${encodeURIComponent(`${TOKEN} x`)}">Continue</a></p>
</body></html>`;

let navigatorCalls = 0;
let extractionCalls = 0;

/** The model: searches inside a value, searches with context starting inside one, extracts (after one failure), finishes. */
function model(call: WireCall): Answer {
  if (call.agent === 'planner') {
    const finished = /"done"/.test(call.allText) && /All read/.test(call.allText);
    return { object: JSON.parse(finished ? scriptedPlan({ done: true, finalAnswer: 'The page shows a key and a code.' }) : scriptedPlan()) };
  }
  if (call.agent === 'other') {
    extractionCalls++;
    // The provider fails once with an error that quotes the request it was sent.
    if (extractionCalls === 1) return { status: 500, message: `Upstream failed on: ${call.lastUserText.slice(0, 2000)}` };
    // The reading model repeats what it read.
    return { object: { extracted: call.lastUserText.slice(0, 3000) } };
  }
  navigatorCalls++;
  const script: Record<string, unknown>[][] = [
    [{ search_page: { pattern: TOKEN.slice(5, 9) } }],
    [{ search_page: { pattern: 'keep it', context_chars: 10 } }],
    [{ search_page: { pattern: '[0-9] [0-9] [0-9]', regex: true, context_chars: 12 } }],
    [{ extract_content: { goal: 'The key and the code on the page' } }],
    [{ done: { text: 'All read.', success: true } }],
  ];
  return { object: JSON.parse(scriptedActions(script[Math.min(navigatorCalls, script.length) - 1] ?? [])) };
}

let folder: string;
let provider: LoopbackServer;
let site: Server;
let origin: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'plannav-secret-pieces-'));
  provider = await LoopbackServer.start((request) => openAIWireFormat.write(model(openAIWireFormat.read(request)), request));
  site = createServer((_request, response) => void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await provider?.close();
  site?.closeAllConnections();
  await new Promise((resolve) => site?.close(resolve));
  await rm(folder, { recursive: true, force: true });
});

describe('secrets in pieces', () => {
  it('no sink holds a piece of a value: view cut, boxes, split, bold, search, markdown, provider error', { timeout: 120_000 }, async () => {
    const browser = await PlaywrightDriver.launch({ headless: true });
    const cassette = join(folder, 'cassette.json');
    const llm = recordModelCalls(new OpenAIChatModel({ model: 'gpt-test', apiKey: 'sk-test', baseURL: `${provider.url}/v1` }), cassette);
    try {
      const executor = new Executor({
        // The scripted model answers no trust-boundary confirmation; the canary suite covers those calls.
        sensitiveActions: false,
        task: `Read the key and the code at ${origin}/.`,
        llm,
        browser,
        maxSteps: 8,
        urlPolicy: { allow: ['127.0.0.1'] },
        secrets: { token: TOKEN, otp: OTP },
      });
      const events: ExecutorEvent[] = [];
      const stream = (async () => {
        for await (const event of executor.events({ scope: 'session' })) events.push(event);
      })();
      const journal = recordRun(executor, join(folder, 'journal'));
      await browser.goto(`${origin}/`);
      // Positive control: the page really shows the values, in the forms above.
      const frame = (await browser.frames())[0]!;
      const shown = await browser.evaluate(frame.id, { id: 'test.body-text', source: '() => document.body.innerText' }, undefined);
      expect(pieces(String(shown))).not.toEqual([]);
      const result = await executor.execute();
      journal.stop();
      await executor.close();
      await stream;

      const actions = events.flatMap((event) => (event.type === 'action-end' ? [event.action] : []));
      expect(actions).toEqual(['search_page', 'search_page', 'search_page', 'extract_content', 'done']);
      // The provider's error quoting the request was met and retried.
      expect(extractionCalls).toBe(2);
      const bodies = provider.requests.map((request) => JSON.stringify(request.body)).join('\n');
      expect(bodies).toContain('<secret>token</secret>');
      expect(bodies).toContain('<secret>otp</secret>');

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
      };
      const hits = Object.entries(sinks).flatMap(([sink, text]) => pieces(text).map((piece) => `${sink}: ${piece}`));
      expect(hits).toEqual([]);
      // The scan can fail: a sink with one piece put back is caught.
      expect(pieces(sinks.events!.replace('<secret>token</secret>', TOKEN.slice(3, 9)))).toEqual([TOKEN.slice(3, 9).toLowerCase()]);
    } finally {
      await browser.close();
    }
  });
});
