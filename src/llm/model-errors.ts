// Turns what a model call threw into plannav's typed errors, so the loop can tell retryable
// failures from fatal ones. Adapters use `chatModelErrorFromStatus` for HTTP responses.

import {
  ChatModelAuthError,
  ChatModelBadRequestError,
  ChatModelContextLengthError,
  ChatModelError,
  ChatModelForbiddenError,
  ChatModelRateLimitError,
  PlannavError,
  RequestCancelledError,
} from '../errors';
import { cancellationError } from '../util/abort';
import { describeThrown } from '../util/describe-thrown';

/** Details of a failed HTTP response from a model service. @public */
export interface HttpFailure {
  /** The HTTP status code. */
  readonly status: number;
  /** The provider's error message, if it gave one. */
  readonly message?: string | undefined;
  /** The provider's machine-readable error code or type (`context_length_exceeded`, `invalid_request_error`), if it gave one. */
  readonly code?: string | undefined;
  /** Milliseconds to wait, from a `Retry-After` header. */
  readonly retryAfterMs?: number | undefined;
  /** The provider's request id. */
  readonly requestId?: string | undefined;
  /** The response body, for debugging. */
  readonly responseBody?: string | undefined;
}

// How the providers say the prompt does not fit: OpenAI and compatible servers (vLLM, DeepSeek,
// Mistral, Groq, LM Studio), Anthropic ("prompt is too long") and Gemini ("input token count").
const contextLengthCodes = /^(context_length_exceeded|string_above_max_length|model_context_window_exceeded)$/i;
const contextLengthMessages =
  /context[ _-]?(length|window)|prompt is too long|input token count .*exceeds|exceeds the maximum number of tokens|too large for model with \d+ maximum context/i;

/**
 * Whether a provider's error code or message says the prompt exceeds the model's context window.
 * @internal
 */
export function isContextLengthFailure(failure: { readonly code?: string | undefined; readonly message?: string | undefined }): boolean {
  return (
    (failure.code !== undefined && contextLengthCodes.test(failure.code)) || (failure.message !== undefined && contextLengthMessages.test(failure.message))
  );
}

/**
 * Maps an HTTP failure of a model service to the typed error users branch on: 401 auth,
 * 403 forbidden, 400/422 bad request (a prompt longer than the context window is a
 * `ChatModelContextLengthError`), 429 rate limit, 408/409/5xx retryable.
 * @public
 */
export function chatModelErrorFromStatus(failure: HttpFailure): ChatModelError {
  const { status } = failure;
  const detail = failure.message ? `: ${failure.message}` : '';
  const suffix = failure.requestId ? ` (request id ${failure.requestId})` : '';
  const options = { statusCode: status, requestId: failure.requestId, responseBody: failure.responseBody };
  if (status === 401) {
    return new ChatModelAuthError(`The model service rejected the API key (HTTP 401)${detail}. Check the key and its environment variable.${suffix}`, options);
  }
  if (status === 403) {
    return new ChatModelForbiddenError(`The API key may not use this model or endpoint (HTTP 403)${detail}.${suffix}`, options);
  }
  if ((status === 400 || status === 413 || status === 422) && isContextLengthFailure(failure)) {
    return new ChatModelContextLengthError(
      `The prompt is longer than the model's context window (HTTP ${status})${detail}. Lower maxInputTokens or use a model with a larger context window.${suffix}`,
      options,
    );
  }
  if (status === 400 || status === 422) {
    return new ChatModelBadRequestError(`The model service refused the request (HTTP ${status})${detail}.${suffix}`, options);
  }
  if (status === 429) {
    return new ChatModelRateLimitError(`The model service is rate limiting (HTTP 429)${detail}.${suffix}`, {
      ...options,
      retryAfterMs: failure.retryAfterMs,
    });
  }
  const retryable = status === 408 || status === 409 || status >= 500;
  return new ChatModelError(`The model call failed (HTTP ${status})${detail}.${suffix}`, {
    ...options,
    code: status >= 500 ? 'CHAT_MODEL_SERVER' : 'CHAT_MODEL_ERROR',
    retryable,
  });
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

const networkCodes = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT']);

function isNetworkError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code ?? (error.cause as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && networkCodes.has(code)) return true;
  return error instanceof TypeError && /fetch failed|network|Failed to fetch|Load failed/i.test(error.message);
}

/**
 * Types what one model call threw, knowing whether plannav's own signal aborted it: only that is
 * a cancel. An abort the client made itself (its own timeout controller, say) is a retryable
 * timeout, not a cancel of the task.
 */
export function toCallError(error: unknown, signal: AbortSignal | undefined): PlannavError {
  if (signal?.aborted) return cancellationError(signal);
  if (isAbortError(error)) {
    return new ChatModelError(`The model client aborted the call on its own: ${(error as Error).message}`, {
      code: 'CHAT_MODEL_TIMEOUT',
      retryable: true,
      cause: error,
    });
  }
  return toChatModelError(error);
}

/**
 * Turns anything a model call threw into a {@link PlannavError}: typed errors pass through,
 * aborts become `RequestCancelledError`, errors with a numeric `status` or `statusCode` are
 * mapped like HTTP failures, network errors become retryable, anything else is not retried.
 */
export function toChatModelError(error: unknown): PlannavError {
  if (PlannavError.isInstance(error)) return error;
  if (isAbortError(error)) return new RequestCancelledError('The model call was cancelled.', { cause: error });
  if (error instanceof Error && error.name === 'TimeoutError') {
    return new ChatModelError(`The model call timed out: ${error.message}`, { code: 'CHAT_MODEL_TIMEOUT', retryable: true, cause: error });
  }
  if (typeof error === 'object' && error !== null) {
    const record = error as { status?: unknown; statusCode?: unknown; message?: unknown; code?: unknown };
    const status = typeof record.status === 'number' ? record.status : typeof record.statusCode === 'number' ? record.statusCode : undefined;
    if (status !== undefined) {
      const mapped = chatModelErrorFromStatus({
        status,
        message: typeof record.message === 'string' ? record.message : undefined,
        code: typeof record.code === 'string' ? record.code : undefined,
      });
      return withCause(mapped, error);
    }
  }
  if (isNetworkError(error)) {
    return new ChatModelError(`The model service could not be reached: ${(error as Error).message}`, {
      code: 'CHAT_MODEL_NETWORK',
      retryable: true,
      cause: error,
    });
  }
  return new ChatModelError(`The model call failed: ${describeThrown(error)}`, { cause: error });
}

function withCause(mapped: ChatModelError, cause: unknown): ChatModelError {
  if (mapped.cause === undefined) Object.defineProperty(mapped, 'cause', { value: cause, enumerable: false, writable: true });
  return mapped;
}
