// Getting unstuck: a loop or a page that does not change is noticed and the Planner runs early;
// a task that hits its step cap or failure budget still gives a partial answer (issue 11).
import { describe, expect, it } from 'vitest';
import { shopBrowser } from '../../test/helpers/loop';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../testing/scripted-llm';
import { Executor } from './executor';

const allText = (request: { messages: readonly { content: unknown }[] }): string =>
  request.messages.map((message) => JSON.stringify(message.content)).join('\n');

describe('loop detection', () => {
  it('tells the Navigator and runs the Planner early when the same actions repeat, blocking none', async () => {
    const llm: ScriptedLLM = new ScriptedLLM({
      respond: (request) => {
        if (request.agent === 'planner') return scriptedPlan({ done: llm.requestsOf('planner').length >= 2, finalAnswer: 'changed course' });
        return scriptedActions([{ cache_content: { content: 'the same' } }]);
      },
    });
    const executor = new Executor({ sensitiveActions: false, task: 'Find the saucers', llm, browser: shopBrowser(), planningInterval: 100, maxSteps: 10 });
    const warnings: string[] = [];
    const started: string[] = [];
    executor.on('warning', (event) => warnings.push(`${event.code}@${event.step}`));
    executor.on('action-start', (event) => started.push(event.action));
    const result = await executor.execute();

    expect(result.status).toBe('ok');
    expect(result.finalAnswer).toBe('changed course');
    expect(warnings).toEqual(['REPEATED_ACTIONS@3']);
    expect(started).toEqual(['cache_content', 'cache_content', 'cache_content']); // every repeat ran
    // The Planner ran right after step 3, though planningInterval is 100, and read the warning.
    expect(result.history.steps.map((step) => `${step.actor}:${step.step}`)).toEqual(['planner:0', 'navigator:1', 'navigator:2', 'navigator:3', 'planner:3']);
    expect(allText(llm.requestsOf('planner')[1]!)).toContain('Warning from the executor: The last 3 steps chose the same actions (cache_content)');
  });

  it('notices a page that does not change although different actions ran', async () => {
    const llm: ScriptedLLM = new ScriptedLLM({
      respond: (request) => {
        if (request.agent === 'planner') return scriptedPlan({ done: llm.requestsOf('planner').length >= 2, finalAnswer: 'ok' });
        const step = llm.requestsOf('navigator').length;
        return scriptedActions([{ cache_content: { content: `note ${step}` } }]);
      },
    });
    const executor = new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser(), planningInterval: 100 });
    const warnings: string[] = [];
    executor.on('warning', (event) => warnings.push(event.code));
    await executor.execute();
    expect(warnings).toEqual(['PAGE_UNCHANGED']);
  });

  it('can be tuned or turned off', async () => {
    const run = async (loopDetection: false | { repeatedActions: number }) => {
      const llm: ScriptedLLM = new ScriptedLLM({
        respond: (request) => (request.agent === 'planner' ? scriptedPlan() : scriptedActions([{ cache_content: { content: 'the same' } }])),
      });
      const executor = new Executor({
        sensitiveActions: false,
        task: 'x',
        llm,
        browser: shopBrowser(),
        planningInterval: 100,
        maxSteps: 5,
        finalAnswerOnLimit: false,
        loopDetection,
      });
      const warnings: string[] = [];
      executor.on('warning', (event) => warnings.push(`${event.code}@${event.step}`));
      await executor.execute();
      return warnings;
    };
    expect(await run(false)).toEqual([]);
    expect(await run({ repeatedActions: 2 })).toEqual(['REPEATED_ACTIONS@2', 'REPEATED_ACTIONS@4']);
  });
});

