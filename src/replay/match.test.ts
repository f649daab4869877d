import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors';
import type { ElementFingerprint, FingerprintAncestor } from '../history/types';
import { matchElement, type ElementMatch, type MatchCandidate } from './match';

/** A fingerprint with plain defaults; tests change what they are about. */
function print(overrides: Partial<ElementFingerprint>): ElementFingerprint {
  return {
    tagName: 'button',
    role: 'button',
    name: '',
    text: '',
    attributes: {},
    xpath: '/html/body/button',
    cssPath: 'button',
    ancestors: [{ tagName: 'body' }, { tagName: 'html', role: 'document' }],
    box: { x: 0, y: 0, width: 100, height: 30 },
    frameUrl: 'https://shop.example/',
    ...overrides,
  };
}

interface Card {
  readonly product: string;
  /** Its id, when the page gives the button one. */
  readonly id?: string;
  readonly name?: string;
}

/**
 * The "Add to cart" button of each product card of a shop page, as the page runtime fingerprints
 * it: `<main><ul id="products" aria-label="Products"><li><article><h3>product</h3>…<div><button>`.
 * `offset` moves the whole list down (a banner above it), `prefix` changes the path above `main`.
 */
function shop(cards: readonly Card[], { offset = 0, prefix = '/html/body' } = {}): MatchCandidate[] {
  return cards.map((card, position) => {
    const name = card.name ?? 'Add to cart';
    const ancestors: FingerprintAncestor[] = [
      { tagName: 'div', name },
      { tagName: 'article', role: 'article', name: card.product },
      { tagName: 'li', role: 'listitem', name: card.product },
      { tagName: 'ul', role: 'list', name: 'Products', id: 'products' },
      { tagName: 'main', role: 'main', name: cards[0]?.product ?? '' },
    ];
    return {
      index: 10 + position,
      fingerprint: print({
        name,
        text: name,
        attributes: { type: 'button', ...(card.id ? { id: card.id } : {}) },
        xpath: `${prefix}/main/ul/li[${position + 1}]/article/div/button`,
        cssPath: card.id ? `#${card.id}` : `#products > li:nth-of-type(${position + 1}) > article > div > button`,
        ancestors,
        box: { x: 40, y: 200 + offset + position * 300, width: 120, height: 36 },
      }),
    };
  });
}

/** The page-wide controls around the cards: a search button and a checkout link. */
function chrome(): MatchCandidate[] {
  return [
    {
      index: 1,
      fingerprint: print({
        name: 'Search',
        text: 'Search',
        attributes: { type: 'submit' },
        xpath: '/html/body/header/form/button',
        cssPath: 'header > form > button',
        ancestors: [{ tagName: 'form', role: 'search', name: 'Site search' }, { tagName: 'header', role: 'banner', name: 'Shop' }, { tagName: 'body' }],
        box: { x: 600, y: 20, width: 80, height: 30 },
      }),
    },
    {
      index: 2,
      fingerprint: print({
        tagName: 'a',
        role: 'link',
        name: 'Cart (0)',
        text: 'Cart (0)',
        attributes: { href: '/cart' },
        xpath: '/html/body/header/a',
        cssPath: 'header > a',
        ancestors: [{ tagName: 'header', role: 'banner', name: 'Shop' }, { tagName: 'body' }, { tagName: 'html', role: 'document' }],
        box: { x: 700, y: 20, width: 60, height: 30 },
      }),
    },
  ];
}

const products: Card[] = [{ product: 'Blue mug' }, { product: 'Red cup' }, { product: 'Green bowl' }];

function recordedOf(cards: readonly Card[], position: number): ElementFingerprint {
  const candidate = shop(cards)[position];
  if (!candidate) throw new Error(`no card at ${position}`);
  return candidate.fingerprint;
}

function expectHealed(match: ElementMatch): Extract<ElementMatch, { kind: 'healed' }> {
  expect(match.kind, JSON.stringify(match)).toBe('healed');
  return match as Extract<ElementMatch, { kind: 'healed' }>;
}

function expectNone(match: ElementMatch): Extract<ElementMatch, { kind: 'none' }> {
  expect(match.kind, JSON.stringify(match)).toBe('none');
  return match as Extract<ElementMatch, { kind: 'none' }>;
}

