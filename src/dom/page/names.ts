// The name a control is known by, computed the way assistive technology computes it (W3C accname:
// aria-labelledby, aria-label, <label for>, a wrapping <label>, title, placeholder, alt). Runs in
// the page, through dom-accessibility-api, which is bundled into the runtime.

import { computeAccessibleName } from 'dom-accessibility-api';
import { collapse } from './text';

/** The accessible name of a control; empty when it has none. Never throws (a broken page gets no name). */
export function accessibleName(element: Element): string {
  let name = '';
  try {
    name = collapse(computeAccessibleName(element, { computedStyleSupportsPseudoElements: true }));
  } catch {
    // a broken page gets no name from the computation
  }
  // HTML-AAM's last resort, which browsers apply and accname leaves to the host language: a
  // field without any other name is known by its placeholder.
  if (!name && (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement)) name = collapse(element.placeholder);
  if (!name) name = collapse(element.getAttribute('aria-placeholder') ?? '');
  return name;
}
