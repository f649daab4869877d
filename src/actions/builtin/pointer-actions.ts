// The pointer actions beyond click_element: hover, double and right click, drag and drop by index, and
// a click at viewport coordinates (for vision, where no index fits). Each says what it did and where
// the browser is now; a driver that lacks the gesture gets a result saying so.

import { z } from 'zod';
import type { ElementRef } from '../../browser/types';
import { callRuntime } from '../../dom/page-runtime';
import { ActionError } from '../../errors';
import { defineAction } from '../define-action';
import type { ActionContext, ActionResult } from '../types';
import { clickTargetAnswerSchema } from './click-element';
import { describeMove, elementArgument, runElementScript, staleElementError, whereabouts } from './element-script';

const indexSchema = z.number().int().nonnegative();

/** The recoverable error of an action whose gesture this driver does not have. */
export function driverCannot(action: string, member: string, gesture: string): ActionError {
  return new ActionError(
    action,
    `This browser driver cannot ${gesture}: it has no ${member}() member. Use another way (or a driver that implements it, such as PlaywrightDriver or PuppeteerDriver).`,
  );
}

/**
 * The element the model meant, checked in its page before the gesture (as click_element does), and
 * named as the page names it: `element 4 (<button> "Account")`.
 * @throws `ActionError` (recoverable) when it is gone.
 */
async function presentElement(context: ActionContext, action: string, index: number, ref: ElementRef): Promise<string> {
  const target = await runElementScript(context, ref.frameId, 'clickTarget', elementArgument(ref), clickTargetAnswerSchema);
  if (target.status === 'stale') throw staleElementError(action, ref, target.reason);
  return `element ${index} (${target.description})`;
}

/** Runs a gesture, then says what it did and whether the browser moved (another page, a tab); the step stops either way when asked. */
async function gestureResult(context: ActionContext, done: string, run: () => Promise<unknown>, alwaysStop: boolean): Promise<ActionResult> {
  const before = await whereabouts(context);
  await run();
  const move = describeMove(before, await whereabouts(context).catch(() => before));
  return { extractedContent: `${done}.${move.text}`, includeInMemory: true, ...(alwaysStop || move.moved ? { stopSequence: true } : {}) };
}

/** Moves the mouse over an element: menus and tooltips that open on hover. */
export const hoverElementAction = defineAction({
  name: 'hover_element',
  description:
    'Move the mouse over an element by its index and leave it there, for menus, tooltips and previews that open on hover; what opened shows in the next page state.',
  schema: z.object({ index: indexSchema.describe('The index of the element to hover over, from the current page state') }),
  handler: async ({ index }, context) => {
    const ref = context.element(index);
    const hover = context.driver.hover?.bind(context.driver);
    if (!hover) throw driverCannot('hover_element', 'hover', 'hover over elements');
    const name = await presentElement(context, 'hover_element', index, ref);
    // What opens on hover is read in the next state: the rest of the step's actions wait for it.
    return gestureResult(context, `Hovered over ${name}; the mouse stays there`, () => hover(ref, { signal: context.signal }), true);
  },
});

/** A double click: the dblclick event, detail 2. */
export const doubleClickElementAction = defineAction({
  name: 'double_click_element',
  description: 'Double-click an element by its index: to edit a cell or a title in place, or open an item, where one click does not.',
  schema: z.object({ index: indexSchema.describe('The index of the element to double-click, from the current page state') }),
  handler: async ({ index }, context) => {
    const ref = context.element(index);
    const doubleClick = context.driver.doubleClick?.bind(context.driver);
    if (!doubleClick) throw driverCannot('double_click_element', 'doubleClick', 'double-click');
    const name = await presentElement(context, 'double_click_element', index, ref);
    return gestureResult(context, `Double-clicked ${name}`, () => doubleClick(ref, { signal: context.signal }), false);
  },
});

