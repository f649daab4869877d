// The page script behind search_page and scroll_to_text: reads a frame's visible text in
// rendering order (open shadow roots, slots) and finds a pattern in it. Self-contained.

import { z } from 'zod';
import type { PageScript } from '../../browser/types';

/** What the page-text script is asked. */
export interface PageTextArgument {
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

/** What the page-text script found. */
export interface PageTextResult {
  /** Matches counted (at most the script's counting cap). */
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

/** Validates what the page returned (the page controls the JSON it sends back). */
export const pageTextResultSchema = z.object({
  total: z.number().int().nonnegative(),
  matches: z.array(z.object({ text: z.string(), before: z.string(), after: z.string() })).max(1000),
  truncated: z.boolean(),
  incomplete: z.boolean(),
  scrolledTo: z.string().max(200).nullable(),
});

/* v8 ignore start -- runs inside the page, where Node's coverage cannot see it */
function runPageText(argument: PageTextArgument): PageTextResult {
  const skipped = new Set(['script', 'style', 'noscript', 'template', 'head', 'title', 'iframe', 'frame', 'object', 'embed', 'select', 'textarea', 'input', 'option', 'datalist']);
  const styles = new Map<Element, CSSStyleDeclaration>();
  const styleOf = (element: Element): CSSStyleDeclaration => {
    let style = styles.get(element);
    if (!style) {
      style = window.getComputedStyle(element);
      styles.set(element, style);
    }
    return style;
  };
  const parentOf = (node: Node): Element | null => {
    if (node instanceof Element && node.assignedSlot) return node.assignedSlot;
    if (node.parentElement) return node.parentElement;
    const root = node.parentNode;
    return root && root instanceof ShadowRoot ? root.host : null;
  };
  const visibility = new Map<Element, boolean>();
  const visible = (element: Element): boolean => {
    const known = visibility.get(element);
    if (known !== undefined) return known;
    const style = styleOf(element);
    let result: boolean;
    if (style.display === 'contents') {
      // No box of its own: it shows what its parent shows, unless hidden itself.
      const parent = parentOf(element);
      result = style.visibility === 'visible' && (parent ? visible(parent) : true);
    } else if (typeof element.checkVisibility === 'function') {
      result = element.checkVisibility({ opacityProperty: true, visibilityProperty: true } as CheckVisibilityOptions);
    } else {
      result = style.visibility === 'visible' && element.getClientRects().length > 0;
    }
    visibility.set(element, result);
    return result;
  };

  // The walk: text in rendering order, block boxes on their own lines, whitespace collapsed as
  // the browser shows it. `pieces` maps positions in `text` back to text nodes (for scrolling).
  type Piece = { start: number; node: Text; lead: number; collapsed: boolean };
  const pieces: Piece[] = [];
  let text = '';
  let truncated = false;
  const lineBreak = (): void => {
    if (text.length > 0 && !text.endsWith('\n')) text += '\n';
  };
  const root = document.body ?? document.documentElement;
  const stack: { node: Node; leaving: boolean }[] = root ? [{ node: root, leaving: false }] : [];
  // Bounded by the number of nodes (each is entered and left once) and a hard cap.
  for (let steps = 0; stack.length > 0 && steps < 2_000_000; steps++) {
    const { node, leaving } = stack.pop() as { node: Node; leaving: boolean };
    if (leaving) {
      lineBreak();
      continue;
    }
    if (node.nodeType === Node.TEXT_NODE) {
      const textNode = node as Text;
      const parent = parentOf(textNode);
      if (!parent || !visible(parent)) continue;
      const preserve = styleOf(parent).whiteSpace.startsWith('pre') || styleOf(parent).whiteSpace === 'break-spaces';
      let value = preserve ? textNode.data.replace(/\r\n?/g, '\n') : textNode.data.replace(/[ \t\n\r\f]+/g, ' ');
      let lead = 0;
      if (!preserve && value.startsWith(' ') && (text.length === 0 || text.endsWith(' ') || text.endsWith('\n'))) {
        value = value.slice(1);
        lead = 1;
      }
      if (value.length === 0) continue;
      pieces.push({ start: text.length, node: textNode, lead, collapsed: !preserve });
      text += value;
      if (text.length > argument.maxTextChars) {
        text = text.slice(0, argument.maxTextChars);
        truncated = true;
        break;
      }
      continue;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) continue;
    const element = node as Element;
    if (skipped.has(element.localName)) continue;
    const style = styleOf(element);
    if (style.display === 'none') continue;
    if (element.localName === 'br') {
      text += '\n';
      continue;
    }
    const display = style.display;
    if (display === 'table-cell' && text.length > 0 && !/[ \n]$/.test(text)) text += ' ';
    const block = display !== 'contents' && !display.startsWith('inline') && !display.startsWith('ruby') && display !== 'table-cell';
    if (block) {
      lineBreak();
      stack.push({ node: element, leaving: true });
    }
    let children: ArrayLike<Node>;
    if (element.shadowRoot) children = element.shadowRoot.childNodes;
    else if (element instanceof HTMLSlotElement) {
      const assigned = element.assignedNodes();
      children = assigned.length > 0 ? assigned : element.childNodes;
    } else children = element.childNodes;
    for (let position = children.length - 1; position >= 0; position--) stack.push({ node: children[position] as Node, leaving: false });
  }

  const flags = argument.flags.includes('g') ? argument.flags : `${argument.flags}g`;
  const pattern = new RegExp(argument.source, flags);
  const matches: PageTextMatch[] = [];
  const started = Date.now();
  const countCap = 10000;
  let total = 0;
  let incomplete = false;
  let target: { index: number; length: number } | undefined;
  // Bounded: lastIndex only moves forward, and empty matches step it on by one.
  for (let steps = 0; steps <= text.length + 1; steps++) {
    const match = pattern.exec(text);
    if (!match) break;
    if (match[0].length === 0) {
      pattern.lastIndex = match.index + 1;
      continue;
    }
    total++;
    if (argument.mode === 'search' && matches.length < argument.maxResults) {
      const end = match.index + match[0].length;
      matches.push({
        text: match[0].slice(0, 300),
        before: text.slice(Math.max(0, match.index - argument.contextChars), match.index),
        after: text.slice(end, end + argument.contextChars),
      });
    }
    if (argument.mode === 'scroll' && total === argument.nth) {
      target = { index: match.index, length: match[0].length };
      break;
    }
    if (total >= countCap || Date.now() - started > argument.timeBudgetMs) {
      incomplete = true;
      break;
    }
  }

  let scrolledTo: string | null = null;
  if (target) {
    // The text node holding the match's first character: the last piece starting at or before it.
    let low = 0;
    let high = pieces.length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if ((pieces[middle] as Piece).start <= target.index) low = middle;
      else high = middle - 1;
    }
    const piece = pieces[low];
    if (piece) {
      // From a position in the collapsed text back to one in the node's own text.
      const rawOffset = (wanted: number): number => {
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
      };
      const startInPiece = target.index - piece.start + piece.lead;
      const startOffset = rawOffset(startInPiece);
      const endOffset = Math.max(startOffset, rawOffset(startInPiece + target.length));
      const range = document.createRange();
      range.setStart(piece.node, startOffset);
      range.setEnd(piece.node, endOffset);
      const holder = parentOf(piece.node);
      if (holder) {
        holder.scrollIntoView({ block: 'center', inline: 'nearest', behavior: 'instant' });
        // A tall element is centred as a whole; move the window so the match itself is in the middle.
        const box = range.getBoundingClientRect();
        const middle = box.top + box.height / 2;
        if (box.height > 0 && (middle < window.innerHeight * 0.25 || middle > window.innerHeight * 0.75)) {
          window.scrollBy({ top: middle - window.innerHeight / 2, behavior: 'instant' });
        }
        scrolledTo = `<${holder.localName}>`;
      }
    }
  }
  return { total, matches, truncated, incomplete, scrolledTo };
}
/* v8 ignore stop */

/** Searches (or scrolls to) a pattern in the visible text of one frame. */
export const pageTextScript: PageScript<PageTextArgument, PageTextResult> = {
  id: 'plannav.page-text@1',
  run: runPageText,
};
