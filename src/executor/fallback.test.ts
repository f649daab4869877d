// fallbackLLM: the model that takes over when an agent's own keeps failing (issue 11).
import { describe, expect, it } from 'vitest';
import { shopBrowser } from '../../test/helpers/loop';
import type { ExecutorEventMap } from '../events';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../testing/scripted-llm';
import { Executor } from './executor';

describe('fallbackLLM', () => {
  it('takes over a call still rate limited after its retries, records it, and the next call tries the main model again', async () => {
    const llm = new ScriptedLLM({
      model: 'main',
      responses: [
        { fail: 'status', status: 429, message: 'slow down' },
        { fail: 'status', status: 429, message: 'slow down' },
        scriptedActions([{ done: { text: 'ok' } }]),
        scriptedPlan({ done: true, finalAnswer: 'done' }),
      ],
    });
    const fallbackLLM = new ScriptedLLM({ model: 'spare', responses: [scriptedPlan({ nextSteps: 'finish' })] });
    const executor = new Executor({
      sensitiveActions: false,
      task: 'x',
      llm,
      fallbackLLM,
      browser: shopBrowser(),
      modelRetry: { retries: 1, minTimeout: 1, maxTimeout: 1 },
    });
    const fallbacks: ExecutorEventMap['model-fallback'][] = [];
    const calls: string[] = [];
    executor.on('model-fallback', (event) => fallbacks.push(event));
    executor.on('model-call-end', (event) => calls.push(`${event.actor}:${event.model}:${event.error?.code ?? 'ok'}`));
    const result = await executor.execute();

    expect(result.status).toBe('ok');
    expect(fallbacks).toHaveLength(1);
    expect(fallbacks[0]).toMatchObject({
      actor: 'planner',
      from: { provider: 'scripted', model: 'main' },
      to: { provider: 'scripted', model: 'spare' },
      error: { code: 'CHAT_MODEL_RATE_LIMIT' },
    });
    expect(calls).toEqual([
      'planner:main:CHAT_MODEL_RATE_LIMIT',
      'planner:main:CHAT_MODEL_RATE_LIMIT',
      'planner:spare:ok',
      'navigator:main:ok',
      'planner:main:ok',
    ]);
    expect(result.history.steps[0]).toMatchObject({
      actor: 'planner',
      error: undefined,
      fallbacks: [{ from: 'scripted:main', to: 'scripted:spare', error: { code: 'CHAT_MODEL_RATE_LIMIT' } }],
    });
    expect(result.history.steps[1]?.fallbacks).toBeUndefined();
  });

  it('takes over a reply cut off by the output token limit, and never a fatal error', async () => {
    const cut = { text: '{"current_state": {"evaluation_previous_goal": "', finishReason: 'length' as const };
    const llm = new ScriptedLLM({ model: 'main', responses: [scriptedPlan(), cut, scriptedPlan({ done: true, finalAnswer: 'done' })] });
    const fallbackLLM = new ScriptedLLM({ model: 'spare', responses: [scriptedActions([{ done: { text: 'ok' } }])] });
    const executor = new Executor({ sensitiveActions: false, task: 'x', llm, fallbackLLM, browser: shopBrowser() });
    const fallbacks: string[] = [];
    executor.on('model-fallback', (event) => fallbacks.push(`${event.actor}:${event.error.code}`));
    expect((await executor.execute()).status).toBe('ok');
    expect(fallbacks).toEqual(['navigator:CHAT_MODEL_OUTPUT']);
    expect(fallbackLLM.requests[0]?.lastUserText).toContain('cut off by the output token limit');

    const refused = new Executor({
      sensitiveActions: false,
      task: 'x',
      llm: new ScriptedLLM({ responses: [{ fail: 'status', status: 401 }] }),
      fallbackLLM: new ScriptedLLM(),
      browser: shopBrowser(),
    });
    const result = await refused.execute();
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('CHAT_MODEL_AUTH');
  });
});
