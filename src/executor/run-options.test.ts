// One run's options (execute({ signal, timeout })), the event stream's lifetime, close(), async
// listeners, the structured errors of action-end, and the typed data of outputSchema.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { shopBrowser } from '../../test/helpers/loop';
import { defineAction } from '../actions/define-action';
import { BrowserError, ConfigError, RequestCancelledError, TimeoutError } from '../errors';
import type { ExecutorEvent, ExecutorEventMap } from '../events';
import { ScriptedLLM, scriptedActions, scriptedPlan, type ScriptedResponse } from '../testing/scripted-llm';
import { Executor } from './executor';

/** A plan that answers at once without the browser. */
const answer = (finalAnswer: string): ScriptedResponse => scriptedPlan({ done: true, webTask: false, finalAnswer });

function executorWith(responses: readonly ScriptedResponse[], options: { signal?: AbortSignal } = {}): Executor {
  return new Executor({ sensitiveActions: false, task: 'Answer', llm: new ScriptedLLM({ responses }), browser: shopBrowser(), ...options });
}

/** Reads a stream to its end, failing instead of hanging when it does not end within `ms`. */
async function drain(stream: AsyncIterable<ExecutorEvent>, ms = 2000): Promise<string[]> {
  const types: string[] = [];
  const reading = (async () => {
    for await (const event of stream) types.push(`${event.type}:${event.taskId.slice(0, 8)}`);
    return types;
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the stream did not end within ${ms} ms; read so far: ${types.join(', ')}`)), ms);
  });
  try {
    return await Promise.race([reading, hung]);
  } finally {
    clearTimeout(timer);
  }
}

describe('execute({ timeout })', () => {
  it('ends a task that runs too long with status timed-out and a TimeoutError, and the next task runs', async () => {
    const executor = executorWith([{ fail: 'hang' }, answer('second')]);
    const ends: ExecutorEventMap['task-end'][] = [];
    const cancels: unknown[] = [];
    executor.on('task-end', (event) => ends.push(event));
    executor.on('task-cancel', (event) => cancels.push(event));

    const first = await executor.execute({ timeout: 50 });
    expect(first.status).toBe('timed-out');
    expect(first.success).toBe(false);
    expect(TimeoutError.isInstance(first.error)).toBe(true);
    expect(RequestCancelledError.isInstance(first.error)).toBe(true);
    expect(first.error).toMatchObject({ code: 'TIMEOUT', timeoutMs: 50, retryable: false });
    expect(first.error?.message).toBe('The task did not finish within its timeout of 50 ms. Give it a longer `timeout`, or none.');
    expect(ends[0]?.error).toMatchObject({ name: 'TimeoutError', code: 'TIMEOUT' });
    expect(ends[0]?.status).toBe('timed-out');
    expect(cancels).toEqual([]); // a timeout is not the caller's cancel
    expect(first.history.tasks[0]?.status).toBe('timed-out');
    expect(first.history.steps).toHaveLength(1);

    executor.addFollowUpTask('Again');
    const second = await executor.execute(); // no timeout: its own options, not the first's
    expect(second.status).toBe('ok');
    expect(second.finalAnswer).toBe('second');
  });

  it('leaves no timer behind when the task ends first', async () => {
    const executor = executorWith([answer('quick'), answer('follow-up')]);
    const first = await executor.execute({ timeout: 30 });
    expect(first.status).toBe('ok');
    executor.addFollowUpTask('Then wait');
    // The first run's timer must not cancel the follow-up that starts after it.
    await new Promise((resolve) => setTimeout(resolve, 60));
    const second = await executor.execute();
    expect(second.status).toBe('ok');
  });
});

describe('execute({ signal })', () => {
  it('cancels only the task it was given to; the follow-up runs with its own', async () => {
    const executor = executorWith([{ fail: 'hang' }, answer('done')]);
    const controller = new AbortController();
    const running = executor.execute({ signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const first = await running;
    expect(first.status).toBe('cancelled');
    expect(first.error?.message).toBe('Cancelled by the signal given to execute().');

    executor.addFollowUpTask('Again');
    expect((await executor.execute()).status).toBe('ok'); // the aborted signal belonged to the first run
  });

  it('cancels at once with a signal aborted before the run, after task-start', async () => {
    const executor = executorWith([answer('never read')]);
    const types: string[] = [];
    executor.on('task-start', () => types.push('task-start'));
    executor.on('task-cancel', () => types.push('task-cancel'));
    const result = await executor.execute({ signal: AbortSignal.abort() });
    expect(result.status).toBe('cancelled');
    expect(types).toEqual(['task-start', 'task-cancel']);
  });

  it('keeps the constructor signal for the whole session', async () => {
    const session = new AbortController();
    const executor = executorWith([answer('a'), answer('b')], { signal: session.signal });
    expect((await executor.execute()).status).toBe('ok');
    session.abort();
    executor.addFollowUpTask('Again');
    expect((await executor.execute({ signal: new AbortController().signal })).status).toBe('cancelled');
  });

  it.each([
    [{ timeout: -5 }, 'timeout', 'The execute() option `timeout` must be a positive integer; got -5.'],
    [{ timeout: 1.5 }, 'timeout', 'The execute() option `timeout` must be an integer; got 1.5.'],
    [{ timeout: '100' }, 'timeout', 'The execute() option `timeout` must be a number; got "100".'],
    [{ signal: 'stop' }, 'signal', 'The execute() option `signal` must be an AbortSignal; got "stop".'],
    [{ timout: 100 }, 'timout', 'Unknown execute() option `timout`. Check its spelling against ExecuteOptions (signal, timeout).'],
  ])('refuses %j with a ConfigError naming the field, before anything runs', async (options, field, message) => {
    const executor = executorWith([answer('ok')]);
    const error = await executor.execute(options as never).catch((caught: unknown) => caught);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ field, message });
    expect(executor.isRunning).toBe(false);
    expect((await executor.execute()).status).toBe('ok'); // the task is still there to run
  });

  it('refuses options that are not an object', async () => {
    const error = await executorWith([answer('ok')])
      .execute(100 as never)
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'CONFIG_ERROR', message: 'execute() takes an options object ({ signal, timeout }); got 100.' });
  });
});

describe('events(): the stream lasts as long as its scope', () => {
  it('ends at once when opened after the last task ended and nothing is left to run', async () => {
    const executor = executorWith([answer('a')]);
    await executor.execute();
    expect(await drain(executor.events())).toEqual([]);
  });

  it('is for the next task when opened between tasks, and ends with that task', async () => {
    const executor = executorWith([answer('a'), answer('b')]);
    const first = await executor.execute();
    executor.addFollowUpTask('Next');
    const stream = executor.events();
    const second = await executor.execute();
    const types = await drain(stream);
    expect(types[0]).toBe(`task-start:${second.taskId.slice(0, 8)}`);
    expect(types.at(-1)).toBe(`task-end:${second.taskId.slice(0, 8)}`);
    expect(types.some((type) => type.endsWith(first.taskId.slice(0, 8)))).toBe(false);
  });

  it('is for the running task when opened during one', async () => {
    const executor = executorWith([{ fail: 'hang' }]);
    const running = executor.execute();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const stream = executor.events();
    executor.cancel();
    const result = await running;
    expect((await drain(stream)).at(-1)).toBe(`task-end:${result.taskId.slice(0, 8)}`);
  });

  it('with scope session, spans every task and ends at close()', async () => {
    const executor = executorWith([answer('a'), answer('b')]);
    const stream = executor.events({ scope: 'session' });
    const reading = drain(stream);
    const first = await executor.execute();
    executor.addFollowUpTask('Next');
    const second = await executor.execute();
    await executor.close();
    const types = await reading;
    expect(types.filter((type) => type.startsWith('task-end'))).toEqual([`task-end:${first.taskId.slice(0, 8)}`, `task-end:${second.taskId.slice(0, 8)}`]);
    expect(await drain(executor.events({ scope: 'session' }))).toEqual([]); // opened after close: ends at once
  });

  it('refuses an unknown scope', () => {
    expect(() => executorWith([]).events({ scope: 'forever' as never })).toThrow('events() option `scope` must be "task" or "session"; got "forever".');
  });
});

describe('close()', () => {
  it('cancels the running task, waits for it, and refuses more tasks', async () => {
    const executor = executorWith([{ fail: 'hang' }]);
    const running = executor.execute();
    await new Promise((resolve) => setTimeout(resolve, 10));
    await executor.close();
    expect(executor.isRunning).toBe(false);
    const result = await running;
    expect(result.status).toBe('cancelled');
    expect(result.error?.message).toBe('The executor was closed.');
    expect(() => executor.addFollowUpTask('More')).toThrow('The executor is closed: create a new Executor for more tasks.');
    await expect(executor.execute()).rejects.toThrow('The executor is closed');
    await executor.close(); // twice is fine
  });
});

describe('async listeners', () => {
  it('reports a listener that rejects as a LISTENER_ERROR warning, and the task goes on', async () => {
    const executor = executorWith([answer('fine')]);
    const warnings: string[] = [];
    executor.on('warning', (event) => warnings.push(`${event.code}: ${event.message}`));
    executor.on('task-start', async () => {
      await Promise.resolve();
      throw new Error('async listener bug');
    });
    executor.once('task-end', () => Promise.reject(new Error('rejected promise')));
    const result = await executor.execute();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(result.status).toBe('ok');
    expect(warnings).toEqual(['LISTENER_ERROR: An event listener threw: async listener bug', 'LISTENER_ERROR: An event listener threw: rejected promise']);
  });

  it('does not loop when an async warning listener rejects', async () => {
    const executor = executorWith([answer('fine')]);
    let warnings = 0;
    executor.on('warning', async () => {
      warnings++;
      throw new Error('warning listener bug');
    });
    executor.on('task-start', () => {
      throw new Error('sync bug');
    });
    await executor.execute();
    await new Promise((resolve) => setTimeout(resolve, 0));
    // One warning, for the sync bug; the warning listener's rejection on that LISTENER_ERROR is not reported again.
    expect(warnings).toBe(1);
  });
});

describe('action-end carries its error as structured data', () => {
  it('gives each kind of failure its code, name and the message the model reads', async () => {
    const broken = defineAction({
      name: 'broken',
      description: 'Fails in a chosen way',
      schema: z.object({ how: z.enum(['browser', 'plain', 'returned']) }),
      handler: async ({ how }) => {
        if (how === 'browser') throw new BrowserError('The tab crashed.', { retryable: true });
        if (how === 'plain') throw new TypeError('x is not a function');
        return { error: 'Nothing to do here.' };
      },
    });
    const llm = new ScriptedLLM({
      responses: [
        scriptedPlan({ nextSteps: 'try' }),
        scriptedActions([{ no_such_action: {} }]),
        scriptedActions([{ broken: { how: 'sideways' } }]),
        scriptedActions([{ broken: { how: 'browser' } }]),
        scriptedActions([{ broken: { how: 'plain' } }]),
        scriptedActions([{ broken: { how: 'returned' } }]),
        scriptedActions([{ done: { text: 'ok' } }]),
        scriptedPlan({ done: true, finalAnswer: 'ok' }),
      ],
    });
    const executor = new Executor({
      sensitiveActions: false,
      task: 'Fail',
      llm,
      browser: shopBrowser(),
      actions: [broken],
      maxFailures: 10,
      planningInterval: 10,
      loopDetection: false,
    });
    const ends: ExecutorEventMap['action-end'][] = [];
    executor.on('action-end', (event) => ends.push(event));
    await executor.execute();
    expect(ends.map((event) => event.error)).toEqual([
      {
        name: 'ActionError',
        code: 'ACTION_UNKNOWN',
        retryable: false,
        message: expect.stringMatching(/^Unknown action "no_such_action"\. Available actions: .*broken\.$/),
      },
      {
        name: 'ActionError',
        code: 'ACTION_INVALID_PARAMS',
        retryable: false,
        message: expect.stringMatching(/^Invalid parameters for broken: how: Invalid option/),
      },
      { name: 'BrowserError', code: 'BROWSER_ERROR', retryable: true, message: 'The tab crashed.' },
      { name: 'ActionError', code: 'ACTION_ERROR', retryable: false, message: 'broken failed: x is not a function' },
      { name: 'ActionError', code: 'ACTION_ERROR', retryable: false, message: 'Nothing to do here.' },
      undefined,
    ]);
  });
});

describe('outputSchema', () => {
  it('puts the data the schema parsed (defaults and transforms applied) in result.data', async () => {
    const llm = new ScriptedLLM({
      responses: [
        scriptedPlan({ nextSteps: 'report' }),
        scriptedActions([{ done: { text: 'found', data: { name: 'Blue mug', price: '12.50' } } }]),
        scriptedPlan({ done: true, finalAnswer: 'Blue mug' }),
      ],
    });
    const schema = z.object({ name: z.string(), price: z.string().transform(Number), currency: z.string().default('USD') });
    const executor = new Executor({ sensitiveActions: false, task: 'Find a mug', llm, browser: shopBrowser(), outputSchema: schema });
    const result = await executor.execute();
    expect(result.data).toEqual({ name: 'Blue mug', price: 12.5, currency: 'USD' });
  });
});
