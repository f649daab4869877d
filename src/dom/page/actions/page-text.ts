// The page side of search_page and scroll_to_text: reads a frame's visible text in rendering order
// (shadow roots, slots) and finds a pattern in it; scrolls a match into view when asked.

import { renderedChildren, renderedParent } from './rendered-tree';

/** What the page-text method is asked. */
export interface PageTextRequest {
  /** The pattern as regular-expression source, built and checked in Node. */
  readonly source: string;
  /** The regular-expression flags (`g` is added in the page). */
  readonly flags: string;
  /** `search` lists matches with context; `scroll` brings match `nth` to the middle of the view. */
  readonly mode: 'search' | 'scroll';
  /** The 1-based match to scroll to (mode `scroll`). */
  readonly nth: number;
  /** Characters of context on each side of a listed match. */
  readonly contextChars: number;
  /** How many matches to list (mode `search`); the rest are only counted. */
  readonly maxResults: number;
  /** The page text read at most, in characters: a bound on time and memory. */
  readonly maxTextChars: number;
  /** Milliseconds the matching may take before it stops and says so. */
  readonly timeBudgetMs: number;
}

/** One listed match. */
export interface PageTextMatch {
  readonly text: string;
  readonly before: string;
  readonly after: string;
}

/** What the page-text method found. */
export interface PageTextAnswer {
  /** Matches counted (at most the counting cap). */
  readonly total: number;
  /** The listed matches (mode `search`). */
  readonly matches: readonly PageTextMatch[];
  /** The page held more text than `maxTextChars`: the rest was not searched. */
  readonly truncated: boolean;
  /** The matching ran out of time or hit the counting cap: `total` is a lower bound. */
  readonly incomplete: boolean;
  /** Mode `scroll`: the element holding the match, as `<tag>`, when it was scrolled to. */
  readonly scrolledTo: string | null;
}

/** Elements whose content is not page text (form fields show values, not text). */
const skipped = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'head',
  'title',
  'iframe',
  'frame',
  'object',
  'embed',
  'select',
  'textarea',
  'input',
  'option',
  'datalist',
]);
/** Matches counted at most. */
const countCap = 10000;
/** Nodes the walk enters at most (each is entered and left once). */
const maxSteps = 2_000_000;

/** A run of `text` that comes from one text node: where it starts, and how to map back into the node. */
interface Piece {
  readonly start: number;
  readonly node: Text;
  /** Characters of the node's text left out at its start (a space folded into the one before). */
  readonly lead: number;
  /** The node's whitespace was folded (not `white-space: pre`). */
  readonly collapsed: boolean;
}

/** The visible text of a frame, read once with computed styles cached. */
class TextReader {
  text = '';
  truncated = false;
  readonly pieces: Piece[] = [];
  private readonly styles = new Map<Element, CSSStyleDeclaration>();
  private readonly visibility = new Map<Element, boolean>();

  constructor(private readonly maxChars: number) {}

  styleOf(element: Element): CSSStyleDeclaration {
    let style = this.styles.get(element);
    if (!style) {
      style = window.getComputedStyle(element);
      this.styles.set(element, style);
    }
    return style;
  }

  visible(element: Element): boolean {
    const known = this.visibility.get(element);
    if (known !== undefined) return known;
    const style = this.styleOf(element);
    let result: boolean;
    if (style.display === 'contents') {
      // No box of its own: it shows what its parent shows, unless hidden itself.
      const parent = renderedParent(element);
      result = style.visibility === 'visible' && (parent ? this.visible(parent) : true);
    } else if (typeof element.checkVisibility === 'function') {
      result = element.checkVisibility({ opacityProperty: true, visibilityProperty: true });
    } else {
      result = style.visibility === 'visible' && element.getClientRects().length > 0;
    }
    this.visibility.set(element, result);
    return result;
  }

  private lineBreak(): void {
    if (this.text.length > 0 && !this.text.endsWith('\n')) this.text += '\n';
  }

  /** Adds a text node's visible text; false once the text is full. */
  private addText(node: Text): boolean {
    const parent = renderedParent(node);
    if (!parent || !this.visible(parent)) return true;
    const whiteSpace = this.styleOf(parent).whiteSpace;
    const preserve = whiteSpace.startsWith('pre') || whiteSpace === 'break-spaces';
    let value = preserve ? node.data.replace(/\r\n?/g, '\n') : node.data.replace(/[ \t\n\r\f]+/g, ' ');
    let lead = 0;
    if (!preserve && value.startsWith(' ') && (this.text.length === 0 || this.text.endsWith(' ') || this.text.endsWith('\n'))) {
      value = value.slice(1);
      lead = 1;
    }
    if (value.length === 0) return true;
    this.pieces.push({ start: this.text.length, node, lead, collapsed: !preserve });
    this.text += value;
    if (this.text.length > this.maxChars) {
      this.text = this.text.slice(0, this.maxChars);
      this.truncated = true;
      return false;
    }
    return true;
  }

