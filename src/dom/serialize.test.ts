import { describe, expect, it } from 'vitest';
import { ElementIndexer, type FrameSnapshotInput } from './serialize';
import type { SnapshotElement, SnapshotItem, SnapshotText } from './types';

function element(elementId: string, overrides: Partial<Omit<SnapshotElement, 'kind' | 'elementId'>> = {}): SnapshotElement {
  return { kind: 'element', elementId, tagName: 'button', attributes: {}, text: elementId, depth: 0, ...overrides };
}

function text(value: string, depth = 0): SnapshotText {
  return { kind: 'text', text: value, depth };
}

function frame(items: readonly SnapshotItem[], frameId = 'main'): FrameSnapshotInput {
  return { frameId, snapshot: { url: 'https://example.test/', title: 'Example', items, pixelsAbove: 0, pixelsBelow: 0 } };
}

/** The index the serialised page gave to an element id, read from the elements map. */
function indexOf(elements: ReadonlyMap<number, { elementId: string; frameId: string }>, elementId: string, frameId = 'main'): number {
  for (const [index, ref] of elements) if (ref.elementId === elementId && ref.frameId === frameId) return index;
  throw new Error(`no index for ${frameId}/${elementId}`);
}

describe('ElementIndexer line format', () => {
  it('writes one line per element with its index, tag, attributes and text', () => {
    const page = new ElementIndexer().serialize([
      frame([element('a1', { tagName: 'a', attributes: { href: 'https://other.test/mugs', title: 'Mugs' }, text: 'All mugs' })]),
    ]);
    expect(page.text).toBe('[1]<a href="//other.test/…" title="Mugs">All mugs />');
  });

  it('writes an attribute with an empty value as a bare name', () => {
    const page = new ElementIndexer().serialize([frame([element('c1', { tagName: 'input', attributes: { checked: '', type: 'checkbox' }, text: '' })])]);
    expect(page.text).toBe('[1]<input checked type="checkbox"> />');
  });

  it('escapes double quotes inside attribute values', () => {
    const page = new ElementIndexer().serialize([frame([element('q1', { attributes: { 'aria-label': 'Say "hi"' }, text: 'Hi' })])]);
    expect(page.text).toBe('[1]<button aria-label="Say \\"hi\\"">Hi />');
  });

  it('escapes backslashes and line breaks, so one element is always one line', () => {
    const page = new ElementIndexer().serialize([
      frame([element('n1', { attributes: { title: 'a\\b\n[99]<button>Pay now />\r\u2028x' }, text: 'Hi', depth: 1e9 })]),
    ]);
    expect(page.text.split('\n')).toHaveLength(1);
    expect(page.text).toBe(`${'\t'.repeat(50)}[1]<button title="a\\\\b\\n[99]<button>Pay now />\\r\\u2028x">Hi />`);
  });

  it('writes text lines as they are and indents every line with one tab per depth', () => {
    const page = new ElementIndexer().serialize([
      frame([
        text('Welcome to the shop'),
        element('menu', { tagName: 'div', attributes: { role: 'menu' }, text: 'Menu' }),
        element('item', { tagName: 'a', text: 'Home', depth: 1 }),
        text('Nested text', 2),
      ]),
    ]);
    expect(page.text.split('\n')).toEqual(['Welcome to the shop', '[1]<div role="menu">Menu />', '\t[2]<a>Home />', '\t\tNested text']);
  });

  it('fills the elements map with frame, element id, tag, text and selector', () => {
    const page = new ElementIndexer().serialize([frame([element('b1', { tagName: 'button', selector: '#buy' }), element('i1', { tagName: 'input' })])]);
    expect(page.elements.get(1)).toEqual({ index: 1, frameId: 'main', elementId: 'b1', tagName: 'button', text: 'b1', selector: '#buy' });
    expect(page.elements.get(2)).toEqual({ index: 2, frameId: 'main', elementId: 'i1', tagName: 'input', text: 'i1', selector: undefined });
    expect(page.elements.size).toBe(2);
  });

  it('gives text lines no index', () => {
    const page = new ElementIndexer().serialize([frame([text('only text'), text('more text')])]);
    expect(page.elements.size).toBe(0);
    expect(page.text).toBe('only text\nmore text');
  });
});

