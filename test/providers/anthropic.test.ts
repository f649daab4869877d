// Anthropic adapter, beyond the conformance suite: headers, system blocks, merged turns, cache
// markers, image blocks, the forced tool, extended thinking, stop reasons and usage.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AnthropicChatModel } from '../../src/anthropic/index';
import { ConfigError, type PlannavError } from '../../src/index';
import type { ChatMessage } from '../../src/provider';
import { anthropicError, anthropicText, anthropicToolUse } from '../../src/testing/model-conformance-anthropic';
import { LoopbackServer } from '../../src/testing/model-conformance-server';
import { rejectionOf } from '../helpers/rejection';

const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
const output = { name: 'answer_output', description: 'The answer', schema };

let server: LoopbackServer;
let llm: AnthropicChatModel;
beforeEach(async () => {
  server = await LoopbackServer.start();
  llm = new AnthropicChatModel({ model: 'claude-sonnet-4-5', apiKey: 'ant-key', baseURL: `${server.url}/v1` });
});
afterEach(async () => {
  await server.close();
});

describe('request shape', () => {
  it('posts to /v1/messages with x-api-key and anthropic-version, and forces the output tool', async () => {
    server.enqueue(anthropicToolUse('answer_output', { answer: 'hi' }));
    const result = await llm.generate({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      output,
      temperature: 1.5,
      maxOutputTokens: 300,
    });
    const sent = server.last;
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe('ant-key');
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body).toMatchObject({ model: 'claude-sonnet-4-5', max_tokens: 300, temperature: 1 });
    expect(sent.body.system).toEqual([{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }]);
    expect(sent.body.tools).toEqual([{ name: 'answer_output', description: 'The answer', input_schema: schema }]);
    expect(sent.body.tool_choice).toEqual({ type: 'tool', name: 'answer_output' });
    expect(result.object).toEqual({ answer: 'hi' });
    expect(result.finishReason).toBe('tool-calls');
  });

  it('sends a default max_tokens, since the API requires one', async () => {
    server.enqueue(anthropicText('hello'));
    await llm.generate({ messages: [{ role: 'user', content: 'Hi' }] });
    expect(server.last.body.max_tokens).toBe(4096);
    expect(server.last.body.tools).toBeUndefined();
    expect(server.last.body.system).toBeUndefined();
  });

  it('merges consecutive messages of one role, turns later system messages into user text, and starts with a user turn', async () => {
    server.enqueue(anthropicText('ok'));
    const messages: ChatMessage[] = [
      { role: 'system', content: 'Rules.' },
      { role: 'assistant', content: 'Earlier answer' },
      { role: 'user', content: 'State 1' },
      { role: 'system', content: 'A note from the system' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'State 2' },
          { type: 'image', data: 'AAAA', mediaType: 'image/jpeg' },
        ],
      },
      { role: 'assistant', content: 'Reply' },
      { role: 'user', content: 'Latest' },
    ];
    await llm.generate({ messages });
    const sent = server.last.body.messages;
    expect(sent.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(sent[0].content[0].text).toBe('Continue.');
    expect(sent[2].content.map((block: { type: string; text?: string }) => block.text ?? block.type)).toEqual([
      'State 1',
      'A note from the system',
      'State 2',
      'image',
    ]);
    expect(sent[2].content[3]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: 'AAAA' } });
  });

  it('puts cache markers on the system prompt, the first turn and the turn before the latest', async () => {
    server.enqueue(anthropicText('ok'));
    const messages: ChatMessage[] = [
      { role: 'system', content: 'System' },
      { role: 'user', content: 'Task' },
      { role: 'assistant', content: 'Plan' },
      { role: 'user', content: 'Result 1' },
      { role: 'assistant', content: 'Step 2' },
      { role: 'user', content: 'Current state' },
    ];
    await llm.generate({ messages });
    const body = server.last.body;
    const marked = body.messages.map((message: { content: Array<{ cache_control?: unknown }> }) =>
      message.content.some((block) => block.cache_control !== undefined),
    );
    expect(marked).toEqual([true, false, false, true, false]);
    expect(body.system[0].cache_control).toEqual({ type: 'ephemeral' });
    const markers = JSON.stringify(body).match(/cache_control/g) ?? [];
    expect(markers.length).toBeLessThanOrEqual(4);
  });

  it('sends no cache markers when prompt caching is off', async () => {
    server.enqueue(anthropicText('ok'));
    const uncached = new AnthropicChatModel({ model: 'm', apiKey: 'k', baseURL: `${server.url}/v1`, promptCaching: false });
    await uncached.generate({
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'U' },
        { role: 'assistant', content: 'A' },
        { role: 'user', content: 'U2' },
      ],
    });
    expect(JSON.stringify(server.last.body)).not.toContain('cache_control');
  });
});

