// Whether an element is what the viewport shows at its position, or lies under a fixed bar, a
// popover, a modal or a cookie wall. Runs in the page; hit-tests with elementFromPoint.

import { meet, type Box } from './geometry';

/** A layer that may cover other elements: fixed and sticky bars, stacked absolute layers, modal dialogs. */
export interface Occluder {
  readonly element: Element;
  readonly box: Box;
}

/** True when the element, or something inside it, is what the viewport shows at its visible part. */
export function isTopMost(element: Element, box: Box, clip: Box, viewport: Box, occluders: readonly Occluder[]): boolean {
  const visible = meet(meet(box, viewport), clip);
  const width = visible.right - visible.left;
  const height = visible.bottom - visible.top;
  if (width < 1 || height < 1) return true; // outside the viewport: cannot hit-test
  const root = element.getRootNode() as Document | ShadowRoot;
  const hitTester = typeof root.elementFromPoint === 'function' ? root : document;
  const points: [number, number][] = [[visible.left + width / 2, visible.top + height / 2]];
  if (width > 8 && height > 8) {
    points.push(
      [visible.left + 4, visible.top + 4],
      [visible.right - 4, visible.bottom - 4],
      [visible.left + 4, visible.bottom - 4],
      [visible.right - 4, visible.top + 4],
    );
  }
  const coversAll = (occluder: Occluder): boolean =>
    occluder.box.top <= visible.top && occluder.box.bottom >= visible.bottom && occluder.box.left <= visible.left && occluder.box.right >= visible.right;
  for (const [x, y] of points) {
    const hit = hitTester.elementFromPoint(x, y);
    if (hit && (hit === element || element.contains(hit))) return true;
    // Under a layer that covers the whole element (a modal, a cookie wall): no other point can win.
    if (hit && occluders.some((occluder) => (occluder.element === hit || occluder.element.contains(hit)) && coversAll(occluder))) return false;
  }
  return false;
}
