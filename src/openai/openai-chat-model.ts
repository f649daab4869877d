// OpenAIChatModel: an LLMClient for any OpenAI-compatible chat-completions API, over `fetch`.
// One call per generate(); it never retries (the core does) and never imports a `node:` module.

import { ChatModelError, ConfigError } from '../errors';
import type { GenerateRequest, GenerateResult, LLMClient } from '../llm/types';
import { errorFromResponse, postJson, type ProviderErrorDetail } from '../providers/http';
import { callTimeout, checkHttpModelOptions, joinUrl, type HttpModelOptions } from '../providers/options';
import { buildOpenAIBody, openAIUsage, readOpenAIAnswer, type OpenAIResponse, type OpenAIStructuredOutput } from './wire';

/** Options of {@link OpenAIChatModel}. @public */
export interface OpenAIChatModelOptions extends HttpModelOptions {
  /** The provider's name in events and history. @defaultValue 'openai' */
  readonly provider?: string | undefined;
  /** How structured output is asked for; see {@link OpenAIStructuredOutput}. @defaultValue 'json_schema' */
  readonly structuredOutput?: OpenAIStructuredOutput | undefined;
  /**
   * The body field that carries `maxOutputTokens`. OpenAI's reasoning models take only
   * `max_completion_tokens`; older compatible servers only `max_tokens`. @defaultValue 'max_tokens'
   */
  readonly maxTokensParameter?: 'max_tokens' | 'max_completion_tokens' | undefined;
  /** Whether to send `temperature`; reasoning models (o-series, gpt-5) refuse it. @defaultValue true */
  readonly sendTemperature?: boolean | undefined;
  /**
   * Where the API key goes: `authorization` sends `Authorization: Bearer <key>`, `api-key` sends
   * an `api-key` header (Azure OpenAI). @defaultValue 'authorization'
   */
  readonly apiKeyHeader?: 'authorization' | 'api-key' | undefined;
  /** Query parameters added to the URL (Azure's `api-version`). */
  readonly queryParams?: Readonly<Record<string, string>> | undefined;
  /**
   * Extra fields merged into every request body, for provider-specific settings
   * (`{ reasoning_effort: 'low' }`, OpenRouter's `provider` routing, Ollama's `options`).
   */
  readonly body?: Readonly<Record<string, unknown>> | undefined;
}

const defaultBaseURL = 'https://api.openai.com/v1';

/** How error messages name the services with a preset; any other provider name is used as is. */
const displayNames: Readonly<Record<string, string>> = {
  openai: 'OpenAI',
  azure: 'Azure OpenAI',
  ollama: 'Ollama',
  vllm: 'vLLM',
  lmstudio: 'LM Studio',
  deepseek: 'DeepSeek',
  groq: 'Groq',
  openrouter: 'OpenRouter',
  together: 'Together AI',
  mistral: 'Mistral',
};
const methods: readonly OpenAIStructuredOutput[] = ['json_schema', 'tool', 'json_object'];

/** Reads OpenAI-style error bodies, including vLLM's flat `{ message, code }` and an error sent inside a 200. */
function readOpenAIError(body: unknown, status: number): ProviderErrorDetail {
  if (typeof body === 'string') return { message: body.trim().slice(0, 500) || undefined };
  if (typeof body !== 'object' || body === null) return {};
  const record = body as { error?: unknown; message?: unknown; code?: unknown; type?: unknown };
  const error = typeof record.error === 'object' && record.error !== null ? (record.error as Record<string, unknown>) : undefined;
  const message =
    typeof error?.message === 'string'
      ? error.message
      : typeof record.error === 'string'
        ? record.error
        : typeof record.message === 'string'
          ? record.message
          : undefined;
  const rawCode = error?.code ?? error?.type ?? record.code ?? record.type;
  // OpenRouter reports an upstream failure inside a 200 with the upstream status as the code.
  const statusFromCode = status < 300 && typeof rawCode === 'number' ? rawCode : undefined;
  return {
    message,
    code: typeof rawCode === 'string' ? rawCode : undefined,
    status: statusFromCode ?? (status < 300 ? 502 : undefined),
  };
}