describe('extended thinking', () => {
  it('enables thinking, lets the model choose the tool, adds the budget to max_tokens and sends no temperature', async () => {
    server.enqueue(anthropicToolUse('answer_output', { answer: 'hi' }, { thinking: 'Considering the options...' }));
    const thinker = new AnthropicChatModel({ model: 'claude-sonnet-4-5', apiKey: 'k', baseURL: `${server.url}/v1`, thinking: { budgetTokens: 2048 } });
    const result = await thinker.generate({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      output,
      temperature: 0.2,
      maxOutputTokens: 1000,
    });
    const body = server.last.body;
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(body.max_tokens).toBe(3048);
    expect(body.temperature).toBeUndefined();
    expect(body.tool_choice).toEqual({ type: 'auto' });
    expect(body.system[0].text).toContain('calling the tool answer_output');
    expect(result.object).toEqual({ answer: 'hi' });
    expect(result.text).not.toContain('Considering');
  });

  it('leaves thinking blocks out of a text answer', async () => {
    server.enqueue(anthropicText('{"answer":"hi"}', { thinking: 'private reasoning' }));
    const result = await llm.generate({ messages: [{ role: 'user', content: 'Hi' }] });
    expect(result.text).toBe('{"answer":"hi"}');
  });

  it('refuses a budget under 1024 tokens', () => {
    expect(() => new AnthropicChatModel({ model: 'm', thinking: { budgetTokens: 100 } })).toThrow(ConfigError);
  });
});

describe('responses', () => {
  it('reports max_tokens as length, for text and for a cut-off tool call', async () => {
    server.enqueue(
      anthropicText('{"answer": "h', { stopReason: 'max_tokens' }),
      anthropicToolUse('answer_output', { answer: 'h' }, { stopReason: 'max_tokens' }),
    );
    const text = await llm.generate({ messages: [{ role: 'user', content: 'Hi' }] });
    expect(text.finishReason).toBe('length');
    const tool = await llm.generate({ messages: [{ role: 'user', content: 'Hi' }], output });
    expect(tool.finishReason).toBe('length');
    expect(tool.object).toBeUndefined();
  });

  it('counts cache writes and reads as input, and cache reads as cached', async () => {
    server.enqueue(
      anthropicToolUse(
        'answer_output',
        { answer: 'hi' },
        { usage: { input_tokens: 50, cache_creation_input_tokens: 1000, cache_read_input_tokens: 2000, output_tokens: 40 } },
      ),
    );
    const result = await llm.generate({ messages: [{ role: 'user', content: 'Hi' }], output });
    expect(result.usage).toEqual({ inputTokens: 3050, outputTokens: 40, cachedInputTokens: 2000 });
    expect(result.requestId).toBe('req_anthropic_123');
  });

  it('treats 529 overloaded as retryable, and an authentication error as not', async () => {
    server.enqueue(anthropicError(529, 'Overloaded', { type: 'overloaded_error' }), anthropicError(401, 'invalid x-api-key', { type: 'authentication_error' }));
    const overloaded = await rejectionOf<PlannavError>(llm.generate({ messages: [{ role: 'user', content: 'Hi' }] }));
    expect(overloaded.retryable).toBe(true);
    expect(overloaded.message).toContain('Anthropic: Overloaded');
    const auth = await rejectionOf<PlannavError>(llm.generate({ messages: [{ role: 'user', content: 'Hi' }] }));
    expect(auth.code).toBe('CHAT_MODEL_AUTH');
    expect(auth.message).toContain('invalid x-api-key');
  });
});
