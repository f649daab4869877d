// GeminiChatModel: an LLMClient for the Gemini API's generateContent over `fetch`, with
// structured output through a response schema. One call per generate(); it never retries.

import { ConfigError } from '../errors';
import type { GenerateRequest, GenerateResult, LLMClient } from '../llm/types';
import { postJson } from '../providers/http';
import { callTimeout, checkHttpModelOptions, joinUrl, type HttpModelOptions } from '../providers/options';
import { buildGeminiBody, geminiUsage, readGeminiAnswer, readGeminiError, type GeminiResponse } from './wire';

/** Options of {@link GeminiChatModel}. @public */
export interface GeminiChatModelOptions extends HttpModelOptions {
  /** Tokens Gemini 2.5+ may spend thinking (`0` turns thinking off where the model allows it). @defaultValue the model's default */
  readonly thinkingBudget?: number | undefined;
  /** Extra `generationConfig` fields merged into every request (`topP`, `seed`, …). */
  readonly generationConfig?: Readonly<Record<string, unknown>> | undefined;
  /**
   * Where the requested schema goes: `responseSchema`, converted to the OpenAPI subset every Gemini
   * model accepts, or `responseJsonSchema`, the JSON Schema as is (Gemini 2.5 and later).
   * @defaultValue 'responseSchema'
   */
  readonly schemaField?: 'responseSchema' | 'responseJsonSchema' | undefined;
}

const defaultBaseURL = 'https://generativelanguage.googleapis.com/v1beta';

/**
 * An `LLMClient` for the Gemini API (`POST {baseURL}/models/{model}:generateContent`, key in the
 * `x-goog-api-key` header). Structured output is JSON with a `responseSchema` converted from the
 * requested JSON Schema; the system prompt goes in `systemInstruction`; images are `inlineData`;
 * thought parts are never part of `text`.
 *
 * @remarks
 * A call is made once: the Executor retries what is retryable; wrap the client in `withRetries`
 * to call it directly. An invalid key (HTTP 400 `API_KEY_INVALID`) is a `ChatModelAuthError`.
 *
 * @example
 * ```ts
 * const llm = new GeminiChatModel({ model: 'gemini-2.5-flash', apiKey: process.env.GEMINI_API_KEY });
 * ```
 * @public
 */
export class GeminiChatModel implements LLMClient {
  /** The version of the `LLMClient` interface this client implements. */
  readonly specificationVersion = 'v1' as const;
  /** Always `gemini`. */
  readonly provider = 'gemini';
  /** The model id sent with each request. */
  readonly model: string;
  /** Whether image parts are sent; when false they are left out. */
  readonly supportsImages: boolean;
  private readonly options: GeminiChatModelOptions;
  private readonly url: string;

  /**
   * Creates a client; nothing is sent until `generate()`.
   * @throws `ConfigError` naming the option at fault.
   */
  constructor(options: GeminiChatModelOptions) {
    checkHttpModelOptions('GeminiChatModel', options);
    if (options.thinkingBudget !== undefined && !(Number.isInteger(options.thinkingBudget) && options.thinkingBudget >= -1)) {
      throw new ConfigError(
        `Option \`thinkingBudget\` of GeminiChatModel must be an integer (0 or more, or -1 for dynamic); got ${String(options.thinkingBudget)}.`,
        {
          field: 'thinkingBudget',
        },
      );
    }
    if (options.schemaField !== undefined && options.schemaField !== 'responseSchema' && options.schemaField !== 'responseJsonSchema') {
      throw new ConfigError(
        `Option \`schemaField\` of GeminiChatModel must be 'responseSchema' or 'responseJsonSchema'; got ${JSON.stringify(options.schemaField)}.`,
        {
          field: 'schemaField',
        },
      );
    }
    this.options = options;
    this.model = options.model.replace(/^models\//, '');
    this.supportsImages = options.supportsImages ?? true;
    this.url = joinUrl(options.baseURL ?? defaultBaseURL, `models/${encodeURIComponent(this.model)}:generateContent`);
  }

  /**
   * Makes one generateContent call.
   * @throws A typed `ChatModelError` for HTTP, network and timeout failures; `RequestCancelledError` when `request.signal` aborts.
   */
  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const { options } = this;
    const body = buildGeminiBody(request, {
      supportsImages: this.supportsImages,
      thinkingBudget: options.thinkingBudget,
      generationConfig: options.generationConfig,
      schemaField: options.schemaField ?? 'responseSchema',
    });
    const response = await postJson({
      provider: 'Gemini',
      url: this.url,
      headers: { ...(options.apiKey ? { 'x-goog-api-key': options.apiKey } : {}), ...options.headers },
      body,
      fetch: options.fetch,
      timeout: callTimeout(request.timeout, options.timeout),
      signal: request.signal,
      readError: readGeminiError,
    });
    const reply = response.body as GeminiResponse;
    const answer = readGeminiAnswer(reply);
    return {
      text: answer.text,
      finishReason: answer.finishReason,
      usage: geminiUsage(reply.usageMetadata),
      raw: reply,
      requestId: response.requestId ?? reply.responseId,
    };
  }
}
