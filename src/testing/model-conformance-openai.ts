// The OpenAI chat-completions wire format for the conformance kit's server (also what Azure,
// Ollama, vLLM, LM Studio, DeepSeek, Groq, OpenRouter, Together and Mistral speak): replies, and
// requests read back. Only the fields plannav's contract touches; no HTTP here.

import type { RecordedRequest, ServerReply } from './model-conformance-server';
import { agentOf, retryAfterHeaders, textOfContent, type Answer, type WireCall, type WireFormatSpec } from './model-conformance-wire';

/** The usage fields of a chat completion. */
export interface OpenAIUsageFields {
  readonly prompt_tokens?: number;
  readonly completion_tokens?: number;
  readonly prompt_tokens_details?: { readonly cached_tokens?: number };
  readonly completion_tokens_details?: { readonly reasoning_tokens?: number };
  readonly prompt_cache_hit_tokens?: number;
}

const defaultUsage: OpenAIUsageFields = { prompt_tokens: 100, completion_tokens: 20 };
const requestId = 'req_openai_123';
const requestHeaders = { 'x-request-id': requestId };

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

/** A text answer (`message.content`), optionally with a separate reasoning field as DeepSeek (`reasoning_content`) or OpenRouter (`reasoning`) send it. */
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
export function openAIToolCall(
  name: string,
  args: unknown,
  options: { finishReason?: string; usage?: OpenAIUsageFields; reasoningContent?: string } = {},
): ServerReply {
  const argumentsText = typeof args === 'string' ? args : JSON.stringify(args);
  const message: Record<string, unknown> = { content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name, arguments: argumentsText } }] };
  if (options.reasoningContent !== undefined) message.reasoning_content = options.reasoningContent;
  return { headers: requestHeaders, json: completion(message, options.finishReason ?? 'stop', options.usage ?? defaultUsage) };
}

/** An error response with OpenAI's error body. */
export function openAIError(
  status: number,
  message: string,
  options: { type?: string; code?: string | null; headers?: Record<string, string> } = {},
): ServerReply {
  return {
    status,
    headers: { ...requestHeaders, ...options.headers },
    json: { error: { message, type: options.type ?? 'invalid_request_error', param: null, code: options.code ?? null } },
  };
}

/** The tool a request forces, when it asks for structured output through a tool. */
function forcedToolName(request: RecordedRequest): string | undefined {
  const name: unknown = request.body?.tools?.[0]?.function?.name;
  return typeof name === 'string' ? name : undefined;
}

function read(request: RecordedRequest): WireCall {
  const messages: Array<{ role?: unknown; content?: unknown }> = Array.isArray(request.body?.messages) ? request.body.messages : [];
  const lastUser = [...messages].reverse().find((message) => message.role === 'user');
  const images = messages.flatMap((message) =>
    Array.isArray(message.content)
      ? message.content
          .filter((part: { type?: unknown }) => part?.type === 'image_url')
          .map((part: { image_url?: { url?: unknown } }) => (typeof part.image_url?.url === 'string' ? part.image_url.url : '').replace(/^data:[^,]+,/, ''))
      : [],
  );
  return {
    agent: agentOf(request),
    lastUserText: textOfContent(lastUser?.content),
    images,
    allText: messages.map((message) => textOfContent(message.content)).join('\n'),
    request,
  };
}

function write(answer: Answer, request: RecordedRequest): ServerReply {
  const tool = forcedToolName(request);
  if ('hang' in answer) return { hang: true };
  if ('network' in answer) return { destroy: true };
  if ('status' in answer) {
    return answer.contextLength
      ? openAIError(answer.status, "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.", {
          code: 'context_length_exceeded',
        })
      : openAIError(answer.status, answer.message, {
          headers: retryAfterHeaders(answer),
          type: answer.status === 429 ? 'rate_limit_exceeded' : 'invalid_request_error',
        });
  }
  if ('truncated' in answer) {
    return tool ? openAIToolCall(tool, answer.truncated, { finishReason: 'length' }) : openAIText(answer.truncated, { finishReason: 'length' });
  }
  const usage = answer.usage
    ? {
        prompt_tokens: answer.usage.input,
        completion_tokens: answer.usage.output,
        prompt_tokens_details: { cached_tokens: answer.usage.cached },
        completion_tokens_details: { reasoning_tokens: answer.usage.reasoning },
      }
    : undefined;
  const options = { ...(usage ? { usage } : {}), ...(answer.reasoning ? { reasoningContent: answer.reasoning } : {}) };
  // A structured request is answered the way it asked: a forced tool gets a tool call, anything
  // else (json_schema, JSON mode, a schema in the prompt) gets the JSON as the message content.
  return tool ? openAIToolCall(tool, answer.object, options) : openAIText(JSON.stringify(answer.object), options);
}

/** The OpenAI chat-completions format, for the kit. */
export const openAIWireFormat: WireFormatSpec = {
  name: 'openai',
  basePath: '/v1',
  requestId,
  reportsReasoning: true,
  read,
  write,
  hints: {
    usage:
      'inputTokens = usage.prompt_tokens, outputTokens = usage.completion_tokens, cachedInputTokens = usage.prompt_tokens_details.cached_tokens, reasoningTokens = usage.completion_tokens_details.reasoning_tokens',
    reasoning: 'the server sends the reasoning apart, in choices[0].message.reasoning_content; leave it out of `text`',
    images: 'send each image part as { type: "image_url", image_url: { url: "data:<mediaType>;base64,<data>" } }',
    truncated: 'map finish_reason "length" to finishReason "length"',
  },
};
