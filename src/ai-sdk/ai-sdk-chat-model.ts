// AISDKChatModel: wraps any Vercel AI SDK language model (ai v5, v6 or v7) as an LLMClient. The AI
// SDK's own retries are off (maxRetries: 0): plannav's retry policy owns retrying.
// One code path serves the three majors: it sends the option names each of them reads and reads
// each result field where any of them puts it, so it must not use a feature only one major has.

import { APICallError, generateText, jsonSchema, LoadAPIKeyError, NoObjectGeneratedError, Output, RetryError, type LanguageModel, type ModelMessage } from 'ai';
import { ChatModelAuthError, ChatModelError, ConfigError, PlannavError, RequestCancelledError } from '../errors';
import { chatModelErrorFromStatus, toChatModelError } from '../llm/model-errors';
import type { ChatMessage, FinishReason, GenerateRequest, GenerateResult, LLMClient, LLMUsage } from '../llm/types';
import { cancellationError } from '../util/abort';

/** Options of {@link AISDKChatModel}. @public */
export interface AISDKChatModelOptions {
  /** The AI SDK language model: `openai('gpt-4.1-mini')`, `anthropic('claude-sonnet-4-5')`, a gateway id string, … */
  readonly model: LanguageModel;
  /** Whether the model accepts images. When false, image parts are left out. @defaultValue true */
  readonly supportsImages?: boolean | undefined;
  /**
   * Milliseconds one call may take before it fails with a retryable timeout error; a request's own
   * `timeout` takes precedence. @defaultValue 600000
   */
  readonly timeout?: number | undefined;
  /** Provider-specific options passed to the AI SDK call as `providerOptions`. */
  readonly providerOptions?: Readonly<Record<string, Readonly<Record<string, unknown>>>> | undefined;
  /** Extra HTTP headers passed to the AI SDK call. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

type UsageLike = {
  readonly inputTokens?: number | undefined;
  readonly outputTokens?: number | undefined;
  readonly cachedInputTokens?: number | undefined;
  readonly reasoningTokens?: number | undefined;
  readonly inputTokenDetails?: { readonly cacheReadTokens?: number | undefined } | undefined;
  readonly outputTokenDetails?: { readonly reasoningTokens?: number | undefined } | undefined;
};

/** Maps the AI SDK's usage (v6 and v7 token details, or v5's flat fields) to plannav's. */
function usageOf(usage: UsageLike | undefined): LLMUsage | undefined {
  if (!usage) return undefined;
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cachedInputTokens: usage.inputTokenDetails?.cacheReadTokens ?? usage.cachedInputTokens,
    reasoningTokens: usage.outputTokenDetails?.reasoningTokens ?? usage.reasoningTokens,
  };
}

const finishReasons = new Set<FinishReason>(['stop', 'length', 'tool-calls', 'content-filter', 'error', 'other']);

function finishReasonOf(reason: unknown): FinishReason {
  return typeof reason === 'string' && finishReasons.has(reason as FinishReason) ? (reason as FinishReason) : 'other';
}

// The two header readers below mirror src/providers/http.ts: the layer rules keep this adapter
// (whose transport is the AI SDK's) independent of the fetch adapters' plumbing.

function requestIdOf(response: { readonly id?: string; readonly headers?: Record<string, string | undefined> } | undefined): string | undefined {
  const headers = response?.headers ?? {};
  for (const name of ['x-request-id', 'request-id', 'x-goog-request-id', 'apim-request-id']) {
    const value = headers[name];
    if (value) return value;
  }
  return response?.id;
}

