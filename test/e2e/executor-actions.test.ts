// Whole tasks through Executor + PlaywrightDriver + the built-in actions, with ScriptedLLM deciding
// from the state text it is sent: a form filled in one step, the skip rule when a step's action
// changes the page, and the URL policy stopping a link the model clicks.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Executor, type ExecutorEventMap } from '../../src/index';
import { ScriptedLLM, scriptedActions, scriptedPlan, type ScriptedRequest } from '../../src/testing/index';
import { conversationText } from '../helpers/loop';
import { startBrowser, type BrowserFixture } from './snapshot-helpers';

let fixture: BrowserFixture;

beforeAll(async () => {
  fixture = await startBrowser();
});

afterAll(async () => {
  await fixture?.close();
});

beforeEach(async () => {
  await fixture.driver.goto(fixture.server.url('task-form.html'));
});

/** The index on the first element line matching `pattern`, read from the state text. */
function indexWhere(state: string, pattern: RegExp): number {
  const line = state.split('\n').find((item) => /^\s*\*?\[\d+\]</.test(item) && pattern.test(item));
  if (!line) throw new Error(`no element line matches ${pattern} in:\n${state}`);
  return Number(/\[(\d+)\]/.exec(line)![1]);
}

/** A model whose Planner finishes when `finished` matches the state, and whose Navigator plays `steps` in turn. */
function model(finished: RegExp, steps: ((state: string) => Record<string, unknown>[])[]): ScriptedLLM {
  let step = 0;
  return new ScriptedLLM({
    respond: (request: ScriptedRequest) => {
      if (request.agent === 'planner') {
        const match = finished.exec(request.lastUserText);
        return match ? scriptedPlan({ done: true, finalAnswer: match[0] }) : scriptedPlan({ nextSteps: 'Go on' });
      }
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

describe('Executor with the built-in actions in Chromium', () => {
  it('fills a form in one step (text, select, a date as people write it) and submits it', async () => {
    const llm = model(/Name: Ada; colour: blue; date: 2026-12-24/, [
      (state) => [
        { input_text: { index: indexWhere(state, /name="name"/), text: 'Ada' } },
        { select_dropdown_option: { index: indexWhere(state, /<select/), text: 'Blue' } },
        { input_text: { index: indexWhere(state, /type="date"/), text: '12/24/2026' } },
        { click_element: { index: indexWhere(state, /Place order/) } },
      ],
    ]);
    const executor = new Executor({
      sensitiveActions: false,
      task: 'Order a blue mug for Ada, delivered on 12/24/2026',
      llm,
      browser: fixture.driver,
      planningInterval: 2,
    });
    const ends = collect(executor, 'action-end');
    const result = await executor.execute();

    expect(result.status).toBe('ok');
    expect(result.finalAnswer).toBe('Name: Ada; colour: blue; date: 2026-12-24');
    expect(ends.slice(0, 4).map((event) => [event.action, event.error])).toEqual([
      ['input_text', undefined],
      ['select_dropdown_option', undefined],
      ['input_text', undefined],
      ['click_element', undefined],
    ]);
    expect(ends.filter((event) => event.step === 1)).toHaveLength(4);
    expect(await fixture.driver.currentUrl()).toContain('task-form-done.html?name=Ada&colour=blue&date=2026-12-24');
  });

  it('skips the rest of a step when an action makes new elements appear, and shows them next', async () => {
    const llm = model(/Gift wrap/, [
      (state) => [{ click_element: { index: indexWhere(state, /More options/) } }, { input_text: { index: indexWhere(state, /name="name"/), text: 'Ada' } }],
    ]);
    const executor = new Executor({ sensitiveActions: false, task: 'Open the extra options', llm, browser: fixture.driver, planningInterval: 1 });
    const ends = collect(executor, 'action-end');
    await executor.execute();

    expect(ends.map((event) => event.action)).toEqual(['click_element']);
    const afterClick = llm.requests.find((request) => request.agent === 'planner' && request.callIndex > 0 && request.lastUserText.includes('Gift wrap'));
    expect(afterClick?.lastUserText).toMatch(/\*\[\d+\]<button>Gift wrap/);
    expect(conversationText(afterClick!)).toContain(
      'Skipped 1 action(s) that did not run because the page changed after click_element (1 new element(s) appeared): input_text.',
    );
  });

  it('stops a link to a denied host in the browser, tells the model, and goes on', async () => {
    const llm = model(/Order a mug/, [(state) => [{ click_element: { index: indexWhere(state, /Partner shop/) } }]]);
    const executor = new Executor({
      sensitiveActions: false,
      task: 'Visit the partner shop',
      llm,
      browser: fixture.driver,
      urlPolicy: { allow: ['127.0.0.1'] },
      planningInterval: 2,
    });
    const blocked = collect(executor, 'url-blocked');
    const result = await executor.execute();

    expect(result.status).toBe('ok');
    expect(blocked.map((event) => [event.kind, new URL(event.url).hostname])).toEqual([['navigation', new URL(fixture.server.otherOrigin).hostname]]);
    expect(await fixture.driver.currentUrl()).toBe(fixture.server.url('task-form.html'));
    const next = llm.requests.filter((request) => request.agent === 'planner').at(-1)!;
    expect(conversationText(next)).toMatch(
      /The browser was stopped from loading http:\/\/[^ ]+task-form-done\.html\?name=leak \(navigation: host [^ ]+ is not on the allow list\)/,
    );
  });
});
