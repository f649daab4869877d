// Token usage: normalising what adapters report, pricing it, and adding it up per step and per
// task. Pure functions; no model calls.

import type { LLMUsage } from './types';

/** Token counts with every field filled in, summed over one or more model calls. @public */
export interface TokenUsage {
  /** Tokens of the prompts the model read, summed over the calls. */
  readonly inputTokens: number;
  /** Tokens the model wrote in its replies, summed over the calls. */
  readonly outputTokens: number;
  /** Input tokens served from the provider's prompt cache. */
  readonly cachedInputTokens: number;
  /** Output tokens spent on hidden reasoning. */
  readonly reasoningTokens: number;
  /** `inputTokens + outputTokens`. */
  readonly totalTokens: number;
  /** How many model calls these counts cover. */
  readonly calls: number;
  /**
   * What the calls cost in US dollars, from the Executor's `prices` option; `undefined` when a
   * call's model has no price there.
   */
  readonly costUsd: number | undefined;
}

/**
 * Prices of one model in US dollars per million tokens.
 * @example
 * ```ts
 * const prices = { 'gpt-4.1-mini': { input: 0.4, cachedInput: 0.1, output: 1.6 } };
 * ```
 * @public
 */
export interface ModelPrice {
  /** Per million input tokens. */
  readonly input: number;
  /** Per million input tokens served from the prompt cache. @defaultValue `input` */
  readonly cachedInput?: number | undefined;
  /** Per million output tokens (reasoning tokens are output tokens). */
  readonly output: number;
}

/** Prices by model id, as `LLMClient.model` reports it. @public */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** A usage of zero calls. */
export const emptyUsage: TokenUsage = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  reasoningTokens: 0,
  totalTokens: 0,
  calls: 0,
  costUsd: 0,
});

function count(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/** Fills in the missing counts of one call's usage. */
export function normalizeUsage(usage: LLMUsage | undefined): TokenUsage {
  const inputTokens = count(usage?.inputTokens);
  const outputTokens = count(usage?.outputTokens);
  return {
    inputTokens,
    outputTokens,
    cachedInputTokens: count(usage?.cachedInputTokens),
    reasoningTokens: count(usage?.reasoningTokens),
    totalTokens: inputTokens + outputTokens,
    calls: 1,
    costUsd: undefined,
  };
}

/** Adds usages together. */
export function addUsage(...usages: readonly TokenUsage[]): TokenUsage {
  let inputTokens = 0;
  let outputTokens = 0;
  let cachedInputTokens = 0;
  let reasoningTokens = 0;
  let calls = 0;
  let costUsd: number | undefined = 0;
  for (const usage of usages) {
    inputTokens += usage.inputTokens;
    outputTokens += usage.outputTokens;
    cachedInputTokens += usage.cachedInputTokens;
    reasoningTokens += usage.reasoningTokens;
    calls += usage.calls;
    costUsd = costUsd === undefined || usage.costUsd === undefined ? undefined : costUsd + usage.costUsd;
  }
  return { inputTokens, outputTokens, cachedInputTokens, reasoningTokens, totalTokens: inputTokens + outputTokens, calls, costUsd };
}

/**
 * Prices one call's usage: cached input at the cached price, the rest of the input at the input
 * price, output at the output price. Without a price the cost is `undefined`.
 */
export function priceUsage(usage: TokenUsage, price: ModelPrice | undefined): TokenUsage {
  if (!price) return { ...usage, costUsd: usage.calls === 0 ? 0 : undefined };
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  const dollars = (usage.inputTokens - cached) * price.input + cached * (price.cachedInput ?? price.input) + usage.outputTokens * price.output;
  return { ...usage, costUsd: dollars / 1_000_000 };
}
