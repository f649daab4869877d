// Where a pointer can reach an element, and a click dispatched in the page when none can. The page
// side of a driver's click: drivers hit-test here before they move the mouse. Runs in the page.

import { composedParent, shadowRootOf } from '../recorder';

/** Where a click must land, relative to the element's padding box, or why no point of it can be clicked. */
export type ClickTarget =
  | { kind: 'centre' | 'offset'; x: number; y: number; coveredBy: string | null }
  | { kind: 'covered'; coveredBy: string | null }
  | { kind: 'unseen' }
  | { kind: 'disabled' };

/** The deepest element at a point of the viewport, through open and recorded closed shadow roots. */
function deepHitAt(x: number, y: number): Element | null {
  let hit = document.elementFromPoint(x, y);
  for (let depth = 0; hit && depth < 32; depth++) {
    const root = shadowRootOf(hit);
    const deeper = root?.elementFromPoint(x, y);
    if (!deeper || deeper === hit) break;
    hit = deeper;
  }
  return hit;
}

/** Whether a pointer on `hit` reaches `element`: `hit` is in it (through shadow roots), or is in a label of it. */
function hitReaches(hit: Element | null, element: Element): boolean {
  for (let node = hit, depth = 0; node && depth < 256; node = composedParent(node), depth++) {
    if (node === element) return true;
    // A click on the element's label reaches the element.
    if (node instanceof HTMLLabelElement && node.control === element) return true;
  }
  return false;
}

/**
 * Scrolls the element into view and hit-tests it (through open and recorded closed shadow roots):
 * its centre when that is the element, else the visible point of it nearest the centre, else
 * `covered` with what lies on top (a name such as `div.cookie-banner`). Hit-testing first spares
 * the wait for actionability that a covered element would time out on.
 */
export function clickTarget(element: Element): ClickTarget {
  if (element.matches(':disabled')) return { kind: 'disabled' };
  const parentOf = composedParent;
  const visibleRects = (): DOMRect[] =>
    [...element.getClientRects()].filter(
      (rect) => rect.width >= 1 && rect.height >= 1 && rect.right > 0 && rect.bottom > 0 && rect.left < window.innerWidth && rect.top < window.innerHeight,
    );
  let rects = visibleRects();
  if (rects.length === 0) {
    element.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    rects = visibleRects();
  }
  if (rects.length === 0) return { kind: 'unseen' };
  const reaches = (hit: Element | null): boolean => hitReaches(hit, element);
  const contains = (outer: Element, inner: Element): boolean => {
    for (let node: Element | null = inner, depth = 0; node && depth < 256; node = parentOf(node), depth++) if (node === outer) return true;
    return false;
  };
  /** The outermost box of the covering layer that does not hold the element, named by tag, id or classes. */
  const describe = (hit: Element | null): string | null => {
    if (!hit) return null;
    let layer = hit;
    for (
      let parent = parentOf(layer);
      parent && parent !== document.body && parent !== document.documentElement && !contains(parent, element);
      parent = parentOf(parent)
    )
      layer = parent;
    const id = layer.id ? `#${layer.id}` : '';
    const classes = [...layer.classList]
      .slice(0, id ? 1 : 2)
      .map((name) => `.${name}`)
      .join('');
    return `${layer.localName}${id}${classes}`.slice(0, 80);
  };
  const box = element.getBoundingClientRect();
  const style = window.getComputedStyle(element);
  const borderLeft = parseInt(style.borderLeftWidth || '0', 10) || 0;
  const borderTop = parseInt(style.borderTopWidth || '0', 10) || 0;
  const relative = (x: number, y: number): { x: number; y: number } => ({ x: x - box.left - borderLeft, y: y - box.top - borderTop });
  let coveredBy: string | null = null;
  for (const rect of rects.slice(0, 4)) {
    const left = Math.max(0, rect.left);
    const right = Math.min(window.innerWidth, rect.right);
    const top = Math.max(0, rect.top);
    const bottom = Math.min(window.innerHeight, rect.bottom);
    const centre = { x: (left + right) / 2, y: (top + bottom) / 2 };
    const centreHit = deepHitAt(centre.x, centre.y);
    if (reaches(centreHit)) return { kind: rect === rects[0] ? 'centre' : 'offset', ...relative(centre.x, centre.y), coveredBy };
    coveredBy ??= describe(centreHit);
    // Other points of a grid over the visible part, nearest the centre first, a pixel inside the edges.
    const fractions = [0.5, 0.3, 0.7, 0.15, 0.85, 0.03, 0.97];
    const points: { x: number; y: number }[] = [];
    for (const fx of fractions) {
      for (const fy of fractions) {
        const x = Math.min(right - 1, Math.max(left + 1, left + (right - left) * fx));
        const y = Math.min(bottom - 1, Math.max(top + 1, top + (bottom - top) * fy));
        points.push({ x, y });
      }
    }
    points.sort((a, b) => Math.hypot(a.x - centre.x, a.y - centre.y) - Math.hypot(b.x - centre.x, b.y - centre.y));
    for (const point of points) if (reaches(deepHitAt(point.x, point.y))) return { kind: 'offset', ...relative(point.x, point.y), coveredBy };
  }
  return { kind: 'covered', coveredBy };
}

