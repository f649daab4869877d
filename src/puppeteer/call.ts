// Puppeteer's words for a page that went away under a call. The generic time budget, error wrapping
// and bounded waits are in src/chromium/call.ts.

import { asBrowserError as asGenericBrowserError, firstLine, isDocumentGoneError } from '../chromium/call';
import { BrowserError, PlannavError } from '../errors';

/**
 * Puppeteer's words for a document or frame that went away under a call: a navigation replaced
 * the document, the frame was removed, the tab closed. Trying again on the new page can work.
 */
const targetGonePatterns =
  /Target closed|Session closed|No target with given id|Node with given id does not belong to the document|Node is detached from document/i;

/** Whether a Puppeteer error says the document, frame or tab went away during the call (the documents' words are shared: src/chromium/call.ts). */
export function isGoneError(error: unknown): boolean {
  return isDocumentGoneError(error) || targetGonePatterns.test(firstLine(error));
}

/**
 * Wraps a failure in a BrowserError unless it already is a plannav error (a cancel, a stale
 * element). Timeouts and pages that went away are retryable: the next try meets a settled page.
 */
export function asBrowserError(what: string, error: unknown): PlannavError {
  if (!PlannavError.isInstance(error) && isGoneError(error)) {
    return new BrowserError(`${what} failed: the page changed under it (${firstLine(error)}). Read the page state again.`, { cause: error, retryable: true });
  }
  return asGenericBrowserError(what, error);
}
