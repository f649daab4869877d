// Fingerprints of elements: what identifies an element (tag, role, name, text, identifying
// attributes, paths, context, box), so that replay can find it again on a page that changed since. Runs in the page; reads, never changes.

import { getRole } from 'dom-accessibility-api';
import { hrefOf } from './attributes';
import { accessibleName } from './names';
import { composedParent } from './recorder';
import { resolveElement, type ElementLocator } from './registry';
import { cap, collapse } from './text';

/** One ancestor of a fingerprinted element, as `FingerprintAncestor` of the history documents it. */
export interface PageFingerprintAncestor {
  readonly tagName: string;
  readonly role?: string | undefined;
  readonly name?: string | undefined;
  readonly id?: string | undefined;
}

/**
 * The record an element belongs to (a product card, a table row, a list item) and what identifies
 * it: its label, its heading, its link or its first cell. `scope: 'page'` when the element sits in
 * no record and the page's heading names what the page is about (a product page).
 */
export interface PageFingerprintRecord {
  readonly name: string;
  readonly from: 'label' | 'heading' | 'link' | 'cell';
  readonly scope: 'item' | 'page';
}

/** An element's fingerprint as the page reads it: `ElementFingerprint` of the history without `frameUrl`, which the core adds. */
export interface PageFingerprint {
  readonly tagName: string;
  readonly role: string | undefined;
  readonly name: string;
  readonly text: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly xpath: string;
  readonly cssPath: string;
  readonly ancestors: readonly PageFingerprintAncestor[];
  readonly box: { readonly x: number; readonly y: number; readonly width: number; readonly height: number } | undefined;
  /** The record it belongs to, when one names itself. */
  readonly record?: PageFingerprintRecord | undefined;
  /** Whether it is disabled now (itself, or a disabled fieldset around it). */
  readonly disabled?: boolean | undefined;
  /** Whether a checkbox or radio button is checked now. */
  readonly checked?: boolean | undefined;
}

/** What {@link fingerprints} is given: the elements of the last snapshot to fingerprint. */
export interface FingerprintRequest {
  readonly elements: readonly ElementLocator[];
}

/** The attributes that identify an element, beside its text; `value` is taken of buttons only. */
const identifyingAttributes = ['id', 'name', 'type', 'href', 'placeholder', 'aria-label', 'title', 'alt', 'role', 'for', 'value'] as const;

/** The attributes test suites put on elements to find them; they outlive redesigns best. */
export const testIdAttributes = ['data-testid', 'data-test', 'data-test-id', 'data-qa', 'data-cy'] as const;

/** How long an attribute value, the name or the text may be. */
const maxValueLength = 200;
/** How long an ancestor's name may be: enough for a product card's heading, short enough for many candidates. */
const maxAncestorNameLength = 100;
const maxAncestors = 5;
/** How far up a CSS path looks for an ancestor with an id or test id to start from. */
const maxAnchorDepth = 10;
/** How many nodes a text reading visits, so a huge container costs no more than a button. */
const maxTextNodes = 2000;

/** Tags whose text is never shown. */
const silentTags = new Set(['script', 'style', 'noscript', 'template']);
/** Phrasing tags: text on either side of them runs on without a space. */
const inlineTags = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'cite',
  'code',
  'data',
  'dfn',
  'em',
  'font',
  'i',
  'kbd',
  'mark',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strong',
  'sub',
  'sup',
  'time',
  'u',
  'var',
]);
const headingSelector = 'h1, h2, h3, h4, h5, h6, [role="heading"]';

/**
 * True for an id that looks minted by a framework or a build rather than written by a person
 * (`:r1:`, `ember123`, `mui-12345`, a UUID, a hash such as `css-1x2y3z`): it changes from one load
 * to the next, so it identifies nothing across runs.
 */
export function looksGeneratedId(id: string): boolean {
  if (!id.trim()) return true;
  if (/[:«»]/.test(id) || /^\d/.test(id) || /\d{4,}/.test(id)) return true;
  if (/^(ember|ext-gen|yui_|mui-|radix-|headlessui-|react-select-|react-aria|downshift-|rc-|jsx-|gwt-|j_id|ui-id-|__)/i.test(id)) return true;
  if (/[0-9a-f]{8}-[0-9a-f]{4}-/i.test(id)) return true;
  // A segment that mixes letters and digits at length 6 or more reads as a hash, not a word.
  return id.split(/[-_.]/).some((segment) => segment.length >= 6 && /\d/.test(segment) && /[a-z]/i.test(segment) && !/^[a-z]+\d{1,3}$/i.test(segment));
}

