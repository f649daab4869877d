import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ChatModelAuthError, ChatModelError, ChatModelOutputError, RequestCancelledError, type PlannavError } from '../errors';
import { ScriptedLLM, type ScriptedResponse } from '../testing/scripted-llm';
import { generateObject, type GenerateObjectArgs, type ModelCallObserver } from './generate-object';
import { toModelJsonSchema } from './json-schema';
import { maxJsonReplyCharacters } from './parse-json';
import { maxRepairQuoteCharacters } from './repair-request';
import type { ChatMessage } from './types';
import type { TokenUsage } from './usage';
import { rejectionOf } from '../../test/helpers/rejection';

/**
 * How soon "at once" must be. Each bound below stands against waiting for something of 10 s or more (a hang, a
 * retry delay, a timeout), so a second is still a sharp test; a tighter one fails on a loaded machine for no fault.
 */
const PROMPTLY_MS = 1000;

const answerSchema = z.object({ answer: z.string(), confidence: z.number().min(0).max(1) });
type Answer = z.output<typeof answerSchema>;

const conversation: ChatMessage[] = [
  { role: 'system', content: 'You answer questions.' },
  { role: 'user', content: 'What is the capital of France?' },
];

const fastRetry = { minTimeout: 1, maxTimeout: 5 };

function generate(llm: ScriptedLLM, overrides: Partial<GenerateObjectArgs<Answer>> = {}) {
  return generateObject<Answer>({
    client: llm,
    messages: conversation,
    name: 'answer_output',
    schema: answerSchema,
    jsonSchema: toModelJsonSchema(answerSchema),
    signal: new AbortController().signal,
    retry: fastRetry,
    ...overrides,
  });
}

function scripted(...responses: ScriptedResponse[]): ScriptedLLM {
  return new ScriptedLLM({ responses });
}

/** An observer that records every report as a line, in order. */
function recordingObserver(): { observer: ModelCallObserver; log: string[]; usages: TokenUsage[] } {
  const log: string[] = [];
  const usages: TokenUsage[] = [];
  return {
    log,
    usages,
    observer: {
      onCallStart: (attempt) => log.push(`start ${attempt}`),
      onCallEnd: (attempt, outcome) => {
        usages.push(outcome.usage);
        log.push(`end ${attempt} ${outcome.error ? `error ${outcome.error.code}` : 'ok'}`);
      },
      onRetry: (attempt, error, delayMs) => log.push(`retry ${attempt} ${error.code} ${delayMs}`),
    },
  };
}

const validReply = '{"answer": "Paris", "confidence": 0.9}';

