// Helpers of the page action tests that run in headless Chromium (the vitest `browser` project):
// a document made of given HTML, and the ids the snapshot would give its elements. Test-only.

import { elementIdOf } from '../registry';

/** Puts `html` in the document and returns its elements with an id, by id. */
export function place(html: string): Record<string, HTMLElement> {
  document.body.innerHTML = html;
  const elements: Record<string, HTMLElement> = {};
  for (const element of document.body.querySelectorAll<HTMLElement>('[id]')) elements[element.id] = element;
  return elements;
}

/** The locator of an element as the model's snapshot would give it. */
export function locate(element: Element | undefined): { elementId: string; selector: null } {
  if (!element) throw new Error('no such element in the test page');
  return { elementId: elementIdOf(element), selector: null };
}

/** An element id of another document: the registry knows it as stale. */
export const otherDocument = { elementId: 'elsewhere-1', selector: null };
