// Runs in headless Chromium (the vitest `browser` project): the fingerprints replay finds elements by,
// read from real markup: role, name, text, attributes, paths, ancestors and box.
import { afterEach, describe, expect, it } from 'vitest';
import { fingerprintOf, fingerprints, looksGeneratedId } from './fingerprint';
import { elementIdOf } from './registry';

function place(html: string): void {
  document.body.innerHTML = html;
}

function one(selector: string): Element {
  const element = document.querySelector(selector);
  if (!element) throw new Error(`no element for ${selector}`);
  return element;
}

afterEach(() => {
  document.body.innerHTML = '';
  window.scrollTo(0, 0);
});

describe('fingerprints', () => {
  it('fingerprints each element of the last snapshot by id, and answers null for one that is gone', () => {
    place('<button id="save">Save</button><button id="drop">Drop</button>');
    const save = { elementId: elementIdOf(one('#save')), selector: null };
    const drop = { elementId: elementIdOf(one('#drop')), selector: '#drop' };
    one('#drop').remove();
    const [first, second, third] = fingerprints({ elements: [save, drop, { elementId: 'another-document-1', selector: null }] });
    expect(first?.name).toBe('Save');
    expect(second).toBeNull();
    expect(third).toBeNull();
  });

  it('reads tag, role, name, text and the identifying attributes, values capped', () => {
    place(
      `<a id="home" href="/shop?page=2" title="Go" data-testid="nav-home" class="x">Home <span>page</span></a>
       <input id="email" name="email" placeholder="you@example.com" aria-label="E-mail" value="secret@example.com">
       <button data-cy="buy" value="sku-1">Buy  now</button>
       <div id="long" role="button tab">${'word '.repeat(100)}</div>`,
    );
    const link = fingerprintOf(one('#home'));
    expect(link).toMatchObject({ tagName: 'a', role: 'link', name: 'Home page', text: 'Home page' });
    expect(link.attributes).toEqual({ id: 'home', href: '/shop?page=2', title: 'Go', 'data-testid': 'nav-home' });
    const field = fingerprintOf(one('#email'));
    expect(field.role).toBe('textbox');
    // A field's value is never part of its fingerprint (it is what the user typed); its type is, even unwritten.
    expect(field.attributes).toEqual({ id: 'email', name: 'email', placeholder: 'you@example.com', 'aria-label': 'E-mail', type: 'text' });
    const button = fingerprintOf(one('button'));
    expect(button.attributes).toEqual({ value: 'sku-1', type: 'submit', 'data-cy': 'buy' });
    expect(button.text).toBe('Buy now');
    const long = fingerprintOf(one('#long'));
    expect(long.role).toBe('button');
    expect(long.text.length).toBeLessThanOrEqual(201);
    expect(long.text.endsWith('…')).toBe(true);
    expect(long.name.length).toBeLessThanOrEqual(201);
  });

  it('leaves hidden and script text out of the text', () => {
    place('<button id="b">Pay<span style="display:none"> secretly</span><script>var x = 1;</script><span> <b>now</b></span></button>');
    expect(fingerprintOf(one('#b')).text).toBe('Pay now');
  });

  it('writes an absolute XPath with an index only where siblings share the tag', () => {
    place('<div><p>a</p></div><div><span>x</span><button>one</button><button id="target">two</button></div>');
    expect(fingerprintOf(one('#target')).xpath).toBe('/html/body/div[2]/button[2]');
    expect(fingerprintOf(one('span')).xpath).toBe('/html/body/div[2]/span');
  });

  it('writes a CSS path that finds only the element: a written id, a test id, a name, else a chain from the nearest anchor', () => {
    place(
      `<button id="checkout">Checkout</button>
       <button id=":r7:">Generated</button>
       <button data-testid="pay">Pay</button>
       <form><input name="q"></form>
       <ul id="products"><li><button>Add</button></li><li><button class="target">Add</button></li></ul>
       <section><div><a>x</a></div><div><a class="deep">y</a></div></section>`,
    );
    expect(fingerprintOf(one('#checkout')).cssPath).toBe('#checkout');
    expect(fingerprintOf(one('[data-testid="pay"]')).cssPath).toBe('[data-testid="pay"]');
    expect(fingerprintOf(one('input')).cssPath).toBe('input[name="q"]');
    const add = fingerprintOf(one('.target'));
    expect(add.cssPath).toBe('#products > li:nth-of-type(2) > button');
    const generated = fingerprintOf(document.getElementById(':r7:')!).cssPath;
    expect(generated).not.toContain('r7');
    for (const element of [one('.target'), one('.deep'), document.getElementById(':r7:')!]) {
      const found = document.querySelectorAll(fingerprintOf(element).cssPath);
      expect(found).toHaveLength(1);
      expect(found[0]).toBe(element);
    }
  });

  it('names ancestors by their accessible name, else their first heading, else their short text, nearest first', () => {
    place(
      `<main id="shop"><ul aria-label="Products">
         <li><article><h3>Blue mug</h3><p>$9</p><div class="actions"><button id="b1">Add to cart</button></div></article></li>
         <li><article><h3>Red cup</h3><p>$7</p><div class="actions"><button id="b2">Add to cart</button></div></article></li>
       </ul></main>`,
    );
    const first = fingerprintOf(one('#b1'));
    const second = fingerprintOf(one('#b2'));
    expect(first.ancestors.map((ancestor) => ancestor.tagName)).toEqual(['div', 'article', 'li', 'ul', 'main']);
    expect(first.ancestors[0]).toEqual({ tagName: 'div', name: 'Add to cart' });
    expect(first.ancestors[1]).toEqual({ tagName: 'article', role: 'article', name: 'Blue mug' });
    expect(second.ancestors[1]?.name).toBe('Red cup');
    expect(first.ancestors[3]).toEqual({ tagName: 'ul', role: 'list', name: 'Products' });
    expect(first.ancestors[4]).toMatchObject({ tagName: 'main', role: 'main', id: 'shop' });
    expect(first.ancestors).toHaveLength(5);
  });

  it('crosses a shadow root to the host for ancestors and marks it in the XPath', () => {
    place('<x-card id="host"></x-card>');
    const root = one('#host').attachShadow({ mode: 'open' });
    root.innerHTML = '<div><button id="inner">Go</button></div>';
    const print = fingerprintOf(root.getElementById('inner')!);
    expect(print.xpath).toBe('/html/body/x-card/#shadow-root/div/button');
    expect(print.ancestors.map((ancestor) => ancestor.tagName)).toEqual(['div', 'x-card', 'body', 'html']);
    expect(print.cssPath).toBe('#inner');
  });

  it('gives the box in document coordinates (scroll included), and none for an element that is not rendered', () => {
    place(
      '<div style="height: 3000px"></div><button id="low" style="position: absolute; left: 40px; top: 2500px; width: 100px; height: 30px">Low</button><button id="gone" style="display:none">x</button>',
    );
    window.scrollTo(0, 2000);
    expect(fingerprintOf(one('#low')).box).toEqual({ x: 40, y: 2500, width: 100, height: 30 });
    expect(fingerprintOf(one('#gone')).box).toBeUndefined();
  });

  it('answers in JSON that survives the trip to Node: no undefined left behind where a key matters', () => {
    place('<div id="plain">x</div>');
    const print = fingerprintOf(one('#plain'));
    expect(print.role).toBeUndefined();
    expect(JSON.parse(JSON.stringify(print))).toMatchObject({ tagName: 'div', name: '', text: 'x' });
  });
});

describe('looksGeneratedId', () => {
  it.each([':r1:', 'ember123', 'mui-12345', '3f2a', 'a1b2c3d4-e5f6-4711-8899-aabbccddeeff', 'css-1x2y3z', 'radix-7', 'item-20240611', ''])(
    'takes %j for generated',
    (id) => {
      expect(looksGeneratedId(id)).toBe(true);
    },
  );
  it.each(['checkout', 'add-3', 'search-input', 'main_nav', 'h2', 'step10', 'product-list'])('takes %j for written by a person', (id) => {
    expect(looksGeneratedId(id)).toBe(false);
  });
});
