import { describe, expect, it } from 'vitest';
import type { PageState } from '../browser/page-state';
import type { ElementFingerprint } from '../history/types';
import type { MatchCandidate } from '../replay/match';
import type { CachedAction } from './cache-entry';
import { relocate } from './relocate';

function button(overrides: Partial<ElementFingerprint> = {}): ElementFingerprint {
  return {
    tagName: 'button',
    role: 'button',
    name: 'Add to cart',
    text: 'Add to cart',
    attributes: { type: 'submit', id: 'add-blue' },
    xpath: '/html/body/main/section[1]/form/button',
    cssPath: '#add-blue',
    ancestors: [{ tagName: 'form' }, { tagName: 'section', name: 'Blue mug $4 Add to cart' }],
    box: { x: 10, y: 100, width: 120, height: 30 },
    record: { name: 'Blue mug', from: 'heading', scope: 'item' },
    frameUrl: 'https://shop.example/mugs',
    ...overrides,
  };
}

/** A state whose text puts `above[index]` as the line above each element. */
function stateWith(above: Record<number, string>): PageState {
  const text = Object.entries(above)
    .map(([index, line]) => `${line}\n[${index}]<button>Add to cart />`)
    .join('\n');
  return {
    url: 'https://shop.example/mugs',
    title: 'Mugs',
    tabs: [],
    activeTabId: 't',
    elementsText: text,
    elements: new Map(),
    newIndices: new Set(),
    pixelsAbove: 0,
    pixelsBelow: 0,
    capturedAt: 0,
  };
}

const recorded = button();
const action: CachedAction = { name: 'click_element', params: {}, elements: { index: recorded }, context: { index: 'blue mug' } };
const red = button({
  attributes: { type: 'submit', id: 'add-red' },
  cssPath: '#add-red',
  xpath: '/html/body/main/section[2]/form/button',
  ancestors: [{ tagName: 'form' }, { tagName: 'section', name: 'Red mug $6 Add to cart' }],
  box: { x: 10, y: 200, width: 120, height: 30 },
  record: { name: 'Red mug', from: 'heading', scope: 'item' },
});

describe('relocate', () => {
  it('finds the same element again on a fresh reading, whatever its index', () => {
    const candidates: MatchCandidate[] = [
      { index: 7, fingerprint: red },
      { index: 6, fingerprint: button() },
    ];
    expect(relocate(action, stateWith({ 6: 'Blue mug', 7: 'Red mug' }), candidates, false)).toEqual({ found: true, indexes: { index: 6 } });
  });

  it('never takes another record’s element, even with the recorded id and place', () => {
    const impostor = button({ record: { name: 'Red mug', from: 'heading', scope: 'item' }, ancestors: red.ancestors });
    const found = relocate(action, stateWith({ 3: 'Red mug' }), [{ index: 3, fingerprint: impostor }], false);
    expect(found.found).toBe(false);
  });

  it('leaves an element whose identifying attribute changed to the model', () => {
    const renamed = button({ attributes: { type: 'submit', id: 'buy-blue' }, cssPath: '#buy-blue' });
    const found = relocate(action, stateWith({ 2: 'Blue mug' }), [{ index: 2, fingerprint: renamed }], false);
    expect(found).toEqual({ found: false, reason: 'index: element 2 is another element: its id is "buy-blue", not "add-blue"' });
  });

  it('refuses an element that is hidden, disabled or named otherwise', () => {
    const cases: [Partial<ElementFingerprint>, RegExp][] = [
      [{ box: { x: 0, y: 0, width: 0, height: 0 } }, /not visible/],
      [{ disabled: true }, /disabled/],
      [{ name: 'Remove from cart', text: 'Remove from cart' }, /./],
    ];
    for (const [overrides, reason] of cases) {
      const found = relocate(action, stateWith({ 4: 'Blue mug' }), [{ index: 4, fingerprint: button(overrides) }], false);
      expect(found.found, JSON.stringify(overrides)).toBe(false);
      if (!found.found) expect(found.reason).toMatch(reason);
    }
  });

  it('without a record, takes the element only where the text above it still says the same (prices aside)', () => {
    const plain = button({ record: undefined, ancestors: [{ tagName: 'body' }], attributes: { type: 'submit' }, cssPath: 'button' });
    const plainAction: CachedAction = { ...action, elements: { index: plain }, context: { index: 'blue mug' } };
    const candidates: MatchCandidate[] = [{ index: 1, fingerprint: plain }];
    expect(relocate(plainAction, stateWith({ 1: 'Blue mug — $9' }), candidates, false)).toEqual({ found: true, indexes: { index: 1 } });
    expect(relocate(plainAction, stateWith({ 1: 'Red mug' }), candidates, false)).toEqual({
      found: false,
      reason: 'index: the text above element 1 changed from "blue mug" to "red mug"',
    });
  });

  it('gives two parameters two elements, or nothing', () => {
    const both: CachedAction = { name: 'drag_and_drop', params: {}, elements: { index: recorded, targetIndex: recorded }, context: {} };
    const found = relocate(both, stateWith({ 1: 'Blue mug' }), [{ index: 1, fingerprint: button() }], false);
    expect(found).toEqual({ found: false, reason: 'targetIndex: the same element as another parameter' });
  });
});
