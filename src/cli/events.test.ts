// --json's stream: every executor event as one line of JSON with its type, in order, on a run of
// the scripted model in the in-memory browser.
import { describe, expect, it } from 'vitest';
import { Executor, type ExecutorEvent } from '../index';
import { FakeBrowserDriver, ScriptedLLM, scriptedActions, scriptedPlan } from '../testing/index';
import { followEvents, ndjsonLine } from './events';

describe('followEvents and ndjsonLine', () => {
  it('gives every event of a task, each one line of JSON tagged with its type', async () => {
    const llm = new ScriptedLLM({
      responses: [
        scriptedPlan({ nextSteps: 'Say hello' }),
        scriptedActions([{ done: { text: 'Hello\nthere', success: true } }], { nextGoal: 'Finish' }),
        scriptedPlan({ done: true, finalAnswer: 'Hello\nthere' }),
      ],
    });
    const executor = new Executor({ task: 'Say hello', llm, browser: new FakeBrowserDriver(), sensitiveActions: false });
    const events: ExecutorEvent[] = [];
    const stop = followEvents(executor, (event) => events.push(event));
    const result = await executor.execute();
    stop();
    expect(result.status).toBe('ok');

    const lines = events.map(ndjsonLine);
    expect(lines.every((line) => line.endsWith('\n') && line.indexOf('\n') === line.length - 1)).toBe(true);
    const parsed = lines.map((line) => JSON.parse(line) as { type: string; taskId: string });
    expect(parsed[0]?.type).toBe('task-start');
    expect(parsed.at(-1)?.type).toBe('task-end');
    expect(parsed.map((event) => event.type)).toEqual(expect.arrayContaining(['plan-end', 'navigator-output', 'action-end', 'model-call-end']));
    expect(new Set(parsed.map((event) => event.taskId))).toEqual(new Set([result.taskId]));
    expect(parsed.find((event) => event.type === 'task-end')).toMatchObject({ status: 'ok', finalAnswer: 'Hello\nthere' });
  });

  it('stops following when told to', async () => {
    const llm = new ScriptedLLM({ responses: [scriptedPlan({ done: true, webTask: false, finalAnswer: '4' })] });
    const executor = new Executor({ task: 'What is 2 + 2?', llm, browser: new FakeBrowserDriver() });
    const events: ExecutorEvent[] = [];
    followEvents(executor, (event) => events.push(event))();
    await executor.execute();
    expect(events).toEqual([]);
  });

  it('writes an Error inside a value as its name and message', () => {
    expect(JSON.parse(ndjsonLine({ type: 'x', error: new TypeError('bad') }))).toEqual({ type: 'x', error: { name: 'TypeError', message: 'bad' } });
  });
});
