// The page side of the scroll actions: find what scrolls (an element, its nearest scrollable
// ancestor, the page's main scroll area or the document), measure it, scroll it; bring a frame into view.

import { findElement, isStale, type StaleAnswer } from './lookup';
import { allElements, renderedParent } from './rendered-tree';

/** What the scroll-target method is asked. */
export interface ScrollTargetRequest {
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
export type ScrollTargetAnswer =
  | StaleAnswer
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

/** The iframe to bring into view: its content box in this frame's viewport, as `FrameInfo` gives it. */
export interface FrameBox {
  readonly x: number;
  readonly y: number;
  readonly width: number | null;
  readonly height: number | null;
}

function scrollable(element: Element): boolean {
  const overflow = window.getComputedStyle(element).overflowY;
  return (overflow === 'auto' || overflow === 'scroll' || overflow === 'overlay') && element.scrollHeight > element.clientHeight + 1;
}

/** `<tag#id>`, `<tag.class>` (the first class) or `<tag>`. */
function labelOf(element: Element): string {
  const tag = element.localName;
  if (element.id) return `<${tag}#${element.id.slice(0, 60)}>`;
  const first = typeof element.className === 'string' ? element.className.trim().split(/\s+/)[0] : '';
  return first ? `<${tag}.${first.slice(0, 60)}>` : `<${tag}>`;
}

function documentScroller(): Element {
  return document.scrollingElement ?? document.documentElement;
}

/**
 * Without an element, a page whose document does not scroll may keep its content in one big
 * scroll area (single-page apps: `#app { height: 100vh; overflow: auto }`): the largest one in view.
 */
function mainScrollArea(): Element | null {
  const scroller = documentScroller();
  let best: Element | null = null;
  let bestArea = window.innerWidth * window.innerHeight * 0.25;
  const all = document.querySelectorAll('*');
  const limit = Math.min(all.length, 20000);
  for (let position = 0; position < limit; position++) {
    const candidate = all[position] as Element;
    if (candidate === scroller || !scrollable(candidate)) continue;
    const box = candidate.getBoundingClientRect();
    const width = Math.max(0, Math.min(window.innerWidth, box.right) - Math.max(0, box.left));
    const height = Math.max(0, Math.min(window.innerHeight, box.bottom) - Math.max(0, box.top));
    if (width * height > bestArea) {
      best = candidate;
      bestArea = width * height;
    }
  }
  return best;
}

/** The element itself when it scrolls, else its nearest scrollable ancestor; none when only the document scrolls. */
function scrollingAncestor(element: Element): Element | null {
  const scroller = documentScroller();
  // Bounded by the tree's depth; the html and body elements stand for the document.
  let current: Element | null = element;
  for (let depth = 0; current && depth < 10000; depth++) {
    if (current === document.documentElement || current === document.body || current === scroller) return null;
    if (scrollable(current)) return current;
    current = renderedParent(current);
  }
  return null;
}

/** Measures, and optionally scrolls, what an element (or the page) scrolls in. */
export function scrollTarget(request: ScrollTargetRequest): ScrollTargetAnswer {
  const scroller = documentScroller();
  let target: Element | null = null;
  let kind: 'element' | 'ancestor' | 'document' = 'document';
  if (request.elementId !== null) {
    const found = findElement({ elementId: request.elementId, selector: request.selector });
    if (isStale(found)) return found;
    target = scrollingAncestor(found);
    if (target) kind = target === found ? 'element' : 'ancestor';
  } else if (Math.max(0, scroller.scrollHeight - window.innerHeight) <= 1) {
    target = mainScrollArea();
    if (target) kind = 'ancestor';
  }

  const measure = (): { top: number; scrollHeight: number; viewport: number } =>
    target
      ? { top: target.scrollTop, scrollHeight: target.scrollHeight, viewport: target.clientHeight }
      : { top: scroller.scrollTop, scrollHeight: scroller.scrollHeight, viewport: window.innerHeight };
  if (request.scroll) {
    const before = measure();
    const range = Math.max(0, before.scrollHeight - before.viewport);
    const top = request.scroll.toPercent !== null ? (range * request.scroll.toPercent) / 100 : before.top + (request.scroll.deltaY ?? before.viewport);
    // Instant, whatever the page's scroll-behavior says: the position is read right after.
    if (target) target.scrollTo({ top, behavior: 'instant' });
    else window.scrollTo({ top, behavior: 'instant' });
  }
  return { status: 'ok', kind, ...measure(), label: target ? labelOf(target) : '' };
}

/** Brings the iframe whose content box is at `x`, `y` (and of this size) to the middle of the viewport. */
export function scrollFrameIntoView(box: FrameBox): boolean {
  // Frames inside shadow roots count too.
  const frames = allElements(1000, 50000).filter((element) => element.localName === 'iframe' || element.localName === 'frame');
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
