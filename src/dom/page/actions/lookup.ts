// The element an action's page side works on, found once through the registry, or the stale
// answer every action returns when it is gone. Runs in the page; never searches the page itself.

import { lookupFailureReason, resolveElement, type ElementLocator } from '../registry';

/** The answer of an action whose element is gone, with the words the model reads. */
export interface StaleAnswer {
  readonly status: 'stale';
  /** Why: another document is loaded, or the element was removed. */
  readonly reason: string;
}

/** The element behind the locator, or the stale answer saying why there is none. */
export function findElement(locator: ElementLocator): Element | StaleAnswer {
  const found = resolveElement(locator);
  return typeof found === 'string' ? { status: 'stale', reason: lookupFailureReason(found) } : found;
}

/** True for the stale answer of {@link findElement}. */
export function isStale(found: Element | StaleAnswer): found is StaleAnswer {
  return !(found instanceof Element);
}
