import { describe, expect, it } from 'vitest';
import { describeThrown, maxThrownDescriptionCharacters } from './describe-thrown';

describe('describeThrown', () => {
  it('gives an Error\u2019s message, or its name when the message is empty', () => {
    expect(describeThrown(new TypeError('bad value'))).toBe('bad value');
    expect(describeThrown(new RangeError(''))).toBe('RangeError');
  });

  it('writes a plain object as JSON', () => {
    expect(describeThrown({ code: 42, reason: 'bad' })).toBe('{"code":42,"reason":"bad"}');
    expect(describeThrown([1, 'two'])).toBe('[1,"two"]');
  });

  it('gives primitives as String does', () => {
    expect(describeThrown('plain words')).toBe('plain words');
    expect(describeThrown(404)).toBe('404');
    expect(describeThrown(undefined)).toBe('undefined');
    expect(describeThrown(null)).toBe('null');
    expect(describeThrown(10n)).toBe('10');
    expect(describeThrown(Symbol('gone'))).toBe('Symbol(gone)');
  });

  it('survives what JSON cannot write: cycles, big integers, functions, class instances', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    expect(describeThrown(cyclic)).toBe('{"name":"loop","self":"[Circular]"}');
    expect(describeThrown({ size: 10n })).toBe('{"size":"10"}');
    expect(describeThrown(function handler() {})).toBe('[function handler]');
    expect(describeThrown(new Map([[1, 2]]))).toBe('[object Map]');
    const hostile = {
      toJSON: () => {
        throw new Error('no');
      },
    };
    expect(describeThrown(hostile)).toBe('[object Object]');
  });

  it('cuts a long description', () => {
    const text = describeThrown({ data: 'x'.repeat(10_000) });
    expect(text.length).toBe(maxThrownDescriptionCharacters);
    expect(text.endsWith('\u2026')).toBe(true);
    expect(describeThrown('y'.repeat(10_000)).length).toBe(maxThrownDescriptionCharacters);
    // An Error's message is its author's, whole.
    expect(describeThrown(new Error('z'.repeat(10_000))).length).toBe(10_000);
  });
});
