// The model side of the fault matrix (issue 11): each fault a provider throws ends the task with
// the right status and typed error, leaves a complete history, and the session's follow-up works.
// The browser side (killed browser, closed tabs, stuck navigations) is in test/e2e/fault-matrix.test.ts.
import { describe, expect, it } from 'vitest';
import { shopBrowser } from '../../test/helpers/loop';
import type { RunHistory } from '../history/types';
import { ScriptedLLM, scriptedActions, scriptedPlan, type ScriptedResponse } from '../testing/scripted-llm';
import { Executor } from './executor';

/** Every task record that ran has its end and status, every step its timings. */
function expectComplete(history: RunHistory): void {
  for (const task of history.tasks.filter((record) => record.startedAt > 0)) {
    expect(task.endedAt).toBeGreaterThanOrEqual(task.startedAt);
    expect(task.status).toBeDefined();
  }
  for (const step of history.steps) {
    expect(step.endedAt).toBeGreaterThanOrEqual(step.startedAt);
    expect(step.taskId).toBe(history.tasks[step.taskIndex]?.taskId);
  }
}

const followUp: ScriptedResponse[] = [
  scriptedPlan({ nextSteps: 'finish' }),
  scriptedActions([{ done: { text: 'ok' } }]),
  scriptedPlan({ done: true, finalAnswer: 'recovered' }),
];

describe.each<[string, ScriptedResponse, { status: string; code: string; retried: boolean }]>([
  ['429 rate limit', { fail: 'status', status: 429, message: 'Too many requests' }, { status: 'failed', code: 'MAX_FAILURES_REACHED', retried: true }],
  ['500 server error', { fail: 'status', status: 500, message: 'Internal error' }, { status: 'failed', code: 'MAX_FAILURES_REACHED', retried: true }],
  ['503 overloaded', { fail: 'status', status: 503 }, { status: 'failed', code: 'MAX_FAILURES_REACHED', retried: true }],
  ['timeout', { fail: 'timeout' }, { status: 'failed', code: 'MAX_FAILURES_REACHED', retried: true }],
  ['network', { fail: 'network' }, { status: 'failed', code: 'MAX_FAILURES_REACHED', retried: true }],
  ['garbage', 'I am not JSON {{{{{{{{', { status: 'failed', code: 'MAX_FAILURES_REACHED', retried: false }],
  ['401 bad key', { fail: 'status', status: 401, message: 'Invalid API key' }, { status: 'failed', code: 'CHAT_MODEL_AUTH', retried: false }],
  ['403 forbidden', { fail: 'status', status: 403 }, { status: 'failed', code: 'CHAT_MODEL_FORBIDDEN', retried: false }],
  ['400 bad request', { fail: 'status', status: 400, message: 'Bad schema' }, { status: 'failed', code: 'CHAT_MODEL_BAD_REQUEST', retried: false }],
])('a model that fails with %s', (_name, fault, expected) => {
  it('ends the task as expected, keeps a complete history, and the follow-up works', async () => {
    let faults = 0;
    let answered = 0;
    const llm = new ScriptedLLM({
      respond: () => {
        // The first task meets the fault on every call; the follow-up gets good replies.
        if (answered === 0 && faults < 50) {
          faults++;
          return fault;
        }
        return followUp[answered++ % followUp.length] as ScriptedResponse;
      },
    });
    const executor = new Executor({
      sensitiveActions: false,
      task: 'x',
      llm,
      browser: shopBrowser(),
      maxFailures: 2,
      finalAnswerOnLimit: false,
      modelRetry: { retries: 1, minTimeout: 1, maxTimeout: 1 },
    });
    const retries: string[] = [];
    executor.on('model-retry', (event) => retries.push(event.error.code));
    const first = await executor.execute();
    expect(first.status).toBe(expected.status);
    expect(first.error?.code).toBe(expected.code);
    expect(retries.length > 0).toBe(expected.retried);
    expectComplete(first.history);
    expect(first.history.steps.length).toBeGreaterThan(0);
    expect(first.history.steps.every((step) => step.error !== undefined)).toBe(true);

    faults = 50; // the fault is over
    executor.addFollowUpTask('y');
    const second = await executor.execute();
    expect(second).toMatchObject({ status: 'ok', finalAnswer: 'recovered' });
    expectComplete(second.history);
    expect(second.history.tasks.map((task) => task.status)).toEqual([expected.status, 'ok']);
  });
});
