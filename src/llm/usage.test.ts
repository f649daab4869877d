import { describe, expect, it } from 'vitest';
import { addUsage, emptyUsage, normalizeUsage, priceUsage } from './usage';

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

describe('priceUsage', () => {
  it('prices cached input, the rest of the input and the output at their own rates', () => {
    const usage = normalizeUsage({ inputTokens: 1_000_000, cachedInputTokens: 400_000, outputTokens: 100_000 });
    const priced = priceUsage(usage, { input: 2, cachedInput: 0.5, output: 8 });
    // 600k fresh input at $2/M + 400k cached at $0.5/M + 100k output at $8/M
    expect(priced.costUsd).toBeCloseTo(1.2 + 0.2 + 0.8, 10);
  });

  it('bills cached input at the input price when no cached price is given', () => {
    const priced = priceUsage(normalizeUsage({ inputTokens: 500_000, cachedInputTokens: 500_000, outputTokens: 0 }), { input: 1, output: 4 });
    expect(priced.costUsd).toBeCloseTo(0.5, 10);
  });

  it('leaves the cost unknown without a price, and unknown in any sum that includes it', () => {
    const known = priceUsage(normalizeUsage({ inputTokens: 1_000_000 }), { input: 1, output: 1 });
    const unknown = priceUsage(normalizeUsage({ inputTokens: 10 }), undefined);
    expect(unknown.costUsd).toBeUndefined();
    expect(addUsage(known, known).costUsd).toBeCloseTo(2, 10);
    expect(addUsage(known, unknown).costUsd).toBeUndefined();
    expect(addUsage().costUsd).toBe(0);
  });
});