/** The fingerprint of each element, in order; `null` for an element that is gone. */
export function fingerprints(request: FingerprintRequest): (PageFingerprint | null)[] {
  return request.elements.map((locator) => {
    const element = resolveElement(locator);
    return typeof element === 'string' ? null : fingerprintOf(element);
  });
}

/** The fingerprint of one element. */
export function fingerprintOf(element: Element): PageFingerprint {
  return {
    tagName: element.localName.toLowerCase(),
    role: roleOf(element),
    name: cap(accessibleName(element), maxValueLength),
    text: shortText(element, maxValueLength),
    attributes: identifyingAttributesOf(element),
    xpath: xpathOf(element),
    cssPath: cssPathOf(element),
    ancestors: ancestorsOf(element),
    box: boxOf(element),
    ...recordField(element),
    ...(isDisabled(element) ? { disabled: true } : {}),
    ...(element instanceof HTMLInputElement && (element.type === 'checkbox' || element.type === 'radio') ? { checked: element.checked } : {}),
  };
}

function recordField(element: Element): { record?: PageFingerprintRecord } {
  const record = recordOf(element);
  return record ? { record } : {};
}

function isDisabled(element: Element): boolean {
  if (element.getAttribute('aria-disabled') === 'true') return true;
  return typeof (element as HTMLButtonElement).disabled === 'boolean' && element.matches(':disabled');
}

/** The tags and roles of one item among many: a list item, a table row, an article, a grid cell, an option. */
const recordTags = new Set(['li', 'tr', 'article']);
const recordRoles = new Set(['listitem', 'row', 'article', 'gridcell', 'option', 'treeitem']);
/** Containers that are the page's structure, not a record, even when repeated. */
const structureTags = new Set(['html', 'body', 'main', 'header', 'footer', 'nav', 'aside', 'form', 'fieldset', 'label', 'ul', 'ol', 'table', 'tbody', 'thead']);
/** How far up the record of an element is looked for. */
const maxRecordDepth = 12;

/**
 * The record the element belongs to: the nearest list item, row, article or repeated container
 * (a sibling of the same tag and class) that names itself by a label, a heading, a link or its
 * first cell. A container that names nothing (a form around the button) is passed over. With no
 * record, the nearest heading of the element's section or page names what the page is about.
 */
function recordOf(element: Element): PageFingerprintRecord | undefined {
  let depth = 0;
  for (let current = composedParent(element); current && depth < maxRecordDepth; current = composedParent(current), depth++) {
    const tag = current.localName;
    if (tag === 'body' || tag === 'html') break;
    if (!isRecord(current)) continue;
    const identity = identityOf(current, element);
    if (identity) return { ...identity, scope: 'item' };
  }
  depth = 0;
  for (let current = composedParent(element); current && depth < maxRecordDepth; current = composedParent(current), depth++) {
    const heading = firstHeading(current, element);
    if (heading) return { name: heading, from: 'heading', scope: 'page' };
    if (current.localName === 'body') break;
  }
  return undefined;
}

function isRecord(element: Element): boolean {
  const tag = element.localName;
  const role = (element.getAttribute('role') ?? '').trim().split(/\s+/)[0] ?? '';
  if (recordTags.has(tag) || recordRoles.has(role)) return true;
  if (structureTags.has(tag) || role) return false;
  const parent = element.parentElement;
  if (!parent) return false;
  const className = element.getAttribute('class') ?? '';
  for (const sibling of parent.children) {
    if (sibling !== element && sibling.localName === tag && (sibling.getAttribute('class') ?? '') === className) return true;
  }
  return false;
}

/** What names a record: its own label, else its first heading, else its first link (the element itself may be it), else a row's first cell. */
function identityOf(record: Element, element: Element): Omit<PageFingerprintRecord, 'scope'> | undefined {
  const label = record.getAttribute('aria-label')?.trim() || labelledBy(record);
  if (label) return { name: cap(collapse(label), maxAncestorNameLength), from: 'label' };
  const heading = firstHeading(record, undefined);
  if (heading) return { name: heading, from: 'heading' };
  for (const link of record.querySelectorAll('a[href]')) {
    const text = shortText(link, maxAncestorNameLength) || cap(accessibleName(link), maxAncestorNameLength);
    if (text) return { name: text, from: 'link' };
  }
  if (record.localName === 'tr' || record.getAttribute('role') === 'row') {
    for (const cell of record.children) {
      if (cell.contains(element)) continue;
      const text = shortText(cell, maxAncestorNameLength);
      if (text) return { name: text, from: 'cell' };
    }
  }
  return undefined;
}

