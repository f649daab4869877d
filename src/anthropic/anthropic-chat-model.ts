// AnthropicChatModel: an LLMClient for Anthropic's Messages API over `fetch`, with structured
// output through a forced tool call. One call per generate(); it never retries (the core does).

import { ConfigError } from '../errors';
import type { GenerateRequest, GenerateResult, LLMClient } from '../llm/types';
import { postJson } from '../providers/http';
import { callTimeout, checkHttpModelOptions, joinUrl, type HttpModelOptions } from '../providers/options';
import { anthropicUsage, buildAnthropicBody, readAnthropicAnswer, type AnthropicResponse, type AnthropicThinkingOptions } from './wire';

/** Options of {@link AnthropicChatModel}. @public */
export interface AnthropicChatModelOptions extends HttpModelOptions {
  /** The output token limit when a request sets none (the API requires one). @defaultValue 4096 */
  readonly maxOutputTokens?: number | undefined;
  /** The `anthropic-version` header. @defaultValue '2023-06-01' */
  readonly anthropicVersion?: string | undefined;
  /**
   * Marks the stable prefix of each request (system prompt, first turn, history before the latest
   * turn) for Anthropic's prompt cache. @defaultValue true
   */
  readonly promptCaching?: boolean | undefined;
  /** Extended thinking. The thinking blocks are never part of `text`. */
  readonly thinking?: AnthropicThinkingOptions | undefined;
}

const defaultBaseURL = 'https://api.anthropic.com/v1';

/**
 * An `LLMClient` for Anthropic's Messages API (`POST {baseURL}/messages`, `x-api-key` and
 * `anthropic-version` headers). Structured output is a forced call of one tool whose input schema
 * is the requested schema; images are base64 blocks; consecutive messages of one role are merged;
 * the stable prefix carries prompt-cache markers.
 *
 * @remarks
 * A call is made once: the Executor retries what is retryable (429, 5xx, 529 overloaded); wrap the
 * client in `withRetries` to call it directly. "prompt is too long" is a `ChatModelContextLengthError`.
 * Called from a web page rather than a server, Anthropic also wants the header
 * `anthropic-dangerous-direct-browser-access: true` (pass it in `headers`); mind that the key is then visible.
 *
 * @example
 * ```ts
 * const llm = new AnthropicChatModel({ model: 'claude-sonnet-4-5', apiKey: process.env.ANTHROPIC_API_KEY });
 * ```
 * @public
 */
export class AnthropicChatModel implements LLMClient {
  /** The version of the `LLMClient` interface this client implements. */
  readonly specificationVersion = 'v1' as const;
  /** Always `anthropic`. */
  readonly provider = 'anthropic';
  /** The model id sent with each request. */
  readonly model: string;
  /** Whether image parts are sent; when false they are left out. */
  readonly supportsImages: boolean;
  private readonly options: AnthropicChatModelOptions;
  private readonly url: string;

  /**
   * Creates a client; nothing is sent until `generate()`.
   * @throws `ConfigError` naming the option at fault.
   */
  constructor(options: AnthropicChatModelOptions) {
    checkHttpModelOptions('AnthropicChatModel', options);
    if (options.maxOutputTokens !== undefined && !(Number.isInteger(options.maxOutputTokens) && options.maxOutputTokens > 0)) {
      throw new ConfigError(`Option \`maxOutputTokens\` of AnthropicChatModel must be a positive integer; got ${String(options.maxOutputTokens)}.`, {
        field: 'maxOutputTokens',
      });
    }
    const budget = options.thinking?.budgetTokens;
    if (options.thinking !== undefined && !(typeof budget === 'number' && Number.isInteger(budget) && budget >= 1024)) {
      throw new ConfigError(`Option \`thinking.budgetTokens\` of AnthropicChatModel must be an integer of at least 1024; got ${String(budget)}.`, {
        field: 'thinking.budgetTokens',
      });
    }
    this.options = options;
    this.model = options.model;
    this.supportsImages = options.supportsImages ?? true;
    this.url = joinUrl(options.baseURL ?? defaultBaseURL, 'messages');
  }

  /**
   * Makes one Messages call.
   * @throws A typed `ChatModelError` for HTTP, network and timeout failures; `RequestCancelledError` when `request.signal` aborts.
   */
  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const { options } = this;
    const body = buildAnthropicBody(request, {
      model: this.model,
      supportsImages: this.supportsImages,
      defaultMaxOutputTokens: options.maxOutputTokens ?? 4096,
      promptCaching: options.promptCaching ?? true,
      thinking: options.thinking,
    });
    const response = await postJson({
      provider: 'Anthropic',
      url: this.url,
      headers: {
        ...(options.apiKey ? { 'x-api-key': options.apiKey } : {}),
        'anthropic-version': options.anthropicVersion ?? '2023-06-01',
        ...options.headers,
      },
      body,
      fetch: options.fetch,
      timeout: callTimeout(request.timeout, options.timeout),
      signal: request.signal,
    });
    const reply = response.body as AnthropicResponse;
    const answer = readAnthropicAnswer(reply, request.output?.name);
    return {
      text: answer.text,
      object: answer.object,
      finishReason: answer.finishReason,
      usage: anthropicUsage(reply.usage),
      raw: reply,
      requestId: response.requestId ?? reply.id,
    };
  }
}
