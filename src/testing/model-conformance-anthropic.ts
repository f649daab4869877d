// The Anthropic Messages wire format for the conformance kit's server: replies, and requests read
// back. Only the fields plannav's contract touches; no HTTP here.

import type { RecordedRequest, ServerReply } from './model-conformance-server';
import { agentOf, retryAfterHeaders, textOfContent, type Answer, type WireCall, type WireFormatSpec } from './model-conformance-wire';

/** The usage fields of a Messages response. */
export interface AnthropicUsageFields {
  readonly input_tokens?: number;
  readonly output_tokens?: number;
  readonly cache_creation_input_tokens?: number;
  readonly cache_read_input_tokens?: number;
}

const defaultUsage: AnthropicUsageFields = { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
const requestId = 'req_anthropic_123';
const requestHeaders = { 'request-id': requestId };

type Block = Record<string, unknown>;

/** A message with these content blocks. */
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
export function anthropicToolUse(
  name: string,
  input: unknown,
  options: { stopReason?: string; usage?: AnthropicUsageFields; thinking?: string } = {},
): ServerReply {
  const blocks: Block[] = [];
  if (options.thinking !== undefined) blocks.push({ type: 'thinking', thinking: options.thinking, signature: 'sig' });
  blocks.push({ type: 'tool_use', id: 'toolu_01', name, input });
  return anthropicMessage(blocks, { stopReason: options.stopReason ?? 'tool_use', ...(options.usage ? { usage: options.usage } : {}) });
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
    json: { type: 'error', error: { type: options.type ?? 'invalid_request_error', message }, request_id: requestId },
  };
}

function errorType(status: number): string {
  if (status === 429) return 'rate_limit_error';
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  return status >= 500 ? 'api_error' : 'invalid_request_error';
}

function read(request: RecordedRequest): WireCall {
  const messages: Array<{ role?: unknown; content?: unknown }> = Array.isArray(request.body?.messages) ? request.body.messages : [];
  const lastUser = [...messages].reverse().find((message) => message.role === 'user');
  const images = messages.flatMap((message) =>
    Array.isArray(message.content)
      ? message.content
          .filter((block: { type?: unknown }) => block?.type === 'image')
          .map((block: { source?: { data?: unknown } }) => (typeof block.source?.data === 'string' ? block.source.data : ''))
      : [],
  );
  return {
    agent: agentOf(request),
    lastUserText: textOfContent(lastUser?.content),
    images,
    allText: [textOfContent(request.body?.system), ...messages.map((message) => textOfContent(message.content))].join('\n'),
    request,
  };
}

function write(answer: Answer, request: RecordedRequest): ServerReply {
  const toolName: unknown = request.body?.tools?.[0]?.name;
  const tool = typeof toolName === 'string' ? toolName : undefined;
  if ('hang' in answer) return { hang: true };
  if ('network' in answer) return { destroy: true };
  if ('status' in answer) {
    if (answer.contextLength) return anthropicError(400, 'prompt is too long: 210000 tokens > 200000 maximum');
    return anthropicError(answer.status, answer.message, { type: errorType(answer.status), headers: retryAfterHeaders(answer) });
  }
  if ('truncated' in answer) {
    // Cut off inside the tool call, the API sends the tool_use block with what input it had.
    return tool ? anthropicToolUse(tool, {}, { stopReason: 'max_tokens' }) : anthropicText(answer.truncated, { stopReason: 'max_tokens' });
  }
  const usage = answer.usage
    ? {
        input_tokens: answer.usage.input - answer.usage.cached,
        output_tokens: answer.usage.output,
        cache_read_input_tokens: answer.usage.cached,
        cache_creation_input_tokens: 0,
      }
    : undefined;
  const options = { ...(usage ? { usage } : {}), ...(answer.reasoning ? { thinking: answer.reasoning } : {}) };
  return tool ? anthropicToolUse(tool, answer.object, options) : anthropicText(JSON.stringify(answer.object), { ...options, stopReason: 'end_turn' });
}

/** The Anthropic Messages format, for the kit. */
export const anthropicWireFormat: WireFormatSpec = {
  name: 'anthropic',
  basePath: '/v1',
  requestId,
  // Anthropic counts thinking tokens among the output tokens and does not report them apart.
  reportsReasoning: false,
  read,
  write,
  hints: {
    usage:
      'inputTokens = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens (Anthropic leaves cached tokens out of input_tokens), outputTokens = usage.output_tokens, cachedInputTokens = usage.cache_read_input_tokens',
    reasoning: 'the server sends the reasoning as a "thinking" content block; leave it out of `text`',
    images: 'send each image part as { type: "image", source: { type: "base64", media_type, data } }',
    truncated: 'map stop_reason "max_tokens" to finishReason "length", and return no `object` from the cut-off tool call',
  },
};