/** The element a driver is about to click, and whether a trusted press has reached it since it was armed. */
let armed: { readonly element: Element; pressed: boolean } | undefined;
/** Whether the runtime came after the document's own scripts (a page a driver attached to), whose listeners then come first. */
let watchedLate = false;

/**
 * Listens, on the window and in the capture phase, for the trusted presses (`pointerdown`, `mousedown`) that reach the
 * element armed by {@link watchPresses}, by the hit test a click makes (the element, through shadow roots, or a label of
 * it). The runtime calls it as it is installed, before the page's scripts where it can, so that a page listener that
 * stops the press from propagating cannot hide it.
 */
export function installPressWatch(): void {
  watchedLate = document.readyState !== 'loading';
  const count = (event: Event): void => {
    if (!event.isTrusted || !armed || armed.pressed || !(event instanceof MouseEvent)) return;
    if (event.composedPath().includes(armed.element) || hitReaches(deepHitAt(event.clientX, event.clientY), armed.element)) armed.pressed = true;
  };
  window.addEventListener('pointerdown', count, { capture: true });
  window.addEventListener('mousedown', count, { capture: true });
}

/**
 * Arms the press watch on `element`: from now on {@link pressArrived} says whether a trusted press reached it. A driver
 * calls it as it hit-tests the element, so that after a pointer click that gave up it can tell whether the press reached
 * the page, and a page too busy to acknowledge the click in time does not get a second, dispatched one.
 */
export function watchPresses(element: Element): void {
  armed = { element, pressed: false };
}

/**
 * Whether a trusted press reached `element` since it was armed; `null` when the watch cannot tell: it was armed on another
 * element since, or the page's own listeners came first (they could have stopped a press from propagating) and saw none.
 */
export function pressArrived(element: Element): boolean | null {
  if (armed?.element !== element) return null;
  return armed.pressed ? true : watchedLate ? null : false;
}

/** A click dispatched in the page, for an element no mouse can reach; handlers run as for a real click. */
export function dispatchClick(element: Element, { button, modifiers }: { button: 'left' | 'right' | 'middle'; modifiers: string[] }): void {
  const init: MouseEventInit = {
    bubbles: true,
    cancelable: true,
    composed: true,
    button: button === 'left' ? 0 : button === 'middle' ? 1 : 2,
    altKey: modifiers.includes('Alt'),
    ctrlKey: modifiers.includes('Control'),
    metaKey: modifiers.includes('Meta'),
    shiftKey: modifiers.includes('Shift'),
  };
  if (button === 'right') element.dispatchEvent(new MouseEvent('contextmenu', init));
  else if (button === 'middle') element.dispatchEvent(new MouseEvent('auxclick', init));
  else if (modifiers.length === 0 && element instanceof HTMLElement) element.click();
  else element.dispatchEvent(new MouseEvent('click', init));
}

/** The element's box as a key that changes when it moves or resizes; empty when it has no size. */
export function boxKey(element: Element): string {
  const rect = element.getBoundingClientRect();
  return rect.width >= 1 && rect.height >= 1 ? `${rect.left},${rect.top},${rect.width},${rect.height}` : '';
}

/**
 * Waits until the element has a box of some size that stays put for a few checks, at most
 * `maxMs`: an icon whose hover style swaps its image starts 0 px wide and grows as the new image
 * loads, and a press made meanwhile lands on what lies under it. With `before` (its {@link boxKey}
 * before the pointer came), a box that has not changed needs no wait. Resolves whether it settled.
 */
export function waitForStableBox(element: Element, maxMs: number, before?: string): Promise<boolean> {
  const intervalMs = 30;
  const stableChecks = 3;
  const deadline = Date.now() + Math.max(0, Math.min(maxMs, 5000));
  let last = boxKey(element);
  if (last !== '' && last === before) return Promise.resolve(true);
  return new Promise((resolve) => {
    let same = 0;
    const check = (): void => {
      const now = boxKey(element);
      same = now !== '' && now === last ? same + 1 : 0;
      last = now;
      if (!element.isConnected) resolve(false);
      else if (same >= stableChecks) resolve(true);
      else if (Date.now() >= deadline) resolve(false);
      else setTimeout(check, intervalMs);
    };
    setTimeout(check, intervalMs);
  });
}
