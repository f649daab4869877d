// Navigations refused by someone other than the driver's guard, in real headless Chromium with
// both drivers: javascript: by the actions, data: by Chromium itself. Each is a url-blocked event and an error the model reads.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BrowserDriver } from '../../src/browser/types';
import { Executor, type ExecutorEventMap } from '../../src/index';
import { PlaywrightDriver } from '../../src/playwright/index';
import { PuppeteerDriver } from '../../src/puppeteer/index';
import { ScriptedLLM, scriptedActions, scriptedPlan, type ScriptedRequest } from '../../src/testing/index';
import { conversationText } from '../helpers/loop';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server';

const fixturesDir = resolve(import.meta.dirname, '../fixtures');

let allowed: RecordingServer;

beforeAll(async () => {
  allowed = await startRecordingServer('127.0.0.1', async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://server');
    const file = resolve(fixturesDir, url.pathname.slice(1));
    if (!file.startsWith(fixturesDir) || !file.endsWith('.html')) return void response.writeHead(404).end();
    const page = await readFile(file, 'utf8');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(page);
  });
});

afterAll(async () => {
  await allowed?.close();
});

/** The index on the first element line matching `pattern`, read from the state text. */
function indexWhere(state: string, pattern: RegExp): number {
  const line = state.split('\n').find((item) => /^\s*\*?\[\d+\]</.test(item) && pattern.test(item));
  if (!line) throw new Error(`no element line matches ${pattern} in:\n${state}`);
  return Number(/\[(\d+)\]/.exec(line)![1]);
}

/** A model whose Navigator plays `steps` in turn, then says done; its Planner finishes once the steps are played. */
function model(steps: ((state: string) => Record<string, unknown>[])[]): ScriptedLLM {
  let step = 0;
  return new ScriptedLLM({
    respond: (request: ScriptedRequest) => {
      if (request.agent === 'planner')
        return step > steps.length ? scriptedPlan({ done: true, finalAnswer: 'Finished' }) : scriptedPlan({ nextSteps: 'Go on' });
      const play = steps[step++];
      return scriptedActions(play ? play(request.lastUserText) : [{ done: { text: 'finished', success: true } }]);
    },
  });
}

function collect<K extends keyof ExecutorEventMap>(executor: Executor, name: K): ExecutorEventMap[K][] {
  const events: ExecutorEventMap[K][] = [];
  executor.on(name, (event) => events.push(event));
  return events;
}

const drivers: readonly [string, () => Promise<BrowserDriver>][] = [
  ['PlaywrightDriver', () => PlaywrightDriver.launch({ settle: { maxWaitMs: 1500 } })],
  ['PuppeteerDriver', () => PuppeteerDriver.launch({ settle: { maxWaitMs: 1500 } })],
];

describe.each(drivers)('refused navigations as events, with %s', (_name, launch) => {
  let driver: BrowserDriver;
  const page = (): string => `${allowed.origin}/guard-data-url.html`;

  beforeAll(async () => {
    driver = await launch();
  });

  afterAll(async () => {
    await driver?.close();
  });

  beforeEach(async () => {
    await driver.setNavigationGuard?.(undefined);
    const tabs = await driver.tabs();
    for (const tab of tabs.slice(1)) await driver.closeTab(tab.id);
    await driver.goto(page());
  });

  it.each(['go_to_url', 'open_tab'])('refuses %s to a javascript: URL as the URL policy does: an event, and with end-task the task ends', async (action) => {
    const url = 'javascript:alert(document.cookie)';
    const executor = new Executor({
      sensitiveActions: false,
      task: 'Run the script',
      llm: model([() => [{ [action]: { url } }]]),
      browser: driver,
      urlPolicy: { allow: ['127.0.0.1'], onBlocked: 'end-task' },
      planningInterval: 1,
    });
    const blocked = collect(executor, 'url-blocked');
    const result = await executor.execute();
    expect(blocked).toEqual([expect.objectContaining({ url, kind: 'action', reason: 'scheme javascript: is never allowed' })]);
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('URL_NOT_ALLOWED');
    await executor.close();
  });

  it('refuses go_to_url to a javascript: URL without a policy too: an event and a recoverable error the model reads', async () => {
    const llm = model([() => [{ go_to_url: { url: 'javascript:void(0)' } }]]);
    const executor = new Executor({ sensitiveActions: false, task: 'Run the script', llm, browser: driver, planningInterval: 1 });
    const blocked = collect(executor, 'url-blocked');
    const ends = collect(executor, 'action-end');
    const result = await executor.execute();
    expect(result.status).toBe('ok');
    expect(blocked).toEqual([expect.objectContaining({ url: 'javascript:void(0)', kind: 'action' })]);
    expect(ends[0]).toEqual(expect.objectContaining({ action: 'go_to_url', error: expect.objectContaining({ code: 'URL_NOT_ALLOWED' }) }));
    await executor.close();
  });

  it.each([
    ['a link', /Open the data page/, 'data:text/html,hi', 'navigation'],
    ['a window.open() popup', /Open the data popup/, 'data:text/html,popup', 'popup'],
  ] as const)('reports %s to a data: URL that Chromium refuses as a url-blocked event and an action error', async (_what, label, url, kind) => {
    const llm = model([(state) => [{ click_element: { index: indexWhere(state, label) } }]]);
    const executor = new Executor({
      sensitiveActions: false,
      task: 'Open the data page',
      llm,
      browser: driver,
      urlPolicy: { allow: ['127.0.0.1'] },
      planningInterval: 1,
    });
    const blocked = collect(executor, 'url-blocked');
    const ends = collect(executor, 'action-end');
    await executor.execute();
    expect(blocked).toEqual([expect.objectContaining({ url, kind, reason: expect.stringContaining('does not open data: URLs') })]);
    const click = ends.find((event) => event.action === 'click_element')!;
    expect(click.error?.code).toBe('URL_NOT_ALLOWED');
    expect(click.error?.message).toContain(`The browser was stopped from loading ${url} (${kind}:`);
    const next = llm.requestsOf('navigator').at(-1)!;
    expect(conversationText(next)).toContain(`The browser was stopped from loading ${url}`);
    expect((await driver.tabs()).map((tab) => tab.url)).toEqual([page()]);
    await executor.close();
  });
});
