import { describe, expect, it } from 'vitest';
import type { ReadFingerprint } from '../dom/fingerprint';
import { hashText, structureOf, textAbove, urlSignature, wordsOf } from './page-signature';

function print(xpath: string, overrides: Partial<ReadFingerprint> = {}): ReadFingerprint {
  return {
    tagName: 'button',
    role: 'button',
    name: 'Add to cart',
    text: 'Add to cart',
    attributes: { type: 'submit' },
    xpath,
    cssPath: 'button',
    ancestors: [],
    box: { x: 0, y: 0, width: 10, height: 10 },
    frameUrl: 'https://shop.example/mugs?page=1',
    ...overrides,
  };
}

describe('urlSignature', () => {
  it('keeps origin, path and the query’s parameter names, sorted, without values or fragment', () => {
    expect(urlSignature('https://shop.example/search?q=mug&page=2&q=cup#top')).toBe('https://shop.example/search?page&q');
    expect(urlSignature('https://shop.example/cart')).toBe('https://shop.example/cart');
    expect(urlSignature('https://shop.example/product/42?ref=mail')).toBe('https://shop.example/product/42?ref');
  });

  it('cuts query and fragment off other addresses', () => {
    expect(urlSignature('about:blank#x')).toBe('about:blank');
    expect(urlSignature('data:text/html,<p>hi?x')).toBe('data:text/html,<p>hi');
    expect(urlSignature('not a url?token=1')).toBe('not a url');
  });
});

describe('structureOf', () => {
  const base = [
    print('/html/body/main/section[1]/form/button'),
    print('/html/body/main/section[2]/form/button'),
    print('/html/body/nav/a', { tagName: 'a', role: 'link', attributes: {} }),
  ];

  it('does not change with text, prices, boxes, query values or the length of a list', () => {
    const other = [
      print('/html/body/main/section[1]/form/button', { name: 'Buy now', text: 'Buy now $9', box: { x: 5, y: 500, width: 1, height: 1 } }),
      print('/html/body/main/section[2]/form/button'),
      print('/html/body/main/section[3]/form/button', { frameUrl: 'https://shop.example/mugs?page=7' }),
      print('/html/body/nav/a', { tagName: 'a', role: 'link', attributes: {} }),
      undefined,
    ];
    expect(structureOf(other)).toBe(structureOf(base));
  });

  it('changes with a new kind of control, a control elsewhere, another input type or another frame', () => {
    const changed = [
      [...base, print('/html/body/header/button', { attributes: { type: 'button' } })],
      [print('/html/body/div/main/section[1]/form/button'), ...base.slice(1)],
      [print('/html/body/main/section[1]/form/button', { attributes: { type: 'button' } }), ...base.slice(1)],
      [...base.slice(0, 2), print('/html/body/nav/a', { tagName: 'a', role: 'link', attributes: {}, frameUrl: 'https://ads.example/' })],
    ];
    for (const prints of changed) expect(structureOf(prints)).not.toBe(structureOf(base));
  });
});

describe('textAbove', () => {
  const text = [
    'Mug shop',
    '[1]<a href="/cart">Cart />',
    'Blue mug',
    '$4',
    '[2]<button type="submit">Add to cart />',
    'Red mug',
    '\t£6.50',
    '*[3]<button>Add to cart',
    '\twith free shipping />',
    '[4]<button>Save for later />',
    '--- iframe https://pay.example/ ---',
    '[5]<button>Pay />',
    '--- end of iframe ---',
  ].join('\n');

  it('is the nearest line of page text with words, numbers and prices left out, passing over elements and their text', () => {
    expect(textAbove(text, 2)).toBe('blue mug');
    expect(textAbove(text, 3)).toBe('red mug');
    expect(textAbove(text, 4)).toBe('red mug');
    expect(textAbove(text, 1)).toBe('mug shop');
  });

  it('stops at an iframe boundary, and is empty for an element with no text above or not in the text', () => {
    expect(textAbove(text, 5)).toBe('');
    expect(textAbove('[1]<button>Go />', 1)).toBe('');
    expect(textAbove(text, 9)).toBe('');
  });

  it('wordsOf keeps letters only, lower case', () => {
    expect(wordsOf('  Blue Mug — $4.99 (2 left)!')).toBe('blue mug left');
    expect(wordsOf('Café Übersee')).toBe('café übersee');
  });
});

describe('hashText', () => {
  it('is a SHA-256 in hex: the same for the same text, another for another', async () => {
    expect(await hashText('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(await hashText('abd')).not.toBe(await hashText('abc'));
  });
});
