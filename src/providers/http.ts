// One JSON POST to a model service over `fetch`, as every fetch adapter makes it: a per-call
// timeout joined with the caller's signal, and every failure turned into a typed error. No retries.

import { ChatModelError, ChatModelOutputError, RequestCancelledError, type PlannavError } from '../errors';
import { chatModelErrorFromStatus } from '../llm/model-errors';
import { groupDigits, maxJsonReplyCharacters } from '../llm/parse-json';
import { cancellationError } from '../util/abort';
import { describeThrown } from '../util/describe-thrown';

/**
 * The longest successful reply read, in bytes. The core uses no reply text longer than
 * `maxJsonReplyCharacters` (4,000,000), and JSON writes one character in at most 6 bytes (a
 * `\u` escape), so this cap, with a megabyte for the envelope, never cuts a reply it would use.
 */
export const maxResponseBytes = 6 * maxJsonReplyCharacters + 1_000_000;

/** A `fetch` implementation: the global one, or a test double or proxying one. @public */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** What a provider's error body says, as an adapter reads it. */
export interface ProviderErrorDetail {
  /** The provider's message for people. */
  readonly message?: string | undefined;
  /** The provider's machine-readable code or type. */
  readonly code?: string | undefined;
  /** A status to map instead of the HTTP one (an API key error sent as 400, an error inside a 200). */
  readonly status?: number | undefined;
  /** A wait the body asks for, when no `Retry-After` header says it. */
  readonly retryAfterMs?: number | undefined;
}

/** Reads a provider's error body (already parsed as JSON when it was JSON, else its text). */
export type ErrorBodyReader = (body: unknown, status: number) => ProviderErrorDetail;

/** One POST. */
export interface PostJsonRequest {
  /** The provider's name for people, used in error messages (`OpenAI`, `Anthropic`). */
  readonly provider: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly fetch?: FetchFunction | undefined;
  /** Milliseconds after which the call fails with a retryable timeout error. */
  readonly timeout?: number | undefined;
  /** The caller's signal: aborting it rejects at once with a `RequestCancelledError`. */
  readonly signal?: AbortSignal | undefined;
  readonly readError?: ErrorBodyReader | undefined;
}

/** A successful response. */
export interface PostJsonResponse {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Headers;
  /** The provider's request id, from the usual headers. */
  readonly requestId: string | undefined;
}

const requestIdHeaders = ['x-request-id', 'request-id', 'x-goog-request-id', 'apim-request-id', 'x-ms-request-id', 'x-amzn-requestid', 'x-trace-id'];

/** The provider's request id, from the first of the usual headers that is present. */
export function requestIdFrom(headers: Headers): string | undefined {
  for (const name of requestIdHeaders) {
    const value = headers.get(name);
    if (value) return value;
  }
  return undefined;
}

/**
 * The wait a response asks for, in milliseconds: `retry-after-ms`, else `Retry-After` in seconds
 * or as an HTTP date. `undefined` when neither is present or readable.
 */
export function retryAfterFrom(headers: Headers, now: number = Date.now()): number | undefined {
  const milliseconds = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return Math.ceil(milliseconds);
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number.parseFloat(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The usual places of an error message in a JSON error body: `error.message`, `error`, `message`, `detail`. */
export function defaultErrorReader(body: unknown): ProviderErrorDetail {
  if (typeof body === 'string') return { message: body.trim().slice(0, 500) || undefined };
  if (typeof body !== 'object' || body === null) return {};
  const record = body as Record<string, unknown>;
  const error = record.error;
  if (typeof error === 'string') return { message: error, code: stringOf(record.code) ?? stringOf(record.type) };
  if (typeof error === 'object' && error !== null) {
    const inner = error as Record<string, unknown>;
    return { message: stringOf(inner.message), code: stringOf(inner.code) ?? stringOf(inner.type) ?? stringOf(inner.status) };
  }
  return { message: stringOf(record.message) ?? stringOf(record.detail), code: stringOf(record.code) ?? stringOf(record.type) };
}

function stringOf(value: unknown): string | undefined {
  if (typeof value === 'string' && value) return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * The typed error for a failed response: the provider's message and code, `Retry-After`, the
 * request id and the body (cut to a readable length) ride on it.
 */
export function errorFromResponse(
  provider: string,
  status: number,
  body: unknown,
  headers: Headers,
  readError: ErrorBodyReader = defaultErrorReader,
): ChatModelError {
  const detail = readError(body, status);
  const responseBody = typeof body === 'string' ? body : JSON.stringify(body);
  return chatModelErrorFromStatus({
    status: detail.status ?? status,
    message: detail.message ? `${provider}: ${detail.message}` : undefined,
    code: detail.code,
    retryAfterMs: retryAfterFrom(headers) ?? detail.retryAfterMs,
    requestId: requestIdFrom(headers),
    responseBody: responseBody.slice(0, 2000),
  });
}

/** An error body is read this far at most: its message is at its start, and the error keeps 2,000 characters of it. */
const maxErrorBodyBytes = 64 * 1024;

/** A body as read: `complete` is false when reading stopped at the cap. */
interface BodyText {
  readonly text: string;
  readonly complete: boolean;
}

/**
 * Reads a body as text, chunk by chunk, and cancels it past `maxBytes`, so a reply of 100 MB
 * costs the cap in memory and transfer, not the whole reply (#22). A declared `content-length`
 * above the cap stops it before the first chunk.
 */
async function readBodyText(response: Response, maxBytes: number, hangUp: () => void): Promise<BodyText> {
  const declared = Number.parseInt(response.headers.get('content-length') ?? '', 10);
  const body = response.body;
  if (body === null) return { text: '', complete: true };
  const reader = body.getReader();
  // Cancelling the reader ends the transfer; hanging up (aborting the fetch) closes the
  // connection as well, for fetch implementations whose cancel only stops the stream.
  const stop = (): void => {
    reader.cancel().catch(() => undefined);
    hangUp();
  };
  if (declared > maxBytes) {
    stop();
    return { text: '', complete: false };
  }
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > maxBytes) {
      parts.push(decoder.decode(value.subarray(0, Math.max(0, value.byteLength - (bytes - maxBytes))), { stream: true }));
      stop();
      return { text: parts.join(''), complete: false };
    }
    parts.push(decoder.decode(value, { stream: true }));
  }
  parts.push(decoder.decode());
  return { text: parts.join(''), complete: true };
}

function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return describeThrown(error);
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  const code = typeof cause?.code === 'string' ? ` (${cause.code})` : '';
  return `${error.message}${code}`;
}

