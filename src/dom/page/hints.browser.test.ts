// Runs in headless Chromium (the vitest `browser` project): the short word that names an icon-only control,
// from real markup (icon fonts, inline SVG sprites, image files).
import { afterEach, describe, expect, it } from 'vitest';
import { iconHint } from './hints';

/** Puts `html` in the document and returns its first element. */
function place(html: string): Element {
  document.body.innerHTML = html;
  const element = document.body.firstElementChild;
  if (!element) throw new Error(`no element in ${html}`);
  return element;
}

afterEach(() => {
  document.body.innerHTML = '';
});

describe('iconHint', () => {
  it('takes the name of a named descendant first: aria-label, title, an image alt, an SVG title', () => {
    expect(iconHint(place('<button class="btn-x"><span aria-label="Close dialog"></span></button>'))).toBe('Close dialog');
    expect(iconHint(place('<button><i title="  Delete\n row "></i></button>'))).toBe('Delete row');
    expect(iconHint(place('<button><img alt="Settings" src="/gear.png"></button>'))).toBe('Settings');
    expect(iconHint(place('<button><svg><title>Search</title></svg></button>'))).toBe('Search');
  });

  it('reads the icon font classes of the element and its icon children, without their prefixes and noise words', () => {
    expect(iconHint(place('<button class="btn btn-close active"><i class="fa fa-trash"></i></button>'))).toBe('close trash');
    expect(iconHint(place('<a id="cart_link"><span class="material-icons-menu"></span></a>'))).toBe('cart link menu');
  });

  it('reads the file name of an icon image and the fragment of an SVG sprite', () => {
    expect(iconHint(place('<button><img src="/static/icons/shopping-cart.svg"></button>'))).toBe('shopping-cart');
    expect(iconHint(place('<button><svg><use href="/sprite.svg#icon-search"></use></svg></button>'))).toBe('search');
    expect(iconHint(place('<button><span data-icon="heart"></span></button>'))).toBe('heart');
  });

  it('keeps at most three different words', () => {
    expect(iconHint(place('<button class="share share"><i class="copy"></i><i class="link"></i><i class="print"></i></button>'))).toBe('share copy link');
  });

  it('cuts a long name at 40 characters', () => {
    const hint = iconHint(place(`<button><span aria-label="${'word '.repeat(20)}"></span></button>`));
    expect(hint).toHaveLength(41);
    expect(hint.endsWith('…')).toBe(true);
  });

  it('is empty when nothing names the icon', () => {
    expect(iconHint(place('<button class="btn lg"><i class="fa"></i></button>'))).toBe('');
    expect(iconHint(place('<div></div>'))).toBe('');
  });
});
