// One structured model call as the agents make it: retries with backoff for transient failures,
// parsing that survives real models, and one repair round when the output does not validate.

import type { z } from 'zod';
import { ChatModelError, ChatModelOutputError, type PlannavError } from '../errors';
import { withDeadline } from '../util/deadline';
import type { JSONSchema } from './json-schema';
import { toCallError } from './model-errors';
import { modelTimeout } from './model-timeout';
import { extractJson } from './parse-json';
import { repairRequest } from './repair-request';
import { retryModelCall, type ModelRetryOptions } from './retry';
import type { ChatMessage, GenerateResult, LLMClient } from './types';
import { addUsage, emptyUsage, normalizeUsage, type TokenUsage } from './usage';

export type { ModelRetryOptions } from './retry';

/** What {@link generateObject} reports as it goes, for events. */
export interface ModelCallObserver {
  /** `client` is the model called: the fallback's calls name it. */
  onCallStart?(attempt: number, client: LLMClient): void;
  onCallEnd?(
    attempt: number,
    outcome: { usage: TokenUsage; durationMs: number; finishReason?: string | undefined; error?: PlannavError | undefined },
    client: LLMClient,
  ): void;
  /** The call moves from `from` to the fallback model `to`, after `error`. */
  onFallback?(from: LLMClient, to: LLMClient, error: PlannavError): void;
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
  /**
   * The model that takes over the rest of the call when `client` still fails with a retryable
   * error after its retries, or its reply is cut off by the output token limit.
   */
  readonly fallback?: LLMClient | undefined;
  /**
   * The token budget of a request (the Executor's `maxInputTokens`): a repair request quotes the
   * invalid reply only as far as it fits. @defaultValue 128000
   */
  readonly maxInputTokens?: number | undefined;
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

/** Calls the model once, retrying transient failures with backoff; never retries a cancel. */
function callWithRetry<T>(args: GenerateObjectArgs<T>, messages: readonly ChatMessage[]): Promise<GenerateResult> {
  return retryModelCall(
    async (attempt) => {
      args.observer?.onCallStart?.(attempt, args.client);
      const started = Date.now();
      try {
        // Raced and bounded here too, so a client that ignores its signal or has no timeout of
        // its own still ends the call: cancelled at once, or failed (retryably) at the deadline.
        const result = await withDeadline(
          args.timeout,
          args.signal,
          () => modelTimeout(args.client, args.timeout),
          (signal) =>
            args.client.generate({
              messages,
              output: { name: args.name, description: args.description, schema: args.jsonSchema },
              temperature: args.temperature,
              maxOutputTokens: args.maxOutputTokens,
              signal,
              timeout: args.timeout,
            }),
        );
        args.observer?.onCallEnd?.(
          attempt,
          { usage: normalizeUsage(result.usage), durationMs: Date.now() - started, finishReason: result.finishReason },
          args.client,
        );
        return result;
      } catch (error) {
        const typed = toCallError(error, args.signal);
        args.observer?.onCallEnd?.(attempt, { usage: emptyUsage, durationMs: Date.now() - started, error: typed }, args.client);
        throw typed;
      }
    },
    { retry: args.retry, signal: args.signal, onRetry: (attempt, error, delayMs) => args.observer?.onRetry?.(attempt, error, delayMs) },
  );
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
  let client = args.client;
  /** Moves the rest of this call to the fallback model, once; false when there is none or it is in use. */
  const fallBack = (error: PlannavError): boolean => {
    if (!args.fallback || client === args.fallback) return false;
    args.observer?.onFallback?.(client, args.fallback, error);
    client = args.fallback;
    return true;
  };
  for (let round = 0; ; round++) {
    let result: GenerateResult;
    try {
      result = await callWithRetry({ ...args, client }, messages);
    } catch (error) {
      // Still failing after its retries in a way another model may not (rate limits, server
      // errors, timeouts, the network): the fallback gets the same request.
      if (!(ChatModelError.isInstance(error) && error.retryable && fallBack(error))) throw error;
      result = await callWithRetry({ ...args, client }, messages);
    }
    usage = addUsage(usage, normalizeUsage(result.usage));
    const text = result.text ?? (result.object === undefined ? '' : JSON.stringify(result.object));
    const parsed = result.object !== undefined ? { ok: true as const, value: result.object } : extractJson(text);
    let problem: string;
    if (parsed.ok) {
      const validated = args.schema.safeParse(parsed.value);
      if (validated.success) return { object: validated.data, text, usage };
      problem = `Your reply did not match the required format:\n${describeIssues(validated.error)}`;
    } else {
      problem =
        result.finishReason === 'length'
          ? 'Your reply was cut off by the output token limit before the JSON object was complete.'
          : `Your reply could not be read as JSON: ${parsed.error}`;
    }
    // A reply cut off by the output limit goes to the fallback model, with a repair round of its own.
    const cutOff = !parsed.ok && result.finishReason === 'length';
    if (cutOff && fallBack(new ChatModelOutputError(`The ${client.model} model's reply was cut off by the output token limit.`, { text }))) round--;
    else if (round >= repairs) {
      const truncated = result.finishReason === 'length' ? ' The reply was cut off by the output token limit; raise maxOutputTokens.' : '';
      throw new ChatModelOutputError(`The ${client.model} model returned unusable output.${truncated} ${problem}`, {
        text,
        requestId: result.requestId,
      });
    }
    messages = repairRequest({ messages: args.messages, reply: text, problem, maxInputTokens: args.maxInputTokens });
  }
}
