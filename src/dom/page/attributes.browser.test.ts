// Runs in headless Chromium (the vitest `browser` project): the attributes and live state the model sees of an
// element, link targets relative to this test page's own URL, and selectors that name the element itself.
import { afterEach, describe, expect, it } from 'vitest';
import { defaultIncludeAttributes } from '../page-state-reader';
import { attributesOf, hrefOf, selectorOf } from './attributes';

function place(html: string): Record<string, HTMLElement> {
  document.body.innerHTML = html;
  const elements: Record<string, HTMLElement> = {};
  for (const element of document.body.querySelectorAll<HTMLElement>('[id]')) elements[element.id] = element;
  return elements;
}

const defaults = new Set(defaultIncludeAttributes);
const attributes = (element: Element, include: ReadonlySet<string> = defaults, maxText = 100) => attributesOf(element, element.localName, include, maxText);

afterEach(() => {
  document.body.innerHTML = '';
});

describe('hrefOf', () => {
  const hrefOfLink = (href: string): string | undefined => {
    const link = document.createElement('a');
    link.setAttribute('href', href);
    return hrefOf(link);
  };

  it('has no target for an element without href, nor for a javascript: link', () => {
    expect(hrefOf(document.createElement('a'))).toBeUndefined();
    expect(hrefOfLink('javascript:void(0)')).toBeUndefined();
    expect(hrefOfLink('  JavaScript:open()')).toBeUndefined();
  });

  it('gives a #fragment for the same document, whatever its query string', () => {
    expect(location.search).not.toBe('');
    expect(hrefOfLink('#reviews')).toBe('#reviews');
  });

  it('gives the path for the same origin, resolved against the page', () => {
    expect(hrefOfLink('/cart?step=2')).toBe('/cart?step=2');
    expect(hrefOfLink('help/faq.html')).toBe('/help/faq.html');
    expect(hrefOfLink(`${location.origin}/orders`)).toBe('/orders');
  });

  it('gives the absolute URL for another origin', () => {
    expect(hrefOfLink('https://example.com/docs')).toBe('https://example.com/docs');
    expect(hrefOfLink('mailto:team@example.com')).toBe('mailto:team@example.com');
  });

  it('sends a long target whole up to 2000 characters, and cuts it there', () => {
    const long = `https://example.com/${'a'.repeat(2500)}`;
    const result = hrefOfLink(long)!;
    expect(result).toHaveLength(2001);
    expect(result.endsWith('…')).toBe(true);
    expect(result.startsWith('https://example.com/aaa')).toBe(true);
  });
});

describe('selectorOf', () => {
  it('names an element whose tag CSS cannot write as it is (a prefixed name) without throwing', () => {
    // An XML-style prefixed tag, as pages sometimes paste in: the HTML parser keeps `a0:a` as its local name.
    const prefixed = document.createElement('a0:a');
    prefixed.id = 'prefixed-link';
    document.body.appendChild(prefixed);
    expect(selectorOf(prefixed)).toBe('a0\\:a[id="prefixed-link"]');
    expect(document.querySelector(selectorOf(prefixed)!)).toBe(prefixed);
  });

  it('names an element by its id, quoting what the id holds, and the selector finds it', () => {
    const { plain } = place('<button id="plain">Save</button>');
    expect(selectorOf(plain!)).toBe('button[id="plain"]');
    const odd = document.createElement('div');
    odd.id = 'a"b\\c';
    document.body.append(odd);
    const selector = selectorOf(odd)!;
    expect(selector).toBe('div[id="a\\"b\\\\c"]');
    expect(document.querySelector(selector)).toBe(odd);
  });

  it('names an element by a name no other element of the document has', () => {
    place('<form><input id="" name="q"></form>'); // an empty id names nothing
    expect(selectorOf(document.querySelector('input')!)).toBe('input[name="q"]');
  });

  it('does not use a name that several elements share (a radio group), and falls back to the test id', () => {
    place('<input type="radio" name="size" data-testid="size-small"><input type="radio" name="size">');
    const [small, large] = document.querySelectorAll('input');
    expect(selectorOf(small!)).toBe('input[data-testid="size-small"]');
    expect(selectorOf(large!)).toBeUndefined();
  });

  it('gives no selector for an element with nothing that names it, rather than a position', () => {
    place('<ul><li>One</li><li>Two</li></ul>');
    expect(selectorOf(document.querySelectorAll('li')[1]!)).toBeUndefined();
  });
});

