// The URL policy between tasks, in real headless Chromium with both drivers: a page's own timer
// that fires while no task runs must not reach a denied host; it is an event at once, and the
// next task's agents are told of it.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BrowserDriver } from '../../src/browser/types';
import { act, Executor, type ExecutorEventMap } from '../../src/index';
import { PlaywrightDriver } from '../../src/playwright/index';
import { PuppeteerDriver } from '../../src/puppeteer/index';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../../src/testing/index';
import { conversationText } from '../helpers/loop';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server';

const fixturesDir = resolve(import.meta.dirname, '../fixtures');

let allowed: RecordingServer;
let denied: RecordingServer;

beforeAll(async () => {
  allowed = await startRecordingServer('127.0.0.1', async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://server');
    const file = resolve(fixturesDir, url.pathname.slice(1));
    if (!file.startsWith(fixturesDir) || !file.endsWith('.html')) return void response.writeHead(404).end();
    const page = (await readFile(file, 'utf8')).replaceAll('{{TO}}', `${denied.origin}/left-by-timer`);
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(page);
  });
  denied = await startRecordingServer('127.0.0.2', (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Denied host</title><p>This page must never load.</p>');
  });
});

afterAll(async () => {
  await Promise.all([allowed?.close(), denied?.close()]);
});

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** Starts the page's own timer (300 ms), as a page script would, with no task running. */
async function armTimer(driver: BrowserDriver): Promise<void> {
  const [top] = await driver.frames();
  await driver.evaluate(top!.id, { id: 'test/arm-timer', source: '(delayMs) => window.armTimer(delayMs)' }, 300);
}

/**
 * Arms the page's timer and waits until its navigation has happened: `reached` once the denied host served it and the
 * tab shows it, `blocked` once `blocked` (an Executor's url-blocked events) reports it and the denied host got nothing.
 * It never returns while the timer is still pending, so no timer can navigate during the test's next goto(), however
 * slow the machine; when neither happens in 15 s, it throws.
 */
async function fireTimer(driver: BrowserDriver, blocked: readonly { url: string }[] = []): Promise<'reached' | 'blocked'> {
  denied.received.length = 0;
  const blockedBefore = blocked.length;
  await armTimer(driver);
  for (const end = Date.now() + 15_000; Date.now() < end; await sleep(25)) {
    if (denied.received.includes('/left-by-timer') && (await driver.currentUrl!()).startsWith(denied.origin)) return 'reached';
    if (blocked.slice(blockedBefore).some((event) => event.url === `${denied.origin}/left-by-timer`)) {
      // A guard that reports the navigation but lets it through all the same would show here.
      await sleep(100);
      return denied.received.length === 0 ? 'blocked' : 'reached';
    }
  }
  throw new Error(`The page's timer neither reached ${denied.origin} nor was reported blocked within 15 s`);
}

