// One structured model call as the agents make it: retries with backoff for transient failures,
// parsing that survives real models, and one repair round when the output does not validate.

import pRetry from 'p-retry';
import type { z } from 'zod';
import { ChatModelOutputError, ChatModelRateLimitError, type PlannavError } from '../errors';
import { cancellationError, raceAbort, sleep, throwIfAborted } from '../util/abort';
import type { JSONSchema } from './json-schema';
import { toChatModelError } from './model-errors';
import { extractJson } from './parse-json';
import type { ChatMessage, GenerateResult, LLMClient } from './types';
import { addUsage, emptyUsage, normalizeUsage, type TokenUsage } from './usage';

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

/** What {@link generateObject} reports as it goes, for events. */
export interface ModelCallObserver {
  onCallStart?(attempt: number): void;
  onCallEnd?(attempt: number, outcome: { usage: TokenUsage; durationMs: number; finishReason?: string | undefined; error?: PlannavError | undefined }): void;
  onRetry?(attempt: number, error: PlannavError, delayMs: number): void;
}

/** Arguments of {@link generateObject}. */
export interface GenerateObjectArgs<T> {
  readonly client: LLMClient;
  readonly messages: readonly ChatMessage[];
  readonly name: string;
  readonly description?: string | undefined;
  /** Validates (and may transform) what the model returned. */
  readonly schema: z.ZodType<T>;
  /** What the model is asked to write; may be stricter than `schema`. */
  readonly jsonSchema: JSONSchema;
  readonly signal: AbortSignal;
  readonly retry?: ModelRetryOptions | undefined;
  readonly timeout?: number | undefined;
  readonly temperature?: number | undefined;
  readonly maxOutputTokens?: number | undefined;
  readonly observer?: ModelCallObserver | undefined;
  /** How many times invalid output is sent back to the model with the error. @defaultValue 1 */
  readonly repairs?: number | undefined;
}

/** The result of {@link generateObject}. */
export interface GenerateObjectResult<T> {
  readonly object: T;
  /** The model's reply as text (the JSON it wrote), for history. */
  readonly text: string;
  readonly usage: TokenUsage;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 8)
    .map((issue) => `- ${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('\n');
}

function retryDelay(attempt: number, options: ModelRetryOptions): number {
  const min = options.minTimeout ?? 1000;
  return Math.min(min * 2 ** (attempt - 1), options.maxTimeout ?? 30_000);
}

/** Calls the model once, retrying transient failures with backoff; never retries a cancel. */
async function callWithRetry<T>(args: GenerateObjectArgs<T>, messages: readonly ChatMessage[]): Promise<GenerateResult> {
  const retry = args.retry ?? {};
  let attempt = 0;
  const retried = pRetry(
    async () => {
      throwIfAborted(args.signal);
      attempt++;
      args.observer?.onCallStart?.(attempt);
      const started = Date.now();
      try {
        const result = await raceAbort(
          args.client.generate({
            messages,
            output: { name: args.name, description: args.description, schema: args.jsonSchema },
            temperature: args.temperature,
            maxOutputTokens: args.maxOutputTokens,
            signal: args.signal,
            timeout: args.timeout,
          }),
          args.signal,
        );
        args.observer?.onCallEnd?.(attempt, { usage: normalizeUsage(result.usage), durationMs: Date.now() - started, finishReason: result.finishReason });
        return result;
      } catch (error) {
        const typed = args.signal.aborted ? cancellationError(args.signal) : toChatModelError(error);
        args.observer?.onCallEnd?.(attempt, { usage: emptyUsage, durationMs: Date.now() - started, error: typed });
        throw typed;
      }
    },
    {
      retries: retry.retries ?? 3,
      minTimeout: retry.minTimeout ?? 1000,
      maxTimeout: retry.maxTimeout ?? 30_000,
      maxRetryTime: retry.maxRetryTime ?? 120_000,
      factor: 2,
      signal: args.signal,
      shouldRetry: ({ error }) => (error as PlannavError).retryable && !args.signal.aborted,
      onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
        const typed = error as PlannavError;
        if (!typed.retryable || retriesLeft === 0 || args.signal.aborted) return;
        // p-retry's own backoff follows; a Retry-After longer than it is waited out first.
        const backoff = retryDelay(attemptNumber, retry);
        const asked = ChatModelRateLimitError.isInstance(typed) ? (typed.retryAfterMs ?? 0) : 0;
        args.observer?.onRetry?.(attemptNumber, typed, Math.max(backoff, asked));
        if (asked > backoff) await sleep(asked - backoff, args.signal);
      },
    },
  );
  // The race makes a cancel felt at once, even during p-retry's wait between tries.
  return raceAbort(retried, args.signal).catch((error: unknown) => {
    throw args.signal.aborted ? cancellationError(args.signal) : toChatModelError(error);
  });
}

/**
 * Asks the model for one object of the given shape. Transient failures are retried with
 * backoff; output that does not parse or validate is sent back once with the validation error;
 * if it still fails, a `ChatModelOutputError` is thrown.
 */
export async function generateObject<T>(args: GenerateObjectArgs<T>): Promise<GenerateObjectResult<T>> {
  let messages = args.messages;
  let usage = emptyUsage;
  const repairs = args.repairs ?? 1;
  for (let round = 0; ; round++) {
    const result = await callWithRetry(args, messages);
    usage = addUsage(usage, normalizeUsage(result.usage));
    const text = result.text ?? (result.object === undefined ? '' : JSON.stringify(result.object));
    const parsed = result.object !== undefined ? { ok: true as const, value: result.object } : extractJson(text);
    let problem: string;
    if (parsed.ok) {
      const validated = args.schema.safeParse(parsed.value);
      if (validated.success) return { object: validated.data, text, usage };
      problem = `Your reply did not match the required format:\n${describeIssues(validated.error)}`;
    } else {
      problem = result.finishReason === 'length'
        ? 'Your reply was cut off by the output token limit before the JSON object was complete.'
        : `Your reply could not be read as JSON: ${parsed.error}`;
    }
    if (round >= repairs) {
      const truncated = result.finishReason === 'length' ? ' The reply was cut off by the output token limit; raise maxOutputTokens.' : '';
      throw new ChatModelOutputError(`The ${args.client.model} model returned unusable output.${truncated} ${problem}`, {
        text,
        requestId: result.requestId,
      });
    }
    messages = [
      ...args.messages,
      { role: 'assistant', content: text || '(empty reply)' },
      { role: 'user', content: `${problem}\nReply again with exactly one JSON object that follows the required schema, and nothing else.` },
    ];
  }
}
