// The pointer gestures beyond a click, written once for every Chromium driver: hover, double click and
// drag and drop with the real mouse, each after the runtime's hit test of its element. They do not
// settle or look for dialogs: the driver's call around them does (driver-actions.ts).

import type { ElementRef } from '../browser/types';
import { BrowserError } from '../errors';
import { firstLine } from './call';
import { staleElement } from './element-actions';
import type { RuntimeFrame } from './runtime-calls';
import type { ChromiumElement, ChromiumPage, ChromiumTransport, ElementPoint } from './transport';

/** How many small moves carry a drag from its source to its target: pages react to moves, not to a jump. */
const dragSteps = 12;

/**
 * The point of the top page's viewport where the mouse reaches the element (its centre, or another
 * visible point of it when something covers the centre); the element is scrolled into view first.
 * @throws `BrowserError` saying why no point can be reached: disabled, not visible, covered.
 */
export async function reachableViewportPoint<P extends ChromiumPage<F>, F extends RuntimeFrame & object, E extends ChromiumElement>(
  transport: ChromiumTransport<P, F, E>,
  element: E,
  ref: ElementRef,
  gesture: string,
): Promise<ElementPoint> {
  const target = await transport.onElement(element, 'clickTarget', undefined).catch((error: unknown) => {
    throw staleElement(ref, `the page changed (${firstLine(error)})`);
  });
  const named = `Element ${ref.index} (<${ref.tagName}>)`;
  if (target.kind === 'disabled') throw new BrowserError(`${named} is disabled, so it cannot be ${gesture}.`);
  if (target.kind === 'covered') {
    const layer = target.coveredBy ? JSON.stringify(target.coveredBy) : 'another element';
    throw new BrowserError(`${named} is covered by ${layer}, so the mouse cannot reach it to be ${gesture}: close ${layer} first.`, { retryable: true });
  }
  const point = target.kind === 'unseen' ? undefined : await transport.viewportPoint(element, target);
  if (!point) {
    throw new BrowserError(`${named} is not visible now (hidden, or no point of it shows), so it cannot be ${gesture}. Read the page again.`, {
      retryable: true,
    });
  }
  return point;
}

/** Moves the mouse over the element and leaves it there. */
export async function hoverElement<P extends ChromiumPage<F>, F extends RuntimeFrame & object, E extends ChromiumElement>(
  transport: ChromiumTransport<P, F, E>,
  page: P,
  element: E,
  ref: ElementRef,
): Promise<void> {
  const point = await reachableViewportPoint(transport, element, ref, 'hovered');
  await transport.mouse(page, { type: 'move', x: point.x, y: point.y, steps: 2 });
}

/** Two clicks of the left button at one point, the second with a click count of 2: the page sees click, click, dblclick. */
export async function doubleClickElement<P extends ChromiumPage<F>, F extends RuntimeFrame & object, E extends ChromiumElement>(
  transport: ChromiumTransport<P, F, E>,
  page: P,
  element: E,
  ref: ElementRef,
): Promise<void> {
  const point = await reachableViewportPoint(transport, element, ref, 'double-clicked');
  await transport.mouse(page, { type: 'move', x: point.x, y: point.y });
  for (const clickCount of [1, 2]) {
    await transport.mouse(page, { type: 'down', button: 'left', clickCount });
    await transport.mouse(page, { type: 'up', button: 'left', clickCount });
  }
}

/**
 * Presses on the source, moves in small steps onto the target and releases there. Chromium turns
 * the moves into HTML5 drag events when the page starts a drag (a draggable source), and the page's
 * own pointer and mouse listeners see them otherwise; both kinds of page work.
 */
export async function dragElement<P extends ChromiumPage<F>, F extends RuntimeFrame & object, E extends ChromiumElement>(
  transport: ChromiumTransport<P, F, E>,
  page: P,
  source: { element: E; ref: ElementRef },
  target: { element: E; ref: ElementRef },
): Promise<void> {
  let from = await reachableViewportPoint(transport, source.element, source.ref, 'dragged');
  const sourceBox = await transport.onElement(source.element, 'boxKey', undefined);
  const to = await reachableViewportPoint(transport, target.element, target.ref, 'dropped onto');
  // Bringing the target into view may have scrolled the source: measure it again.
  if ((await transport.onElement(source.element, 'boxKey', undefined)) !== sourceBox)
    from = await reachableViewportPoint(transport, source.element, source.ref, 'dragged');
  await transport.mouse(page, { type: 'move', x: from.x, y: from.y });
  await transport.mouse(page, { type: 'down', button: 'left', clickCount: 1 });
  try {
    // A first small move starts the drag (pages and Chromium wait for the pointer to leave its press point).
    await transport.mouse(page, { type: 'move', x: from.x + 4, y: from.y + 4, steps: 2 });
    await transport.mouse(page, { type: 'move', x: to.x, y: to.y, steps: dragSteps });
    // One more move on the target: a drop zone decides on dragover, which follows a move.
    await transport.mouse(page, { type: 'move', x: to.x + 1, y: to.y + 1 });
  } finally {
    await transport.mouse(page, { type: 'up', button: 'left', clickCount: 1 });
  }
}
