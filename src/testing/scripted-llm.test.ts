import { describe, expect, it } from 'vitest';
import { rejectionOf } from '../../test/helpers/rejection';
import { ChatModelError, ChatModelRateLimitError } from '../errors';
import type { GenerateRequest } from '../llm/types';
import { ScriptedLLM, scriptedActions, scriptedPlan } from './scripted-llm';

/**
 * How soon "at once" must be. Each bound below stands against waiting for something of 10 s or more (a hang, a
 * retry delay, a timeout), so a second is still a sharp test; a tighter one fails on a loaded machine for no fault.
 */
const PROMPTLY_MS = 1000;

function request(overrides: Partial<GenerateRequest> = {}): GenerateRequest {
  return { messages: [{ role: 'user', content: 'hello' }], ...overrides };
}

function outputRequest(name: string): GenerateRequest {
  return request({ output: { name, schema: { type: 'object' } } });
}

describe('ScriptedLLM replies', () => {
  it('has default identity fields and can be renamed', () => {
    const llm = new ScriptedLLM();
    expect(llm.specificationVersion).toBe('v1');
    expect(llm.provider).toBe('scripted');
    expect(llm.model).toBe('scripted-model');
    expect(llm.supportsImages).toBe(true);
    const renamed = new ScriptedLLM({ provider: 'acme', model: 'acme-1', supportsImages: false });
    expect([renamed.provider, renamed.model, renamed.supportsImages]).toEqual(['acme', 'acme-1', false]);
  });

  it('answers with the scripted responses in order, with default usage', async () => {
    const llm = new ScriptedLLM({ responses: ['first', { text: 'second', usage: { inputTokens: 7 }, finishReason: 'length' }] });
    expect(await llm.generate(request())).toEqual({ text: 'first', usage: { inputTokens: 100, outputTokens: 20 }, finishReason: 'stop' });
    expect(await llm.generate(request())).toEqual({ text: 'second', object: undefined, usage: { inputTokens: 7 }, finishReason: 'length' });
  });

  it('returns an already-parsed object and the configured usage', async () => {
    const llm = new ScriptedLLM({ responses: [{ object: { ok: true } }], usage: { inputTokens: 1, outputTokens: 2 } });
    const result = await llm.generate(request());
    expect(result.object).toEqual({ ok: true });
    expect(result.text).toBeUndefined();
    expect(result.usage).toEqual({ inputTokens: 1, outputTokens: 2 });
  });

  it('confirms trust-boundary checks itself unless told to script them; either way they are recorded', async () => {
    const confirming = new ScriptedLLM({ responses: [{ object: { plan: 'first' } }] });
    expect((await confirming.generate(outputRequest('planner_confirmation'))).object).toMatchObject({ confirmed: true });
    // The script's first reply is still there for the Planner.
    expect((await confirming.generate(outputRequest('planner_output'))).object).toEqual({ plan: 'first' });
    expect(confirming.requests.map((made) => made.output?.name)).toEqual(['planner_confirmation', 'planner_output']);

    const scripted = new ScriptedLLM({ confirmations: 'script', responses: [{ object: { confirmed: false, reason: 'not asked for' } }] });
    expect((await scripted.generate(outputRequest('planner_confirmation'))).object).toEqual({ confirmed: false, reason: 'not asked for' });
  });

  it('falls back to respond() when the responses are used up', async () => {
    const llm = new ScriptedLLM({ responses: ['scripted'], respond: ({ callIndex }) => `computed ${callIndex}` });
    expect((await llm.generate(request())).text).toBe('scripted');
    expect((await llm.generate(request())).text).toBe('computed 1');
    expect((await llm.generate(request())).text).toBe('computed 2');
  });

  it('accepts an asynchronous respond() and appended responses', async () => {
    const llm = new ScriptedLLM({ respond: async () => 'from respond' });
    llm.enqueue('queued');
    expect((await llm.generate(request())).text).toBe('queued');
    expect((await llm.generate(request())).text).toBe('from respond');
  });

  it('fails with a ChatModelError once out of responses', async () => {
    const llm = new ScriptedLLM({ responses: ['only one'] });
    await llm.generate(request());
    const error = await rejectionOf(llm.generate(request()));
    expect(ChatModelError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('no response left for call 2');
  });
});

describe('ScriptedLLM request recording', () => {
  it('detects the agent from the requested output name', async () => {
    const llm = new ScriptedLLM({ respond: () => '{}' });
    await llm.generate(outputRequest('planner_output'));
    await llm.generate(outputRequest('navigator_output'));
    await llm.generate(outputRequest('extraction'));
    await llm.generate(request());
    expect(llm.requests.map((item) => item.agent)).toEqual(['planner', 'navigator', 'other', 'other']);
    expect(llm.requestsOf('planner')).toHaveLength(1);
    expect(llm.requestsOf('other').map((item) => item.callIndex)).toEqual([2, 3]);
  });

  it('passes the request with its agent, index and last user text to respond()', async () => {
    const seen: string[] = [];
    const llm = new ScriptedLLM({
      respond: ({ agent, callIndex, lastUserText }) => {
        seen.push(`${agent} ${callIndex} ${lastUserText}`);
        return 'ok';
      },
    });
    await llm.generate({ ...outputRequest('navigator_output'), messages: [{ role: 'user', content: 'state one' }] });
    expect(seen).toEqual(['navigator 0 state one']);
  });

  it('reads the text of the last user message, joining text parts', async () => {
    const llm = new ScriptedLLM({ respond: () => 'ok' });
    await llm.generate({
      messages: [
        { role: 'system', content: 'system' },
        { role: 'user', content: 'older' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'line one' },
            { type: 'image', data: 'AAAA', mediaType: 'image/jpeg' },
            { type: 'text', text: 'line two' },
          ],
        },
        { role: 'assistant', content: 'assistant reply' },
      ],
    });
    await llm.generate({ messages: [{ role: 'system', content: 'no user message' }] });
    expect(llm.requests[0]?.lastUserText).toBe('line one\n\nline two');
    expect(llm.requests[1]?.lastUserText).toBe('');
  });

  it('records every request, including failed ones, and counts calls', async () => {
    const llm = new ScriptedLLM({ responses: [{ fail: 'network' }, 'ok'] });
    await rejectionOf(llm.generate(request({ temperature: 0.3 })));
    await llm.generate(request({ maxOutputTokens: 10 }));
    expect(llm.callCount).toBe(2);
    expect(llm.requests[0]?.temperature).toBe(0.3);
    expect(llm.requests[1]?.maxOutputTokens).toBe(10);
    expect(llm.requests[1]?.messages).toEqual([{ role: 'user', content: 'hello' }]);
  });
});

