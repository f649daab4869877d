// Replies in the Anthropic Messages API wire format, for the mock server.

import type { ServerReply } from './mock-server';

export interface AnthropicUsageFields {
  readonly input_tokens?: number;
  readonly output_tokens?: number;
  readonly cache_creation_input_tokens?: number;
  readonly cache_read_input_tokens?: number;
}

const defaultUsage: AnthropicUsageFields = { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
const requestHeaders = { 'request-id': 'req_anthropic_123' };

type Block = Record<string, unknown>;

export function anthropicMessage(content: Block[], options: { stopReason?: string; usage?: AnthropicUsageFields } = {}): ServerReply {
  return {
    headers: requestHeaders,
    json: {
      id: 'msg_01',
      type: 'message',
      role: 'assistant',
      model: 'claude-mock',
      content,
      stop_reason: options.stopReason ?? 'end_turn',
      stop_sequence: null,
      usage: options.usage ?? defaultUsage,
    },
  };
}

/** A forced tool call, optionally after a thinking block. */
export function anthropicToolUse(name: string, input: unknown, options: { stopReason?: string; usage?: AnthropicUsageFields; thinking?: string } = {}): ServerReply {
  const blocks: Block[] = [];
  if (options.thinking !== undefined) blocks.push({ type: 'thinking', thinking: options.thinking, signature: 'sig' });
  blocks.push({ type: 'tool_use', id: 'toolu_01', name, input });
  return anthropicMessage(blocks, { stopReason: options.stopReason ?? 'tool_use', usage: options.usage });
}

/** A text answer, optionally after a thinking block. */
export function anthropicText(text: string, options: { stopReason?: string; usage?: AnthropicUsageFields; thinking?: string } = {}): ServerReply {
  const blocks: Block[] = [];
  if (options.thinking !== undefined) blocks.push({ type: 'thinking', thinking: options.thinking, signature: 'sig' });
  blocks.push({ type: 'text', text });
  return anthropicMessage(blocks, options);
}

/** An error response with Anthropic's error body. */
export function anthropicError(status: number, message: string, options: { type?: string; headers?: Record<string, string> } = {}): ServerReply {
  return {
    status,
    headers: { ...requestHeaders, ...options.headers },
    json: { type: 'error', error: { type: options.type ?? 'invalid_request_error', message }, request_id: 'req_anthropic_123' },
  };
}
