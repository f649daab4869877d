// The snapshot method of the page runtime: walks the frame, then turns what it found into the
// compact element list and text the core serialises for the model. Runs in the page.

import type { FrameSnapshot, SnapshotItem, SnapshotScriptOptions } from '../types';
import { attributesOf, selectorOf } from './attributes';
import { iconHint } from './hints';
import { accessibleName } from './names';
import { beginSnapshot, elementIdOf } from './registry';
import { cap, collapse } from './text';
import { textless, Walk, type Draft } from './walker';

/** The options of the last snapshot of this document, so the change probe applies the same rules. */
let lastOptions: SnapshotScriptOptions | undefined;

/** The options the last snapshot of this document ran with, if any. */
export function lastSnapshotOptions(): SnapshotScriptOptions | undefined {
  return lastOptions;
}

/** Attributes that name an element; dropped when the element's text already says the same. */
const namingAttributes = ['aria-label', 'title', 'placeholder', 'alt'];

/**
 * A listed element that only a listener or a cursor made a control, whose text all went to the
 * controls inside it (a table cell around its link, a list around its items): those controls
 * stand for it.
 */
function isEmptyWrapper(draft: Draft, lines: readonly string[]): boolean {
  return draft.weak && draft.listedInside > 0 && lines.length === 0 && !draft.scroll;
}

/** How many kept elements enclose the entry: its indentation. */
function depthOf(owner: Draft | undefined): number {
  let depth = 0;
  for (let current = owner; current; current = current.owner) if (current.fate !== 'dropped') depth++;
  return depth;
}

/**
 * The element's text: its own visible lines, else (controls, icon buttons) its accessible name,
 * so every control's name stands in the same place (an attribute saying the same is dropped). A
 * name computed from content the walk found hidden (text indented away, a zero font) is not
 * used: hidden text never reaches the model.
 */
function textOf(draft: Draft, lines: readonly string[], maxText: number): { text: string; named: boolean } {
  if (lines.length > 0 && draft.tag !== 'textarea' && draft.tag !== 'select') return { text: lines.join('\n'), named: false };
  // A password field is named by its visible labels only: a page may mirror what was typed
  // into its title or an aria attribute.
  const password = draft.element instanceof HTMLInputElement && draft.element.type === 'password';
  const name = password ? collapse([...(draft.element.labels ?? [])].map((label) => label.innerText).join(' ')) : accessibleName(draft.element);
  if (!name) return { text: '', named: false };
  if (draft.tag !== 'input' && draft.tag !== 'select' && draft.tag !== 'textarea' && takesHiddenText(draft.element, name)) return { text: '', named: false };
  return { text: cap(name, maxText), named: true };
}

/**
 * True when a name takes text of the element: the element has no visible lines here, so its text
 * was hidden from the walk (or given to a control inside it). Checked per text node, because a
 * name computed from content also joins other parts (an image's alt) to the hidden text.
 */
function takesHiddenText(element: Element, name: string): boolean {
  if (collapse(element.textContent ?? '').includes(name)) return true;
  const texts = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  for (let node = texts.nextNode(), seen = 0; node && seen < 1000; node = texts.nextNode(), seen++) {
    const text = collapse(node.textContent ?? '');
    if (text && name.includes(text)) return true;
  }
  return false;
}

/**
 * Lists the frame's visible, top-most, enabled controls in the indexed region (the viewport plus
 * `viewportExpansion`, or the whole page) with their live state, and the visible text between them.
 */
export function takeSnapshot(options: SnapshotScriptOptions): FrameSnapshot {
  lastOptions = options;
  const maxText = Math.max(8, options.maxTextLength);
  const include = new Set(options.includeAttributes);
  const walk = new Walk(options);
  walk.run();
  beginSnapshot();

  const texts = new Map<Draft, string[]>();
  for (const draft of walk.drafts) {
    const lines = draft.collects ? draft.lines.take(maxText) : [];
    texts.set(draft, lines);
    if (draft.fate === 'kept' && isEmptyWrapper(draft, lines)) draft.fate = 'dropped';
  }

  const items: SnapshotItem[] = [];
  /** Element items whose text is their accessible name, by position, for the duplicate-label check. */
  const named = new Map<number, string>();
  for (const entry of walk.entries) {
    if (entry.kind === 'text') {
      items.push({ kind: 'text', text: entry.text, depth: depthOf(entry.owner) });
      continue;
    }
    const { draft } = entry;
    const lines = texts.get(draft) ?? [];
    const depth = depthOf(draft.owner);
    if (draft.fate === 'dropped') continue;
    if (draft.fate === 'covered') {
      // A covered element loses its index; its text stays, as plain text.
      for (const line of lines) items.push({ kind: 'text', text: line, depth });
      continue;
    }
    const attributes = attributesOf(draft.element, draft.tag, include, maxText);
    const { text, named: isNamed } = textOf(draft, lines, maxText);
    const single = collapse(text);
    for (const name of namingAttributes) if (attributes[name] !== undefined && collapse(attributes[name]) === single) delete attributes[name];
    if (
      !text &&
      draft.collects &&
      !textless.has(draft.tag) &&
      !attributes['aria-label'] &&
      !attributes.title &&
      !attributes.alt &&
      !attributes.placeholder &&
      !attributes.value
    ) {
      const hint = iconHint(draft.element);
      if (hint) attributes.hint = hint;
    }
    const selector = selectorOf(draft.element);
    if (isNamed) named.set(items.length, single);
    items.push({
      kind: 'element',
      elementId: elementIdOf(draft.element),
      tagName: draft.tag,
      attributes,
      text,
      depth,
      ...(selector ? { selector } : {}),
      ...(draft.scroll ? { scroll: draft.scroll } : {}),
    });
  }

  // A label's words shown on its control's line need not stand again as page text beside it.
  const duplicates = new Set<number>();
  for (const [position, name] of named) {
    for (const neighbour of [position - 1, position + 1]) {
      const item = items[neighbour];
      if (item?.kind === 'text' && collapse(item.text) === name) duplicates.add(neighbour);
    }
  }
  const kept = duplicates.size > 0 ? items.filter((_, position) => !duplicates.has(position)) : items;

  const scroller = document.scrollingElement ?? document.documentElement;
  const viewportHeight = walk.viewport.bottom;
  const scrollHeight = scroller ? scroller.scrollHeight : viewportHeight;
  return {
    url: location.href,
    title: document.title,
    items: kept,
    pixelsAbove: Math.max(0, Math.round(window.scrollY)),
    pixelsBelow: Math.max(0, Math.round(scrollHeight - window.scrollY - viewportHeight)),
    viewport: { width: walk.viewport.right, height: viewportHeight },
  };
}

/** The elements a snapshot with these options would list now, without giving any of them an id. */
export function listedElements(options: SnapshotScriptOptions): Element[] {
  const walk = new Walk(options);
  walk.run();
  const maxText = Math.max(8, options.maxTextLength);
  return walk.drafts
    .filter((draft) => draft.fate === 'kept' && !isEmptyWrapper(draft, draft.collects ? draft.lines.take(maxText) : []))
    .map((draft) => draft.element);
}