/**
 * POSTs `body` as JSON and returns the parsed JSON reply.
 * @throws `RequestCancelledError` when the caller's signal aborts; a retryable `ChatModelError`
 * (`CHAT_MODEL_TIMEOUT`, `CHAT_MODEL_NETWORK`) when the call times out or the service cannot be
 * reached; the error `chatModelErrorFromStatus` gives for a non-2xx response.
 */
export async function postJson(request: PostJsonRequest): Promise<PostJsonResponse> {
  const { signal, timeout } = request;
  if (signal?.aborted) throw cancellationError(signal);
  const controller = new AbortController();
  let outcome: PlannavError | undefined;
  let stop: (error: PlannavError) => void = () => undefined;
  // Rejects as soon as the call is cancelled or times out, even if `fetch` ignores its signal.
  const stopped = new Promise<never>((_resolve, reject) => {
    stop = (error) => {
      if (outcome) return;
      outcome = error;
      controller.abort(error);
      reject(error);
    };
  });
  stopped.catch(() => undefined);
  const onAbort = (): void => stop(signal ? cancellationError(signal) : new RequestCancelledError());
  signal?.addEventListener('abort', onAbort, { once: true });
  const timer =
    timeout !== undefined && Number.isFinite(timeout)
      ? setTimeout(
          () =>
            stop(
              new ChatModelError(`The ${request.provider} call timed out after ${timeout} ms. Raise the timeout option if the model needs longer.`, {
                code: 'CHAT_MODEL_TIMEOUT',
                retryable: true,
              }),
            ),
          // setTimeout fires at once beyond 2^31-1 ms; longer timeouts are as good as none.
          Math.min(timeout, 2_147_483_647),
        )
      : undefined;
  const doFetch = request.fetch ?? ((input: string, init: RequestInit) => globalThis.fetch(input, init));
  try {
    let response: Response;
    try {
      response = await Promise.race([
        doFetch(request.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', ...request.headers },
          body: JSON.stringify(request.body),
          signal: controller.signal,
        }),
        stopped,
      ]);
    } catch (error) {
      if (outcome) throw outcome;
      throw new ChatModelError(`Could not reach ${request.provider} at ${request.url}: ${describeCause(error)}. Check the base URL and the network.`, {
        code: 'CHAT_MODEL_NETWORK',
        retryable: true,
        cause: error,
      });
    }
    let read: BodyText;
    try {
      const hangUp = (): void => controller.abort(new Error('The reply was longer than the cap.'));
      read = await Promise.race([readBodyText(response, response.ok ? maxResponseBytes : maxErrorBodyBytes, hangUp), stopped]);
    } catch (error) {
      if (outcome) throw outcome;
      throw new ChatModelError(`The connection to ${request.provider} broke while reading its reply: ${describeCause(error)}.`, {
        code: 'CHAT_MODEL_NETWORK',
        retryable: true,
        cause: error,
        statusCode: response.status,
        requestId: requestIdFrom(response.headers),
      });
    }
    const { text } = read;
    if (response.ok && !read.complete) {
      throw new ChatModelOutputError(
        `${request.provider} sent a reply longer than ${groupDigits(maxResponseBytes)} bytes; plannav stopped reading it there, since no usable reply is that long. Lower the output token limit (maxOutputTokens) or check the model's settings.`,
        { statusCode: response.status, requestId: requestIdFrom(response.headers), responseBody: text.slice(0, 2000) },
      );
    }
    // An error body cut at its cap is read as far as it went: its message is at its start.
    const body = parseBody(text);
    if (!response.ok) throw errorFromResponse(request.provider, response.status, body, response.headers, request.readError);
    const requestId = requestIdFrom(response.headers);
    if (typeof body !== 'object' || body === null) {
      throw new ChatModelError(`${request.provider} answered HTTP ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`, {
        code: 'CHAT_MODEL_SERVER',
        retryable: true,
        statusCode: response.status,
        requestId,
        responseBody: text.slice(0, 2000),
      });
    }
    return { status: response.status, body, headers: response.headers, requestId };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