describe('matchElement: exact', () => {
  it('takes the one element that carries the recorded test id, though it moved and its words changed a little', () => {
    const recorded = print({
      name: 'Apply filters',
      text: 'Apply filters',
      attributes: { 'data-testid': 'apply', type: 'submit' },
      xpath: '/html/body/form/button',
    });
    const candidates: MatchCandidate[] = [
      { index: 1, fingerprint: print({ name: 'Apply filters', text: 'Apply filters', xpath: '/html/body/form/button' }) },
      {
        index: 2,
        fingerprint: print({
          name: 'Apply filter',
          text: 'Apply filter',
          attributes: { 'data-testid': 'apply', type: 'submit' },
          xpath: '/html/body/div/form/button[2]',
          box: { x: 0, y: 400, width: 100, height: 30 },
        }),
      },
    ];
    expect(matchElement(recorded, candidates)).toEqual({ kind: 'exact', index: 2 });
  });

  it('takes a written id, a field by name and tag, a link by its target', () => {
    const field = print({ tagName: 'input', role: 'textbox', name: 'E-mail', attributes: { name: 'email', type: 'email' } });
    const link = print({ tagName: 'a', role: 'link', name: 'Terms', text: 'Terms', attributes: { href: '/terms' } });
    const button = print({ name: 'Checkout', text: 'Checkout', attributes: { id: 'checkout' } });
    const page: MatchCandidate[] = [
      { index: 1, fingerprint: { ...button, xpath: '/html/body/div/button' } },
      { index: 2, fingerprint: { ...field, xpath: '/html/body/form/input[2]' } },
      { index: 3, fingerprint: print({ tagName: 'select', role: 'combobox', name: 'E-mail', attributes: { name: 'email' } }) },
      { index: 4, fingerprint: { ...link, xpath: '/html/body/footer/a' } },
      { index: 5, fingerprint: print({ tagName: 'a', role: 'link', name: 'Privacy', text: 'Privacy', attributes: { href: '/privacy' } }) },
    ];
    expect(matchElement(button, page)).toEqual({ kind: 'exact', index: 1 });
    expect(matchElement(field, page)).toEqual({ kind: 'exact', index: 2 });
    expect(matchElement(link, page)).toEqual({ kind: 'exact', index: 4 });
  });

  it('does not take an id that looks generated, even when one element carries it', () => {
    const recorded = print({ name: 'Save', text: 'Save', attributes: { id: ':r4:' }, xpath: '/html/body/div/button' });
    const candidates: MatchCandidate[] = [
      { index: 1, fingerprint: print({ name: 'Save', text: 'Save', attributes: { id: ':r9:' }, xpath: '/html/body/div/button' }) },
      { index: 2, fingerprint: print({ name: 'Delete', text: 'Delete', attributes: { id: ':r4:' }, xpath: '/html/body/div/button[2]' }) },
    ];
    const match = expectHealed(matchElement(recorded, candidates));
    expect(match.index).toBe(1);
    // A generated id changes on every load: it is no difference worth reporting.
    expect(match.differences).toEqual([]);
  });

  it('does not take a positional id that the list now gives another product; the link target finds the right one', () => {
    const link = (index: number, id: string, product: string, position: number): MatchCandidate => ({
      index,
      fingerprint: print({
        tagName: 'a',
        role: 'link',
        name: product,
        text: product,
        attributes: { id, href: `/p/${product.toLowerCase().replace(' ', '-')}` },
        xpath: `/html/body/ul/li[${position}]/a`,
        ancestors: [
          { tagName: 'li', role: 'listitem', name: product },
          { tagName: 'ul', role: 'list', name: 'Products' },
        ],
      }),
    });
    const recorded = link(0, 'product-2', 'Blue mug', 2).fingerprint;
    const reordered = [link(1, 'product-1', 'Blue mug', 1), link(2, 'product-2', 'Red cup', 2)];
    expect(matchElement(recorded, reordered)).toEqual({ kind: 'exact', index: 1 });
  });

  it('does not take a positional id reused on an identical button of another product card; the card decides', () => {
    const recorded = recordedOf(
      products.map((card, position) => ({ ...card, id: `add-${position + 1}` })),
      0,
    );
    // The shop now lists Red cup first: `add-1` is on Red cup's button, Blue mug's is `add-2`.
    const now = shop([
      { product: 'Red cup', id: 'add-1' },
      { product: 'Blue mug', id: 'add-2' },
      { product: 'Green bowl', id: 'add-3' },
    ]);
    const match = expectHealed(matchElement(recorded, [...chrome(), ...now]));
    expect(match.index).toBe(11);
    expect(match.differences).toContain('id changed from add-1 to add-2');
  });
});

