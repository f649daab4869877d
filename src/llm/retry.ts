// The retry policy of model calls: what is retried (retryable errors only), how long to wait
// (exponential backoff, at least the service's Retry-After) and when to stop (count, time, abort).
// Used by generateObject for the agents and by withRetries for direct calls; adapters never retry.

import pRetry from 'p-retry';
import { z } from 'zod';
import { ChatModelRateLimitError, type PlannavError } from '../errors';
import { raceAbort, sleep, throwIfAborted } from '../util/abort';
import { toCallError } from './model-errors';
import type { GenerateRequest, GenerateResult, LLMClient } from './types';

/** How transient model failures (429, 5xx, network, timeouts) are retried. @public */
export interface ModelRetryOptions {
  /** Retries after the first try. @defaultValue 3 */
  readonly retries?: number | undefined;
  /** Milliseconds before the first retry; doubled for each next one. @defaultValue 1000 */
  readonly minTimeout?: number | undefined;
  /** Upper bound of the wait between two tries, in milliseconds. @defaultValue 30000 */
  readonly maxTimeout?: number | undefined;
  /** Upper bound of the time spent on one call and its retries, in milliseconds. @defaultValue 120000 */
  readonly maxRetryTime?: number | undefined;
}

const retryBound = z.number({ error: 'must be a number' }).int('must be an integer').nonnegative('must be 0 or more');

/** What the options that take {@link ModelRetryOptions} check them with (the Executor's, the Collector's, act()'s and extract()'s). */
export const modelRetryOptionsSchema = z
  .object({ retries: retryBound.optional(), minTimeout: retryBound.optional(), maxTimeout: retryBound.optional(), maxRetryTime: retryBound.optional() })
  .strict();

/** Options of {@link withRetries}: the retry bounds, and a hook told of each retry. @public */
export interface WithRetriesOptions extends ModelRetryOptions {
  /**
   * Called before each wait between two tries, with the try that failed (1-based), its error and
   * the milliseconds about to be waited.
   */
  readonly onRetry?: ((attempt: number, error: PlannavError, delayMs: number) => void) | undefined;
}

/** What {@link retryModelCall} needs besides the call itself. */
export interface RetryModelCallOptions {
  readonly retry?: ModelRetryOptions | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly onRetry?: ((attempt: number, error: PlannavError, delayMs: number) => void) | undefined;
}

/** The backoff before retry number `attempt` (1-based): `minTimeout` doubled per retry, capped. */
function backoffDelay(attempt: number, options: ModelRetryOptions): number {
  const min = options.minTimeout ?? 1000;
  return Math.min(min * 2 ** (attempt - 1), options.maxTimeout ?? 30_000);
}

/**
 * Runs `call` (given the 1-based try number) and retries it while it fails with a retryable
 * error, within the count and time bounds of `options.retry`. A cancel through `options.signal`
 * rejects at once with a `RequestCancelledError`, also during a wait between tries. Whatever
 * `call` throws is turned into a typed error.
 */
export function retryModelCall<T>(call: (attempt: number) => Promise<T>, options: RetryModelCallOptions = {}): Promise<T> {
  const retry = options.retry ?? {};
  const { signal } = options;
  const maxRetryTime = retry.maxRetryTime ?? 120_000;
  const started = Date.now();
  let attempt = 0;
  const retried = pRetry(
    async () => {
      throwIfAborted(signal);
      attempt++;
      try {
        return await raceAbort(call(attempt), signal);
      } catch (error) {
        throw toCallError(error, signal);
      }
    },
    {
      retries: retry.retries ?? 3,
      minTimeout: retry.minTimeout ?? 1000,
      maxTimeout: retry.maxTimeout ?? 30_000,
      maxRetryTime,
      factor: 2,
      randomize: false,
      ...(signal ? { signal } : {}),
      shouldRetry: ({ error }) => (error as PlannavError).retryable && !signal?.aborted,
      onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
        const typed = error as PlannavError;
        if (!typed.retryable || retriesLeft === 0 || signal?.aborted) return;
        // p-retry's own backoff follows; a Retry-After longer than it is waited out first.
        const backoff = backoffDelay(attemptNumber, retry);
        const asked = ChatModelRateLimitError.isInstance(typed) ? (typed.retryAfterMs ?? 0) : 0;
        // A service that asks for a longer wait than the time left gets its error now, not after the wait.
        if (asked > maxRetryTime - (Date.now() - started)) throw typed;
        options.onRetry?.(attemptNumber, typed, Math.max(backoff, asked));
        if (asked > backoff) await sleep(asked - backoff, signal);
      },
    },
  );
  // The race makes a cancel felt at once, even during p-retry's wait between tries.
  return raceAbort(retried, signal).catch((error: unknown) => {
    throw toCallError(error, signal);
  });
}

/**
 * Wraps a model client so that `generate()` retries transient failures (429, 5xx, network errors,
 * timeouts) with exponential backoff that honours `Retry-After`, bounded in count and time, and
 * cancellable through the request's `signal` at any moment. Errors come out typed
 * (`ChatModelAuthError`, `ChatModelRateLimitError`, …).
 *
 * @remarks
 * For calling an adapter directly. The Executor already retries every model call with the same
 * policy (its `modelRetry` option): do not give it a wrapped client, or failures are retried twice.
 *
 * @example
 * ```ts
 * const llm = withRetries(new AnthropicChatModel({ model: 'claude-sonnet-4-5' }), { retries: 5 });
 * const { text } = await llm.generate({ messages: [{ role: 'user', content: 'Hello' }] });
 * ```
 * @public
 */
export function withRetries(client: LLMClient, options: WithRetriesOptions = {}): LLMClient {
  return {
    specificationVersion: 'v1',
    provider: client.provider,
    model: client.model,
    supportsImages: client.supportsImages,
    generate: (request: GenerateRequest): Promise<GenerateResult> =>
      retryModelCall(() => client.generate(request), { retry: options, signal: request.signal, onRetry: options.onRetry }),
  };
}
