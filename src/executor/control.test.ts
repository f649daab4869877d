import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { conversationText, shopBrowser } from '../../test/helpers/loop';
import { defineAction } from '../actions/define-action';
import { RequestCancelledError } from '../errors';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../testing/scripted-llm';
import { Executor } from './executor';

/**
 * How soon "at once" must be. Each bound below stands against waiting for something of 10 s or more (a hang, a
 * retry delay, a timeout), so a second is still a sharp test; a tighter one fails on a loaded machine for no fault.
 */
const PROMPTLY_MS = 1000;

function waitFor(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (condition()) resolve();
      else if (Date.now() - started > timeoutMs) reject(new Error('condition not met in time'));
      else setTimeout(check, 2);
    };
    check();
  });
}

/** An action that only ends when its signal aborts, and reports whether it saw the abort. */
function hangingAction(): { action: ReturnType<typeof defineAction>; state: { started: boolean; aborted: boolean } } {
  const state = { started: false, aborted: false };
  const action = defineAction({
    name: 'slow_job',
    description: 'A job that takes forever',
    schema: z.object({}),
    handler: (_params, context) =>
      new Promise((_resolve, reject) => {
        state.started = true;
        context.signal.addEventListener('abort', () => {
          state.aborted = true;
          reject(context.signal.reason);
        });
      }),
  });
  return { action, state };
}