describe('matchElement: healed', () => {
  it('finds an element whose id was renamed, and says so', () => {
    const recorded = recordedOf(
      products.map((card, position) => ({ ...card, id: `add-${position + 1}` })),
      2,
    );
    const now = shop(products.map((card, position) => ({ ...card, id: `buy-${position + 1}` })));
    const match = expectHealed(matchElement(recorded, [...chrome(), ...now]));
    expect(match.index).toBe(12);
    expect(match.differences).toContain('id changed from add-3 to buy-3');
    expect(match.score).toBeGreaterThan(0.8);
  });

  it('tells identical "Add to cart" buttons apart by their card when the list is reordered', () => {
    const recorded = recordedOf(products, 0);
    const now = shop([{ product: 'Red cup' }, { product: 'Green bowl' }, { product: 'Blue mug' }]);
    const match = expectHealed(matchElement(recorded, [...chrome(), ...now]));
    expect(match.index).toBe(12);
    expect(match.differences).toContain('moved 600px');
    expect(match.differences.some((difference) => difference.startsWith('context'))).toBe(false);
  });

  it('tells the cards apart by their names in the score too, when the buttons were reworded and reordered', () => {
    const recorded = recordedOf(products, 0);
    const now = shop([{ product: 'Red cup' }, { product: 'Blue mug' }, { product: 'Green bowl' }].map((card) => ({ ...card, name: 'Add to basket' })));
    const match = expectHealed(matchElement(recorded, [...chrome(), ...now]));
    expect(match.index).toBe(11);
    expect(match.differences[0]).toBe('name changed from "Add to cart" to "Add to basket"');
  });

  it('tells apart cards without headings by their text, the button’s own words left out', () => {
    // A card with no heading is named by its short text, which holds the button's words too; so
    // is the list around the cards, whose text names every card.
    type Shown = readonly [product: string, price: string];
    const page = (cards: readonly Shown[]): MatchCandidate[] => {
      const list = cards.map(([product, price]) => `${product} ${price} Add to cart`).join(' ');
      return cards.map(([product, price], position) => ({
        index: position + 1,
        fingerprint: print({
          name: 'Add to cart',
          text: 'Add to cart',
          xpath: `/html/body/div/div[${position + 1}]/button`,
          ancestors: [{ tagName: 'div', name: `${product} ${price} Add to cart` }, { tagName: 'div', name: list }, { tagName: 'body' }],
          box: { x: 0, y: position * 200, width: 100, height: 30 },
        }),
      }));
    };
    const recorded = page([
      ['Blue mug', '$9'],
      ['Red cup', '$7'],
    ])[0]!.fingerprint;
    const reordered = page([
      ['Red cup', '$7'],
      ['Blue mug', '$9'],
    ]);
    expect(expectHealed(matchElement(recorded, reordered)).index).toBe(2);
    // Without Blue mug's card, Red cup's is no stand-in, though both end in "Add to cart".
    const match = expectNone(
      matchElement(
        recorded,
        page([
          ['Red cup', '$7'],
          ['Green bowl', '$5'],
        ]),
      ),
    );
    expect(match.reason).toMatch(/^its context "Blue mug \$9 Add to cart" is not on the page/);
  });

  it('heals a slightly changed name, and a bigger change less', () => {
    const button = (name: string, xpath = '/html/body/form/button[1]'): ElementFingerprint =>
      print({
        name,
        text: name,
        attributes: { type: 'submit' },
        xpath,
        ancestors: [{ tagName: 'form', role: 'form', name: 'Filters' }, { tagName: 'body' }],
      });
    const page = (name: string): MatchCandidate[] => [
      { index: 1, fingerprint: button(name) },
      { index: 2, fingerprint: button('Reset', '/html/body/form/button[2]') },
    ];
    const small = expectHealed(matchElement(button('Apply filters'), page('Apply filter')));
    expect(small.index).toBe(1);
    expect(small.differences).toEqual(['name changed from "Apply filters" to "Apply filter"']);
    expect(small.score).toBeGreaterThan(0.9);
    const bigger = expectHealed(matchElement(button('Add to cart'), page('Add to basket')));
    expect(bigger.index).toBe(1);
    expect(bigger.score).toBeLessThan(small.score - 0.05);
    expectNone(matchElement(button('Add to cart'), page('Add to basket'), { threshold: bigger.score + 0.01 }));
  });

  it('finds the element after a new banner pushed everything down and shifted every path', () => {
    const recorded = recordedOf(products, 1);
    const banner: MatchCandidate = {
      index: 3,
      fingerprint: print({
        name: 'Accept cookies',
        text: 'Accept cookies',
        xpath: '/html/body/div[1]/button',
        ancestors: [{ tagName: 'div', role: 'dialog', name: 'We use cookies' }, { tagName: 'body' }],
        box: { x: 40, y: 0, width: 120, height: 36 },
      }),
    };
    const now = shop(products, { offset: 80, prefix: '/html/body/div[2]' });
    const match = expectHealed(matchElement(recorded, [banner, ...chrome(), ...now]));
    expect(match.index).toBe(11);
    expect(match.differences).toEqual([
      'path changed from /html/body/main/ul/li[2]/article/div/button to /html/body/div[2]/main/ul/li[2]/article/div/button',
      'moved 80px',
    ]);
    expect(match.score).toBeGreaterThan(0.9);
  });
});

