import { describe, expect, it, vi } from 'vitest';
import { shopBrowser } from '../../test/helpers/loop';
import type { ExecutorEvent } from '../events';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../testing/scripted-llm';
import { Executor } from './executor';

function simpleRun(): { executor: Executor; llm: ScriptedLLM } {
  const llm = new ScriptedLLM({
    responses: [
      scriptedPlan({ nextSteps: 'note it' }),
      scriptedActions([{ cache_content: { content: 'a fact' } }], { memory: 'one fact', nextGoal: 'finish' }),
      scriptedActions([{ done: { text: 'ok' } }]),
      scriptedPlan({ done: true, finalAnswer: 'the fact' }),
    ],
    usage: { inputTokens: 50, outputTokens: 5, cachedInputTokens: 10, reasoningTokens: 2 },
  });
  return { executor: new Executor({ sensitiveActions: false, task: 'Note a fact', llm, browser: shopBrowser() }), llm };
}

describe('Executor: events', () => {
  it('emits structured, typed events in order', async () => {
    const { executor } = simpleRun();
    const seen: ExecutorEvent[] = [];
    const stream = executor.events();
    const reading = (async () => {
      for await (const event of stream) seen.push(event);
    })();
    const result = await executor.execute();
    await reading;

    const sequence = seen.map((event) => `${event.type}:${event.actor}`);
    expect(sequence).toEqual([
      'task-start:system',
      'step-start:planner',
      'model-call-start:planner',
      'model-call-end:planner',
      'plan-end:planner',
      'step-end:planner',
      'step-start:navigator',
      'model-call-start:navigator',
      'model-call-end:navigator',
      'navigator-output:navigator',
      'action-start:navigator',
      'action-end:navigator',
      'step-end:navigator',
      'step-start:navigator',
      'model-call-start:navigator',
      'model-call-end:navigator',
      'navigator-output:navigator',
      'action-start:navigator',
      'action-end:navigator',
      'step-end:navigator',
      'step-start:planner',
      'model-call-start:planner',
      'model-call-end:planner',
      'plan-end:planner',
      'step-end:planner',
      'task-end:system',
    ]);
    for (const event of seen) {
      expect(event.taskId).toBe(result.taskId);
      expect(typeof event.timestamp).toBe('number');
    }
    const actionEnd = seen.find((event) => event.type === 'action-end');
    expect(actionEnd).toMatchObject({
      step: 1,
      action: 'cache_content',
      params: { content: 'a fact' },
      result: 'Cached findings: a fact',
      error: undefined,
      actionIndex: 0,
    });
    const output = seen.find((event) => event.type === 'navigator-output');
    expect(output).toMatchObject({ memory: 'one fact', nextGoal: 'finish', actions: [{ name: 'cache_content', params: { content: 'a fact' } }] });
    const modelEnd = seen.find((event) => event.type === 'model-call-end');
    expect(modelEnd).toMatchObject({
      provider: 'scripted',
      model: 'scripted-model',
      attempt: 1,
      usage: { inputTokens: 50, outputTokens: 5, cachedInputTokens: 10, reasoningTokens: 2, totalTokens: 55, calls: 1 },
    });
    const taskEnd = seen.at(-1);
    expect(taskEnd).toMatchObject({
      type: 'task-end',
      status: 'ok',
      success: true,
      finalAnswer: 'the fact',
      usage: { inputTokens: 200, cachedInputTokens: 40, calls: 4 },
    });
    const stepEnds = seen.filter((event) => event.type === 'step-end');
    expect(stepEnds.map((event) => event.step)).toEqual([0, 1, 2, 2]);
  });

  it('prices every model call from the prices option', async () => {
    const llm = new ScriptedLLM({
      model: 'priced-model',
      responses: [scriptedPlan({ done: true, webTask: false, finalAnswer: 'ok' })],
      usage: { inputTokens: 1_000_000, outputTokens: 1_000_000 },
    });
    const executor = new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser(), prices: { 'priced-model': { input: 1, output: 3 } } });
    const costs: (number | undefined)[] = [];
    executor.on('model-call-end', (event) => costs.push(event.usage.costUsd));
    const result = await executor.execute();
    expect(costs).toEqual([4]);
    expect(result.usage.costUsd).toBe(4);

    const unpriced = await new Executor({
      sensitiveActions: false,
      task: 'x',
      llm: new ScriptedLLM({ responses: [scriptedPlan({ done: true, webTask: false })] }),
      browser: shopBrowser(),
    }).execute();
    expect(unpriced.usage.costUsd).toBeUndefined();
  });

  it('ends the stream after task-end and unsubscribes', async () => {
    const { executor } = simpleRun();
    const stream = executor.events();
    await executor.execute();
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types.at(-1)).toBe('task-end');
    expect(await stream.next()).toEqual({ value: undefined, done: true });
  });

  it('ends the stream when its signal aborts or the consumer breaks', async () => {
    const { executor } = simpleRun();
    const controller = new AbortController();
    const stream = executor.events({ signal: controller.signal });
    const pending = stream.next();
    controller.abort();
    expect(await pending).toEqual({ value: undefined, done: true });

    const again = executor.events();
    const running = executor.execute();
    for await (const event of again) {
      if (event.type === 'task-start') break;
    }
    expect(await again.next()).toEqual({ value: undefined, done: true });
    await running;
  });

  it('keeps running, and keeps the other listeners and the stream, when a listener throws', async () => {
    const { executor } = simpleRun();
    executor.on('task-end', () => {
      throw new Error('listener bug');
    });
    executor.on('step-start', () => {
      throw new Error('another bug');
    });
    const warnings: string[] = [];
    executor.on('warning', (event) => warnings.push(`${event.code}: ${event.message}`));
    let laterListenerSawEnd = false;
    executor.on('task-end', () => {
      laterListenerSawEnd = true;
    });
    const stream = executor.events();
    const types: string[] = [];
    const reading = (async () => {
      for await (const event of stream) types.push(event.type);
    })();
    const result = await executor.execute();
    await reading;
    expect(result.status).toBe('ok');
    expect(laterListenerSawEnd).toBe(true);
    expect(types.at(-1)).toBe('task-end');
    expect(warnings).toContain('LISTENER_ERROR: An event listener threw: another bug');
    expect(warnings).toContain('LISTENER_ERROR: An event listener threw: listener bug');
  });

  it('stops delivering to a once() listener after the first event, and off() removes it early', async () => {
    const { executor } = simpleRun();
    let onceCount = 0;
    let removedCount = 0;
    executor.once('step-start', () => {
      onceCount++;
    });
    const removed = (): void => {
      removedCount++;
    };
    executor.once('step-end', removed);
    executor.off('step-end', removed);
    await executor.execute();
    expect(onceCount).toBe(1);
    expect(removedCount).toBe(0);
  });

  it('serves several pending next() calls and removes its signal listener when the task ends', async () => {
    const { EventEmitter } = await import('node:events');
    const { executor } = simpleRun();
    const controller = new AbortController();
    const stream = executor.events({ signal: controller.signal });
    const first = stream.next();
    const second = stream.next();
    await executor.execute();
    expect((await first).value?.type).toBe('task-start');
    expect((await second).value?.type).toBe('step-start');
    expect(EventEmitter.getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('stops delivering to a listener after off()', async () => {
    const { executor } = simpleRun();
    let count = 0;
    const listener = (): void => {
      count++;
    };
    executor.on('step-start', listener);
    executor.off('step-start', listener);
    await executor.execute();
    expect(count).toBe(0);
  });
});

describe('Executor: events and secrets', () => {
  // A task id is random: a short secret value (a user name such as `ada`) can occur inside it. The
  // event's own fields are not page or model text and must reach the listener as they are, or a
  // task-scoped stream never sees its task's `task-end` and never ends.
  it('keeps the task id of every event whole when a secret value occurs inside it', async () => {
    const { llm } = simpleRun();
    const spy = vi.spyOn(globalThis.crypto, 'randomUUID').mockReturnValue('0ada0ada-0000-4000-8000-00000000ada0');
    try {
      const executor = new Executor({
        sensitiveActions: false,
        task: 'Note a fact',
        llm,
        browser: shopBrowser(),
        secrets: { 'https://shop.test': { user: 'ada' } },
      });
      const seen: ExecutorEvent[] = [];
      const reading = (async () => {
        for await (const event of executor.events()) seen.push(event);
      })();
      const result = await executor.execute();
      const ended = await Promise.race([reading.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 2000))]);
      expect(result.taskId).toBe('0ada0ada-0000-4000-8000-00000000ada0');
      expect(new Set(seen.map((event) => event.taskId))).toEqual(new Set([result.taskId]));
      expect(ended).toBe(true);
    } finally {
      spy.mockRestore();
    }
  });
});
