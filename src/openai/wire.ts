// The OpenAI chat-completions wire format: building a request body from plannav's conversation
// and reading a response back. Shared by every OpenAI-compatible server; no HTTP here.

import { withoutImages } from '../llm/images';
import type { ChatMessage, FinishReason, GenerateRequest, LLMUsage } from '../llm/types';
import { schemaInstruction } from '../providers/schema-instruction';
import { allowsStrictMode } from './strict-schema';

/**
 * How structured output is requested from an OpenAI-compatible server:
 * - `json_schema`: `response_format: { type: 'json_schema' }`, strict when the schema allows it;
 * - `tool`: one function tool the model is forced to call, its parameters being the schema;
 * - `json_object`: JSON mode (`response_format: { type: 'json_object' }`), the schema in the prompt.
 * @public
 */
export type OpenAIStructuredOutput = 'json_schema' | 'tool' | 'json_object';

/** What shapes one request body, besides the conversation. */
export interface OpenAIBodySettings {
  readonly model: string;
  readonly structuredOutput: OpenAIStructuredOutput;
  readonly supportsImages: boolean;
  readonly maxTokensParameter: 'max_tokens' | 'max_completion_tokens';
  readonly sendTemperature: boolean;
  readonly extraBody: Readonly<Record<string, unknown>> | undefined;
}

/** A `data:` URL of a base64 image, as OpenAI-compatible APIs take images. */
function dataUrl(part: { readonly data: string; readonly mediaType: string }): string {
  return `data:${part.mediaType};base64,${part.data}`;
}

type WireContent = string | Array<{ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } }>;

function toWireMessage(message: ChatMessage): { role: string; content: WireContent } {
  if (typeof message.content === 'string') return { role: message.role, content: message.content };
  return {
    role: 'user',
    content: message.content.map((part) =>
      part.type === 'text' ? { type: 'text', text: part.text } : { type: 'image_url', image_url: { url: dataUrl(part) } },
    ),
  };
}

/** Adds the schema instruction to the leading system message (a stable place), or as a first one. */
function withInstruction(messages: readonly ChatMessage[], instruction: string): ChatMessage[] {
  const first = messages[0];
  if (first?.role === 'system') return [{ role: 'system', content: `${first.content}\n\n${instruction}` }, ...messages.slice(1)];
  return [{ role: 'system', content: instruction }, ...messages];
}

/** The JSON body of one chat-completions request. */
export function buildOpenAIBody(request: GenerateRequest, settings: OpenAIBodySettings): Record<string, unknown> {
  let messages: readonly ChatMessage[] = settings.supportsImages ? request.messages : withoutImages(request.messages);
  const body: Record<string, unknown> = { model: settings.model };
  const output = request.output;
  if (output && settings.structuredOutput === 'json_object') messages = withInstruction(messages, schemaInstruction(output));
  body.messages = messages.map(toWireMessage);
  if (request.temperature !== undefined && settings.sendTemperature) body.temperature = request.temperature;
  if (request.maxOutputTokens !== undefined) body[settings.maxTokensParameter] = request.maxOutputTokens;
  if (output) {
    const description = output.description ? { description: output.description } : {};
    if (settings.structuredOutput === 'json_schema') {
      body.response_format = {
        type: 'json_schema',
        json_schema: { name: output.name, ...description, schema: output.schema, strict: allowsStrictMode(output.schema) },
      };
    } else if (settings.structuredOutput === 'tool') {
      body.tools = [{ type: 'function', function: { name: output.name, ...description, parameters: output.schema } }];
      body.tool_choice = { type: 'function', function: { name: output.name } };
    } else {
      body.response_format = { type: 'json_object' };
    }
  }
  return { ...body, ...settings.extraBody, stream: false };
}

/** The parts of a chat-completions response plannav reads. */
export interface OpenAIResponse {
  readonly id?: string;
  readonly choices?: ReadonlyArray<{
    readonly finish_reason?: string | null;
    readonly message?: {
      readonly content?: string | ReadonlyArray<{ readonly type?: string; readonly text?: string }> | null;
      readonly refusal?: string | null;
      /** DeepSeek, vLLM: the model's reasoning, never part of the answer. */
      readonly reasoning_content?: string | null;
      /** OpenRouter, Groq: the same. */
      readonly reasoning?: string | null;
      readonly tool_calls?: ReadonlyArray<{ readonly type?: string; readonly function?: { readonly name?: string; readonly arguments?: string } }>;
    };
  }>;
  readonly usage?: {
    readonly prompt_tokens?: number;
    readonly completion_tokens?: number;
    readonly prompt_tokens_details?: { readonly cached_tokens?: number } | null;
    readonly completion_tokens_details?: { readonly reasoning_tokens?: number } | null;
    /** DeepSeek's cache report. */
    readonly prompt_cache_hit_tokens?: number;
  };
  readonly error?: unknown;
}

/** Maps OpenAI's `finish_reason` to plannav's. */
export function openAIFinishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'stop':
    case 'eos':
      return 'stop';
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    case 'content_filter':
      return 'content-filter';
    default:
      return 'other';
  }
}

/** Maps OpenAI's usage (and DeepSeek's cache fields) to plannav's. */
export function openAIUsage(usage: OpenAIResponse['usage']): LLMUsage | undefined {
  if (!usage) return undefined;
  return {
    inputTokens: usage.prompt_tokens,
    outputTokens: usage.completion_tokens,
    cachedInputTokens: usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens,
    reasoningTokens: usage.completion_tokens_details?.reasoning_tokens,
  };
}

/** The answer of a response: its text (reasoning left out) and, for a tool call, the parsed arguments. */
export function readOpenAIAnswer(
  response: OpenAIResponse,
  toolName: string | undefined,
): { text: string | undefined; object: unknown; finishReason: FinishReason } {
  const choice = response.choices?.[0];
  const message = choice?.message;
  let finishReason = openAIFinishReason(choice?.finish_reason);
  const content = message?.content;
  let text =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content
            .map((part: { readonly type?: unknown; readonly text?: string }) => (part.type === 'text' || part.type === undefined ? (part.text ?? '') : ''))
            .join('')
        : undefined;
  let object: unknown;
  const calls = message?.tool_calls ?? [];
  const call = calls.find((candidate) => candidate.function?.name === toolName) ?? calls[0];
  if (call?.function?.arguments !== undefined) {
    text = call.function.arguments;
    if (finishReason !== 'length') {
      try {
        object = JSON.parse(call.function.arguments) as unknown;
      } catch {
        // left to the core, which finds JSON in text and asks for a repair
      }
    }
    // A forced call ends with `stop` on some servers and `tool_calls` on others.
    if (finishReason === 'stop') finishReason = 'tool-calls';
  }
  if (!text && message?.refusal) {
    text = message.refusal;
    finishReason = 'content-filter';
  }
  return { text: text ?? undefined, object, finishReason };
}
