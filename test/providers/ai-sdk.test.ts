// AI SDK adapter, beyond the conformance suite: what reaches the model (system setting, JSON
// response format, settings), that the SDK never retries, and how its errors and outputs map.

import { APICallError, LoadAPIKeyError } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import type { LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { AISDKChatModel } from '../../src/ai-sdk/index';
import { ChatModelAuthError, ConfigError, type PlannavError } from '../../src/index';
import { rejectionOf } from '../helpers/rejection';

const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };

function reply(text: string, finish: 'stop' | 'length' = 'stop'): LanguageModelV3GenerateResult {
  return {
    content: [{ type: 'text', text }],
    finishReason: { unified: finish, raw: finish },
    usage: { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } },
    warnings: [],
  };
}

describe('AISDKChatModel', () => {
  it('reports the model\u2019s provider and id', () => {
    const llm = new AISDKChatModel({ model: new MockLanguageModelV3({ provider: 'openai.chat', modelId: 'gpt-4.1-mini' }) });
    expect(llm).toMatchObject({ specificationVersion: 'v1', provider: 'openai.chat', model: 'gpt-4.1-mini', supportsImages: true });
  });

  it('sends the system prompt, the turns, the JSON schema and the settings', async () => {
    const model = new MockLanguageModelV3({ doGenerate: reply('{"answer":"hi"}') });
    const llm = new AISDKChatModel({ model, providerOptions: { openai: { reasoningEffort: 'low' } } });
    const result = await llm.generate({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello' },
        { role: 'system', content: 'Late note' },
        { role: 'user', content: 'Again' },
      ],
      output: { name: 'answer_output', description: 'The answer', schema },
      temperature: 0.1,
      maxOutputTokens: 99,
    });
    expect(result.object).toEqual({ answer: 'hi' });
    const options = model.doGenerateCalls[0];
    expect(options?.prompt[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(options?.prompt.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user', 'user']);
    expect(options?.responseFormat).toMatchObject({ type: 'json', name: 'answer_output', description: 'The answer', schema });
    expect(options?.temperature).toBe(0.1);
    expect(options?.maxOutputTokens).toBe(99);
    expect(options?.providerOptions).toEqual({ openai: { reasoningEffort: 'low' } });
  });

  it('never lets the AI SDK retry: one doGenerate call per generate, even for a retryable error', async () => {
    let calls = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        calls++;
        throw new APICallError({ message: 'Service unavailable', url: 'https://x.test', requestBodyValues: {}, statusCode: 503, isRetryable: true });
      },
    });
    const error = await rejectionOf<PlannavError>(new AISDKChatModel({ model }).generate({ messages: [{ role: 'user', content: 'Hi' }] }));
    expect(calls).toBe(1);
    expect(error.code).toBe('CHAT_MODEL_SERVER');
    expect(error.retryable).toBe(true);
  });

  it('returns text that is not valid JSON as text, for plannav to parse and repair', async () => {
    const model = new MockLanguageModelV3({ doGenerate: reply('<think>hmm</think>\n```json\n{"answer":"hi"}\n```') });
    const result = await new AISDKChatModel({ model }).generate({ messages: [{ role: 'user', content: 'Hi' }], output: { name: 'answer_output', schema } });
    expect(result.object).toBeUndefined();
    expect(result.text).toContain('```json');
    expect(result.usage).toMatchObject({ inputTokens: 10, outputTokens: 5 });
  });

  it('maps a missing provider key to a ChatModelAuthError', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        throw new LoadAPIKeyError({ message: 'OpenAI API key is missing. Pass it using the apiKey parameter or the OPENAI_API_KEY environment variable.' });
      },
    });
    const error = await rejectionOf<PlannavError>(new AISDKChatModel({ model }).generate({ messages: [{ role: 'user', content: 'Hi' }] }));
    expect(ChatModelAuthError.isInstance(error)).toBe(true);
    expect(error.message).toContain('OPENAI_API_KEY');
  });

  it('refuses a missing model or a bad timeout with a ConfigError', () => {
    expect(() => new AISDKChatModel({ model: undefined as never })).toThrow(ConfigError);
    expect(() => new AISDKChatModel({ model: new MockLanguageModelV3(), timeout: 0 })).toThrow(/timeout/);
  });
});