function labelledBy(element: Element): string {
  const ids = (element.getAttribute('aria-labelledby') ?? '').split(/\s+/).filter(Boolean);
  const root = element.getRootNode() as Document | ShadowRoot;
  return ids
    .map((id) => {
      const target = root.getElementById?.(id);
      return target ? shortText(target, maxAncestorNameLength) : '';
    })
    .join(' ')
    .trim();
}

/** The text of the first shown heading inside `container` that is not inside `except`. */
function firstHeading(container: Element, except: Element | undefined): string {
  for (const heading of container.querySelectorAll(headingSelector)) {
    if (except && (heading.contains(except) ? false : except.contains(heading))) continue;
    if (!isRendered(heading)) continue;
    const text = shortText(heading, maxAncestorNameLength);
    if (text) return text;
  }
  return '';
}

/** The explicit role's first token, else the implicit ARIA role; `undefined` for a generic element. */
function roleOf(element: Element): string | undefined {
  const explicit = (element.getAttribute('role') ?? '').trim().split(/\s+/)[0];
  if (explicit) return explicit.toLowerCase();
  try {
    return getRole(element) ?? undefined;
  } catch {
    return undefined; // a broken page gets no role
  }
}

function identifyingAttributesOf(element: Element): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const name of [...identifyingAttributes, ...testIdAttributes]) {
    if (name === 'value' && !isButton(element) && !isChoice(element)) continue;
    const value = name === 'href' ? hrefOf(element) : element.getAttribute(name);
    const short = value ? cap(collapse(value), maxValueLength) : '';
    if (short) attributes[name] = short;
  }
  // A field or button without a type attribute still has one (`text`, `submit`), and it tells fields apart.
  if (element instanceof HTMLInputElement || element instanceof HTMLButtonElement) attributes.type = element.type;
  return attributes;
}

/** A checkbox or radio button: its `value` tells the choices of a group apart. */
function isChoice(element: Element): boolean {
  return element.localName === 'input' && ['checkbox', 'radio'].includes((element as HTMLInputElement).type);
}

function isButton(element: Element): boolean {
  if (element.localName === 'button') return true;
  return element.localName === 'input' && ['submit', 'button', 'reset', 'image'].includes((element as HTMLInputElement).type);
}

/** The element's text as shown, folded and cut; text under hidden or script elements is left out. */
function shortText(element: Element, limit: number): string {
  const parts: string[] = [];
  let length = 0;
  let visited = 0;
  const visit = (node: Node): void => {
    for (let child = node.firstChild; child && length <= limit && visited < maxTextNodes; child = child.nextSibling) {
      visited++;
      if (child.nodeType === Node.TEXT_NODE) {
        const value = child.nodeValue ?? '';
        parts.push(value);
        length += value.trim().length;
      } else if (child instanceof Element) {
        if (silentTags.has(child.localName) || !isRendered(child)) continue;
        const block = !inlineTags.has(child.localName);
        if (block) parts.push(' ');
        visit(child);
        if (block) parts.push(' ');
      }
    }
  };
  visit(element);
  return cap(collapse(parts.join('')), limit);
}

function isRendered(element: Element): boolean {
  if (typeof element.checkVisibility === 'function') return element.checkVisibility({ visibilityProperty: true });
  return getComputedStyle(element).display !== 'none';
}

/** `/html/body/div[2]/button`: an index only where siblings share the tag. Inside a shadow root, the host's path, then `/#shadow-root`. */
function xpathOf(element: Element): string {
  const segments: string[] = [];
  for (let current: Element | null = element; current;) {
    const parent: Node | null = current.parentNode;
    segments.push(current.localName + siblingIndex(current, parent));
    if (parent instanceof ShadowRoot) {
      segments.push('#shadow-root');
      current = parent.host;
    } else {
      current = parent instanceof Element ? parent : null;
    }
  }
  return `/${segments.reverse().join('/')}`;
}

