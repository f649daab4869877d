import { describe, expect, it } from 'vitest';
import { addUsage, emptyUsage, normalizeUsage } from './usage';

describe('normalizeUsage', () => {
  it('fills in missing counts with zero and counts one call', () => {
    expect(normalizeUsage(undefined)).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      cachedInputTokens: 0,
      reasoningTokens: 0,
      totalTokens: 0,
      calls: 1,
    });
  });

  it('turns negative, NaN and infinite counts into zero', () => {
    const usage = normalizeUsage({ inputTokens: -5, outputTokens: Number.NaN, cachedInputTokens: Number.POSITIVE_INFINITY, reasoningTokens: -1 });
    expect(usage.inputTokens).toBe(0);
    expect(usage.outputTokens).toBe(0);
    expect(usage.cachedInputTokens).toBe(0);
    expect(usage.reasoningTokens).toBe(0);
    expect(usage.totalTokens).toBe(0);
  });

  it('keeps valid counts and totals input and output', () => {
    expect(normalizeUsage({ inputTokens: 120, outputTokens: 30, cachedInputTokens: 100, reasoningTokens: 10 })).toEqual({
      inputTokens: 120,
      outputTokens: 30,
      cachedInputTokens: 100,
      reasoningTokens: 10,
      totalTokens: 150,
      calls: 1,
    });
  });
});

describe('addUsage', () => {
  it('sums every count, including calls, and recomputes the total', () => {
    const first = normalizeUsage({ inputTokens: 100, outputTokens: 20, cachedInputTokens: 50, reasoningTokens: 5 });
    const second = normalizeUsage({ inputTokens: 7, outputTokens: 3 });
    expect(addUsage(first, second, emptyUsage)).toEqual({
      inputTokens: 107,
      outputTokens: 23,
      cachedInputTokens: 50,
      reasoningTokens: 5,
      totalTokens: 130,
      calls: 2,
    });
  });

  it('returns an empty usage when given nothing', () => {
    expect(addUsage()).toEqual(emptyUsage);
  });
});
