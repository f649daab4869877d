// The attributes and live state the model sees of an indexed element: a short whitelist, values
// as typed (never a password), checked and selected state, link targets. Runs in the page.

import { cap, collapse } from './text';

const valueless = new Set(['checkbox', 'radio', 'submit', 'button', 'reset', 'image', 'hidden', 'password']);

/** How long a link target may be before the core shortens it; the page sends it whole up to here. */
const maxHrefLength = 2000;

/**
 * A link's target relative to the page: `#fragment` for the same document, a path for the same
 * origin, the absolute URL for another origin; none for `javascript:` links.
 */
export function hrefOf(element: Element): string | undefined {
  const raw = element.getAttribute('href');
  if (raw === null) return undefined;
  if (/^\s*javascript:/i.test(raw)) return undefined;
  // An SVG link's href property is an SVGAnimatedString, not a URL: resolve the attribute instead.
  const property = (element as { href?: unknown }).href;
  const absolute = typeof property === 'string' ? property || raw : resolved(raw);
  const origin = location.origin;
  const here = location.href.split('#')[0] ?? '';
  const relative =
    here && absolute.startsWith(`${here}#`)
      ? absolute.slice(here.length)
      : origin && origin !== 'null' && absolute.startsWith(`${origin}/`)
        ? absolute.slice(origin.length)
        : absolute;
  return cap(collapse(relative), maxHrefLength);
}

/** The URL a link target resolves to against the document, or the target as written when it is no URL. */
function resolved(raw: string): string {
  try {
    return new URL(raw, document.baseURI).href;
  } catch {
    return raw;
  }
}

/** A selector that names the element itself (id, name, test id), never a position that another element could take. */
export function selectorOf(element: Element): string | undefined {
  const quoted = (value: string): string => `"${value.replace(/["\\]/g, '\\$&')}"`;
  const tag = element.localName;
  // Ids and test ids repeat on real pages (the cards of a list): only a selector that finds this element alone names it.
  const alone = (attribute: string, value: string | null): string | undefined => {
    if (!value) return undefined;
    // A tag name CSS cannot write as it is (a prefixed `a0:a` from XML pasted into HTML) is escaped.
    const selector = `${CSS.escape(tag)}[${attribute}=${quoted(value)}]`;
    try {
      const matches = document.querySelectorAll(selector);
      return matches.length === 1 && matches[0] === element ? selector : undefined;
    } catch {
      return undefined; // a selector the engine refuses names nothing
    }
  };
  return alone('id', element.id) ?? alone('name', element.getAttribute('name')) ?? alone('data-testid', element.getAttribute('data-testid'));
}

/** The element's whitelisted attributes and live state (values, checked, selected, expanded). */
export function attributesOf(element: Element, tag: string, include: ReadonlySet<string>, maxText: number): Record<string, string> {
  const attributes: Record<string, string> = {};
  const short = (value: string, limit = maxText): string => cap(collapse(value), limit);
  // A password field shows only what cannot carry its value, whatever includeAttributes asks
  // for: a page may mirror what was typed into aria-valuetext, title or a data attribute.
  if (tag === 'input' && (element as HTMLInputElement).type === 'password') {
    attributes.type = 'password';
    for (const name of ['name', 'placeholder', 'aria-label']) {
      const value = include.has(name) ? element.getAttribute(name) : null;
      if (value !== null && value.trim()) attributes[name] = short(value);
    }
    return attributes;
  }
  for (const name of include) {
    if (name === 'value' || name === 'checked' || name === 'selected' || name === 'href') continue;
    if (name === 'type' && tag !== 'input') continue;
    const value = element.getAttribute(name);
    if (value === null || !value.trim()) continue;
    if (name === 'role' && value === tag) continue;
    attributes[name] = short(value);
  }
  if (include.has('href')) {
    const href = hrefOf(element);
    if (href) attributes.href = href;
  }
  if (tag === 'input') {
    const input = element as HTMLInputElement;
    const type = input.type;
    if (type === 'checkbox' || type === 'radio') {
      if (input.checked && include.has('checked')) attributes.checked = '';
    } else if (type === 'file') {
      if (input.files && input.files.length > 0 && include.has('value')) attributes.value = short([...input.files].map((file) => file.name).join(', '));
    } else if (!valueless.has(type) && input.value && include.has('value')) {
      attributes.value = short(input.value);
    } else if ((type === 'submit' || type === 'button' || type === 'reset') && input.value) {
      attributes.value = short(input.value);
    }
    if (type === 'range' || type === 'number') {
      if (input.min.trim()) attributes.min = short(input.min, 40);
      if (input.max.trim()) attributes.max = short(input.max, 40);
    }
  } else if (tag === 'textarea') {
    const value = (element as HTMLTextAreaElement).value;
    if (value && include.has('value')) attributes.value = short(value);
  } else if (tag === 'select') {
    const select = element as HTMLSelectElement;
    const chosen = [...select.selectedOptions].map((option) => collapse(option.label || option.text));
    if (chosen.length > 0 && include.has('selected')) attributes.selected = cap(chosen.join(', '), maxText);
    const labels: string[] = [];
    let more = 0;
    for (const option of select.options) {
      if (option.disabled) continue;
      if (labels.length < 12) labels.push(short(option.label || option.text, 30));
      else more++;
    }
    attributes.options = labels.join('|') + (more > 0 ? `|…${more} more` : '');
  } else if (tag === 'summary') {
    const details = element.parentElement;
    if (details && details.localName === 'details') attributes.expanded = (details as HTMLDetailsElement).open ? 'true' : 'false';
  } else if (tag === 'option') {
    if ((element as HTMLOptionElement).selected && include.has('selected')) attributes.selected = '';
  }
  if (tag === 'label') {
    const control = (element as HTMLLabelElement).control;
    if (control instanceof HTMLInputElement && (control.type === 'checkbox' || control.type === 'radio')) {
      attributes.type = control.type;
      if (control.checked && include.has('checked')) attributes.checked = '';
    }
  }
  return attributes;
}
