// A small AI SDK language model (LanguageModelV3) over the OpenAI chat-completions wire format, so
// AISDKChatModel runs through the conformance kit's HTTP server like the other adapters. It fails
// the way the AI SDK's own providers do: APICallError with status, headers, body and parsed data.
// Test fixture only; it speaks just what the kit's server answers.

import { APICallError } from 'ai';
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
} from '@ai-sdk/provider';

type WireMessage = { role: string; content: string | Array<Record<string, unknown>> };

function base64Of(data: unknown): string {
  if (typeof data === 'string') return data;
  if (data instanceof URL) return data.href;
  return Buffer.from(data as Uint8Array).toString('base64');
}

function toWireMessages(prompt: LanguageModelV3Prompt): WireMessage[] {
  return prompt.map((message): WireMessage => {
    if (message.role === 'system') return { role: 'system', content: message.content };
    if (message.role === 'user') {
      return {
        role: 'user',
        content: message.content.map((part) =>
          part.type === 'text'
            ? { type: 'text', text: part.text }
            : { type: 'image_url', image_url: { url: `data:${part.mediaType};base64,${base64Of(part.data)}` } },
        ),
      };
    }
    if (message.role === 'assistant') {
      return { role: 'assistant', content: message.content.map((part) => (part.type === 'text' ? part.text : '')).join('') };
    }
    return { role: 'tool', content: '' };
  });
}

function finishReasonOf(raw: unknown): LanguageModelV3FinishReason {
  const unified = raw === 'stop' ? 'stop' : raw === 'length' ? 'length' : raw === 'tool_calls' ? 'tool-calls' : 'other';
  return { unified, raw: typeof raw === 'string' ? raw : undefined };
}

/** An AI SDK model that posts to `{baseURL}/chat/completions` with a bearer key. */
export function openAICompatibleModel(settings: { readonly baseURL: string; readonly apiKey: string; readonly modelId?: string }): LanguageModelV3 {
  const url = `${settings.baseURL}/chat/completions`;
  return {
    specificationVersion: 'v3',
    provider: 'openai-compatible.chat',
    modelId: settings.modelId ?? 'mock-model',
    supportedUrls: {},
    doStream: () => Promise.reject(new Error('This test model does not stream.')),
    doGenerate: async (options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> => {
      const body: Record<string, unknown> = { model: settings.modelId ?? 'mock-model', messages: toWireMessages(options.prompt) };
      if (options.maxOutputTokens !== undefined) body.max_tokens = options.maxOutputTokens;
      if (options.temperature !== undefined) body.temperature = options.temperature;
      if (options.responseFormat?.type === 'json') {
        body.response_format = options.responseFormat.schema
          ? { type: 'json_schema', json_schema: { name: options.responseFormat.name ?? 'response', schema: options.responseFormat.schema } }
          : { type: 'json_object' };
      }
      let response: Response;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${settings.apiKey}`, ...options.headers },
          body: JSON.stringify(body),
          ...(options.abortSignal ? { signal: options.abortSignal } : {}),
        });
      } catch (error) {
        // The AI SDK's providers let aborts through and wrap connection failures, without a status.
        if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) throw error;
        throw new APICallError({
          message: `Cannot connect to API: ${(error as Error).message}`,
          url,
          requestBodyValues: body,
          cause: error,
          isRetryable: true,
        });
      }
      const headers = Object.fromEntries(response.headers.entries());
      const text = await response.text();
      if (!response.ok) {
        let data: unknown;
        try {
          data = JSON.parse(text);
        } catch {
          data = undefined;
        }
        const message = (data as { error?: { message?: string } } | undefined)?.error?.message ?? response.statusText;
        throw new APICallError({
          message,
          url,
          requestBodyValues: body,
          statusCode: response.status,
          responseHeaders: headers,
          responseBody: text,
          isRetryable: response.status === 408 || response.status === 409 || response.status === 429 || response.status >= 500,
          data,
        });
      }
      const json = JSON.parse(text) as {
        id?: string;
        choices?: Array<{ finish_reason?: string; message?: { content?: string | null; reasoning_content?: string } }>;
        usage?: {
          prompt_tokens?: number;
          completion_tokens?: number;
          prompt_tokens_details?: { cached_tokens?: number };
          completion_tokens_details?: { reasoning_tokens?: number };
        };
      };
      const choice = json.choices?.[0];
      const content: LanguageModelV3Content[] = [];
      if (choice?.message?.reasoning_content) content.push({ type: 'reasoning', text: choice.message.reasoning_content });
      if (choice?.message?.content) content.push({ type: 'text', text: choice.message.content });
      const input = json.usage?.prompt_tokens;
      const cached = json.usage?.prompt_tokens_details?.cached_tokens;
      const output = json.usage?.completion_tokens;
      const reasoning = json.usage?.completion_tokens_details?.reasoning_tokens;
      return {
        content,
        finishReason: finishReasonOf(choice?.finish_reason),
        usage: {
          inputTokens: { total: input, noCache: input !== undefined ? input - (cached ?? 0) : undefined, cacheRead: cached, cacheWrite: undefined },
          outputTokens: { total: output, text: output !== undefined ? output - (reasoning ?? 0) : undefined, reasoning },
        },
        warnings: [],
        response: { ...(json.id ? { id: json.id } : {}), headers },
      };
    },
  };
}
