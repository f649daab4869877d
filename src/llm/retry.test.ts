import { describe, expect, it } from 'vitest';
import { ChatModelAuthError, ChatModelContextLengthError, ChatModelBadRequestError, ChatModelError, RequestCancelledError, type PlannavError } from '../errors';
import { ScriptedLLM, type ScriptedResponse } from '../testing/scripted-llm';
import { chatModelErrorFromStatus, toChatModelError } from './model-errors';
import { retryModelCall, withRetries } from './retry';
import type { GenerateRequest, LLMClient } from './types';
import { rejectionOf } from '../../test/helpers/rejection';

/**
 * How soon "at once" must be. Each bound below stands against waiting for something of 10 s or more (a hang, a
 * retry delay, a timeout), so a second is still a sharp test; a tighter one fails on a loaded machine for no fault.
 */
const PROMPTLY_MS = 1000;

const request: GenerateRequest = { messages: [{ role: 'user', content: 'Hello' }] };
const fast = { minTimeout: 1, maxTimeout: 5 };

function scripted(...responses: ScriptedResponse[]): ScriptedLLM {
  return new ScriptedLLM({ responses, provider: 'p', model: 'm', supportsImages: false });
}

describe('withRetries', () => {
  it('keeps the client\u2019s identity', () => {
    const wrapped = withRetries(scripted());
    expect(wrapped).toMatchObject({ specificationVersion: 'v1', provider: 'p', model: 'm', supportsImages: false });
  });

  it('retries a server error, then returns the reply', async () => {
    const llm = scripted({ fail: 'status', status: 503 }, 'hi');
    const retries: string[] = [];
    const result = await withRetries(llm, { ...fast, onRetry: (attempt, error, delay) => retries.push(`${attempt} ${error.code} ${delay}`) }).generate(request);
    expect(result.text).toBe('hi');
    expect(llm.callCount).toBe(2);
    expect(retries).toEqual(['1 CHAT_MODEL_SERVER 1']);
  });

  it('retries network errors and timeouts, typed', async () => {
    const llm = scripted({ fail: 'network' }, { fail: 'timeout' }, 'ok');
    const codes: string[] = [];
    await withRetries(llm, { ...fast, onRetry: (_attempt, error) => codes.push(error.code) }).generate(request);
    expect(codes).toEqual(['CHAT_MODEL_NETWORK', 'CHAT_MODEL_TIMEOUT']);
  });

  it('does not retry an auth error', async () => {
    const llm = scripted({ fail: 'status', status: 401 }, 'never');
    const error = await rejectionOf(withRetries(llm, fast).generate(request));
    expect(ChatModelAuthError.isInstance(error)).toBe(true);
    expect(llm.callCount).toBe(1);
  });

  it('stops after the retry count with the last error', async () => {
    const llm = scripted({ fail: 'status', status: 500 }, { fail: 'status', status: 502 }, { fail: 'status', status: 503 }, 'late');
    const error = await rejectionOf(withRetries(llm, { ...fast, retries: 1 }).generate(request));
    expect((error as Error).message).toContain('HTTP 502');
    expect(llm.callCount).toBe(2);
  });

  it('stops retrying when maxRetryTime is used up', async () => {
    const llm = new ScriptedLLM({ respond: () => ({ fail: 'status', status: 500 }), latencyMs: 30 });
    const error = await rejectionOf(withRetries(llm, { retries: 50, minTimeout: 1, maxTimeout: 1, maxRetryTime: 50 }).generate(request));
    expect((error as PlannavError).code).toBe('CHAT_MODEL_SERVER');
    expect(llm.callCount).toBeLessThan(5);
  });

  it('waits at least the Retry-After of a rate limit', async () => {
    const llm = scripted({ fail: 'status', status: 429, retryAfterMs: 80 }, 'ok');
    const started = performance.now();
    await withRetries(llm, fast).generate(request);
    expect(performance.now() - started).toBeGreaterThanOrEqual(70);
    expect(llm.callCount).toBe(2);
  });

  it('is cancelled at once during the wait between tries', async () => {
    const llm = scripted({ fail: 'status', status: 500 }, 'ok');
    const controller = new AbortController();
    const pending = withRetries(llm, { minTimeout: 10_000, maxTimeout: 10_000 }).generate({ ...request, signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const started = performance.now();
    const error = await rejectionOf(pending);
    expect(RequestCancelledError.isInstance(error)).toBe(true);
    expect(performance.now() - started).toBeLessThan(PROMPTLY_MS);
    expect(llm.callCount).toBe(1);
  });

  it('is cancelled at once during a call that ignores its signal', async () => {
    const ignoring: LLMClient = { specificationVersion: 'v1', provider: 'p', model: 'm', generate: () => new Promise<never>(() => undefined) };
    const controller = new AbortController();
    const pending = withRetries(ignoring).generate({ ...request, signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    expect(RequestCancelledError.isInstance(await rejectionOf(pending))).toBe(true);
  });

  it('makes no call when the signal is already aborted', async () => {
    const llm = scripted('ok');
    const controller = new AbortController();
    controller.abort();
    const error = await rejectionOf(withRetries(llm).generate({ ...request, signal: controller.signal }));
    expect(RequestCancelledError.isInstance(error)).toBe(true);
    expect(llm.callCount).toBe(0);
  });
});

describe('retryModelCall', () => {
  it('turns a thrown status object into a typed error', async () => {
    const error = await rejectionOf(retryModelCall(async () => Promise.reject(Object.assign(new Error('nope'), { status: 403 }))));
    expect((error as PlannavError).code).toBe('CHAT_MODEL_FORBIDDEN');
  });
});

describe('context-length errors', () => {
  it.each([
    ['OpenAI code', { status: 400, code: 'context_length_exceeded', message: 'too long' }],
    ['OpenAI-compatible message', { status: 400, message: "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens." }],
    ['Anthropic', { status: 400, code: 'invalid_request_error', message: 'prompt is too long: 208000 tokens > 200000 maximum' }],
    ['Gemini', { status: 400, message: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).' }],
    ['Mistral', { status: 400, message: 'Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length' }],
    ['413', { status: 413, message: 'Request exceeds the context window of the model' }],
  ])('recognises %s', (_name, failure) => {
    const error = chatModelErrorFromStatus({ ...failure, requestId: 'req-1' });
    expect(ChatModelContextLengthError.isInstance(error)).toBe(true);
    expect(ChatModelBadRequestError.isInstance(error)).toBe(true);
    expect(error.code).toBe('CHAT_MODEL_CONTEXT_LENGTH');
    expect(error.retryable).toBe(false);
    expect(error.requestId).toBe('req-1');
    expect(error.message).toContain('context window');
    expect(error.name).toBe('ChatModelContextLengthError');
  });

  it('keeps other bad requests and rate limits as they are', () => {
    expect(chatModelErrorFromStatus({ status: 400, message: 'temperature must be below 2' }).code).toBe('CHAT_MODEL_BAD_REQUEST');
    expect(chatModelErrorFromStatus({ status: 429, message: 'Request too large: tokens per min' }).code).toBe('CHAT_MODEL_RATE_LIMIT');
  });

  it('is recognised from an error object with a status and a code', () => {
    const error = toChatModelError(Object.assign(new Error('too long'), { status: 400, code: 'context_length_exceeded' }));
    expect(ChatModelContextLengthError.isInstance(error)).toBe(true);
    expect(ChatModelError.isInstance(error)).toBe(true);
  });
});

describe('Retry-After beyond the time bound', () => {
  it('fails at once instead of waiting longer than maxRetryTime', async () => {
    const llm = scripted({ fail: 'status', status: 429, retryAfterMs: 60_000 }, 'ok');
    const started = performance.now();
    const error = await rejectionOf(withRetries(llm, { ...fast, maxRetryTime: 5000 }).generate(request));
    expect((error as PlannavError).code).toBe('CHAT_MODEL_RATE_LIMIT');
    expect(performance.now() - started).toBeLessThan(PROMPTLY_MS);
    expect(llm.callCount).toBe(1);
  });
});