describe('matchElement: none', () => {
  it('finds nothing for an element that is not on the page, and names the closest', () => {
    const recorded = print({
      name: 'Place order',
      text: 'Place order',
      attributes: { type: 'submit' },
      xpath: '/html/body/main/section/form/button',
      ancestors: [
        { tagName: 'form', name: 'Payment' },
        { tagName: 'section', role: 'region', name: 'Checkout' },
        { tagName: 'main', role: 'main' },
      ],
      box: { x: 300, y: 900, width: 160, height: 40 },
    });
    const match = expectNone(matchElement(recorded, [...chrome(), ...shop(products)]));
    expect(match.reason).toMatch(/^no element is similar enough: the closest, element \d+, scores 0\.\d+, below the threshold 0\.6$/);
    expect(match.best?.score).toBeLessThan(0.6);
  });

  it('does not put the recorded product’s "Add to cart" on another product when that card is gone', () => {
    const recorded = recordedOf(products, 0);
    const now = shop([{ product: 'Red cup' }, { product: 'Green bowl' }]);
    const match = expectNone(matchElement(recorded, [...chrome(), ...now]));
    expect(match.reason).toBe('its context "Blue mug" is not on the page: 2 elements look like it, none inside it');
    expect(match.best?.differences).toContain('context changed from "Blue mug" to "Red cup"');
  });

  it('is ambiguous when the two best are as close as can be and nothing tells them apart', () => {
    const subscribe = (index: number, xpath: string, y: number): MatchCandidate => ({
      index,
      fingerprint: print({ name: 'Subscribe', text: 'Subscribe', xpath, box: { x: 0, y, width: 100, height: 30 } }),
    });
    const recorded = subscribe(0, '/html/body/div/button', 500).fingerprint;
    const match = expectNone(matchElement(recorded, [subscribe(1, '/html/body/div[1]/button', 300), subscribe(2, '/html/body/div[2]/button', 700)]));
    expect(match.reason).toMatch(/^ambiguous: elements [12] and [12] score/);
    expect(match.best).toBeDefined();
  });

  it('is not ambiguous when position alone makes one clearly closer', () => {
    const subscribe = (index: number, xpath: string, y: number): MatchCandidate => ({
      index,
      fingerprint: print({ name: 'Subscribe', text: 'Subscribe', xpath, box: { x: 0, y, width: 100, height: 30 } }),
    });
    const recorded = subscribe(0, '/html/body/div[1]/button', 300).fingerprint;
    const match = expectHealed(matchElement(recorded, [subscribe(1, '/html/body/div[1]/button', 300), subscribe(2, '/html/body/div[2]/button', 2000)]));
    expect(match.index).toBe(1);
  });

  it('finds nothing on a page with no elements', () => {
    expect(matchElement(print({ name: 'Save' }), [])).toEqual({ kind: 'none', reason: 'the page has no elements to match' });
  });
});

