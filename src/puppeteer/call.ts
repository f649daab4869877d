// Runs one driver call under its caller's `{ signal, timeout }` and turns Puppeteer failures into
// plannav's BrowserError, so the loop sees one error type whatever went wrong in the browser.

import type { CallOptions } from '../browser/types';
import { BrowserError, PlannavError } from '../errors';
import { raceAbort, throwIfAborted } from '../util/abort';

/** The message of any thrown value, first line only (protocol errors can carry long details). */
export function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? message).trim();
}

/**
 * Puppeteer's words for a document or frame that went away under a call: a navigation replaced
 * the document, the frame was removed, the tab closed. Trying again on the new page can work.
 */
const gonePatterns = /Execution context was destroyed|Cannot find context with specified id|detached Frame|frame got detached|Navigating frame was detached|Target closed|Session closed|No target with given id|Inspected target navigated or closed|Node with given id does not belong to the document|Node is detached from document/i;

/** Whether a Puppeteer error says the document, frame or tab went away during the call. */
export function isGoneError(error: unknown): boolean {
  return gonePatterns.test(firstLine(error));
}

/**
 * Wraps a failure in a BrowserError unless it already is a plannav error (a cancel, a stale
 * element). Timeouts and pages that went away are retryable: the next try meets a settled page.
 */
export function asBrowserError(what: string, error: unknown): PlannavError {
  if (PlannavError.isInstance(error)) return error;
  const timedOut = error instanceof Error && error.name === 'TimeoutError';
  if (isGoneError(error)) {
    return new BrowserError(`${what} failed: the page changed under it (${firstLine(error)}). Read the page state again.`, { cause: error, retryable: true });
  }
  return new BrowserError(`${what} failed: ${firstLine(error)}`, { cause: error, retryable: timedOut });
}

/**
 * Runs `body` with the call's time budget; rejects with a `RequestCancelledError` as soon as the
 * signal aborts and with a retryable `BrowserError` when the budget runs out.
 */
export async function guardedCall<T>(what: string, options: CallOptions | undefined, defaultTimeout: number, body: (timeout: number) => Promise<T>): Promise<T> {
  throwIfAborted(options?.signal);
  const timeout = Math.max(1, options?.timeout ?? defaultTimeout);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BrowserError(`${what} did not finish within ${timeout} ms.`, { retryable: true })), timeout);
  });
  const work = body(timeout);
  work.catch(() => undefined); // the race below may settle first; the loser must not go unhandled
  try {
    return await raceAbort(Promise.race([work, expired]), options?.signal);
  } catch (error) {
    throw asBrowserError(what, error);
  } finally {
    clearTimeout(timer);
  }
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