/** `[n]` (from 1) among the siblings of the same tag, or nothing when the element is the only one. */
function siblingIndex(element: Element, parent: Node | null): string {
  if (!parent) return '';
  let count = 0;
  let position = 0;
  for (let sibling = parent.firstChild; sibling; sibling = sibling.nextSibling) {
    if (!(sibling instanceof Element) || sibling.localName !== element.localName) continue;
    count++;
    if (sibling === element) position = count;
  }
  return count > 1 ? `[${position}]` : '';
}

/**
 * A short CSS selector that finds only this element in its tree (the document, or its shadow
 * root): a human-written id, a test id or a field's name when one is unique, else a chain of
 * `tag:nth-of-type(n)` up to the nearest ancestor that has such an anchor (or as far up as it takes).
 */
function cssPathOf(element: Element): string {
  const root = element.getRootNode() as Document | ShadowRoot;
  const unique = (selector: string): boolean => {
    try {
      const found = root.querySelectorAll(selector);
      return found.length === 1 && found[0] === element;
    } catch {
      return false;
    }
  };
  const own = anchorOf(element, root);
  if (own) return own;
  const name = element.getAttribute('name');
  if (name && ['input', 'select', 'textarea', 'button'].includes(element.localName)) {
    const selector = `${CSS.escape(element.localName)}[name=${quote(name)}]`;
    if (unique(selector)) return selector;
  }
  // Rooted at an anchor, the path survives another list appearing elsewhere on the page; without
  // one, the shortest chain that is unique now will do.
  const chain = [segmentOf(element)];
  let current = element.parentElement;
  for (let depth = 0; current && depth < maxAnchorDepth; depth++, current = current.parentElement) {
    const anchor = anchorOf(current, root);
    if (anchor) return [anchor, ...chain].join(' > ');
    chain.unshift(segmentOf(current));
  }
  const shortest: string[] = [];
  for (let step: Element | null = element; step; step = step.parentElement) {
    shortest.unshift(segmentOf(step));
    if (unique(shortest.join(' > '))) break;
  }
  return shortest.join(' > ');
}

/** A selector that names the element by itself and finds only it: a human-written id or a test id. */
function anchorOf(element: Element, root: Document | ShadowRoot): string | undefined {
  const alone = (selector: string): boolean => {
    try {
      return root.querySelectorAll(selector).length === 1;
    } catch {
      return false;
    }
  };
  if (element.id && !looksGeneratedId(element.id)) {
    const selector = `#${CSS.escape(element.id)}`;
    if (alone(selector)) return selector;
  }
  for (const attribute of testIdAttributes) {
    const value = element.getAttribute(attribute);
    if (!value) continue;
    const selector = `[${attribute}=${quote(value)}]`;
    if (alone(selector)) return selector;
  }
  return undefined;
}

function segmentOf(element: Element): string {
  const tag = CSS.escape(element.localName);
  const index = siblingIndex(element, element.parentNode);
  return index ? `${tag}:nth-of-type(${index.slice(1, -1)})` : tag;
}

function quote(value: string): string {
  return `"${value.replace(/["\\]/g, '\\$&')}"`;
}

/**
 * Up to five ancestors, nearest first, across shadow roots. An ancestor's name is its accessible
 * name, else its first heading's text, else its own short text: what tells apart the identical
 * "Add to cart" buttons of different product cards.
 */
function ancestorsOf(element: Element): PageFingerprintAncestor[] {
  const ancestors: PageFingerprintAncestor[] = [];
  for (let current = composedParent(element); current && ancestors.length < maxAncestors; current = composedParent(current)) {
    const role = roleOf(current);
    const name = ancestorName(current);
    ancestors.push({
      tagName: current.localName.toLowerCase(),
      ...(role ? { role } : {}),
      ...(name ? { name } : {}),
      ...(current.id ? { id: cap(current.id, maxValueLength) } : {}),
    });
  }
  return ancestors;
}

function ancestorName(element: Element): string {
  const own = accessibleName(element);
  if (own) return cap(own, maxAncestorNameLength);
  const heading = element.querySelector(headingSelector);
  const headingText = heading ? shortText(heading, maxAncestorNameLength) : '';
  return headingText || shortText(element, maxAncestorNameLength);
}

/** The element's box in its document's coordinates (scroll offset added); `undefined` when it has no box. */
function boxOf(element: Element): PageFingerprint['box'] {
  if (element.getClientRects().length === 0) return undefined;
  const rect = element.getBoundingClientRect();
  const round = (value: number): number => Math.round(value * 10) / 10;
  return { x: round(rect.left + window.scrollX), y: round(rect.top + window.scrollY), width: round(rect.width), height: round(rect.height) };
}
