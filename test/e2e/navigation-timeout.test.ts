// A navigation whose server never answers, in whole tasks on both real drivers: the timeout reaches
// the model as an action error, the tab stays readable (the pending load is stopped), and the model
// goes elsewhere and finishes (issue 11, defect 3).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserDriver } from '../../src/browser/types';
import { Executor, type ExecutorEventMap } from '../../src/index';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../../src/testing/index';
import { conversationText } from '../helpers/loop';
import { drivers, indexWhere, startFaultSite, type FaultSite } from './fault-site';

/** Short, so a load that never answers gives up quickly; the pages themselves load in milliseconds. */
const defaultTimeout = 2500;

let site: FaultSite;

beforeAll(async () => {
  site = await startFaultSite();
});

afterAll(async () => {
  await site?.close();
});

/** A Planner that finishes once the state shows the page elsewhere, and a Navigator that plays `steps` in turn. */
function model(steps: ((state: string) => Record<string, unknown>[])[]): ScriptedLLM {
  let step = 0;
  return new ScriptedLLM({
    respond: (request) => {
      if (request.agent === 'planner') {
        const done = request.lastUserText.includes('Welcome elsewhere');
        return scriptedPlan(done ? { done: true, finalAnswer: 'Reached the page elsewhere' } : { nextSteps: 'Go on' });
      }
      const play = steps[step++];
      return scriptedActions(play ? play(request.lastUserText) : [{ done: { text: 'gave up', success: false } }]);
    },
  });
}

function collect<K extends keyof ExecutorEventMap>(executor: Executor, name: K): ExecutorEventMap[K][] {
  const events: ExecutorEventMap[K][] = [];
  executor.on(name, (event) => events.push(event));
  return events;
}

describe.each(drivers)('%s: a navigation that never answers', (_name, launch) => {
  let driver: BrowserDriver;

  beforeAll(async () => {
    driver = await launch({ defaultTimeout });
  });

  afterAll(async () => {
    await driver?.close();
  });

  it('go_to_url times out, the model reads the tab again, goes elsewhere and finishes', async () => {
    await driver.goto(site.url('/start'));
    const states: string[] = [];
    const llm = model([
      () => [{ go_to_url: { url: site.url('/hang') } }],
      (state) => {
        states.push(state);
        return [{ go_to_url: { url: site.url('/elsewhere') } }];
      },
    ]);
    const executor = new Executor({ sensitiveActions: false, task: 'Reach the page elsewhere', llm, browser: driver, planningInterval: 1, maxFailures: 2 });
    const ends = collect(executor, 'action-end');
    const result = await executor.execute();

    expect(result.error?.message).toBeUndefined();
    expect(result.status).toBe('ok');
    expect(site.hangingRequests()).toBeGreaterThan(0);
    expect(ends.map((event) => [event.action, event.error === undefined ? 'ok' : 'error'])).toEqual([
      ['go_to_url', 'error'],
      ['go_to_url', 'ok'],
    ]);
    expect(ends[0]?.error?.message).toContain(`Could not load ${site.url('/hang')}`);
    // The next state was read from the tab, which still shows the page it was on.
    expect(states[0]).toContain('Start page');
    const second = llm.requestsOf('navigator')[1];
    expect(second && conversationText(second)).toContain(`Could not load ${site.url('/hang')}`);
  });

  it('a click on a link to it gives up on the load, and the model goes elsewhere', async () => {
    await driver.goto(site.url('/start'));
    const states: string[] = [];
    const llm = model([
      (state) => [{ click_element: { index: indexWhere(state, /Slow partner site/) } }],
      (state) => {
        states.push(state);
        return [{ go_to_url: { url: site.url('/elsewhere') } }];
      },
    ]);
    const executor = new Executor({ sensitiveActions: false, task: 'Reach the page elsewhere', llm, browser: driver, planningInterval: 1, maxFailures: 2 });
    const ends = collect(executor, 'action-end');
    const result = await executor.execute();

    expect(result.error?.message).toBeUndefined();
    expect(result.status).toBe('ok');
    expect(ends.map((event) => event.action)).toEqual(['click_element', 'go_to_url']);
    expect(ends[0]?.error?.message).toContain(site.url('/hang'));
    expect(states[0]).toContain('Start page');
  });
});

describe.each(drivers)('%s: a call abandoned by its caller', (_name, launch) => {
  let driver: BrowserDriver;

  beforeAll(async () => {
    driver = await launch({ defaultTimeout: 60_000 });
  });

  afterAll(async () => {
    await driver?.close();
  });

  it('an aborted goto stops the load, so the next reads answer', async () => {
    await driver.goto(site.url('/start'));
    const before = site.hangingRequests();
    const controller = new AbortController();
    const loading = driver.goto(site.url('/hang'), { signal: controller.signal });
    loading.catch(() => undefined);
    for (let poll = 0; poll < 100 && site.hangingRequests() === before; poll++) await new Promise((done) => setTimeout(done, 50));
    controller.abort();
    await expect(loading).rejects.toThrow();
    const frames = await driver.frames({ timeout: 5000 });
    const location = await driver.evaluate(frames[0]?.id ?? '', { id: 'test/location', source: '() => location.href' }, undefined, { timeout: 5000 });
    expect(location).toBe(site.url('/start'));
  });

  it('a goto the Executor gives up on first (its action deadline aborts the call) leaves the tab readable too', async () => {
    await driver.goto(site.url('/start'));
    const states: string[] = [];
    const llm = model([
      () => [{ go_to_url: { url: site.url('/hang') } }],
      (state) => {
        states.push(state);
        return [{ go_to_url: { url: site.url('/elsewhere') } }];
      },
    ]);
    // The driver would wait 60 s for the load; the Executor's deadline aborts the call after 1.5 s.
    const executor = new Executor({
      sensitiveActions: false,
      task: 'Reach the page elsewhere',
      llm,
      browser: driver,
      planningInterval: 1,
      maxFailures: 2,
      browserTimeouts: { action: 1500, pageState: 5000 },
    });
    const ends = collect(executor, 'action-end');
    const result = await executor.execute({ timeout: 20_000 });

    expect(result.error?.message).toBeUndefined();
    expect(result.status).toBe('ok');
    expect(ends.map((event) => [event.action, event.error === undefined ? 'ok' : 'error'])).toEqual([
      ['go_to_url', 'error'],
      ['go_to_url', 'ok'],
    ]);
    expect(states[0]).toContain('Start page');
  });
});
