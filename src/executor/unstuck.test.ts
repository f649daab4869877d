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
  it('makes no Navigator call past maxSteps: with maxSteps 12, 12 calls, and every action they chose ran', async () => {
    const llm: ScriptedLLM = new ScriptedLLM({
      respond: (request) =>
        request.agent === 'planner' ? scriptedPlan() : scriptedActions([{ cache_content: { content: `price ${llm.requestsOf('navigator').length}` } }]),
    });
    const executor = new Executor({ sensitiveActions: false, task: 'Collect every price', llm, browser: shopBrowser(), maxSteps: 12, loopDetection: false });
    const started: string[] = [];
    executor.on('action-start', (event) => started.push(event.action));
    const result = await executor.execute();
    expect(result.status).toBe('max-steps');
    expect(result.error?.code).toBe('MAX_STEPS_REACHED');
    expect(llm.requestsOf('navigator')).toHaveLength(12);
    expect(started).toHaveLength(12);
    expect(result.history.steps.filter((step) => step.actor === 'navigator').map((step) => step.step)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('tells the last step it is the last, runs all its actions, and takes the done it ends with as the partial answer', async () => {
    const llm: ScriptedLLM = new ScriptedLLM({
      respond: (request) => {
        if (request.agent === 'planner') return scriptedPlan();
        if (llm.requestsOf('navigator').length <= 1) return scriptedActions([{ cache_content: { content: 'price 1: $12' } }]);
        return scriptedActions([{ cache_content: { content: 'price 2: $9' } }, { done: { text: 'Found two prices so far: $12 and $9.', success: false } }]);
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
    expect(llm.requestsOf('navigator')).toHaveLength(2);
    expect(allText(llm.requestsOf('navigator')[1]!)).toContain('This is the last step (maxSteps 2): the actions you choose now run, then the task ends.');
    expect(allText(llm.requestsOf('navigator')[0]!)).not.toContain('This is the last step');
    expect(result.history.steps.at(-1)).toMatchObject({ actor: 'planner' });
    expect(result.history.steps.filter((step) => step.actor === 'navigator').at(-1)).toMatchObject({
      step: 2,
      actions: [{ name: 'cache_content' }, { name: 'done', isDone: true }],
    });
    expect(result.history.tasks[0]).toMatchObject({ status: 'max-steps', finalAnswer: 'Found two prices so far: $12 and $9.' });
  });

  it('ends with the Planner\u2019s answer when it accepts the done of the last step', async () => {
    const llm: ScriptedLLM = new ScriptedLLM({
      respond: (request) => {
        if (request.agent === 'planner')
          return scriptedPlan(llm.requestsOf('planner').length > 1 ? { done: true, finalAnswer: 'Both prices: $12 and $9.' } : {});
        return scriptedActions([{ done: { text: 'Both prices: $12 and $9.', success: true } }]);
      },
    });
    const result = await new Executor({
      sensitiveActions: false,
      task: 'Collect every price',
      llm,
      browser: shopBrowser(),
      maxSteps: 1,
      planningInterval: 100,
    }).execute();
    expect(result).toMatchObject({ status: 'ok', success: true, finalAnswer: 'Both prices: $12 and $9.' });
    expect(llm.requestsOf('navigator')).toHaveLength(1);
  });

  it('gives no partial answer and no extra call when the last step ends without done', async () => {
    const llm: ScriptedLLM = new ScriptedLLM({
      respond: (request) => (request.agent === 'planner' ? scriptedPlan() : scriptedActions([{ scroll_down: {} }])),
    });
    const result = await new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser(), maxSteps: 1 }).execute();
    expect(result.status).toBe('max-steps');
    expect(result.finalAnswer).toBeUndefined();
    expect(llm.requestsOf('navigator')).toHaveLength(1);
  });

  it('after maxFailures, asks once more offering only done, and runs no other action the model picks in that call', async () => {
    const llm: ScriptedLLM = new ScriptedLLM({
      respond: (request) =>
        request.agent === 'planner'
          ? scriptedPlan()
          : llm.requestsOf('navigator').length <= 2
            ? 'not json'
            : scriptedActions([{ go_to_url: { url: 'https://shop.test/mugs' } }, { done: { text: 'partial' } }]),
    });
    const browser = shopBrowser();
    const result = await new Executor({ sensitiveActions: false, task: 'x', llm, browser, maxFailures: 1, planningInterval: 100 }).execute();
    expect(result.error?.code).toBe('MAX_FAILURES_REACHED');
    expect(result.finalAnswer).toBe('partial');
    const last = llm.requestsOf('navigator').at(-1)!;
    expect(
      Object.keys(
        (last.output?.schema as { properties: { action: { items: { properties?: object; anyOf?: unknown } } } }).properties.action.items.properties ?? {},
      ),
    ).toEqual(['done']);
    expect(allText(last)).toContain('The failure limit (maxFailures) was reached and the task ends now. Call done once, alone');
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
