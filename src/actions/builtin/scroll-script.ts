// Page scripts of the scroll actions: find what scrolls (an element, its nearest scrollable
// ancestor, the page's main scroll area or the document), measure it, scroll it. Self-contained.

import { z } from 'zod';
import type { PageScript } from '../../browser/types';

/** What the scroll-target script is asked. */
export interface ScrollTargetArgument {
  /** The snapshot element id of the element the model named; `null` for the page. */
  readonly elementId: string | null;
  /** The element's selector, used only when the page lost the snapshot's element map. */
  readonly selector: string | null;
  /** Scroll the target (else only measure): to a percentage, or by pixels. */
  readonly scroll: { readonly toPercent: number | null; readonly deltaY: number | null } | null;
}

/**
 * Where the target stands. `kind`: `element` (the named element scrolls), `ancestor` (its nearest
 * scrollable ancestor, or without an element the page's main scroll area when the document itself
 * does not scroll) or `document` (the frame's document, which may not scroll at all).
 */
export type ScrollTargetResult =
  | { readonly status: 'stale'; readonly reason: string }
  | {
      readonly status: 'ok';
      readonly kind: 'element' | 'ancestor' | 'document';
      /** Pixels scrolled from the top. */
      readonly top: number;
      /** The full height of the content. */
      readonly scrollHeight: number;
      /** The height of what shows at once (the window's or the element's client height). */
      readonly viewport: number;
      /** The target as `<tag#id>`, `<tag.class>` or `<tag>`; empty for the document. */
      readonly label: string;
    };

/** Validates what the page returned (the page controls the JSON it sends back). */
export const scrollTargetResultSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('stale'), reason: z.string().max(200) }),
  z.object({
    status: z.literal('ok'),
    kind: z.enum(['element', 'ancestor', 'document']),
    top: z.number().finite(),
    scrollHeight: z.number().finite(),
    viewport: z.number().finite(),
    label: z.string().max(200),
  }),
]);

/** The iframe to bring into view: its content box in this frame's viewport, as `FrameInfo` gives it. */
export interface FrameBoxArgument {
  readonly x: number;
  readonly y: number;
  readonly width: number | null;
  readonly height: number | null;
}

/* v8 ignore start -- page functions: they run inside the page, where Node's coverage cannot see them */
function runScrollTarget(argument: ScrollTargetArgument): ScrollTargetResult {
  const scrollable = (element: Element): boolean => {
    const overflow = window.getComputedStyle(element).overflowY;
    return (overflow === 'auto' || overflow === 'scroll' || overflow === 'overlay') && element.scrollHeight > element.clientHeight + 1;
  };
  const label = (element: Element): string => {
    const tag = element.localName;
    if (element.id) return `<${tag}#${element.id.slice(0, 60)}>`;
    const first = typeof element.className === 'string' ? element.className.trim().split(/\s+/)[0] : '';
    return first ? `<${tag}.${first.slice(0, 60)}>` : `<${tag}>`;
  };
  // The parent in the rendered tree: a slotted element's slot, a shadow root's host.
  const parentOf = (element: Element): Element | null => {
    if (element.assignedSlot) return element.assignedSlot;
    if (element.parentElement) return element.parentElement;
    const root = element.parentNode;
    return root && root instanceof ShadowRoot ? root.host : null;
  };
  const findElement = (): Element | string => {
    type State = { token?: string; elements?: Map<string, WeakRef<Element>> };
    const state = (window as unknown as Record<string, State | undefined>)['__plannavSnapshot'];
    const elementId = argument.elementId ?? '';
    if (!state || !state.token || !elementId.startsWith(`${state.token}-`)) return 'the page has loaded a new document since';
    const reference = state.elements?.get(elementId);
    const element = reference?.deref();
    if (element && element.isConnected) return element;
    if (!reference && argument.selector) {
      try {
        const found = document.querySelector(argument.selector);
        if (found) return found;
      } catch {
        // an invalid selector is no fallback
      }
    }
    return 'it was removed from the page';
  };
  const documentScroller = document.scrollingElement ?? document.documentElement;
  const documentRange = (): number => Math.max(0, documentScroller.scrollHeight - window.innerHeight);
  // Without an element, a page whose document does not scroll may keep its content in one big
  // scroll area (single-page apps: `#app { height: 100vh; overflow: auto }`): the largest one in view.
  const mainScrollArea = (): Element | null => {
    let best: Element | null = null;
    let bestArea = window.innerWidth * window.innerHeight * 0.25;
    const all = document.querySelectorAll('*');
    const limit = Math.min(all.length, 20000);
    for (let position = 0; position < limit; position++) {
      const candidate = all[position] as Element;
      if (candidate === documentScroller) continue;
      if (!scrollable(candidate)) continue;
      const box = candidate.getBoundingClientRect();
      const width = Math.max(0, Math.min(window.innerWidth, box.right) - Math.max(0, box.left));
      const height = Math.max(0, Math.min(window.innerHeight, box.bottom) - Math.max(0, box.top));
      if (width * height > bestArea) {
        best = candidate;
        bestArea = width * height;
      }
    }
    return best;
  };

  let target: Element | null = null;
  let kind: 'element' | 'ancestor' | 'document' = 'document';
  if (argument.elementId !== null) {
    const found = findElement();
    if (typeof found === 'string') return { status: 'stale', reason: found };
    // Bounded by the tree's depth; the html and body elements stand for the document.
    let current: Element | null = found;
    for (let depth = 0; current && depth < 10000; depth++) {
      if (current === document.documentElement || current === document.body || current === documentScroller) break;
      if (scrollable(current)) {
        target = current;
        kind = current === found ? 'element' : 'ancestor';
        break;
      }
      current = parentOf(current);
    }
  } else if (documentRange() <= 1) {
    target = mainScrollArea();
    if (target) kind = 'ancestor';
  }

  const measure = (): { top: number; scrollHeight: number; viewport: number } =>
    target
      ? { top: target.scrollTop, scrollHeight: target.scrollHeight, viewport: target.clientHeight }
      : { top: documentScroller.scrollTop, scrollHeight: documentScroller.scrollHeight, viewport: window.innerHeight };
  if (argument.scroll) {
    const before = measure();
    const range = Math.max(0, before.scrollHeight - before.viewport);
    const top =
      argument.scroll.toPercent !== null ? (range * argument.scroll.toPercent) / 100 : before.top + (argument.scroll.deltaY ?? before.viewport);
    // Instant, whatever the page's scroll-behavior says: the position is read right after.
    if (target) target.scrollTo({ top, behavior: 'instant' });
    else window.scrollTo({ top, behavior: 'instant' });
  }
  const after = measure();
  return { status: 'ok', kind, ...after, label: target ? label(target) : '' };
}