describe('ScriptedLLM failures', () => {
  it('throws a rate limit error with the retry-after delay for status 429', async () => {
    const llm = new ScriptedLLM({ responses: [{ fail: 'status', status: 429, retryAfterMs: 1234, message: 'slow down' }] });
    const error = await rejectionOf(llm.generate(request()));
    expect(ChatModelRateLimitError.isInstance(error)).toBe(true);
    expect((error as ChatModelRateLimitError).retryAfterMs).toBe(1234);
    expect((error as ChatModelRateLimitError).requestId).toBe('scripted-request');
    expect((error as Error).message).toContain('slow down');
  });

  it('throws a status error of the matching class for other statuses', async () => {
    const llm = new ScriptedLLM({ responses: [{ fail: 'status', status: 503 }] });
    const error = await rejectionOf(llm.generate(request()));
    expect((error as ChatModelError).code).toBe('CHAT_MODEL_SERVER');
    expect((error as ChatModelError).statusCode).toBe(503);
  });

  it('throws an error named TimeoutError for a timeout', async () => {
    const llm = new ScriptedLLM({ responses: [{ fail: 'timeout' }] });
    const error = await rejectionOf(llm.generate(request()));
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe('TimeoutError');
  });

  it('throws a TypeError for a network failure', async () => {
    const llm = new ScriptedLLM({ responses: [{ fail: 'network' }] });
    const error = await rejectionOf(llm.generate(request()));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe('fetch failed');
  });

  it('hangs until aborted, then rejects with an AbortError', async () => {
    const llm = new ScriptedLLM({ responses: [{ fail: 'hang' }] });
    const controller = new AbortController();
    let settled = false;
    const pending = llm.generate(request({ signal: controller.signal })).finally(() => {
      settled = true;
    });
    const outcome = rejectionOf(pending);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    controller.abort('stop');
    const error = await outcome;
    expect((error as Error).name).toBe('AbortError');
    expect((error as Error).cause).toBe('stop');
  });

  it('throws a scripted error as it is', async () => {
    const custom = new RangeError('custom failure');
    const llm = new ScriptedLLM({ responses: [{ fail: 'error', error: custom }] });
    expect(await rejectionOf(llm.generate(request()))).toBe(custom);
  });

  it('rejects with an AbortError at once when the signal is already aborted', async () => {
    const llm = new ScriptedLLM({ responses: ['never used'] });
    const controller = new AbortController();
    controller.abort();
    const error = await rejectionOf(llm.generate(request({ signal: controller.signal })));
    expect((error as Error).name).toBe('AbortError');
    expect(llm.callCount).toBe(1);
  });
});

describe('ScriptedLLM latency', () => {
  it('takes the configured time to answer', async () => {
    const llm = new ScriptedLLM({ responses: ['slow'], latencyMs: 40 });
    const started = performance.now();
    await llm.generate(request());
    expect(performance.now() - started).toBeGreaterThanOrEqual(35);
  });

  it('stops waiting when the signal aborts', async () => {
    const llm = new ScriptedLLM({ responses: ['slow'], latencyMs: 10_000 });
    const controller = new AbortController();
    const outcome = rejectionOf(llm.generate(request({ signal: controller.signal })));
    setTimeout(() => controller.abort(), 5);
    const started = performance.now();
    const error = await outcome;
    expect((error as Error).name).toBe('AbortError');
    expect(performance.now() - started).toBeLessThan(PROMPTLY_MS);
  });
});

describe('scripted reply builders', () => {
  it('writes a full Planner reply with defaults for missing fields', () => {
    expect(JSON.parse(scriptedPlan())).toEqual({
      observation: '',
      challenges: '',
      done: false,
      next_steps: '',
      final_answer: '',
      reasoning: '',
      web_task: true,
    });
    expect(JSON.parse(scriptedPlan({ done: true, finalAnswer: '42', nextSteps: 'none', webTask: false }))).toMatchObject({
      done: true,
      final_answer: '42',
      next_steps: 'none',
      web_task: false,
    });
  });

  it('writes a Navigator reply with the current state and the actions', () => {
    expect(JSON.parse(scriptedActions([{ click_element: { index: 3 } }]))).toEqual({
      current_state: { evaluation_previous_goal: 'Unknown', memory: '', next_goal: '' },
      action: [{ click_element: { index: 3 } }],
    });
    expect(JSON.parse(scriptedActions([], { evaluation: 'Success', memory: 'm', nextGoal: 'g' })).current_state).toEqual({
      evaluation_previous_goal: 'Success',
      memory: 'm',
      next_goal: 'g',
    });
  });
});
