// Puppeteer's part of running a driver call: its words for a page that went away under a call, and
// small bounded waits. The generic time budget and error wrapping are in src/chromium/call.ts.

import type { CallOptions } from '../browser/types';
import { asBrowserError as asGenericBrowserError, firstLine, guardedCall as guardedGenericCall, isDocumentGoneError } from '../chromium/call';
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

/** What the driver adds to a call: its reading of a failure given the browser's state, and what to do when time runs out. */
export interface PuppeteerCallHooks {
  /** The error a failure becomes once Puppeteer's words for it were read (a gone browser, for instance). */
  readonly explain?: ((error: PlannavError, raw: unknown) => Promise<PlannavError>) | undefined;
  /** Runs when the caller stops waiting for the call (see `CallHooks.onAbandon` in src/chromium/call.ts). */
  readonly onAbandon?: (() => Promise<string | undefined>) | undefined;
}

/**
 * Runs `body` with the call's time budget (see src/chromium/call.ts), with Puppeteer's reading of
 * failures: a page that went away is retryable.
 */
export function guardedCall<T>(
  what: string,
  options: CallOptions | undefined,
  defaultTimeout: number,
  body: (timeout: number, deadline: number) => Promise<T>,
  hooks: PuppeteerCallHooks = {},
): Promise<T> {
  return guardedGenericCall(what, options, defaultTimeout, body, {
    toError: (failed, error) => {
      const plain = asBrowserError(failed, error);
      return hooks.explain ? hooks.explain(plain, error) : plain;
    },
    onAbandon: hooks.onAbandon,
  });
}

/** Resolves after `ms` milliseconds, whatever happens; for bounds on waits that must never fail. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/** The value of `promise`, or `fallback` when it rejects or takes longer than `ms`. */
export async function within<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<F>((resolve) => (timer = setTimeout(() => resolve(fallback), Math.max(0, ms))));
  try {
    return await Promise.race([promise.catch(() => fallback), bound]);
  } finally {
    clearTimeout(timer);
  }
}
