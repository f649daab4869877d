// When the tabs or the whole browser go away mid-task, on both real drivers: with no tab open the
// model is shown an empty state saying so and opens one; a killed browser ends the task at once with
// a BrowserDisconnectedError, its history complete, and a new driver works (issue 11, defect 4).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserDriver } from '../../src/browser/types';
import { BrowserDisconnectedError } from '../../src/errors';
import { Executor, type ExecutorEventMap } from '../../src/index';
import { ScriptedLLM, scriptedActions, scriptedPlan, type ScriptedRequest } from '../../src/testing/index';
import { onFullChromium } from '../helpers/page-chromium';
import { browserPid, drivers, indexWhere, killAndWait, startFaultSite, type FaultSite } from './fault-site';

let site: FaultSite;

beforeAll(async () => {
  site = await startFaultSite();
});

afterAll(async () => {
  await site?.close();
});

/** A Planner that finishes once the state shows the page elsewhere, and a Navigator that plays `steps` in turn. */
function model(steps: ((state: string) => Record<string, unknown>[] | Promise<Record<string, unknown>[]>)[]): ScriptedLLM {
  let step = 0;
  return new ScriptedLLM({
    respond: async (request: ScriptedRequest) => {
      if (request.agent === 'planner') {
        const done = request.lastUserText.includes('Welcome elsewhere');
        return scriptedPlan(done ? { done: true, finalAnswer: 'Reached the page elsewhere' } : { nextSteps: 'Go on' });
      }
      const play = steps[step++];
      return scriptedActions(play ? await play(request.lastUserText) : [{ done: { text: 'gave up', success: false } }]);
    },
  });
}

function collect<K extends keyof ExecutorEventMap>(executor: Executor, name: K): ExecutorEventMap[K][] {
  const events: ExecutorEventMap[K][] = [];
  executor.on(name, (event) => events.push(event));
  return events;
}

/** The id of the tab the state lists with this URL path. */
function tabIdOf(state: string, path: string): string {
  const match = new RegExp(`"id":"([^"]+)","url":"[^"]*${path}"`).exec(state);
  if (!match?.[1]) throw new Error(`no tab with ${path} in:\n${state}`);
  return match[1];
}

describe.each(drivers)('%s: the last tab closed by the page', (_name, launch) => {
  let driver: BrowserDriver;

  beforeAll(async () => {
    driver = await launch({});
  });

  afterAll(async () => {
    await driver?.close();
  });

  it.each(['open_tab', 'go_to_url'])('the model sees that no tab is open and recovers with %s', async (recovery) => {
    await driver.goto(site.url('/opener'));
    const states: string[] = [];
    const llm = model([
      (state) => [{ click_element: { index: indexWhere(state, /Open the app/) } }],
      (state) => [{ close_tab: { tab_id: tabIdOf(state, '/opener') } }],
      // The app's page closes its own tab (window.close): no tab is left.
      (state) => [{ click_element: { index: indexWhere(state, /Finish and close/) } }],
      (state) => {
        states.push(state);
        return [{ [recovery]: { url: site.url('/elsewhere') } }];
      },
    ]);
    const executor = new Executor({ sensitiveActions: false, task: 'Reach the page elsewhere', llm, browser: driver, planningInterval: 1 });
    const stepEnds = collect(executor, 'step-end');
    const result = await executor.execute();

    expect(result.error?.message).toBeUndefined();
    expect(result.status).toBe('ok');
    expect(states[0]).toContain('No tab is open');
    // The click that closed the tab may report "No tab is open" itself (click_element reads the
    // tabs after the click through readBaseline, which needs an active tab); nothing else fails.
    const failures = stepEnds.flatMap((event) => (event.error ? [event.error.message] : []));
    expect(failures.filter((message) => !/^Every action of step 3 failed: No tab is open/.test(message))).toEqual([]);
    expect((await driver.tabs()).map((tab) => tab.url)).toEqual([site.url('/elsewhere')]);
  });
});

// The browser's process is found and killed here, and the headless shell's process tree differs: full Chromium.
describe.each(drivers)('%s: the browser killed mid-task', (_name, launch) => {
  it(
    'ends the task at once with a BrowserDisconnectedError after one failed step, history complete; a new driver works',
    onFullChromium(async () => {
      const marker = `--plannav-test-run=${randomUUID()}`;
      const driver = await launch({ args: [marker] });
      try {
        await driver.goto(site.url('/start'));
        const llm = model([
          () => [{ go_to_url: { url: site.url('/elsewhere') } }],
          async (state) => {
            // The browser dies while the model thinks; the action it chose then meets no browser.
            await killAndWait(browserPid(marker));
            return [{ click_element: { index: indexWhere(state, /Order/) } }];
          },
        ]);
        // The Planner finishes only on a page the task never reaches, so only the kill can end the task.
        const executor = new Executor({ sensitiveActions: false, task: 'Order elsewhere', llm, browser: driver, planningInterval: 10 });
        const stepEnds = collect(executor, 'step-end');
        const result = await executor.execute();

        expect(result.status).toBe('failed');
        expect(BrowserDisconnectedError.isInstance(result.error)).toBe(true);
        expect(result.error?.code).toBe('BROWSER_DISCONNECTED');
        const failed = stepEnds.filter((event) => event.error !== undefined);
        expect(failed.map((event) => event.error?.code)).toEqual(['BROWSER_DISCONNECTED']);
        expect(stepEnds.at(-1)?.error?.code).toBe('BROWSER_DISCONNECTED');
        // Every step is in the history, the failed one with its error and the model's choice.
        const steps = result.history.steps.filter((step) => step.taskId === result.taskId);
        expect(steps).toHaveLength(stepEnds.length);
        expect(steps.at(-1)?.error?.code).toBe('BROWSER_DISCONNECTED');
        expect(JSON.stringify(steps.at(-1)?.modelOutput)).toContain('click_element');
        expect(result.history.tasks.at(-1)?.status).toBe('failed');
        // Every later call says the same, at once.
        await expect(driver.tabs()).rejects.toSatisfy((error: unknown) => BrowserDisconnectedError.isInstance(error));
      } finally {
        await driver.close();
      }

      const next = await launch({});
      try {
        await next.goto(site.url('/start'));
        const llm = model([() => [{ go_to_url: { url: site.url('/elsewhere') } }]]);
        const result = await new Executor({ sensitiveActions: false, task: 'Reach the page elsewhere', llm, browser: next, planningInterval: 1 }).execute();
        expect(result.status).toBe('ok');
      } finally {
        await next.close();
      }
    }),
  );
});