describe('Executor: pause, resume and cancel', () => {
  it('makes no model call while paused and continues on resume', async () => {
    const llm: ScriptedLLM = new ScriptedLLM({
      respond: (request): string => {
        if (request.agent === 'planner') return scriptedPlan({ done: llm.requestsOf('navigator').length >= 3, finalAnswer: 'ok' });
        return scriptedActions([{ cache_content: { content: 'x' } }]);
      },
    });
    const executor = new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser(), planningInterval: 100 });
    const events: string[] = [];
    executor.on('task-pause', () => events.push('pause'));
    executor.on('task-resume', () => events.push('resume'));
    let paused = false;
    executor.on('step-end', (event) => {
      if (event.actor === 'navigator' && event.step === 1 && !paused) {
        paused = true;
        executor.pause();
      }
    });
    const running = executor.execute();
    await waitFor(() => paused);
    const callsWhenPaused = llm.callCount;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(llm.callCount).toBe(callsWhenPaused);
    executor.resume();
    const result = await running;
    expect(result.status).toBe('ok');
    expect(result.steps).toBeGreaterThan(1);
    expect(events).toEqual(['pause', 'resume']);
  });

  it('runs no action chosen before a pause, and reads the page again after resume', async () => {
    const browser = shopBrowser();
    let releaseModel = (): void => undefined;
    const llm: ScriptedLLM = new ScriptedLLM({
      respond: async (request): Promise<string> => {
        if (request.agent === 'planner') return scriptedPlan({ done: llm.requestsOf('navigator').length >= 2, finalAnswer: 'ok' });
        if (llm.requestsOf('navigator').length === 1) {
          // The model is thinking while the user pauses and uses the browser.
          await new Promise<void>((resolve) => {
            releaseModel = resolve;
          });
          return scriptedActions([{ cache_content: { content: 'chosen before the pause' } }]);
        }
        return scriptedActions([{ done: { text: 'ok' } }]);
      },
    });
    const executor = new Executor({ sensitiveActions: false, task: 'x', llm, browser, planningInterval: 100 });
    const started: string[] = [];
    executor.on('action-start', (event) => started.push(event.action));
    const running = executor.execute();
    await waitFor(() => llm.requestsOf('navigator').length === 1);
    executor.pause();
    releaseModel();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(started).toEqual([]);
    await browser.goto('https://shop.test/mugs');
    executor.resume();
    const result = await running;
    expect(result.status).toBe('ok');
    expect(started).toEqual(['done']);
    const next = llm.requestsOf('navigator')[1]!;
    expect(next.lastUserText).toContain('https://shop.test/mugs');
    expect(conversationText(next)).toMatch(
      /Skipped 1 action\(s\) because the page changed while the task was paused \([^)]*\): cache_content\. Read the new page state first\./,
    );
    // The pause was neutral: the step it interrupted is not a failure.
    expect(result.history.steps.filter((step) => step.error !== undefined)).toEqual([]);
  });

  it('runs the actions chosen during a pause after resume when the page did not change, and counts no failure', async () => {
    const browser = shopBrowser();
    const releases: (() => void)[] = [];
    const llm: ScriptedLLM = new ScriptedLLM({
      respond: async (request): Promise<string> => {
        if (request.agent === 'planner') return scriptedPlan({ done: llm.requestsOf('navigator').length >= 4, finalAnswer: 'ok' });
        const call = llm.requestsOf('navigator').length;
        if (call <= 3) {
          // The user pauses while the model thinks, three steps in a row.
          await new Promise<void>((resolve) => releases.push(resolve));
          return scriptedActions([{ cache_content: { content: `fact ${call}` } }]);
        }
        return scriptedActions([{ done: { text: 'ok' } }]);
      },
    });
    const executor = new Executor({ sensitiveActions: false, task: 'x', llm, browser, planningInterval: 100, maxFailures: 3 });
    const started: string[] = [];
    const failures: number[] = [];
    executor.on('action-start', (event) => started.push(event.action));
    executor.on('step-end', (event) => failures.push(event.consecutiveFailures));
    const running = executor.execute();
    for (let call = 1; call <= 3; call++) {
      await waitFor(() => releases.length === call);
      executor.pause();
      releases[call - 1]!();
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(started.length).toBe(call - 1); // nothing runs while paused
      executor.resume();
    }
    const result = await running;
    expect(result.status).toBe('ok');
    expect(started).toEqual(['cache_content', 'cache_content', 'cache_content', 'done']);
    expect(failures.every((count) => count === 0)).toBe(true);
    expect(result.history.steps.flatMap((step) => step.actions).map((action) => action.result)).toEqual([
      'Cached findings: fact 1',
      'Cached findings: fact 2',
      'Cached findings: fact 3',
      'ok',
    ]);
  });

  it('cancels an in-flight model call within 100 ms', async () => {
    const llm = new ScriptedLLM({ responses: [scriptedPlan(), { fail: 'hang' }] });
    const executor = new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser() });
    const cancelEvents: string[] = [];
    executor.on('task-cancel', (event) => cancelEvents.push(event.reason));
    const running = executor.execute();
    await waitFor(() => llm.callCount === 2);
    const started = Date.now();
    executor.cancel('user pressed stop');
    const result = await running;
    expect(Date.now() - started).toBeLessThan(PROMPTLY_MS);
    expect(result.status).toBe('cancelled');
    expect(RequestCancelledError.isInstance(result.error)).toBe(true);
    expect(result.error?.message).toBe('user pressed stop');
    expect(llm.requests[1]!.signal?.aborted).toBe(true);
    expect(cancelEvents).toEqual(['user pressed stop']);
    expect(result.history.steps.at(-1)?.error?.code).toBe('REQUEST_CANCELLED');
  });

  it('cancels a model client that ignores its signal, without waiting for it', async () => {
    const stubborn = {
      specificationVersion: 'v1' as const,
      provider: 'stubborn',
      model: 'never-returns',
      generate: () => new Promise<never>(() => undefined),
    };
    const executor = new Executor({ sensitiveActions: false, task: 'x', llm: stubborn, browser: shopBrowser() });
    const running = executor.execute();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const started = Date.now();
    executor.cancel();
    const result = await running;
    expect(Date.now() - started).toBeLessThan(PROMPTLY_MS);
    expect(result.status).toBe('cancelled');
  });

  it('ends a cancelled action in the events and the history too', async () => {
    const { action, state } = hangingAction();
    const llm = new ScriptedLLM({ responses: [scriptedPlan(), scriptedActions([{ slow_job: {} }])] });
    const executor = new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser(), actions: [action] });
    const ends: { action: string; code: string | undefined }[] = [];
    executor.on('action-end', (event) => ends.push({ action: event.action, code: event.error?.code }));
    const running = executor.execute();
    await waitFor(() => state.started);
    executor.cancel('stop now');
    const result = await running;
    expect(ends).toEqual([{ action: 'slow_job', code: 'REQUEST_CANCELLED' }]);
    expect(result.history.steps.at(-1)?.actions).toMatchObject([{ name: 'slow_job', error: { code: 'REQUEST_CANCELLED', message: 'stop now' } }]);
  });

  it('cancels a running action through its signal', async () => {
    const { action, state } = hangingAction();
    const llm = new ScriptedLLM({ responses: [scriptedPlan(), scriptedActions([{ slow_job: {} }])] });
    const executor = new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser(), actions: [action] });
    const running = executor.execute();
    await waitFor(() => state.started);
    const started = Date.now();
    executor.cancel();
    const result = await running;
    expect(Date.now() - started).toBeLessThan(PROMPTLY_MS);
    expect(result.status).toBe('cancelled');
    expect(state.aborted).toBe(true);
  });

  it('cancels while paused', async () => {
    const llm = new ScriptedLLM({
      respond: (request) => (request.agent === 'planner' ? scriptedPlan() : scriptedActions([{ cache_content: { content: 'x' } }])),
    });
    const executor = new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser() });
    executor.once('step-end', () => executor.pause());
    const running = executor.execute();
    await waitFor(() => llm.callCount >= 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const started = Date.now();
    executor.cancel();
    const result = await running;
    expect(Date.now() - started).toBeLessThan(PROMPTLY_MS);
    expect(result.status).toBe('cancelled');
    expect(llm.callCount).toBe(1);
  });

  it('reports a cancel by an already aborted signal inside the task, after task-start', async () => {
    const aborted = new AbortController();
    aborted.abort();
    const executor = new Executor({ sensitiveActions: false, task: 'x', llm: new ScriptedLLM(), browser: shopBrowser(), signal: aborted.signal });
    const events: string[] = [];
    for (const name of ['task-start', 'task-cancel', 'task-end'] as const) executor.on(name, (event) => events.push(`${name}:${event.taskId}`));
    const result = await executor.execute();
    expect(events).toEqual([`task-start:${result.taskId}`, `task-cancel:${result.taskId}`, `task-end:${result.taskId}`]);
  });

  it('cancels when the caller\u2019s signal aborts, even before the start', async () => {
    const controller = new AbortController();
    const llm = new ScriptedLLM({ responses: [scriptedPlan(), { fail: 'hang' }] });
    const executor = new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser(), signal: controller.signal });
    const running = executor.execute();
    await waitFor(() => llm.callCount === 2);
    controller.abort();
    expect((await running).status).toBe('cancelled');

    const aborted = new AbortController();
    aborted.abort();
    const untouched = new ScriptedLLM({ responses: [scriptedPlan()] });
    const result = await new Executor({ sensitiveActions: false, task: 'x', llm: untouched, browser: shopBrowser(), signal: aborted.signal }).execute();
    expect(result.status).toBe('cancelled');
    expect(untouched.callCount).toBe(0);
  });

  it('ignores pause, resume and cancel when no task is running', async () => {
    const llm = new ScriptedLLM({ responses: [scriptedPlan({ done: true, finalAnswer: 'ok' })] });
    const executor = new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser() });
    executor.cancel();
    executor.pause();
    const result = await executor.execute();
    expect(result.status).toBe('ok');
    expect(executor.isRunning).toBe(false);
  });
});