describe('attributesOf', () => {
  it('keeps only whitelisted attributes with a value, folded and cut to the text limit', () => {
    const { button } = place(
      `<button id="button" class="primary" data-track="x" title="  Save\n your  work " aria-label="" name="${'n'.repeat(50)}">Save</button>`,
    );
    expect(attributes(button!, defaults, 20)).toEqual({ title: 'Save your work', name: `${'n'.repeat(20)}…` });
  });

  it('drops a role that repeats the tag, and a type anywhere but on an input', () => {
    const { native, tab } = place('<button id="native" role="button" type="submit">Go</button><button id="tab" role="tab" type="button">Tab</button>');
    expect(attributes(native!)).toEqual({});
    expect(attributes(tab!)).toEqual({ role: 'tab' });
  });

  it('shows a link target only when href is asked for', () => {
    const { link } = place('<a id="link" href="/account" title="Account">Me</a>');
    expect(attributes(link!)).toEqual({ href: '/account', title: 'Account' });
    expect(attributes(link!, new Set(['title']))).toEqual({ title: 'Account' });
  });

  it('shows what was typed into a field (the live value, not the HTML attribute), only when value is asked for', () => {
    const { field } = place('<input id="field" type="search" value="initial" name="q">');
    (field as HTMLInputElement).value = 'running shoes';
    expect(attributes(field!)).toEqual({ type: 'search', name: 'q', value: 'running shoes' });
    expect(attributes(field!, new Set(['type']))).toEqual({ type: 'search' });
  });

  it('never shows a password field’s value, title or mirrored attributes, whatever is asked for', () => {
    const { password } = place(
      '<input id="password" type="password" name="pw" placeholder="Password" aria-label="Your password" title="hunter2" aria-valuetext="hunter2" data-typed="hunter2">',
    );
    (password as HTMLInputElement).value = 'hunter2';
    const everything = new Set([...defaultIncludeAttributes, 'aria-valuetext', 'data-typed', 'value']);
    const shown = attributes(password!, everything);
    expect(shown).toEqual({ type: 'password', name: 'pw', placeholder: 'Password', 'aria-label': 'Your password' });
    expect(JSON.stringify(shown)).not.toContain('hunter2');
    expect(attributes(password!, new Set())).toEqual({ type: 'password' });
  });

  it('shows checked for a checked checkbox or radio only, as it is now', () => {
    const { box, radio } = place('<input id="box" type="checkbox" checked><input id="radio" type="radio">');
    expect(attributes(box!)).toEqual({ type: 'checkbox', checked: '' });
    (box as HTMLInputElement).checked = false;
    (radio as HTMLInputElement).checked = true;
    expect(attributes(box!)).toEqual({ type: 'checkbox' });
    expect(attributes(radio!)).toEqual({ type: 'radio', checked: '' });
  });

  it('shows the names of the files chosen in a file input', () => {
    const { upload } = place('<input id="upload" type="file" multiple>');
    const transfer = new DataTransfer();
    transfer.items.add(new File(['a'], 'cv.pdf'));
    transfer.items.add(new File(['b'], 'photo.png'));
    (upload as HTMLInputElement).files = transfer.files;
    expect(attributes(upload!)).toEqual({ type: 'file', value: 'cv.pdf, photo.png' });
    expect(attributes(upload!, new Set(['type']))).toEqual({ type: 'file' });
  });

  it('shows the caption of a submit button even when value is not asked for, and the bounds of a range or number', () => {
    const { submit, range, count } = place(
      '<input id="submit" type="submit" value="Send"><input id="range" type="range" min="0" max="10"><input id="count" type="number" max="99">',
    );
    expect(attributes(submit!, new Set())).toEqual({ value: 'Send' });
    expect(attributes(range!, new Set())).toEqual({ min: '0', max: '10' });
    expect(attributes(count!, new Set())).toEqual({ max: '99' });
  });

  it('shows the text of a textarea as typed', () => {
    const { area } = place('<textarea id="area" name="comment"></textarea>');
    (area as HTMLTextAreaElement).value = 'Great\n product';
    expect(attributes(area!)).toEqual({ name: 'comment', value: 'Great product' });
  });

  it('shows the chosen options of a select and its enabled options, at most twelve and how many more', () => {
    const { colour, many } = place(
      '<select id="colour"><option>Red</option><option selected>Green</option><option disabled>Blue</option><option label="Yellow (sold out)">y</option></select>' +
        `<select id="many" multiple>${Array.from({ length: 15 }, (_, index) => `<option${index === 1 || index === 3 ? ' selected' : ''}>Item ${index}</option>`).join('')}</select>`,
    );
    expect(attributes(colour!)).toEqual({ selected: 'Green', options: 'Red|Green|Yellow (sold out)' });
    const shown = attributes(many!);
    expect(shown.selected).toBe('Item 1, Item 3');
    expect(shown.options).toBe(`${Array.from({ length: 12 }, (_, index) => `Item ${index}`).join('|')}|…3 more`);
    expect(attributes(colour!, new Set()).selected).toBeUndefined();
  });

  it('shows whether the details a summary opens are expanded', () => {
    const { closed, open } = place('<details><summary id="closed">A</summary></details><details open><summary id="open">B</summary></details>');
    expect(attributes(closed!)).toEqual({ expanded: 'false' });
    expect(attributes(open!)).toEqual({ expanded: 'true' });
  });

  it('shows a selected option as selected', () => {
    const { chosen, other } = place('<select><option id="other">A</option><option id="chosen" selected>B</option></select>');
    expect(attributes(chosen!)).toEqual({ selected: '' });
    expect(attributes(other!)).toEqual({});
  });

  it('gives a label that stands for a checkbox or radio the control’s type and checked state', () => {
    const { terms, news, plain } = place(
      '<label id="terms"><input type="checkbox" checked> I agree</label><label id="news" for="n">News</label><input id="n" type="radio"><label id="plain" for="t">Name</label><input id="t">',
    );
    expect(attributes(terms!)).toEqual({ type: 'checkbox', checked: '' });
    expect(attributes(news!)).toEqual({ type: 'radio' });
    expect(attributes(plain!)).toEqual({});
  });
});
