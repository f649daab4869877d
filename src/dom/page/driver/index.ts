// The page side of a driver's element methods: what drivers that hold element handles call on an
// element (`elementMethods`), and the same by snapshot id for drivers that only evaluate scripts
// (`driverMethods`, behind the core's default click, fill, select and scroll).

import { resolveElement, type ElementLocator, type LookupFailure } from '../registry';
import { frameContentBoxes } from './frames';
import { drawHighlights, removeHighlights } from './highlight';
import { goBack, pressKeys } from './keys';
import { boxKey, clickTarget, dispatchClick, pressArrived, waitForStableBox, watchPresses, type ClickTarget } from './pointer';
import { scrollInPage } from './scrolling';
import { chooseOption, fillField, findOption, setFormattedValue } from './values';

/** Methods on an element a driver holds a handle to (Playwright's ElementHandle, Puppeteer's). */
export const elementMethods = {
  /** The element's click target (see clickTarget); from now on the runtime notes whether a trusted press reaches it. */
  clickTarget: (element: Element): ClickTarget => {
    watchPresses(element);
    return clickTarget(element);
  },
  /** Whether a trusted press reached the element since its click target was last asked for; `null` when it cannot tell. */
  pressArrived,
  dispatchClick,
  boxKey,
  /**
   * Waits, at most `maxMs`, for a box that changed since `before` (a hover style growing an icon)
   * to settle (see waitForStableBox); answers whether the box is not the one measured before.
   */
  stableBox: async (element: Element, { maxMs, before }: { maxMs: number; before: string }): Promise<boolean> => {
    await waitForStableBox(element, maxMs, before);
    return boxKey(element) !== before;
  },
  setFormattedValue,
  findOption,
  fillField,
  chooseOption,
  scroll: scrollInPage,
  frameBoxes: frameContentBoxes,
};

/** What a method by id answers when the element is gone. */
export type Gone = { readonly gone: LookupFailure };

const located = <T>(locator: ElementLocator, use: (element: Element) => T): T | Gone => {
  const element = resolveElement(locator);
  return typeof element === 'string' ? { gone: element } : use(element);
};

/** A click point in this frame's viewport, with the box it was measured against. */
export type ClickPoint = ClickTarget & {
  readonly box?: { readonly left: number; readonly top: number; readonly borderLeft: number; readonly borderTop: number };
};

/** The same methods by snapshot id, with JSON arguments, for drivers that only evaluate scripts. */
export const driverMethods = {
  /** Where to click the element, in this frame's viewport (the element is scrolled into view first). */
  clickPoint: (locator: ElementLocator): ClickPoint | Gone =>
    located(locator, (element) => {
      const target = clickTarget(element);
      if (target.kind !== 'centre' && target.kind !== 'offset') return target;
      const rect = element.getBoundingClientRect();
      const style = window.getComputedStyle(element);
      const borderLeft = parseInt(style.borderLeftWidth || '0', 10) || 0;
      const borderTop = parseInt(style.borderTopWidth || '0', 10) || 0;
      return { ...target, x: rect.left + borderLeft + target.x, y: rect.top + borderTop + target.y };
    }),
  dispatchClick: ({ locator, button, modifiers }: { locator: ElementLocator; button: 'left' | 'right' | 'middle'; modifiers: string[] }): true | Gone =>
    located(locator, (element) => {
      dispatchClick(element, { button, modifiers });
      return true as const;
    }),
  fill: ({ locator, text }: { locator: ElementLocator; text: string }): { kept: string | null } | Gone =>
    located(locator, (element) => ({ kept: setFormattedValue(element, text) ?? fillField(element, text) })),
  select: ({ locator, label }: { locator: ElementLocator; label: string }): { values: string[] } | { labels: string[] } | Gone =>
    located(locator, (element) => {
      const found = findOption(element, label);
      return 'labels' in found ? found : { values: chooseOption(element, found.index) };
    }),
  scroll: ({ locator, deltaY, toPercent }: { locator: ElementLocator | null; deltaY: number | null; toPercent: number | null }): { top: number } | Gone =>
    locator ? located(locator, (element) => ({ top: scrollInPage(element, { deltaY, toPercent }) })) : { top: scrollInPage(null, { deltaY, toPercent }) },
  highlight: drawHighlights,
  removeHighlight: removeHighlights,
  pressKeys,
  goBack,
  /** The frame's viewport size in CSS pixels. */
  viewportSize: (): { width: number; height: number } => ({ width: window.innerWidth, height: window.innerHeight }),
};
