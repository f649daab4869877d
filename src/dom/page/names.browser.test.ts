// Runs in headless Chromium (the vitest `browser` project): the accessible names of controls, computed by
// dom-accessibility-api on real markup as assistive technology would.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { accessibleName } from './names';

function place(html: string): Record<string, HTMLElement> {
  document.body.innerHTML = html;
  const elements: Record<string, HTMLElement> = {};
  for (const element of document.body.querySelectorAll<HTMLElement>('[id]')) elements[element.id] = element;
  return elements;
}

afterEach(() => {
  vi.restoreAllMocks();
  document.body.innerHTML = '';
});

describe('accessibleName', () => {
  it('names a field by its <label for>, and by a label that wraps it', () => {
    const { email, name } = place('<label for="email">E-mail address</label><input id="email"><label>Full  name <input id="name"></label>');
    expect(accessibleName(email!)).toBe('E-mail address');
    expect(accessibleName(name!)).toBe('Full name');
  });

  it('prefers aria-labelledby, joining the referenced texts in order, over aria-label and the label', () => {
    const { field } = place(
      '<span id="first">Billing</span><span id="second">postcode</span><label for="field">Label</label><input id="field" aria-label="Aria" aria-labelledby="first second">',
    );
    expect(accessibleName(field!)).toBe('Billing postcode');
  });

  it('falls back to aria-label, then title, then placeholder', () => {
    const { aria, titled, placeheld } = place(
      '<input id="aria" aria-label="Search site" title="T"><input id="titled" title="Quantity"><input id="placeheld" placeholder="Your city">',
    );
    expect(accessibleName(aria!)).toBe('Search site');
    expect(accessibleName(titled!)).toBe('Quantity');
    expect(accessibleName(placeheld!)).toBe('Your city');
  });

  it("names a button by its content, an image's alt included, with whitespace folded", () => {
    const { button } = place('<button id="button">\n  Add to\n  <img alt="cart">  </button>');
    expect(accessibleName(button!)).toBe('Add to cart');
  });

  it('leaves out content that is display:none or aria-hidden', () => {
    const { button } = place('<button id="button">Save<span style="display: none;"> secretly</span><span aria-hidden="true"> ★</span></button>');
    expect(accessibleName(button!)).toBe('Save');
  });

  it('names a field with no other name by its placeholder, or an ARIA widget by aria-placeholder', () => {
    const { field, area, combo } = place(
      '<input id="field" placeholder="  Find\n a product "><textarea id="area" placeholder="Comment"></textarea><div id="combo" role="combobox" aria-placeholder="Pick a date"></div>',
    );
    expect(accessibleName(field!)).toBe('Find a product');
    expect(accessibleName(area!)).toBe('Comment');
    expect(accessibleName(combo!)).toBe('Pick a date');
  });

  it('is empty for a control with no name at all', () => {
    const { bare } = place('<input id="bare">');
    expect(accessibleName(bare!)).toBe('');
  });

  it('never throws: a page that breaks the computation gets no computed name, only a placeholder', () => {
    const { button, field } = place('<button id="button" title="Close">×</button><input id="field" title="Query" placeholder="Search">');
    vi.spyOn(window, 'getComputedStyle').mockImplementation(() => {
      throw new Error('a hostile page');
    });
    expect(accessibleName(button!)).toBe('');
    expect(accessibleName(field!)).toBe('Search');
  });
});