/**
 * An `LLMClient` for the OpenAI chat-completions API and every server that speaks it: OpenAI,
 * Azure OpenAI, Ollama, vLLM, LM Studio, DeepSeek, Groq, OpenRouter, Together, Mistral. The
 * presets (`openai()`, `azureOpenAI()`, `ollama()`, …) fill in the base URL and the best
 * structured-output method of each.
 *
 * @remarks
 * Errors are typed (`ChatModelAuthError`, `ChatModelRateLimitError` with `retryAfterMs`,
 * `ChatModelContextLengthError`, …) and carry the provider's request id. A call is made once:
 * the Executor retries what is retryable; wrap the client in `withRetries` to call it directly.
 * The reasoning a server returns apart (`reasoning_content`) is not part of `text`.
 *
 * @example
 * ```ts
 * const llm = new OpenAIChatModel({ model: 'qwen2.5:7b', baseURL: 'http://localhost:11434/v1', provider: 'ollama' });
 * ```
 * @public
 */
export class OpenAIChatModel implements LLMClient {
  /** The version of the `LLMClient` interface this client implements. */
  readonly specificationVersion = 'v1' as const;
  /** The provider's name in events and history. */
  readonly provider: string;
  /** The model id sent with each request. */
  readonly model: string;
  /** Whether image parts are sent; when false they are left out. */
  readonly supportsImages: boolean;
  /** How structured output is asked for. */
  readonly structuredOutput: OpenAIStructuredOutput;
  private readonly options: OpenAIChatModelOptions;
  private readonly url: string;
  private readonly displayName: string;

  /**
   * Creates a client; nothing is sent until `generate()`.
   * @throws `ConfigError` naming the option at fault.
   */
  constructor(options: OpenAIChatModelOptions) {
    checkHttpModelOptions('OpenAIChatModel', options);
    if (options.structuredOutput !== undefined && !methods.includes(options.structuredOutput)) {
      throw new ConfigError(
        `Option \`structuredOutput\` of OpenAIChatModel must be one of ${methods.join(', ')}; got ${JSON.stringify(options.structuredOutput)}.`,
        {
          field: 'structuredOutput',
        },
      );
    }
    this.options = options;
    this.provider = options.provider ?? 'openai';
    this.model = options.model;
    this.supportsImages = options.supportsImages ?? true;
    this.structuredOutput = options.structuredOutput ?? 'json_schema';
    this.displayName = displayNames[this.provider] ?? this.provider;
    const query = new URLSearchParams(options.queryParams ?? {}).toString();
    this.url = joinUrl(options.baseURL ?? defaultBaseURL, 'chat/completions') + (query ? `?${query}` : '');
  }

  /**
   * Makes one chat-completions call.
   * @throws A typed `ChatModelError` for HTTP, network and timeout failures; `RequestCancelledError` when `request.signal` aborts.
   */
  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const { options } = this;
    const headers: Record<string, string> = {};
    if (options.apiKey) {
      if (options.apiKeyHeader === 'api-key') headers['api-key'] = options.apiKey;
      else headers.authorization = `Bearer ${options.apiKey}`;
    }
    const body = buildOpenAIBody(request, {
      model: this.model,
      structuredOutput: this.structuredOutput,
      supportsImages: this.supportsImages,
      maxTokensParameter: options.maxTokensParameter ?? 'max_tokens',
      sendTemperature: options.sendTemperature ?? true,
      extraBody: options.body,
    });
    const response = await postJson({
      provider: this.displayName,
      url: this.url,
      headers: { ...headers, ...options.headers },
      body,
      fetch: options.fetch,
      timeout: callTimeout(request.timeout, options.timeout),
      signal: request.signal,
      readError: readOpenAIError,
    });
    const reply = response.body as OpenAIResponse;
    if (!Array.isArray(reply.choices) || reply.choices.length === 0) {
      if (reply.error !== undefined) throw errorFromResponse(this.displayName, response.status, reply, response.headers, readOpenAIError);
      throw new ChatModelError(`${this.displayName} answered without a choice; the response is kept on the error.`, {
        code: 'CHAT_MODEL_SERVER',
        retryable: true,
        statusCode: response.status,
        requestId: response.requestId,
        responseBody: JSON.stringify(reply).slice(0, 2000),
      });
    }
    const answer = readOpenAIAnswer(reply, request.output?.name);
    return {
      text: answer.text,
      object: answer.object,
      finishReason: answer.finishReason,
      usage: openAIUsage(reply.usage),
      raw: reply,
      requestId: response.requestId ?? reply.id,
    };
  }
}
