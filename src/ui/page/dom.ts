// DOM helpers of the run page: build elements from text only (never HTML), and find the page's
// fixed elements by id. Everything the server sends (page titles, model output) is text here.

/** Attributes of a built element: strings set as attributes, `hidden` as the property. */
type Attributes = Readonly<Record<string, string | boolean | undefined>>;

/** An element with attributes and children; strings become text nodes, so nothing is parsed as HTML. */
export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: readonly (Node | string | undefined)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (name === 'hidden') node.hidden = true;
    else node.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) if (child !== undefined) node.append(child);
  return node;
}

/** The page's element with this id, of this class; the page's markup has each one (a missing one is a bug in the build). */
export function byId<T extends HTMLElement>(id: string, type: abstract new () => T): T;
export function byId(id: string): HTMLElement;
export function byId(id: string, type: abstract new () => HTMLElement = HTMLElement): HTMLElement {
  const found = document.getElementById(id);
  if (!(found instanceof type)) throw new Error(`The run page has no ${type.name} #${id}.`);
  return found;
}

/** A definition list of the non-empty fields. */
export function fields(entries: readonly (readonly [label: string, value: string | undefined, testId?: string])[]): HTMLDListElement {
  const list = element('dl');
  for (const [label, value, testId] of entries) {
    if (!value) continue;
    list.append(element('dt', {}, label), element('dd', { 'data-testid': testId }, value));
  }
  return list;
}

/** Milliseconds as people read them: `850 ms`, `12.3 s`, `2 min 5 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

const numbers = new Intl.NumberFormat('en-US');

/** A count with thousands separators. */
export function formatCount(value: number): string {
  return numbers.format(value);
}