describe('Executor: follow-up tasks', () => {
  it('continues the same conversation and browser; only results kept in memory survive', async () => {
    const browser = shopBrowser();
    const remember = defineAction({
      name: 'note',
      description: 'Note something',
      schema: z.object({ text: z.string(), keep: z.boolean() }),
      handler: async ({ text, keep }) => ({ extractedContent: text, includeInMemory: keep }),
    });
    const llm = new ScriptedLLM({
      responses: [
        scriptedPlan(),
        scriptedActions([{ note: { text: 'kept fact', keep: true } }, { note: { text: 'passing remark', keep: false } }]),
        scriptedPlan({ done: true, finalAnswer: 'first answer' }),
        // follow-up
        scriptedPlan({ nextSteps: 'continue' }),
        scriptedActions([{ done: { text: 'second' } }]),
        scriptedPlan({ done: true, finalAnswer: 'second answer' }),
      ],
    });
    const executor = new Executor({ sensitiveActions: false, task: 'First task', llm, browser, actions: [remember], planningInterval: 1 });
    const first = await executor.execute();
    expect(first.finalAnswer).toBe('first answer');
    await browser.goto('https://shop.test/mugs');
    executor.addFollowUpTask('Second task');
    const second = await executor.execute();
    expect(second.status).toBe('ok');
    expect(second.finalAnswer).toBe('second answer');
    expect(second.taskId).not.toBe(first.taskId);
    const followUpPlanner = conversationText(llm.requests[3]!);
    expect(followUpPlanner).toContain('First task');
    expect(followUpPlanner).toContain('Second task');
    expect(followUpPlanner).toContain('Your new task follows the previous ones');
    expect(followUpPlanner).toContain('first answer');
    const followUpNavigator = conversationText(llm.requests[4]!);
    expect(followUpNavigator).toContain('Action result:\n<untrusted_content>\nkept fact\n</untrusted_content>');
    expect(followUpNavigator).not.toMatch(/Action result[^:]*: passing remark/);
    expect(llm.requests[2]!.lastUserText).toContain('Action result 1/1:\n<untrusted_content>\npassing remark');
    expect(llm.requests[4]!.lastUserText).toContain('https://shop.test/mugs');
    expect(executor.history.tasks.map((task) => task.status)).toEqual(['ok', 'ok']);
    expect(executor.history.steps.filter((step) => step.taskIndex === 1)).toHaveLength(3);
  });

  it('runs a follow-up after a cancelled task', async () => {
    const llm = new ScriptedLLM({ responses: [scriptedPlan(), { fail: 'hang' }, scriptedPlan({ done: true, webTask: false, finalAnswer: 'fresh start' })] });
    const executor = new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser() });
    const running = executor.execute();
    await waitFor(() => llm.callCount === 2);
    executor.cancel();
    expect((await running).status).toBe('cancelled');
    executor.addFollowUpTask('And now?');
    const result = await executor.execute();
    expect(result).toMatchObject({ status: 'ok', finalAnswer: 'fresh start' });
  });

  it('resets the failure count for a follow-up', async () => {
    const llm = new ScriptedLLM({
      responses: [scriptedPlan(), 'garbage', 'garbage', scriptedPlan({ done: true, webTask: false, finalAnswer: 'answered' })],
    });
    const executor = new Executor({
      sensitiveActions: false,
      task: 'x',
      llm,
      browser: shopBrowser(),
      maxFailures: 1,
      planningInterval: 100,
      finalAnswerOnLimit: false,
    });
    expect((await executor.execute()).status).toBe('failed');
    executor.addFollowUpTask('y');
    expect((await executor.execute()).status).toBe('ok');
  });

  it('refuses a follow-up or a second run while a task runs, and a run with no task left', async () => {
    const llm = new ScriptedLLM({ responses: [scriptedPlan(), { fail: 'hang' }, scriptedPlan({ done: true })] });
    const executor = new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser() });
    const running = executor.execute();
    expect(() => executor.addFollowUpTask('y')).toThrow(/no task is running/);
    await expect(executor.execute()).rejects.toThrow(/already running/);
    executor.cancel();
    await running;
    await expect(executor.execute()).rejects.toThrow(/no task left to run/);
    expect(() => executor.addFollowUpTask('  ')).toThrow(/non-empty/);
  });
});