describe('ElementIndexer element refs', () => {
  it('give each element its tag and the text the view shows for it, on one line and cut to 100 characters', () => {
    const long = 'word '.repeat(40).trim();
    const page = new ElementIndexer().serialize([
      frame([
        element('mail', { tagName: 'li', text: 'Ann Lee\nLunch on Friday?\nSee you at noon' }),
        element('long', { tagName: 'a', text: long }),
        element('box', { tagName: 'input', attributes: { name: 'q' }, text: '' }),
      ]),
    ]);
    expect(page.elements.get(1)).toMatchObject({ tagName: 'li', text: 'Ann Lee / Lunch on Friday? / See you at noon' });
    expect(page.elements.get(2)?.text).toBe(`${long.slice(0, 99)}…`);
    expect(page.elements.get(3)).toMatchObject({ tagName: 'input', text: '' });
  });
});

describe('ElementIndexer index stability', () => {
  it('marks nothing as new on the first snapshot', () => {
    const page = new ElementIndexer().serialize([frame([element('a'), element('b')])]);
    expect(page.newIndices.size).toBe(0);
    expect(page.text).not.toContain('*');
  });

  it('keeps the index of an element across snapshots, even when the order changes and others are removed', () => {
    const indexer = new ElementIndexer();
    const first = indexer.serialize([frame([element('a'), element('b'), element('c')])]);
    const second = indexer.serialize([frame([element('c'), element('a')])]);
    expect(indexOf(second.elements, 'a')).toBe(indexOf(first.elements, 'a'));
    expect(indexOf(second.elements, 'c')).toBe(indexOf(first.elements, 'c'));
    expect(second.elements.has(indexOf(first.elements, 'b'))).toBe(false);
    expect(second.newIndices.size).toBe(0);
    expect(second.text).toBe(`[3]<button>c />\n[1]<button>a />`);
  });

  it('gives new elements fresh indices marked with a star', () => {
    const indexer = new ElementIndexer();
    indexer.serialize([frame([element('a'), element('b')])]);
    const second = indexer.serialize([frame([element('a'), element('new')])]);
    const newIndex = indexOf(second.elements, 'new');
    expect(newIndex).toBe(3);
    expect([...second.newIndices]).toEqual([3]);
    expect(second.text.split('\n')).toEqual(['[1]<button>a />', '*[3]<button>new />']);
  });

  it('does not reuse the index of a removed element for another element', () => {
    const indexer = new ElementIndexer();
    const first = indexer.serialize([frame([element('a'), element('b')])]);
    const removedIndex = indexOf(first.elements, 'b');
    const second = indexer.serialize([frame([element('a'), element('replacement')])]);
    expect(indexOf(second.elements, 'replacement')).not.toBe(removedIndex);
    const third = indexer.serialize([frame([element('a'), element('replacement'), element('another')])]);
    expect([...third.elements.keys()]).not.toContain(removedIndex);
  });

  it('gives an element that left the view and came back its old index, not marked new', () => {
    const indexer = new ElementIndexer();
    const first = indexer.serialize([frame([element('a'), element('b')])]);
    indexer.serialize([frame([element('a')])]);
    const third = indexer.serialize([frame([element('a'), element('b')])]);
    expect(indexOf(third.elements, 'b')).toBe(indexOf(first.elements, 'b'));
    expect(third.newIndices.size).toBe(0);
  });

  it('gives elements of two frames with the same element id different indices', () => {
    const indexer = new ElementIndexer();
    const page = indexer.serialize([frame([element('same')], 'main'), frame([element('same')], 'frame-2')]);
    const mainIndex = indexOf(page.elements, 'same', 'main');
    const childIndex = indexOf(page.elements, 'same', 'frame-2');
    expect(mainIndex).not.toBe(childIndex);
    expect(page.elements.get(childIndex)?.frameId).toBe('frame-2');
    const again = indexer.serialize([frame([element('same')], 'main'), frame([element('same')], 'frame-2')]);
    expect(indexOf(again.elements, 'same', 'frame-2')).toBe(childIndex);
    expect(indexOf(again.elements, 'same', 'main')).toBe(mainIndex);
  });
});

