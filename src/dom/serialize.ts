// Turns frame snapshots into the text the model reads and the index→element map actions use.
// Indices are kept stable across snapshots while an element lives; new elements are marked `*`.

import type { ElementRef } from '../browser/types';
import { shortenLinks } from './links';
import type { FrameSnapshot, SnapshotElement } from './types';

/** A frame snapshot and the frame it came from. */
export interface FrameSnapshotInput {
  readonly frameId: string;
  readonly snapshot: FrameSnapshot;
}

/** The model's view of a page. */
export interface SerializedPage {
  /** One line per indexed element and the page text between them. */
  readonly text: string;
  /** The element behind each index in `text`. */
  readonly elements: ReadonlyMap<number, ElementRef>;
  /** Indices that were not in the previous snapshot. */
  readonly newIndices: ReadonlySet<number>;
}

/** A quoted attribute value that stays on its line: backslashes, quotes and line breaks escaped. */
function quote(value: string): string {
  const escaped = value.replace(/[\\"\n\r\u2028\u2029]/g, (character) =>
    character === '\n' ? '\\n' : character === '\r' ? '\\r' : character === '\u2028' ? '\\u2028' : character === '\u2029' ? '\\u2029' : `\\${character}`,
  );
  return `"${escaped}"`;
}

/** The longest `text` of an element ref: enough to tell elements apart, short enough to keep a state small. */
const maxRefTextLength = 100;

/** An element's text as its ref carries it: one line, cut to {@link maxRefTextLength} characters (not inside a surrogate pair). */
function refText(text: string): string {
  const line = text.split('\n').join(' / ');
  if (line.length <= maxRefTextLength) return line;
  let end = maxRefTextLength - 1;
  const last = line.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${line.slice(0, end)}…`;
}

/** Options of {@link ElementIndexer}. */
export interface ElementIndexerOptions {
  /**
   * How link URLs (`href`) are shown: `'short'` drops tracking parameters and cuts long ones in
   * the middle, never giving two destinations the same text (see links.ts); `'full'` shows them
   * as the page sent them, for measurements.
   * @default 'short'
   */
  readonly links?: 'short' | 'full' | undefined;
}

/** Each link element's attributes with its href as links.ts shows it, chosen over the whole page at once. */
function withShortLinks(frames: readonly FrameSnapshotInput[]): Map<SnapshotElement, Readonly<Record<string, string>>> {
  const links = frames.flatMap(({ snapshot }) =>
    snapshot.items.flatMap((item) => (item.kind === 'element' && item.attributes.href !== undefined ? [{ item, documentUrl: snapshot.url }] : [])),
  );
  const shown = shortenLinks(links.map(({ item, documentUrl }) => ({ href: item.attributes.href as string, text: item.text, documentUrl })));
  return new Map(
    links.map(({ item }, position) => {
      const href = shown[position];
      // The href keeps its place; it is left out where the link's text already is its address.
      const attributes = Object.entries(item.attributes).flatMap(([name, value]) =>
        name !== 'href' ? [[name, value]] : href === undefined ? [] : [[name, href]],
      );
      return [item, Object.fromEntries(attributes) as Record<string, string>];
    }),
  );
}

/**
 * A line of page text that cannot pass for an element line: a page whose text starts a line with
 * `[98]<button>` gets `[98] <button>`, which no element line looks like.
 */
function neutral(line: string): string {
  return line.replace(/^(\*?\[\d+\])</, '$1 <');
}

/**
 * Hands out indices for page elements and keeps them while the elements live, so the numbers
 * the model saw stay valid from one snapshot to the next. One indexer serves one tab session.
 */
export class ElementIndexer {
  /** Every element seen, by frame and element id, oldest first; an id is never given to another element. */
  private readonly indices = new Map<string, number>();
  /** How many elements are remembered; the least recently seen are forgotten beyond it. */
  private readonly memory = 20_000;
  private nextIndex = 1;
  private snapshots = 0;

  constructor(private readonly options: ElementIndexerOptions = {}) {}

  /**
   * Serialises the frames, assigning indices. An element that leaves the view (scrolled away,
   * covered by a dialog) and comes back while it lives gets its old index again, unmarked: only
   * elements never seen before count as new.
   */
  serialize(frames: readonly FrameSnapshotInput[]): SerializedPage {
    const seen = new Map<string, number>();
    const elements = new Map<number, ElementRef>();
    const newIndices = new Set<number>();
    const lines: string[] = [];
    const markNew = this.snapshots > 0;
    const linkAttributes = this.options.links === 'full' ? undefined : withShortLinks(frames);
    frames.forEach(({ frameId, snapshot }, position) => {
      // Child frames follow the top frame, between boundary lines, so the model sees where an
      // iframe's content starts and ends (a payment form, an embedded login).
      const child = position > 0;
      if (child && snapshot.items.length === 0) return;
      if (child) lines.push(`--- iframe ${snapshot.url} ---`);
      for (const item of snapshot.items) {
        const indent = '\t'.repeat(Math.min(50, Math.max(0, Math.floor(item.depth) || 0)));
        if (item.kind === 'text') {
          lines.push(indent + neutral(item.text));
          continue;
        }
        const key = `${frameId}\u0000${item.elementId}`;
        let index = this.indices.get(key);
        if (index === undefined) {
          index = this.nextIndex++;
          if (markNew) newIndices.add(index);
        }
        seen.set(key, index);
        elements.set(index, { index, frameId, elementId: item.elementId, tagName: item.tagName, text: refText(item.text), selector: item.selector });
        const attributes = Object.entries(linkAttributes?.get(item) ?? item.attributes)
          .map(([name, value]) => (value === '' ? ` ${name}` : ` ${name}=${quote(value)}`))
          .join('');
        const marker = newIndices.has(index) ? '*' : '';
        const scroll = item.scroll ? ` (scrollable: ${item.scroll.above}px above, ${item.scroll.below}px below)` : '';
        // An element's text keeps its lines: the first on the element's line, the rest below it,
        // one level deeper, so a list item's sender, subject and preview read as three lines.
        const [first = '', ...rest] = item.text.split('\n');
        const more = rest.map((line) => `\n${indent}\t${neutral(line)}`).join('');
        lines.push(`${indent}${marker}[${index}]<${item.tagName}${attributes}>${first}${more} />${scroll}`);
      }
      if (child) lines.push('--- end of iframe ---');
    });
    for (const [key, index] of seen) {
      this.indices.delete(key); // re-inserted last: the most recently seen are kept longest
      this.indices.set(key, index);
    }
    for (const key of this.indices.keys()) {
      if (this.indices.size <= this.memory) break;
      this.indices.delete(key);
    }
    this.snapshots++;
    return { text: lines.join('\n'), elements, newIndices };
  }
}