/** A model whose Planner finishes once the Navigator took a step in the task, and whose Navigator says done. */
function model(): ScriptedLLM {
  let navigatorSteps = 0;
  return new ScriptedLLM({
    respond: (request) => {
      if (request.agent === 'navigator') {
        navigatorSteps++;
        return scriptedActions([{ done: { text: 'Looked at the page', success: true } }]);
      }
      if (navigatorSteps === 0) return scriptedPlan({ nextSteps: 'Look at the page' });
      navigatorSteps = 0;
      return scriptedPlan({ done: true, finalAnswer: 'Looked at the page' });
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

describe.each(drivers)('the URL policy between tasks, with %s', (_name, launch) => {
  let driver: BrowserDriver;
  const page = (): string => `${allowed.origin}/guard-timer.html`;

  beforeAll(async () => {
    driver = await launch();
  });

  afterAll(async () => {
    await driver?.close();
  });

  beforeEach(async () => {
    await driver.setNavigationGuard?.(undefined);
    await driver.goto(page());
    denied.received.length = 0;
  });

  it('lets the timer through without any Executor (the control: the tests below can fail)', async () => {
    expect(await fireTimer(driver)).toBe('reached');
  });

  it('stops a page timer that fires after execute() returned, reports it at once as an event between tasks, tells the next task, and lifts the guard at close()', async () => {
    const llm = model();
    const executor = new Executor({
      sensitiveActions: false,
      task: 'Look at the page',
      llm,
      browser: driver,
      urlPolicy: { allow: ['127.0.0.1'] },
      planningInterval: 1,
    });
    const blocked = collect(executor, 'url-blocked');
    const session = executor.events({ scope: 'session' });
    const first = await executor.execute();
    expect(first.error?.message).toBeUndefined();
    expect(first.status).toBe('ok');

    expect(await fireTimer(driver, blocked)).toBe('blocked');
    expect(denied.received).toEqual([]);
    // The event comes while no task runs, not at the next task's start.
    expect(blocked).toEqual([
      expect.objectContaining({
        taskId: first.taskId,
        url: `${denied.origin}/left-by-timer`,
        kind: 'navigation',
        reason: 'host 127.0.0.2 is not on the allow list',
        betweenTasks: true,
      }),
    ]);
    expect(await driver.currentUrl!()).not.toContain(denied.origin);

    executor.addFollowUpTask('Look at the page again');
    const second = await executor.execute();
    expect(second.status).toBe('ok');
    // Once only: the next task does not send it again.
    expect(blocked).toHaveLength(1);
    // A session stream has it between the first task's end and the second task's start.
    const types: string[] = [];
    for await (const event of session) {
      types.push(event.type === 'url-blocked' ? `url-blocked:${String(event.betweenTasks)}` : event.type);
      if (event.type === 'task-start' && event.taskId === second.taskId) break;
    }
    expect(types.slice(-3)).toEqual(['task-end', 'url-blocked:true', 'task-start']);
    const firstNavigatorCall = llm.requestsOf('navigator').at(-1)!;
    expect(conversationText(firstNavigatorCall)).toContain(
      `Before this task started, the URL policy stopped the browser from loading ${denied.origin}/left-by-timer (navigation: host 127.0.0.2 is not on the allow list)`,
    );

    await executor.close();
    // (PuppeteerDriver's guard leaves a stopped tab on an error page.)
    await driver.goto(page());
    expect(await fireTimer(driver)).toBe('reached');
  });

  it('hands the driver over: a second Executor without a policy is not held by the first one, whose guard is back at its next task', async () => {
    const guarded = new Executor({
      sensitiveActions: false,
      task: 'Look at the page',
      llm: model(),
      browser: driver,
      urlPolicy: { allow: ['127.0.0.1'] },
      planningInterval: 1,
    });
    const blockedInGuarded = collect(guarded, 'url-blocked');
    await guarded.execute();
    const open = new Executor({ sensitiveActions: false, task: 'Look at the page', llm: model(), browser: driver, planningInterval: 1 });
    const blockedInOpen = collect(open, 'url-blocked');
    await open.execute();
    expect(await fireTimer(driver, blockedInOpen)).toBe('reached');
    expect(blockedInOpen).toEqual([]);
    await open.close();

    await driver.goto(page());
    guarded.addFollowUpTask('Look at the page again');
    await guarded.execute();
    expect(await fireTimer(driver, blockedInGuarded)).toBe('blocked');
    await guarded.close();
  });

  it("puts the Executor's guard back after an act() call without a policy", async () => {
    const executor = new Executor({
      sensitiveActions: false,
      task: 'Look at the page',
      llm: model(),
      browser: driver,
      urlPolicy: { allow: ['127.0.0.1'] },
      planningInterval: 1,
    });
    const blocked = collect(executor, 'url-blocked');
    await executor.execute();
    await act(driver, { action: 'scroll_to_top', params: {} });
    expect(await fireTimer(driver, blocked)).toBe('blocked');
    executor.addFollowUpTask('Look at the page again');
    await executor.execute();
    expect(blocked.map((event) => event.url)).toEqual([`${denied.origin}/left-by-timer`]);
    await executor.close();
  });
});
