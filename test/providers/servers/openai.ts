// Replies in the OpenAI chat-completions wire format (also spoken by Azure, Ollama, vLLM, LM Studio,
// DeepSeek, Groq, OpenRouter, Together, Mistral), for the mock server.

import type { ServerReply } from './mock-server';

export interface OpenAIUsageFields {
  readonly prompt_tokens?: number;
  readonly completion_tokens?: number;
  readonly prompt_tokens_details?: { readonly cached_tokens?: number };
  readonly completion_tokens_details?: { readonly reasoning_tokens?: number };
  readonly prompt_cache_hit_tokens?: number;
}

const defaultUsage: OpenAIUsageFields = { prompt_tokens: 100, completion_tokens: 20 };
const requestHeaders = { 'x-request-id': 'req_openai_123' };

function completion(message: Record<string, unknown>, finishReason: string, usage: OpenAIUsageFields): unknown {
  return {
    id: 'chatcmpl-abc',
    object: 'chat.completion',
    created: 1_764_000_000,
    model: 'mock-model',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, logprobs: null, finish_reason: finishReason }],
    usage: { ...usage, total_tokens: (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0) },
  };
}

/** A text answer (`message.content`), optionally with a separate reasoning field as DeepSeek sends it. */
export function openAIText(
  content: string,
  options: { finishReason?: string; usage?: OpenAIUsageFields; reasoningContent?: string; reasoning?: string } = {},
): ServerReply {
  const message: Record<string, unknown> = { content };
  if (options.reasoningContent !== undefined) message.reasoning_content = options.reasoningContent;
  if (options.reasoning !== undefined) message.reasoning = options.reasoning;
  return { headers: requestHeaders, json: completion(message, options.finishReason ?? 'stop', options.usage ?? defaultUsage) };
}

/** A forced tool call whose arguments are `args` (an object, or a raw string such as a cut-off one). */
export function openAIToolCall(name: string, args: unknown, options: { finishReason?: string; usage?: OpenAIUsageFields } = {}): ServerReply {
  const argumentsText = typeof args === 'string' ? args : JSON.stringify(args);
  return {
    headers: requestHeaders,
    json: completion(
      { content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name, arguments: argumentsText } }] },
      options.finishReason ?? 'stop',
      options.usage ?? defaultUsage,
    ),
  };
}

/** An error response with OpenAI's error body. */
export function openAIError(status: number, message: string, options: { type?: string; code?: string | null; headers?: Record<string, string> } = {}): ServerReply {
  return {
    status,
    headers: { ...requestHeaders, ...options.headers },
    json: { error: { message, type: options.type ?? 'invalid_request_error', param: null, code: options.code ?? null } },
  };
}

/** The reply a well-behaved OpenAI-compatible server gives to a structured request, per method. */
export function openAIObject(method: 'json_schema' | 'tool' | 'json_object', name: string, value: unknown, options: { usage?: OpenAIUsageFields; reasoningContent?: string } = {}): ServerReply {
  return method === 'tool' ? openAIToolCall(name, value, options) : openAIText(JSON.stringify(value), options);
}
