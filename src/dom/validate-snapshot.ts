// Checks what the snapshot script sent back before the core turns it into the model's text. The
// script runs in the page, and the page can change what it returns (override JSON.stringify,
// predefine our globals), so nothing of it is trusted: every field is type-checked, every string
// is capped and kept on one line, depths are clamped and attribute names are limited to the
// ones the core asked for or the script itself emits.

import { BrowserError } from '../errors';
import type { FrameSnapshot, SnapshotElement, SnapshotItem, SnapshotScriptOptions } from './types';

/** The deepest indentation shown; deeper entries are drawn at this depth. */
export const maxSnapshotDepth = 50;
/** At most this many entries per frame are kept; the rest are left out. */
export const maxSnapshotItems = 50_000;

/** Attributes the snapshot script emits on its own (live state and hints), whatever `includeAttributes` says. */
const emittedAttributes = ['value', 'checked', 'selected', 'href', 'type', 'min', 'max', 'options', 'expanded', 'hint'];
/** The only attributes a password input may show: nothing that could carry what was typed. */
const passwordAttributes = new Set(['type', 'name', 'placeholder', 'aria-label']);
const tagPattern = /^[a-z][a-z0-9-]*$/;

/** At most this many lines of one element's text are kept. */
const maxElementLines = 500;

/** An element's text: each line as {@link oneLine} makes it, empty lines dropped, at most {@link maxElementLines}. */
function lines(value: string, limit: number): string {
  return value
    .split('\n')
    .slice(0, maxElementLines)
    .map((line) => oneLine(line, limit))
    .filter(Boolean)
    .join('\n');
}

// eslint-disable-next-line no-control-regex -- control characters are what oneLine removes
const controlCharacters = /[\u0000-\u0008\u000e-\u001f\u007f]/g;

/** Whitespace (newlines included) collapsed to single spaces, control characters dropped, cut to `limit`. */
export function oneLine(value: string, limit: number): string {
  const collapsed = value
    .replace(controlCharacters, '')
    .replace(/[\s\u2028\u2029\u0085]+/g, ' ')
    .trim();
  return collapsed.length > limit ? `${collapsed.slice(0, limit)}…` : collapsed;
}

function malformed(what: string): BrowserError {
  return new BrowserError(`The page returned a malformed snapshot (${what}); the page may have changed the snapshot script's result.`, {
    retryable: true,
  });
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function finiteOr(value: unknown, fallback: number, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.round(value)));
}

/**
 * The snapshot the script returned, checked and normalised; a `BrowserError` when it is not a
 * snapshot at all (not an object, no item list, an entry of the wrong shape).
 */
export function validateFrameSnapshot(raw: unknown, options: SnapshotScriptOptions): FrameSnapshot {
  if (!isRecord(raw)) throw malformed(`expected an object, got ${raw === null ? 'null' : typeof raw}`);
  if (!Array.isArray(raw.items)) throw malformed('no item list');
  const textLimit = Math.max(8, Math.min(100_000, Math.floor(options.maxTextLength) || 0));
  const allowed = new Set([...options.includeAttributes, ...emittedAttributes]);
  const items: SnapshotItem[] = [];
  const count = Math.min(raw.items.length, maxSnapshotItems);
  for (let position = 0; position < count; position++) {
    const item: unknown = raw.items[position];
    if (!isRecord(item)) throw malformed(`entry ${position} is not an object`);
    const depth = finiteOr(item.depth, 0, 0, maxSnapshotDepth);
    if (item.kind === 'text') {
      if (typeof item.text !== 'string') throw malformed(`text entry ${position} has no text`);
      const text = oneLine(item.text, textLimit);
      if (text) items.push({ kind: 'text', text, depth });
      continue;
    }
    if (item.kind !== 'element') throw malformed(`entry ${position} is of unknown kind`);
    if (typeof item.elementId !== 'string' || item.elementId === '' || item.elementId.length > 200) throw malformed(`element ${position} has no valid id`);
    if (typeof item.text !== 'string') throw malformed(`element ${position} has no text`);
    if (!isRecord(item.attributes)) throw malformed(`element ${position} has no attributes`);
    const tagName = typeof item.tagName === 'string' && item.tagName.length <= 64 && tagPattern.test(item.tagName) ? item.tagName : 'element';
    const password = tagName === 'input' && item.attributes.type === 'password';
    const attributes: Record<string, string> = {};
    for (const [name, value] of Object.entries(item.attributes)) {
      if (!allowed.has(name) || typeof value !== 'string') continue;
      if (password && !passwordAttributes.has(name)) continue;
      // The select's option list is longer than one value (up to 12 labels of 30 characters), and a
      // link's target comes whole: the serializer shortens it.
      attributes[name] = oneLine(value, name === 'options' ? Math.max(textLimit, 500) : name === 'href' ? 2000 : textLimit);
    }
    const element: { -readonly [K in keyof SnapshotElement]: SnapshotElement[K] } = {
      kind: 'element',
      elementId: item.elementId,
      tagName,
      attributes,
      text: lines(item.text, textLimit),
      depth,
    };
    if (typeof item.selector === 'string' && item.selector.length <= 1000) element.selector = item.selector;
    if (isRecord(item.scroll)) {
      element.scroll = { above: finiteOr(item.scroll.above, 0, 0, 1e9), below: finiteOr(item.scroll.below, 0, 0, 1e9) };
    }
    items.push(element);
  }
  const viewport = isRecord(raw.viewport) ? raw.viewport : undefined;
  const width = finiteOr(viewport?.width, 0, 0, 100_000);
  const height = finiteOr(viewport?.height, 0, 0, 100_000);
  return {
    url: typeof raw.url === 'string' ? oneLine(raw.url, 2000) : '',
    title: typeof raw.title === 'string' ? oneLine(raw.title, 500) : '',
    items,
    pixelsAbove: finiteOr(raw.pixelsAbove, 0, 0, 1e9),
    pixelsBelow: finiteOr(raw.pixelsBelow, 0, 0, 1e9),
    viewport: width > 0 && height > 0 ? { width, height } : undefined,
  };
}