function retryAfterOf(headers: Record<string, string | undefined> | undefined): number | undefined {
  const milliseconds = Number.parseFloat(headers?.['retry-after-ms'] ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return Math.ceil(milliseconds);
  const value = headers?.['retry-after']?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number.parseFloat(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Leading system messages become the `system` setting; later ones become user text. */
function toModelMessages(messages: readonly ChatMessage[], keepImages: boolean): { system: string | undefined; messages: ModelMessage[] } {
  const system: string[] = [];
  const converted: ModelMessage[] = [];
  for (const message of messages) {
    if (message.role === 'system') {
      if (converted.length === 0) system.push(message.content);
      else converted.push({ role: 'user', content: message.content });
    } else if (message.role === 'assistant') {
      converted.push({ role: 'assistant', content: message.content });
    } else if (typeof message.content === 'string') {
      converted.push({ role: 'user', content: message.content });
    } else {
      converted.push({
        role: 'user',
        content: message.content
          .filter((part) => keepImages || part.type !== 'image')
          // A file part with an image media type: what v7 asks for (its `image` part is deprecated and
          // warns) and what v5 and v6 turn their own image parts into before the provider sees them.
          .map((part) =>
            part.type === 'text' ? { type: 'text' as const, text: part.text } : { type: 'file' as const, data: part.data, mediaType: part.mediaType },
          ),
      });
    }
  }
  return { system: system.length > 0 ? system.join('\n\n') : undefined, messages: converted };
}

type ResponseLike = { readonly id?: string; readonly headers?: Record<string, string | undefined> };

/** The parsed structured output: `output` in v6 and v7, `experimental_output` in v5; both getters throw when there is none. */
function parsedOutputOf(result: object): unknown {
  for (const key of ['output', 'experimental_output']) {
    try {
      const value = (result as Record<string, unknown>)[key];
      if (value !== undefined) return value;
    } catch {
      // No output was parsed; plannav parses the text itself.
    }
  }
  return undefined;
}

/** Maps what the AI SDK threw to plannav's typed errors. */
function mapError(error: unknown): PlannavError {
  if (RetryError.isInstance(error)) return mapError(error.lastError);
  if (APICallError.isInstance(error)) {
    const headers = error.responseHeaders;
    if (error.statusCode === undefined) {
      return new ChatModelError(`The model service could not be reached: ${error.message}`, {
        code: 'CHAT_MODEL_NETWORK',
        retryable: error.isRetryable,
        cause: error,
      });
    }
    const data = error.data as { error?: { code?: unknown; type?: unknown } } | undefined;
    const code = data?.error?.code ?? data?.error?.type;
    const mapped = chatModelErrorFromStatus({
      status: error.statusCode,
      message: error.message,
      code: typeof code === 'string' ? code : undefined,
      retryAfterMs: retryAfterOf(headers),
      requestId: requestIdOf({ headers }),
      responseBody: error.responseBody?.slice(0, 2000),
    });
    Object.defineProperty(mapped, 'cause', { value: error, enumerable: false, writable: true });
    return mapped;
  }
  if (LoadAPIKeyError.isInstance(error)) {
    return new ChatModelAuthError(`The AI SDK provider has no API key: ${error.message}`, { cause: error });
  }
  return toChatModelError(error);
}

/**
 * An `LLMClient` that calls any Vercel AI SDK language model (`ai` v5, v6 or v7) through `generateText`
 * with a JSON-schema output, so each AI SDK provider uses its own best structured-output method.
 *
 * @remarks
 * The AI SDK's retries are turned off (`maxRetries: 0`): the Executor retries what is retryable,
 * with plannav's policy; wrap the client in `withRetries` to call it directly. The AI SDK's
 * `APICallError`s become plannav's typed errors with the status, `Retry-After` and request id.
 * Output that does not parse is returned as text, for plannav's own parsing and repair round.
 *
 * @example
 * ```ts
 * import { openai } from '@ai-sdk/openai';
 * const llm = new AISDKChatModel({ model: openai('gpt-4.1-mini') });
 * ```
 * @public
 */
export class AISDKChatModel implements LLMClient {
  /** The version of the `LLMClient` interface this client implements. */
  readonly specificationVersion = 'v1' as const;
  /** The AI SDK provider's name (`openai.chat`, `anthropic.messages`, …), or `ai-sdk` for a model id string. */
  readonly provider: string;
  /** The model's id. */
  readonly model: string;
  /** Whether image parts are sent; when false they are left out. */
  readonly supportsImages: boolean;
  private readonly options: AISDKChatModelOptions;

  /**
   * Wraps `options.model`; nothing is sent until `generate()`.
   * @throws `ConfigError` when the model or an option is invalid.
   */
  constructor(options: AISDKChatModelOptions) {
    const model = options?.model as unknown;
    if (typeof model === 'string' ? model.trim() === '' : typeof model !== 'object' || model === null) {
      throw new ConfigError("Option `model` of AISDKChatModel must be an AI SDK language model (such as openai('gpt-4.1-mini')) or a model id string.", {
        field: 'model',
      });
    }
    if (options.timeout !== undefined && !(typeof options.timeout === 'number' && options.timeout > 0)) {
      throw new ConfigError(`Option \`timeout\` of AISDKChatModel must be a positive number of milliseconds; got ${String(options.timeout)}.`, {
        field: 'timeout',
      });
    }
    this.options = options;
    const languageModel = options.model;
    this.provider = typeof languageModel === 'string' ? 'ai-sdk' : languageModel.provider;
    this.model = typeof languageModel === 'string' ? languageModel : languageModel.modelId;
    this.supportsImages = options.supportsImages ?? true;
  }

  /**
   * Makes one AI SDK call.
   * @throws A typed `ChatModelError` for HTTP, network and timeout failures; `RequestCancelledError` when `request.signal` aborts.
   */
  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const { signal } = request;
    if (signal?.aborted) throw cancellationError(signal);
    const timeout = request.timeout ?? this.options.timeout ?? 600_000;
    const controller = new AbortController();
    let stopReason: PlannavError | undefined;
    let stop: (reason: PlannavError) => void = () => undefined;
    // Rejects as soon as the call is cancelled or times out, even if the model ignores its signal.
    const stopped = new Promise<never>((_resolve, reject) => {
      stop = (reason) => {
        if (stopReason) return;
        stopReason = reason;
        controller.abort(reason);
        reject(reason);
      };
    });
    stopped.catch(() => undefined);
    const onAbort = (): void => stop(signal ? cancellationError(signal) : new RequestCancelledError());
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(
      () =>
        stop(
          new ChatModelError(`The ${this.provider} call timed out after ${timeout} ms. Raise the timeout option if the model needs longer.`, {
            code: 'CHAT_MODEL_TIMEOUT',
            retryable: true,
          }),
        ),
      // setTimeout fires at once beyond 2^31-1 ms; longer timeouts are as good as none.
      Math.min(timeout, 2_147_483_647),
    );
    const { system, messages } = toModelMessages(request.messages, this.supportsImages);
    const output = request.output
      ? Output.object({
          schema: jsonSchema(request.output.schema as Parameters<typeof jsonSchema>[0]),
          name: request.output.name,
          description: request.output.description,
        })
      : undefined;
    try {
      const call = generateText({
        model: this.options.model,
        // `instructions` in v7, `system` in v5 and v6 (v7 still reads `system`, but only as a fallback).
        instructions: system,
        // eslint-disable-next-line @typescript-eslint/no-deprecated -- v5 and v6 read only `system`
        system,
        messages,
        temperature: request.temperature,
        maxOutputTokens: request.maxOutputTokens,
        abortSignal: controller.signal,
        maxRetries: 0,
        headers: this.options.headers,
        providerOptions: this.options.providerOptions as Parameters<typeof generateText>[0]['providerOptions'],
        // `output` in v6 and v7, `experimental_output` in v5 (v6 still reads it, v7 ignores it).
        ...(output ? { output, experimental_output: output } : {}),
      });
      const result = await Promise.race([call, stopped]);
      // One step, so the final step is the call; v7 deprecates the top-level `response`, v5 has only that one.
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- v5 and v6 have only the top-level `response`
      const response = ((result as { finalStep?: { response?: unknown } }).finalStep?.response ?? result.response) as ResponseLike | undefined;
      return {
        text: result.text,
        object: output ? parsedOutputOf(result) : undefined,
        finishReason: finishReasonOf(result.finishReason),
        usage: usageOf(result.usage),
        raw: response,
        requestId: requestIdOf(response),
      };
    } catch (error) {
      if (stopReason) throw stopReason;
      if (NoObjectGeneratedError.isInstance(error)) {
        // The model answered, but not with JSON the SDK could parse: plannav parses and repairs.
        const response = error.response as ResponseLike | undefined;
        return {
          text: error.text ?? '',
          finishReason: finishReasonOf(error.finishReason),
          usage: usageOf(error.usage),
          raw: response,
          requestId: requestIdOf(response),
        };
      }
      throw mapError(error);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }
}