describe('a forced final answer at the limits', () => {
  it('asks once more, offering only done, when maxSteps ends the task', async () => {
    const llm: ScriptedLLM = new ScriptedLLM({
      respond: (request) => {
        if (request.agent === 'planner') return scriptedPlan();
        if (llm.requestsOf('navigator').length <= 2) return scriptedActions([{ cache_content: { content: `price ${llm.requestsOf('navigator').length}` } }]);
        return scriptedActions([{ done: { text: 'Found two prices so far: $12 and $9.', success: false } }]);
      },
    });
    const result = await new Executor({
      sensitiveActions: false,
      task: 'Collect every price',
      llm,
      browser: shopBrowser(),
      maxSteps: 2,
      planningInterval: 100,
    }).execute();
    expect(result.status).toBe('max-steps');
    expect(result.success).toBe(false);
    expect(result.error?.code).toBe('MAX_STEPS_REACHED');
    expect(result.finalAnswer).toBe('Found two prices so far: $12 and $9.');
    const last = llm.requestsOf('navigator')[2]!;
    expect(
      Object.keys(
        (last.output?.schema as { properties: { action: { items: { properties?: object; anyOf?: unknown } } } }).properties.action.items.properties ?? {},
      ),
    ).toEqual(['done']);
    expect(last.lastUserText).toBeDefined();
    expect(allText(last)).toContain('The step limit (maxSteps) was reached and the task ends now. Call done once, alone');
    expect(result.history.steps.at(-1)).toMatchObject({ actor: 'navigator', step: 3, actions: [{ name: 'done', isDone: true }] });
    expect(result.history.tasks[0]).toMatchObject({ status: 'max-steps', finalAnswer: 'Found two prices so far: $12 and $9.' });
  });

  it('runs no other action the model picks in that last call', async () => {
    const llm: ScriptedLLM = new ScriptedLLM({
      respond: (request) =>
        request.agent === 'planner'
          ? scriptedPlan()
          : llm.requestsOf('navigator').length <= 1
            ? scriptedActions([{ scroll_down: {} }])
            : scriptedActions([{ go_to_url: { url: 'https://shop.test/mugs' } }, { done: { text: 'partial' } }]),
    });
    const browser = shopBrowser();
    const result = await new Executor({ sensitiveActions: false, task: 'x', llm, browser, maxSteps: 1 }).execute();
    expect(result.finalAnswer).toBe('partial');
    expect(await browser.currentUrl()).toBe('https://shop.test/');
  });

  it('gives a partial answer when maxFailures ends the task, and none when it is off', async () => {
    // Each failed step is two requests: the reply and its repair.
    const script = () => {
      const llm: ScriptedLLM = new ScriptedLLM({
        respond: (request) =>
          request.agent === 'planner'
            ? scriptedPlan()
            : llm.requestsOf('navigator').length <= 4
              ? 'not json'
              : scriptedActions([{ done: { text: 'Nothing found: the page would not answer.', success: false } }]),
      });
      return llm;
    };
    const on = await new Executor({
      sensitiveActions: false,
      task: 'x',
      llm: script(),
      browser: shopBrowser(),
      maxFailures: 2,
      planningInterval: 100,
    }).execute();
    expect(on).toMatchObject({ status: 'failed', success: false, finalAnswer: 'Nothing found: the page would not answer.' });
    expect(on.error?.code).toBe('MAX_FAILURES_REACHED');

    const llm = script();
    const off = await new Executor({
      sensitiveActions: false,
      task: 'x',
      llm,
      browser: shopBrowser(),
      maxFailures: 2,
      planningInterval: 100,
      finalAnswerOnLimit: false,
    }).execute();
    expect(off.finalAnswer).toBeUndefined();
    expect(llm.requestsOf('navigator')).toHaveLength(4); // two steps, each with its repair request
  });

  it('makes no extra call after a cancel', async () => {
    const llm = new ScriptedLLM({ responses: [scriptedPlan(), { fail: 'hang' }] });
    const executor = new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser() });
    const running = executor.execute();
    await new Promise((resolve) => setTimeout(resolve, 20));
    executor.cancel();
    const result = await running;
    expect(result.status).toBe('cancelled');
    expect(llm.callCount).toBe(2);
  });
});
