// The element actions' own rules, written once for every Chromium driver: the click's hit test, pointer
// and fallback, the checks of files to upload, and the error for an element that is gone.

import { statSync } from 'node:fs';
import type { ClickResult, ElementRef } from '../browser/types';
import type { ClickTarget } from '../dom/page/driver/pointer';
import { BrowserError } from '../errors';
import { firstLine, within } from './call';
import type { RuntimeFrame } from './runtime-calls';
import type { ChromiumElement, ChromiumPage, ChromiumTransport, PointerClick } from './transport';

/** How long a click waits for its target to settle when the pointer changed its box (a hover style growing an icon). */
const growingTargetMs = 1000;

/** How long a click that gave up waits for the page to say whether its press arrived. */
const pressWitnessMs = 2000;

/** The click of `click()`: hit test, pointer first (a hover may grow the target), then a press, or a dispatched click. */
export async function clickElement<P extends ChromiumPage<F>, F extends RuntimeFrame & object, E extends ChromiumElement>(
  transport: ChromiumTransport<P, F, E>,
  page: P,
  element: E,
  ref: ElementRef,
  click: PointerClick,
): Promise<ClickResult> {
  let target: ClickTarget = await transport.onElement(element, 'clickTarget', undefined).catch((error: unknown) => {
    throw staleElement(ref, `the page changed (${firstLine(error)})`);
  });
  if (target.kind === 'centre' || target.kind === 'offset') {
    // The pointer comes first: a hover style may swap an icon's image, which starts 0 px
    // wide and grows; pressing meanwhile would land on what lies under it.
    const before = await transport.onElement(element, 'boxKey', undefined);
    const hovered = await transport.hover(page, element, target, click);
    if (hovered && (await transport.onElement(element, 'stableBox', { maxMs: growingTargetMs, before })))
      target = await transport.onElement(element, 'clickTarget', undefined);
  }
  if (target.kind === 'disabled') {
    throw new BrowserError(
      `Element ${ref.index} (<${ref.tagName}>) is disabled, so clicking it does nothing. Fill in what the form still needs, or choose another element.`,
    );
  }
  const coveredBy = target.kind === 'unseen' ? undefined : (target.coveredBy ?? undefined);
  if (target.kind === 'centre' || target.kind === 'offset') {
    const byPointer: ClickResult = target.kind === 'centre' ? { method: 'pointer' } : { method: 'pointer-offset', ...(coveredBy ? { coveredBy } : {}) };
    const outcome = await transport.pointerClick(page, element, target, click);
    if (outcome === 'made') return byPointer;
    if (outcome === 'timed-out') {
      // The pointer's click gave up waiting. If its press reached the element, the click was made: a dispatched click
      // would be a second one (a second order, a second payment). A page that cannot say is still busy: the click may
      // or may not have been taken, and the model must look before it clicks again.
      const arrived = await within(transport.onElement(element, 'pressArrived', undefined), pressWitnessMs, 'unknown' as const);
      if (arrived === true) return byPointer;
      if (arrived !== false) throw unansweredClick(ref);
    }
  }
  await transport.onElement(element, 'dispatchClick', { button: click.button, modifiers: [...click.modifiers] });
  return { method: 'dom', ...(coveredBy ? { coveredBy } : {}) };
}

/** The retryable error of a click the page was too busy to acknowledge, or to say whether its press arrived. */
function unansweredClick(ref: ElementRef): BrowserError {
  return new BrowserError(
    `The click on element ${ref.index} (<${ref.tagName}>) timed out: the page was busy (a script running), and it may or may not have taken the click. Read the page state to see whether the click took effect before you click again.`,
    { retryable: true },
  );
}

/** A file that can be uploaded, or a BrowserError saying why this path cannot be. */
export function checkUploadable(file: string, written: string): void {
  let isFile: boolean;
  try {
    isFile = statSync(file).isFile();
  } catch (error) {
    throw new BrowserError(`Cannot upload ${written}: there is no such file.`, { cause: error });
  }
  if (!isFile) throw new BrowserError(`Cannot upload ${written}: it is a folder; give the path of a file in it.`);
}

/** The recoverable error an action gets when the element the model chose is no longer there. */
export function staleElement(ref: ElementRef, reason: string): BrowserError {
  return new BrowserError(`Element ${ref.index} (<${ref.tagName}>) is no longer on the page: ${reason}. Read the new page state and choose again.`, {
    retryable: true,
  });
}
