// How the action results name an element: a label's own words, the text it shows, and the
// `<tag …> "name"` form the model reads. Runs in the page; reads the DOM, never changes it.

import { cap, collapse } from '../text';

/** The controls whose text is left out of a label's words (a select's options, a button's caption). */
const controlsInLabel = 'select, input, textarea, button, datalist';

/** A label's own words, without the text of the controls inside it (a select's options). */
export function labelText(label: Element): string {
  const copy = label.cloneNode(true) as Element;
  for (const control of copy.querySelectorAll(controlsInLabel)) control.remove();
  return copy.textContent ?? '';
}

/** The words of the element's first label (`<label for>` or a wrapping label); empty without one. */
export function firstLabelText(element: Element): string {
  const label = (element as HTMLInputElement).labels?.[0];
  return label ? labelText(label) : '';
}

/** The text the element shows (its rendered text where the engine knows it), whitespace folded. */
export function shownText(element: Element): string {
  return collapse((element as HTMLElement).innerText ?? element.textContent ?? '');
}

/**
 * An element as results name it: `<tag details> "name"`. The name is folded, cut to 60 characters
 * and JSON-quoted, so a name with a quote in it cannot end early and go on as our words.
 */
export function describeElement(tag: string, details: string, name: string): string {
  const short = cap(collapse(name), 60);
  return `<${tag}${details}>${short ? ` ${JSON.stringify(short)}` : ''}`;
}

/** The element with this id in the element's own tree (its shadow root or document), else in the document. */
export function elementByIdNear(element: Element, id: string): Element | null {
  const root = element.getRootNode() as Document | ShadowRoot;
  return (typeof root.getElementById === 'function' ? root.getElementById(id) : null) ?? document.getElementById(id);
}
