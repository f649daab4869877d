// Gemini adapter, beyond the conformance suite: URL and key header, systemInstruction, roles,
// inlineData, the converted response schema, thought parts, Google's error details.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GeminiChatModel } from '../../src/gemini/index';
import { toGeminiSchema } from '../../src/gemini/schema';
import { ConfigError, type PlannavError } from '../../src/index';
import { ChatModelAuthError, ChatModelRateLimitError } from '../../src/provider';
import { geminiError, geminiText } from '../../src/testing/model-conformance-gemini';
import { LoopbackServer } from '../../src/testing/model-conformance-server';
import { rejectionOf } from '../helpers/rejection';

let server: LoopbackServer;
let llm: GeminiChatModel;
beforeEach(async () => {
  server = await LoopbackServer.start();
  llm = new GeminiChatModel({ model: 'gemini-2.5-flash', apiKey: 'g-key', baseURL: `${server.url}/v1beta` });
});
afterEach(async () => {
  await server.close();
});

const schema = {
  type: 'object',
  properties: { thought: { type: 'string' }, answer: { type: ['string', 'null'] } },
  required: ['thought', 'answer'],
  additionalProperties: false,
};

describe('request shape', () => {
  it('posts to models/{model}:generateContent with x-goog-api-key, system apart, model role for the assistant', async () => {
    server.enqueue(geminiText('{"thought":"t","answer":"hi"}'));
    await llm.generate({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'image', data: 'AAAA', mediaType: 'image/webp' },
          ],
        },
      ],
      output: { name: 'answer_output', schema },
      temperature: 0.4,
      maxOutputTokens: 256,
    });
    const sent = server.last;
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(sent.headers['x-goog-api-key']).toBe('g-key');
    expect(sent.query.get('key')).toBeNull();
    expect(sent.body.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }] });
    expect(sent.body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Hi' }] },
      { role: 'model', parts: [{ text: 'Hello' }] },
      { role: 'user', parts: [{ text: 'Look' }, { inlineData: { mimeType: 'image/webp', data: 'AAAA' } }] },
    ]);
    expect(sent.body.generationConfig).toEqual({
      temperature: 0.4,
      maxOutputTokens: 256,
      responseMimeType: 'application/json',
      responseSchema: {
        type: 'OBJECT',
        properties: { thought: { type: 'STRING' }, answer: { type: 'STRING', nullable: true } },
        propertyOrdering: ['thought', 'answer'],
        required: ['thought', 'answer'],
      },
    });
  });

  it('sends a thinking budget and extra generationConfig fields', async () => {
    server.enqueue(geminiText('hi'));
    const thinker = new GeminiChatModel({
      model: 'models/gemini-2.5-pro',
      apiKey: 'k',
      baseURL: server.url,
      thinkingBudget: 0,
      generationConfig: { topP: 0.9 },
    });
    expect(thinker.model).toBe('gemini-2.5-pro');
    await thinker.generate({ messages: [{ role: 'user', content: 'Hi' }] });
    expect(server.last.path).toBe('/models/gemini-2.5-pro:generateContent');
    expect(server.last.body.generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 0 }, topP: 0.9 });
  });

  it('sends the JSON Schema as is in responseJsonSchema when asked', async () => {
    server.enqueue(geminiText('{"thought":"t","answer":null}'));
    const modern = new GeminiChatModel({ model: 'gemini-2.5-flash', apiKey: 'k', baseURL: server.url, schemaField: 'responseJsonSchema' });
    await modern.generate({ messages: [{ role: 'user', content: 'Hi' }], output: { name: 'answer_output', schema } });
    expect(server.last.body.generationConfig).toEqual({ responseMimeType: 'application/json', responseJsonSchema: schema });
    expect(() => new GeminiChatModel({ model: 'm', schemaField: 'openapi' as never })).toThrow(/schemaField/);
  });

  it('refuses a bad thinking budget', () => {
    expect(() => new GeminiChatModel({ model: 'm', thinkingBudget: 1.5 })).toThrow(ConfigError);
  });
});