/** A right click: the page's own context menu. */
export const rightClickElementAction = defineAction({
  name: 'right_click_element',
  description: "Right-click an element by its index, to open the page's own context menu; its items show in the next page state.",
  schema: z.object({ index: indexSchema.describe('The index of the element to right-click, from the current page state') }),
  handler: async ({ index }, context) => {
    const ref = context.element(index);
    const name = await presentElement(context, 'right_click_element', index, ref);
    return gestureResult(context, `Right-clicked ${name}`, () => context.driver.click(ref, { button: 'right', signal: context.signal }), true);
  },
});

/** Drags one element onto another. */
export const dragAndDropAction = defineAction({
  name: 'drag_and_drop',
  description: 'Drag an element by its index and drop it onto another element: move a card to a column, reorder a list, drop a file onto a zone.',
  schema: z.object({
    index: indexSchema.describe('The index of the element to drag, from the current page state'),
    targetIndex: indexSchema.describe('The index of the element to drop it onto, from the current page state'),
  }),
  handler: async ({ index, targetIndex }, context) => {
    if (targetIndex === index)
      throw new ActionError('drag_and_drop', `Element ${index} cannot be dropped onto itself: give the index of where it goes as targetIndex.`);
    const source = context.element(index);
    let target: ElementRef;
    try {
      target = context.element(targetIndex);
    } catch {
      throw new ActionError(
        'drag_and_drop',
        `There is no element with index ${targetIndex} (targetIndex) on the page you saw. Use an index from the current state.`,
      );
    }
    const dragAndDrop = context.driver.dragAndDrop?.bind(context.driver);
    if (!dragAndDrop) throw driverCannot('drag_and_drop', 'dragAndDrop', 'drag and drop');
    const from = await presentElement(context, 'drag_and_drop', index, source);
    const onto = await presentElement(context, 'drag_and_drop', targetIndex, target);
    return gestureResult(context, `Dragged ${from} onto ${onto}`, () => dragAndDrop(source, target, { signal: context.signal }), true);
  },
});

/** The largest coordinate the schema takes: far beyond any screen, so a typo is caught here. */
const maxCoordinate = 100_000;

/** A click at a point of the viewport, in CSS pixels as the screenshot shows them. */
export const clickCoordinatesAction = defineAction({
  name: 'click_coordinates',
  description:
    'Click a point of the viewport by its x and y in CSS pixels as the screenshot shows it (0,0 is its top-left corner). Only when no element index fits (a canvas, a map, a chart); prefer click_element.',
  schema: z.object({
    x: z.number().nonnegative().max(maxCoordinate).describe('Pixels from the left edge of the viewport'),
    y: z.number().nonnegative().max(maxCoordinate).describe('Pixels from the top edge of the viewport'),
  }),
  handler: async ({ x, y }, context) => {
    const mouseClick = context.driver.mouseClick?.bind(context.driver);
    if (!mouseClick) throw driverCannot('click_coordinates', 'mouseClick', 'click at coordinates');
    const [top] = await context.driver.frames({ signal: context.signal });
    // A driver that cannot measure the viewport still clicks: the browser ignores a point outside it.
    const viewport = top
      ? await callRuntime(context.driver, top.id, 'viewportSize', undefined, { signal: context.signal }).catch((error: unknown) => {
          if (context.signal.aborted) throw error;
          return undefined;
        })
      : undefined;
    const width = typeof viewport?.width === 'number' ? viewport.width : undefined;
    const height = typeof viewport?.height === 'number' ? viewport.height : undefined;
    if (width !== undefined && height !== undefined && (x >= width || y >= height)) {
      throw new ActionError(
        'click_coordinates',
        `The point (${x}, ${y}) is outside the viewport, which is ${width}×${height} CSS pixels: give a point inside it, as the screenshot shows it.`,
      );
    }
    return gestureResult(
      context,
      `Clicked the point (${x}, ${y}) of the viewport`,
      async () => {
        await mouseClick(x, y, { signal: context.signal });
        await context.driver.waitForSettled({ signal: context.signal });
      },
      false,
    );
  },
});
