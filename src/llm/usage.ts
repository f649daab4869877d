// Token usage: normalising what adapters report and adding it up per step and per task.
// Pure functions; no model calls.

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
}

/** A usage of zero calls. */
export const emptyUsage: TokenUsage = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  reasoningTokens: 0,
  totalTokens: 0,
  calls: 0,
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
  };
}

/** Adds usages together. */
export function addUsage(...usages: readonly TokenUsage[]): TokenUsage {
  let inputTokens = 0;
  let outputTokens = 0;
  let cachedInputTokens = 0;
  let reasoningTokens = 0;
  let calls = 0;
  for (const usage of usages) {
    inputTokens += usage.inputTokens;
    outputTokens += usage.outputTokens;
    cachedInputTokens += usage.cachedInputTokens;
    reasoningTokens += usage.reasoningTokens;
    calls += usage.calls;
  }
  return { inputTokens, outputTokens, cachedInputTokens, reasoningTokens, totalTokens: inputTokens + outputTokens, calls };
}