  /** The walk: text in rendering order, block boxes on their own lines, whitespace folded as the browser shows it. */
  read(root: Element): void {
    const stack: { node: Node; leaving: boolean }[] = [{ node: root, leaving: false }];
    for (let steps = 0; stack.length > 0 && steps < maxSteps; steps++) {
      const { node, leaving } = stack.pop() as { node: Node; leaving: boolean };
      if (leaving) {
        this.lineBreak();
        continue;
      }
      if (node.nodeType === Node.TEXT_NODE) {
        if (!this.addText(node as Text)) return;
        continue;
      }
      if (node.nodeType !== Node.ELEMENT_NODE) continue;
      const element = node as Element;
      if (skipped.has(element.localName)) continue;
      const display = this.styleOf(element).display;
      if (display === 'none') continue;
      if (element.localName === 'br') {
        this.text += '\n';
        continue;
      }
      if (display === 'table-cell' && this.text.length > 0 && !/[ \n]$/.test(this.text)) this.text += ' ';
      const block = display !== 'contents' && !display.startsWith('inline') && !display.startsWith('ruby') && display !== 'table-cell';
      if (block) {
        this.lineBreak();
        stack.push({ node: element, leaving: true });
      }
      const children = renderedChildren(element);
      for (let position = children.length - 1; position >= 0; position--) stack.push({ node: children[position] as Node, leaving: false });
    }
  }
}

/** The matches of the pattern in the text: listed (mode `search`) or the one to scroll to (mode `scroll`). */
function findMatches(
  text: string,
  request: PageTextRequest,
): { total: number; matches: PageTextMatch[]; incomplete: boolean; target: { index: number; length: number } | undefined } {
  const flags = request.flags.includes('g') ? request.flags : `${request.flags}g`;
  const pattern = new RegExp(request.source, flags);
  const matches: PageTextMatch[] = [];
  const started = Date.now();
  let total = 0;
  let incomplete = false;
  // Bounded: lastIndex only moves forward, and empty matches step it on by one.
  for (let steps = 0; steps <= text.length + 1; steps++) {
    const match = pattern.exec(text);
    if (!match) break;
    if (match[0].length === 0) {
      pattern.lastIndex = match.index + 1;
      continue;
    }
    total++;
    if (request.mode === 'search' && matches.length < request.maxResults) {
      const end = match.index + match[0].length;
      matches.push({
        text: match[0].slice(0, 300),
        before: text.slice(Math.max(0, match.index - request.contextChars), match.index),
        after: text.slice(end, end + request.contextChars),
      });
    }
    if (request.mode === 'scroll' && total === request.nth) return { total, matches, incomplete, target: { index: match.index, length: match[0].length } };
    if (total >= countCap || Date.now() - started > request.timeBudgetMs) {
      incomplete = true;
      break;
    }
  }
  return { total, matches, incomplete, target: undefined };
}

/** From a position in a piece's folded text back to an offset in its node's own text. */
function rawOffset(piece: Piece, wanted: number): number {
  if (!piece.collapsed) return Math.min(wanted, piece.node.data.length);
  const raw = piece.node.data;
  let position = 0;
  let offset = 0;
  while (offset < raw.length && position < wanted) {
    if (/[ \t\n\r\f]/.test(raw[offset] as string)) while (offset < raw.length && /[ \t\n\r\f]/.test(raw[offset] as string)) offset++;
    else offset++;
    position++;
  }
  return offset;
}

/** Scrolls the match into the middle of the view; returns its holder as `<tag>`, or null. */
function scrollToMatch(pieces: readonly Piece[], target: { index: number; length: number }): string | null {
  // The text node holding the match's first character: the last piece starting at or before it.
  let low = 0;
  let high = pieces.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if ((pieces[middle] as Piece).start <= target.index) low = middle;
    else high = middle - 1;
  }
  const piece = pieces[low];
  if (!piece) return null;
  const startInPiece = target.index - piece.start + piece.lead;
  const startOffset = rawOffset(piece, startInPiece);
  const endOffset = Math.max(startOffset, rawOffset(piece, startInPiece + target.length));
  const range = document.createRange();
  range.setStart(piece.node, startOffset);
  range.setEnd(piece.node, endOffset);
  const holder = renderedParent(piece.node);
  if (!holder) return null;
  holder.scrollIntoView({ block: 'center', inline: 'nearest', behavior: 'instant' });
  // A tall element is centred as a whole; move the window so the match itself is in the middle.
  const box = range.getBoundingClientRect();
  const middle = box.top + box.height / 2;
  if (box.height > 0 && (middle < window.innerHeight * 0.25 || middle > window.innerHeight * 0.75)) {
    window.scrollBy({ top: middle - window.innerHeight / 2, behavior: 'instant' });
  }
  return `<${holder.localName}>`;
}

/** Searches (or scrolls to) a pattern in the visible text of this frame. */
export function pageText(request: PageTextRequest): PageTextAnswer {
  const reader = new TextReader(request.maxTextChars);
  const root = document.body ?? document.documentElement;
  if (root) reader.read(root);
  const { total, matches, incomplete, target } = findMatches(reader.text, request);
  const scrolledTo = target ? scrollToMatch(reader.pieces, target) : null;
  return { total, matches, truncated: reader.truncated, incomplete, scrolledTo };
}