/** Brings the iframe whose content box is at `x`, `y` (and of this size) to the middle of the viewport. */
function runScrollFrameIntoView(box: FrameBoxArgument): boolean {
  const frames: Element[] = [];
  // Frames inside open shadow roots count too; the walk is bounded by the number of elements.
  const roots: (Document | ShadowRoot)[] = [document];
  for (let position = 0; position < roots.length && position < 1000; position++) {
    const root = roots[position] as Document | ShadowRoot;
    const all = root.querySelectorAll('*');
    for (let index = 0; index < all.length && index < 50000; index++) {
      const element = all[index] as Element;
      if (element.localName === 'iframe' || element.localName === 'frame') frames.push(element);
      if (element.shadowRoot) roots.push(element.shadowRoot);
    }
  }
  const near = (a: number, b: number | null): boolean => b === null || Math.abs(a - b) < 2;
  for (const frame of frames) {
    const rect = frame.getBoundingClientRect();
    const style = window.getComputedStyle(frame);
    const paddingLeft = parseFloat(style.paddingLeft || '0');
    const paddingTop = parseFloat(style.paddingTop || '0');
    const x = rect.left + frame.clientLeft + paddingLeft;
    const y = rect.top + frame.clientTop + paddingTop;
    const width = frame.clientWidth - paddingLeft - parseFloat(style.paddingRight || '0');
    const height = frame.clientHeight - paddingTop - parseFloat(style.paddingBottom || '0');
    if (near(x, box.x) && near(y, box.y) && near(width, box.width) && near(height, box.height)) {
      frame.scrollIntoView({ block: 'center', inline: 'nearest', behavior: 'instant' });
      return true;
    }
  }
  return false;
}
/* v8 ignore stop */

/** Measures, and optionally scrolls, what an element (or the page) scrolls in. */
export const scrollTargetScript: PageScript<ScrollTargetArgument, ScrollTargetResult> = {
  id: 'plannav.scroll-target@1',
  run: runScrollTarget,
};

/** Scrolls an iframe element into the middle of its parent's viewport, found by its content box. */
export const scrollFrameIntoViewScript: PageScript<FrameBoxArgument, boolean> = {
  id: 'plannav.scroll-frame-into-view@1',
  run: runScrollFrameIntoView,
};