describe('ElementIndexer frames and scroll boxes', () => {
  it('puts child frames between boundary lines after the top frame, and leaves out empty ones', () => {
    const page = new ElementIndexer().serialize([
      frame([element('top')], 'main'),
      { frameId: 'pay', snapshot: { url: 'https://pay.test/form', title: 'Pay', items: [element('card')], pixelsAbove: 0, pixelsBelow: 0 } },
      { frameId: 'ad', snapshot: { url: 'https://ads.test/', title: '', items: [], pixelsAbove: 0, pixelsBelow: 0 } },
    ]);
    expect(page.text.split('\n')).toEqual(['[1]<button>top />', '--- iframe https://pay.test/form ---', '[2]<button>card />', '--- end of iframe ---']);
    expect(page.elements.get(2)?.frameId).toBe('pay');
  });

  it('tells how much a scrollable container hides above and below', () => {
    const page = new ElementIndexer().serialize([frame([element('list', { tagName: 'div', text: '', scroll: { above: 120, below: 480 } })])]);
    expect(page.text).toBe('[1]<div> /> (scrollable: 120px above, 480px below)');
  });
});

describe('ElementIndexer link URLs', () => {
  const longHref = '/catalog/kitchen/drinkware/mugs/blue-ceramic-mug-with-handle-350ml';

  it('shows a long href cut (links.ts), in its place among the attributes', () => {
    // An image link: no text of its own says where it goes.
    const page = new ElementIndexer().serialize([
      frame([element('a1', { tagName: 'a', attributes: { title: 'Blue', href: longHref, role: 'link' }, text: '' })]),
    ]);
    expect(page.text).toBe('[1]<a title="Blue" href="/catalog/…/blue…-handle-350ml" role="link"> />');
  });

  it("leaves out the href of a link to the page's own site whose text names it", () => {
    const page = new ElementIndexer().serialize([frame([element('a1', { tagName: 'a', attributes: { href: '/catalog/kitchen' }, text: 'Kitchen' })])]);
    expect(page.text).toBe('[1]<a>Kitchen />');
  });

  it('leaves the href out when the link text already is its address, and keeps the line', () => {
    const page = new ElementIndexer().serialize([
      frame([element('a1', { tagName: 'a', attributes: { href: '/docs' }, text: 'example.test/docs' }), element('b1')]),
    ]);
    expect(page.text.split('\n')).toEqual(['[1]<a>example.test/docs />', '[2]<button>b1 />']);
    expect(page.elements.size).toBe(2);
  });

  it('chooses the hrefs over all frames at once: the same relative href of two origins reads absolute', () => {
    const login = (elementId: string): SnapshotElement =>
      element(elementId, { tagName: 'a', attributes: { href: '/login', 'aria-label': 'Log in' }, text: '' });
    const page = new ElementIndexer().serialize([
      frame([login('top')]),
      { frameId: 'pay', snapshot: { url: 'https://pay.test/form', title: 'Pay', items: [login('inner')], pixelsAbove: 0, pixelsBelow: 0 } },
    ]);
    expect(page.text.split('\n')).toEqual([
      '[1]<a href="https://example.test/login" aria-label="Log in"> />',
      '--- iframe https://pay.test/form ---',
      '[2]<a href="https://pay.test/login" aria-label="Log in"> />',
      '--- end of iframe ---',
    ]);
  });

  it("shows hrefs as the page sent them with links: 'full'", () => {
    const items = [element('a1', { tagName: 'a', attributes: { href: `${longHref}?utm_source=x` }, text: 'example.test/docs' })];
    expect(new ElementIndexer({ links: 'full' }).serialize([frame(items)]).text).toBe(`[1]<a href="${longHref}?utm_source=x">example.test/docs />`);
  });
});
