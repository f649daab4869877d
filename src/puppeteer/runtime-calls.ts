// How the Puppeteer driver uses the page runtime where Puppeteer's API differs from Playwright's: the
// new-document script, page functions as source text, element methods on a handle. Shared calls: src/chromium/runtime-calls.ts.

import type { ElementHandle, Frame, Page } from 'puppeteer-core';
import type { ElementRef } from '../browser/types';
import { installRuntime, lookUpElement as lookUpAnyElement } from '../chromium/runtime-calls';
import { pageRuntime } from '../dom/page-runtime';
import type { elementMethods } from '../dom/page/driver/index';

/** The runtime's element methods, as the page defines them. */
type ElementMethods = typeof elementMethods;

/** A frame element's content box in its parent's viewport. */
export interface FrameBox {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/**
 * Calls a runtime element method on the node it is given. Written as source text: Puppeteer sends
 * a function's source to the page, and TypeScript runners rewrite compiled functions (esbuild's
 * `__name` helper) into code the page cannot run.
 */
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- a page function from our own source text
const makeCallElementMethod = new Function(
  'return (node, key, method, argument) => { const runtime = globalThis[key]; if (!runtime) return "plannav:no-runtime"; return runtime.elements[method](node, argument); }',
) as () => (node: Element, key: string, method: string, argument: unknown) => unknown;
const callElementMethod = makeCallElementMethod();

/** Measures frame elements with the runtime's `frameBoxes`, or says that the document has no runtime. */
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- a page function from our own source text
const makeMeasureFrameElements = new Function(
  'return (key, ...nodes) => { const runtime = globalThis[key]; return runtime ? runtime.elements.frameBoxes(nodes) : "plannav:no-runtime"; }',
) as () => (key: string, ...nodes: Element[]) => (FrameBox | null)[] | 'plannav:no-runtime';
const measureFrameElements = makeMeasureFrameElements();

const missingRuntime = 'plannav:no-runtime';

/**
 * Focuses a field and selects all its text, so that typed text replaces it as a person's typing
 * would. Answers `no-text` for an element that takes no text, `read-only` for a disabled or
 * read-only field.
 */
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- a page function from our own source text
const makeSelectFieldContents = new Function(`return (node) => {
  const textTypes = ['text', 'search', 'url', 'tel', 'email', 'password', 'number'];
  if (node instanceof HTMLInputElement || node instanceof HTMLTextAreaElement) {
    if (node instanceof HTMLInputElement && !textTypes.includes(node.type)) return 'no-text';
    if (node.disabled || node.readOnly) return 'read-only';
    node.focus();
    node.select();
    return 'ok';
  }
  if (node instanceof HTMLElement && node.isContentEditable) {
    node.focus();
    const range = document.createRange();
    range.selectNodeContents(node);
    const selection = window.getSelection();
    selection?.removeAllRanges();
    selection?.addRange(range);
    return 'ok';
  }
  return 'no-text';
}`) as () => (node: Element) => 'ok' | 'no-text' | 'read-only';
export const selectFieldContents = makeSelectFieldContents();

/** Installs the runtime in every new document of the page, before the page's own scripts; returns the script's id. */
export async function addRuntimeScript(page: Page): Promise<string> {
  const { identifier } = await page.evaluateOnNewDocument(pageRuntime.installSource);
  return identifier;
}

/** The element behind a snapshot ref as a handle, or why there is none (`document`, `removed`). */
export function lookUpElement(frame: Frame, ref: ElementRef): Promise<ElementHandle | 'document' | 'removed'> {
  return lookUpAnyElement<ElementHandle<Node>>(frame, ref) as Promise<ElementHandle | 'document' | 'removed'>;
}

/** Calls one of the runtime's element methods on an element handle. */
export async function onElement<M extends keyof ElementMethods>(
  element: ElementHandle,
  method: M,
  argument: Parameters<ElementMethods[M]>[1],
): Promise<ReturnType<ElementMethods[M]>> {
  const result = await element.evaluate(callElementMethod, pageRuntime.version, method, argument);
  if (result === missingRuntime) throw new Error('The plannav page runtime is not installed in this document.');
  return result as ReturnType<ElementMethods[M]>;
}

/** The content boxes of child frames' elements in their parent's viewport (null for a frame that cannot be seen). */
export async function measureFrames(parent: Frame, elements: readonly ElementHandle[]): Promise<(FrameBox | null)[]> {
  const measure = (): Promise<(FrameBox | null)[] | 'plannav:no-runtime'> => parent.evaluate(measureFrameElements, pageRuntime.version, ...elements);
  let measured = await measure();
  if (measured === missingRuntime) {
    await installRuntime(parent);
    measured = await measure();
  }
  return measured === missingRuntime ? elements.map(() => null) : measured;
}