describe('matchElement: options', () => {
  it('rejects a threshold or margin outside 0 to 1 with a ConfigError naming the option', () => {
    for (const options of [{ threshold: 2 }, { threshold: -0.1 }, { threshold: Number.NaN }, { margin: 1.5 }]) {
      const error = (() => {
        try {
          matchElement(print({}), [], options);
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(ConfigError.isInstance(error), JSON.stringify(options)).toBe(true);
      expect((error as ConfigError).field).toBe(Object.keys(options)[0]);
      expect((error as ConfigError).message).toMatch(/must be a number from 0 to 1/);
    }
  });

  it('holds a healed match to the threshold it is given', () => {
    const recorded = recordedOf(products, 1);
    const now = shop(products, { offset: 80, prefix: '/html/body/div[2]' });
    const healed = expectHealed(matchElement(recorded, now));
    expect(matchElement(recorded, now, { threshold: healed.score - 0.001 })).toMatchObject({ kind: 'healed', index: healed.index });
    expectNone(matchElement(recorded, now, { threshold: Math.min(1, healed.score + 0.002) }));
  });
});

describe('matchElement never crosses the identity of a record', () => {
  /** The "Add to cart" button of a card named `product`, in a form that names nothing, as the page runtime now reads it. */
  const cardButton = (product: string, position: number, extra: Partial<ElementFingerprint> = {}): ElementFingerprint =>
    print({
      name: 'Add to cart',
      text: 'Add to cart',
      attributes: { type: 'submit' },
      xpath: `/html/body/main/ul/li[${position + 1}]/form/button`,
      cssPath: `main > ul > li:nth-of-type(${position + 1}) > form > button`,
      ancestors: [
        { tagName: 'form', name: 'Qty 1 Add to cart' },
        { tagName: 'li', role: 'listitem', name: product },
        { tagName: 'ul', role: 'list', name: 'Blue teapot Blue tray' },
        { tagName: 'main', role: 'main', name: 'Teas and pots' },
      ],
      box: { x: 40, y: 200 + position * 120, width: 100, height: 30 },
      record: { name: product, from: 'heading', scope: 'item' },
      ...extra,
    });

  it('refuses the button of another card when the recorded card is gone, with the score and the name of the closest', () => {
    const recorded = cardButton('Blue teapot', 0);
    const found = matchElement(recorded, [
      { index: 4, fingerprint: cardButton('Blue tray', 0) },
      { index: 6, fingerprint: cardButton('Red mug', 1) },
    ]);
    expect(found.kind).toBe('none');
    if (found.kind !== 'none') return;
    expect(found.reason).toMatch(/Blue teapot/);
    expect(found.reason).toMatch(/Blue tray/);
    expect(found.best?.score).toEqual(expect.any(Number));
    expect(found.best?.differences).toContain('record changed from "Blue teapot" to "Blue tray"');
  });

  it('fails with one candidate left of another record', () => {
    const found = matchElement(cardButton('Blue teapot', 0), [{ index: 4, fingerprint: cardButton('Blue tray', 0) }]);
    expect(found.kind).toBe('none');
  });

  it('finds its own card among others moved around, and says nothing of a record it did not cross', () => {
    const found = matchElement(cardButton('Blue teapot', 0), [
      { index: 4, fingerprint: cardButton('Blue tray', 0) },
      { index: 6, fingerprint: cardButton('Blue teapot', 1) },
    ]);
    expect(found).toMatchObject({ index: 6 });
    expect(found.kind === 'healed' ? found.differences.join('; ') : '').not.toMatch(/record|context/);
  });

  it('takes no exact match by id of another record', () => {
    const recorded = cardButton('Blue teapot', 0, { attributes: { type: 'submit', id: 'add' } });
    const found = matchElement(recorded, [{ index: 4, fingerprint: cardButton('Blue tray', 0, { attributes: { type: 'submit', id: 'add' } }) }]);
    expect(found.kind).toBe('none');
  });

  it('checks the page an element sat in only when the page moved', () => {
    const onPage = (product: string): ElementFingerprint =>
      print({
        name: 'Add to cart',
        text: 'Add to cart',
        attributes: { type: 'submit', id: 'add' },
        ancestors: [
          { tagName: 'form', name: 'Add to cart' },
          { tagName: 'main', role: 'main', name: product },
        ],
        record: { name: product, from: 'heading', scope: 'page' },
      });
    const candidates = [{ index: 3, fingerprint: onPage('Blue tray') }];
    expect(matchElement(onPage('Blue teapot'), candidates).kind).toBe('exact');
    expect(matchElement(onPage('Blue teapot'), candidates, { pageMoved: true }).kind).toBe('none');
    expect(matchElement(onPage('Blue teapot'), [{ index: 3, fingerprint: onPage('BLUE  teapot') }], { pageMoved: true }).kind).toBe('exact');
  });
});

describe('matchElement finds a relabelled field or link by what it does', () => {
  it('takes the one link with the recorded target, its label translated, and the one field with the recorded name', () => {
    const link = (name: string): ElementFingerprint =>
      print({ tagName: 'a', role: 'link', name, text: name, attributes: { href: '/checkout' }, xpath: '/html/body/header/a[2]' });
    expect(matchElement(link('Checkout'), [{ index: 2, fingerprint: link('Zur Kasse') }]).kind).toBe('exact');
    const field = (name: string, type = 'email'): ElementFingerprint =>
      print({ tagName: 'input', role: 'textbox', name, text: '', attributes: { name: 'email', type }, xpath: '/html/body/form/input[2]' });
    expect(matchElement(field('Email'), [{ index: 3, fingerprint: field('Courriel') }]).kind).toBe('exact');
    // Another kind of field under that name is not taken by it.
    expect(matchElement(field('Email'), [{ index: 3, fingerprint: field('Courriel', 'checkbox') }]).kind).not.toBe('exact');
  });
});
