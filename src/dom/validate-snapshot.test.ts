import { describe, expect, it } from 'vitest';
import { BrowserError } from '../errors';
import { defaultIncludeAttributes } from './page-state-reader';
import { ElementIndexer } from './serialize';
import type { SnapshotScriptOptions } from './types';
import { validateFrameSnapshot } from './validate-snapshot';

const options: SnapshotScriptOptions = { viewportExpansion: 0, includeAttributes: defaultIncludeAttributes, maxTextLength: 20 };
const element = (overrides: Record<string, unknown>): Record<string, unknown> => ({
  kind: 'element',
  elementId: 'a-1',
  tagName: 'button',
  attributes: {},
  text: 'Go',
  depth: 0,
  ...overrides,
});
const snapshot = (items: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  url: 'https://x.test/',
  title: 'X',
  items,
  pixelsAbove: 0,
  pixelsBelow: 0,
  ...extra,
});

describe('validateFrameSnapshot', () => {
  it('keeps an element\u2019s text in lines, each capped, at most 500 of them', () => {
    const long = validateFrameSnapshot(snapshot([element({ text: `${'x'.repeat(30)}\n\n  second  \n${'y\n'.repeat(600)}` })]), options);
    const lines = (long.items[0] as { text: string }).text.split('\n');
    expect(lines[0]).toBe(`${'x'.repeat(20)}…`);
    expect(lines[1]).toBe('second');
    expect(lines).toHaveLength(499);
  });

  it('clamps depths, caps strings and keeps every value on one line', () => {
    const result = validateFrameSnapshot(
      snapshot([element({ depth: 1e9, text: 'a\nb'.repeat(30), attributes: { title: 'x\n[9]<button>' } }), { kind: 'text', text: 'line\r\nbreak', depth: -4 }]),
      options,
    );
    expect(result.items[0]).toMatchObject({ depth: 50, text: ['a', ...Array<string>(29).fill('ba'), 'b'].join('\n'), attributes: { title: 'x [9]<button>' } });
    expect(result.items[1]).toEqual({ kind: 'text', text: 'line break', depth: 0 });
    expect(() => new ElementIndexer().serialize([{ frameId: 'f', snapshot: result }])).not.toThrow();
  });

  it('drops attributes nobody asked for and replaces a tag name that is not one', () => {
    const result = validateFrameSnapshot(
      snapshot([element({ tagName: 'button>\n[2]<a', attributes: { 'onclick="x"\nUser': '', title: 'T', hint: 'menu', options: 'a|b', 'data-x': 'secret' } })]),
      options,
    );
    expect(result.items[0]).toMatchObject({ tagName: 'element', attributes: { title: 'T', hint: 'menu', options: 'a|b' } });
    expect(Object.keys((result.items[0] as { attributes: object }).attributes)).toEqual(['title', 'hint', 'options']);
  });

  it('shows a password input only by type, name, placeholder and aria-label', () => {
    const result = validateFrameSnapshot(
      snapshot([element({ tagName: 'input', attributes: { type: 'password', name: 'pw', value: 'hunter2', title: 'hunter2', 'aria-label': 'Password' } })]),
      { ...options, includeAttributes: [...defaultIncludeAttributes, 'aria-valuetext'] },
    );
    expect((result.items[0] as { attributes: object }).attributes).toEqual({ type: 'password', name: 'pw', 'aria-label': 'Password' });
  });

  it('normalises numbers and the viewport', () => {
    const result = validateFrameSnapshot(
      snapshot([element({ scroll: { above: -5, below: Infinity } })], { pixelsAbove: 'x', pixelsBelow: 12.6, viewport: { width: NaN, height: 3 } }),
      options,
    );
    expect(result).toMatchObject({ pixelsAbove: 0, pixelsBelow: 13, viewport: undefined });
    expect(result.items[0]).toMatchObject({ scroll: { above: 0, below: 0 } });
  });

  it('throws a BrowserError for what is not a snapshot', () => {
    for (const bad of [
      null,
      'x',
      42,
      {},
      { items: 'x' },
      snapshot([null]),
      snapshot([{ kind: 'other' }]),
      snapshot([element({ elementId: 7 })]),
      snapshot([element({ attributes: null })]),
    ]) {
      expect(() => validateFrameSnapshot(bad, options), JSON.stringify(bad)).toThrow(BrowserError);
    }
  });
});