describe('generateObject output handling', () => {
  it('returns the validated object, the text and the usage of a valid reply', async () => {
    const llm = scripted(validReply);
    const result = await generate(llm);
    expect(result.object).toEqual({ answer: 'Paris', confidence: 0.9 });
    expect(result.text).toBe(validReply);
    expect(result.usage).toMatchObject({ inputTokens: 100, outputTokens: 20, calls: 1 });
    expect(llm.callCount).toBe(1);
  });

  it('sends the output name, schema and call settings to the client', async () => {
    const llm = scripted(validReply);
    await generate(llm, { description: 'An answer', temperature: 0.2, maxOutputTokens: 300, timeout: 5000 });
    const request = llm.requests[0];
    expect(request?.output).toEqual({ name: 'answer_output', description: 'An answer', schema: toModelJsonSchema(answerSchema) });
    expect(request?.temperature).toBe(0.2);
    expect(request?.maxOutputTokens).toBe(300);
    expect(request?.timeout).toBe(5000);
    expect(request?.messages).toEqual(conversation);
  });

  it('uses an already-parsed object without parsing the text', async () => {
    const llm = scripted({ object: { answer: 'Lyon', confidence: 0.5 }, text: 'this is not JSON at all' });
    const result = await generate(llm);
    expect(result.object).toEqual({ answer: 'Lyon', confidence: 0.5 });
    expect(result.text).toBe('this is not JSON at all');
  });

  it('uses the object as text when the reply has no text', async () => {
    const llm = scripted({ object: { answer: 'Nice', confidence: 1 } });
    const result = await generate(llm);
    expect(JSON.parse(result.text)).toEqual({ answer: 'Nice', confidence: 1 });
  });

  it('sends invalid output back with the validation error, then accepts the repaired reply', async () => {
    const badReply = '{"answer": "Paris", "confidence": 7}';
    const llm = scripted(badReply, validReply);
    const result = await generate(llm);
    expect(result.object).toEqual({ answer: 'Paris', confidence: 0.9 });
    expect(result.usage.calls).toBe(2);
    expect(llm.callCount).toBe(2);
    const repairMessages = llm.requests[1]?.messages ?? [];
    expect(repairMessages.slice(0, 2)).toEqual(conversation);
    expect(repairMessages[2]).toEqual({ role: 'assistant', content: badReply });
    const feedback = repairMessages[3];
    expect(feedback?.role).toBe('user');
    expect(feedback?.content).toContain('did not match the required format');
    expect(feedback?.content).toContain('confidence');
    expect(repairMessages).toHaveLength(4);
  });

  it('sends unparseable output back with the parse error', async () => {
    const llm = scripted('I think the answer is Paris.', validReply);
    await generate(llm);
    const feedback = llm.requests[1]?.messages[3];
    expect(feedback?.content).toContain('could not be read as JSON');
    expect(feedback?.content).toContain('did not contain a JSON object');
  });

  it('marks an empty reply in the repair conversation', async () => {
    const llm = scripted('', validReply);
    await generate(llm);
    expect(llm.requests[1]?.messages[2]).toEqual({ role: 'assistant', content: '(empty reply)' });
  });

  it('throws a ChatModelOutputError with the text when the repaired reply is still invalid', async () => {
    const llm = scripted('{"answer": 1}', '{"answer": 2}');
    const error = await rejectionOf(generate(llm));
    expect(ChatModelOutputError.isInstance(error)).toBe(true);
    const outputError = error as ChatModelOutputError;
    expect(outputError.text).toBe('{"answer": 2}');
    expect(outputError.message).toContain('scripted-model');
    expect(outputError.retryable).toBe(false);
    expect(llm.callCount).toBe(2);
  });

  it('makes as many repair rounds as asked', async () => {
    const llm = scripted('{"answer": 1}', validReply);
    await expect(generate(llm, { repairs: 0 })).rejects.toThrow(ChatModelOutputError);
    expect(llm.callCount).toBe(1);
  });

  it('says the reply was cut off by the token limit when the finish reason is length', async () => {
    const cut = { text: '{"answer": "Par', finishReason: 'length' } as const;
    const llm = scripted(cut, cut);
    const error = await rejectionOf(generate(llm));
    expect(ChatModelOutputError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('output token limit');
    expect((error as Error).message).toContain('maxOutputTokens');
    expect(llm.requests[1]?.messages[3]?.content).toContain('cut off by the output token limit');
  });
});

describe('generateObject repair within the token budget', () => {
  const tenMegabytes = 10_000_000;

  /** The request's size as the conversation counts it: 4 tokens a message, 3 characters a token. */
  function estimatedTokens(messages: readonly ChatMessage[]): number {
    return messages.reduce((sum, message) => sum + 4 + Math.ceil((typeof message.content === 'string' ? message.content : '').length / 3), 0);
  }

  it('cuts a 10 MB invalid reply so the repair request stays within maxInputTokens', async () => {
    const llm = scripted('{"answer": "'.concat('x'.repeat(tenMegabytes)), validReply);
    const result = await generate(llm, { maxInputTokens: 8_000 });
    expect(result.object.answer).toBe('Paris');
    const repair = llm.requests[1]?.messages ?? [];
    expect(repair.slice(0, 2)).toEqual(conversation);
    expect(estimatedTokens(repair)).toBeLessThanOrEqual(8_000);
    const quoted = repair[2]?.content as string;
    expect(quoted.startsWith('{"answer": "xxx')).toBe(true);
    expect(quoted).toMatch(/\[\.\.\. \d{1,3}(,\d{3})+ of 10,000,012 characters cut \.\.\.\]/);
    expect(repair[3]?.content).toContain('could not be read as JSON');
  });

  it('quotes a long invalid reply only in part even when the budget is large', async () => {
    const llm = scripted('y'.repeat(tenMegabytes), validReply);
    await generate(llm);
    const quoted = llm.requests[1]?.messages[2]?.content as string;
    expect(quoted.length).toBeLessThanOrEqual(maxRepairQuoteCharacters + 100);
    expect(quoted).toContain('of 10,000,000 characters cut');
  });

  it('leaves the reply out, saying so, when the conversation leaves no room for it', async () => {
    const long: ChatMessage[] = [conversation[0] as ChatMessage, { role: 'user', content: 'q'.repeat(5_870 * 3) }];
    const llm = scripted('z'.repeat(100_000), validReply);
    await generate(llm, { messages: long, maxInputTokens: 6_000 });
    const repair = llm.requests[1]?.messages ?? [];
    expect(repair[2]?.content).toBe('(a reply of 100,000 characters, left out to stay within the token budget)');
    expect(estimatedTokens(repair)).toBeLessThanOrEqual(6_000);
  });

  it('fails with a ChatModelOutputError saying the reply was too long to search, after one repair', async () => {
    const huge = 'w'.repeat(maxJsonReplyCharacters + 1);
    const llm = scripted(huge, huge);
    const error = await rejectionOf(generate(llm));
    expect(ChatModelOutputError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('replies longer than 4,000,000 characters are not searched for JSON');
    expect(llm.callCount).toBe(2);
  });
});

describe('generateObject retries', () => {
  it('retries a server error and reports the usage of the successful call only', async () => {
    const llm = scripted({ fail: 'status', status: 500 }, validReply);
    const { observer, log, usages } = recordingObserver();
    const result = await generate(llm, { observer });
    expect(result.object.answer).toBe('Paris');
    expect(llm.callCount).toBe(2);
    expect(result.usage).toMatchObject({ inputTokens: 100, outputTokens: 20, calls: 1 });
    expect(log).toEqual(['start 1', 'end 1 error CHAT_MODEL_SERVER', 'retry 1 CHAT_MODEL_SERVER 1', 'start 2', 'end 2 ok']);
    expect(usages[0]?.calls).toBe(0);
    expect(usages[1]).toMatchObject({ inputTokens: 100, calls: 1 });
  });

  it('retries network failures and timeouts', async () => {
    const llm = scripted({ fail: 'network' }, { fail: 'timeout' }, validReply);
    const { observer, log } = recordingObserver();
    await generate(llm, { observer });
    expect(llm.callCount).toBe(3);
    expect(log.filter((line) => line.startsWith('retry'))).toEqual(['retry 1 CHAT_MODEL_NETWORK 1', 'retry 2 CHAT_MODEL_TIMEOUT 2']);
  });

  it('waits at least the retry-after delay of a rate limit', async () => {
    const llm = scripted({ fail: 'status', status: 429, retryAfterMs: 60 }, validReply);
    const { observer, log } = recordingObserver();
    const started = performance.now();
    await generate(llm, { observer });
    expect(performance.now() - started).toBeGreaterThanOrEqual(50);
    expect(log).toContain('retry 1 CHAT_MODEL_RATE_LIMIT 60');
    expect(llm.callCount).toBe(2);
  });

  it('does not retry an authentication error', async () => {
    const llm = scripted({ fail: 'status', status: 401 }, validReply);
    const { observer, log } = recordingObserver();
    const error = await rejectionOf(generate(llm, { observer }));
    expect(ChatModelAuthError.isInstance(error)).toBe(true);
    expect(llm.callCount).toBe(1);
    expect(log).toEqual(['start 1', 'end 1 error CHAT_MODEL_AUTH']);
  });

  it('does not retry a plain error from the client', async () => {
    const llm = scripted({ fail: 'error', error: new Error('client bug') }, validReply);
    const error = await rejectionOf(generate(llm));
    expect(ChatModelError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('client bug');
    expect(llm.callCount).toBe(1);
  });

  it('throws the last error when the retries are used up', async () => {
    const llm = scripted(
      { fail: 'status', status: 500, message: 'first' },
      { fail: 'status', status: 502, message: 'second' },
      { fail: 'status', status: 503, message: 'third' },
      validReply,
    );
    const error = await rejectionOf(generate(llm, { retry: { ...fastRetry, retries: 2 } }));
    expect(ChatModelError.isInstance(error)).toBe(true);
    expect((error as PlannavError).code).toBe('CHAT_MODEL_SERVER');
    expect((error as Error).message).toContain('HTTP 503');
    expect((error as Error).message).toContain('third');
    expect(llm.callCount).toBe(3);
  });
});

describe('generateObject cancellation', () => {
  it('rejects with a RequestCancelledError soon after an abort while the call hangs', async () => {
    const llm = scripted({ fail: 'hang' });
    const controller = new AbortController();
    const pending = generate(llm, { signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    const started = performance.now();
    const error = await rejectionOf(pending);
    expect(RequestCancelledError.isInstance(error)).toBe(true);
    expect(performance.now() - started).toBeLessThan(PROMPTLY_MS);
    expect(llm.callCount).toBe(1);
  });

  it('rejects with the abort reason when it is a RequestCancelledError', async () => {
    const llm = scripted({ fail: 'hang' });
    const controller = new AbortController();
    const reason = new RequestCancelledError('Stopped by the user.');
    const pending = generate(llm, { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 5);
    expect(await rejectionOf(pending)).toBe(reason);
  });

  it('rejects quickly when aborted during the wait between retries', async () => {
    const llm = scripted({ fail: 'status', status: 500 }, validReply);
    const controller = new AbortController();
    const pending = generate(llm, { signal: controller.signal, retry: { minTimeout: 10_000, maxTimeout: 10_000 } });
    setTimeout(() => controller.abort(), 20);
    const started = performance.now();
    const error = await rejectionOf(pending);
    expect(RequestCancelledError.isInstance(error)).toBe(true);
    expect(performance.now() - started).toBeLessThan(PROMPTLY_MS);
    expect(llm.callCount).toBe(1);
  });

  it('makes no call when the signal is already aborted', async () => {
    const llm = scripted(validReply);
    const controller = new AbortController();
    controller.abort();
    const error = await rejectionOf(generate(llm, { signal: controller.signal }));
    expect(RequestCancelledError.isInstance(error)).toBe(true);
    expect(llm.callCount).toBe(0);
  });
});