describe('responses', () => {
  it('leaves thought parts out of the text and counts thoughts as output and reasoning', async () => {
    server.enqueue(
      geminiText('{"answer":"hi"}', {
        thought: 'Thinking hard',
        usage: { promptTokenCount: 90, candidatesTokenCount: 10, thoughtsTokenCount: 30, cachedContentTokenCount: 40 },
      }),
    );
    const result = await llm.generate({ messages: [{ role: 'user', content: 'Hi' }] });
    expect(result.text).toBe('{"answer":"hi"}');
    expect(result.usage).toEqual({ inputTokens: 90, outputTokens: 40, cachedInputTokens: 40, reasoningTokens: 30 });
    expect(result.requestId).toBe('req_gemini_123');
  });

  it('reports MAX_TOKENS as length and a blocked prompt as content-filter', async () => {
    server.enqueue(geminiText('{"answer":', { finishReason: 'MAX_TOKENS' }), {
      json: { promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 5 } },
    });
    expect((await llm.generate({ messages: [{ role: 'user', content: 'Hi' }] })).finishReason).toBe('length');
    const blocked = await llm.generate({ messages: [{ role: 'user', content: 'Hi' }] });
    expect(blocked.finishReason).toBe('content-filter');
    expect(blocked.text).toBe('');
  });

  it('reports an invalid key, sent by Google as 400 API_KEY_INVALID, as an auth error', async () => {
    server.enqueue(
      geminiError(400, 'API key not valid. Please pass a valid API key.', {
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }],
      }),
    );
    const error = await rejectionOf<PlannavError>(llm.generate({ messages: [{ role: 'user', content: 'Hi' }] }));
    expect(ChatModelAuthError.isInstance(error)).toBe(true);
    expect(error.message).toContain('API key not valid');
  });

  it('reads the wait of a 429 from RetryInfo when there is no Retry-After header', async () => {
    server.enqueue(
      geminiError(429, 'Quota exceeded', {
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '12.5s' }],
      }),
    );
    const error = await rejectionOf<PlannavError>(llm.generate({ messages: [{ role: 'user', content: 'Hi' }] }));
    expect(ChatModelRateLimitError.isInstance(error)).toBe(true);
    expect((error as ChatModelRateLimitError).retryAfterMs).toBe(12_500);
  });
});

describe('toGeminiSchema', () => {
  it('inlines $ref, reads anyOf with null as nullable, and drops what Gemini refuses', () => {
    const converted = toGeminiSchema({
      type: 'object',
      properties: {
        item: { $ref: '#/$defs/item' },
        maybe: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }], description: 'A count' },
        either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        level: { enum: ['low', 'high'] },
        kind: { const: 'fixed' },
        flag: { type: 'boolean', default: false },
        list: { type: 'array', items: { type: 'string', pattern: '^a', format: 'email' }, minItems: 1 },
        extra: { type: 'object', additionalProperties: { type: 'string' } },
      },
      required: ['item', 'missing'],
      additionalProperties: false,
      $defs: { item: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
    });
    expect(converted).toEqual({
      type: 'OBJECT',
      properties: {
        item: { type: 'OBJECT', properties: { id: { type: 'STRING' } }, propertyOrdering: ['id'], required: ['id'] },
        maybe: { type: 'INTEGER', minimum: 1, description: 'A count', nullable: true },
        either: { anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }] },
        level: { type: 'STRING', enum: ['low', 'high'], format: 'enum' },
        kind: { type: 'STRING', enum: ['fixed'], format: 'enum' },
        flag: { type: 'BOOLEAN' },
        list: { type: 'ARRAY', items: { type: 'STRING' }, minItems: 1 },
        extra: { type: 'OBJECT', properties: { _: { type: 'BOOLEAN', nullable: true, description: 'Unused; leave out.' } } },
      },
      propertyOrdering: ['item', 'maybe', 'either', 'level', 'kind', 'flag', 'list', 'extra'],
      required: ['item'],
    });
    expect(JSON.stringify(converted)).not.toMatch(/additionalProperties|\$ref|\$defs|pattern|default/);
  });

  it('merges allOf and turns type arrays into nullable or anyOf', () => {
    expect(
      toGeminiSchema({
        allOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { properties: { b: { type: ['number', 'null'] } } }],
      }),
    ).toEqual({
      type: 'OBJECT',
      properties: { a: { type: 'STRING' }, b: { type: 'NUMBER', nullable: true } },
      propertyOrdering: ['a', 'b'],
      required: ['a'],
    });
    expect(toGeminiSchema({ type: ['string', 'integer'] })).toEqual({ anyOf: [{ type: 'STRING' }, { type: 'INTEGER' }] });
  });

  it('stops at recursive references', () => {
    const converted = toGeminiSchema({ $defs: { node: { type: 'object', properties: { child: { $ref: '#/$defs/node' } } } }, $ref: '#/$defs/node' });
    expect(JSON.stringify(converted).length).toBeLessThan(20_000);
    expect(converted.type).toBe('OBJECT');
  });
});
