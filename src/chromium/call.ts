// Runs one driver call under its caller's `{ signal, timeout }` and turns library failures into
// plannav's BrowserError, so the loop sees one error type whatever went wrong in the browser.
// Generic over the library: a driver with its own words for a failure passes its own hooks.

import { valueWithin } from '../util/value-within';
import type { CallOptions } from '../browser/types';
import { BrowserError, PlannavError } from '../errors';
import { raceAbort, throwIfAborted } from '../util/abort';

/** The message of any thrown value, first line only (Playwright appends long call logs, protocol errors long details). */
export function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? message).trim();
}

/**
 * Playwright's and Puppeteer's words for a document that a navigation replaced under a call, or a
 * frame removed meanwhile: the call ran in a document that no longer exists, and made again it
 * runs in the new one.
 */
const documentGonePatterns =
  /Execution context was destroyed|Cannot find context with specified id|Frame was detached|detached Frame|frame got detached|Navigating frame was detached|Inspected target navigated or closed/i;

/** Whether a library error says that the document or frame a call ran in went away during the call (a navigation, a removed frame). */
export function isDocumentGoneError(error: unknown): boolean {
  return !PlannavError.isInstance(error) && documentGonePatterns.test(firstLine(error));
}

/**
 * Wraps a failure in a BrowserError unless it already is a plannav error (a cancel, a stale
 * element). A library timeout (an error named `TimeoutError`) is retryable, and so is a call whose
 * document a navigation replaced: the next try runs in the new document.
 */
export function asBrowserError(what: string, error: unknown): PlannavError {
  if (PlannavError.isInstance(error)) return error;
  if (isDocumentGoneError(error)) {
    return new BrowserError(`${what} failed: the page changed under it (${firstLine(error)}). Read the page state again.`, { cause: error, retryable: true });
  }
  return new BrowserError(`${what} failed: ${firstLine(error)}`, { cause: error, retryable: isLibraryTimeout(error) });
}

/** Whether a library error is its timeout: Playwright and Puppeteer both name theirs `TimeoutError`. */
export function isLibraryTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError';
}

/** What a driver adds to each of its calls: its own reading of failures, and what to do when its caller stops waiting. */
export interface CallHooks {
  /** Turns a failure into the error the call rejects with; may look at the driver's state first. */
  readonly toError?: ((what: string, error: unknown) => PlannavError | Promise<PlannavError>) | undefined;
  /**
   * Runs when the caller stops waiting for the call while its work may go on in the browser: the
   * place to undo what would leave the tab stuck, such as a load that never answered. When the
   * budget has run out it runs before the call rejects (within a bound), and what it returns is
   * added to the error's message; when the signal aborts it runs after, so the cancel stays prompt.
   */
  readonly onAbandon?: (() => Promise<string | undefined>) | undefined;
}

/** How long a call that ran out of time waits for its `onAbandon` hook. */
const onAbandonBoundMs = 3000;

/**
 * Runs `body` with the call's time budget; rejects with a `RequestCancelledError` as soon as the
 * signal aborts and with a retryable `BrowserError` when the budget runs out (after the
 * `onAbandon` hook). Other failures go through `toError`. The body gets the budget in
 * milliseconds and the time it ends (epoch milliseconds).
 */
export async function guardedCall<T>(
  what: string,
  options: CallOptions | undefined,
  defaultTimeout: number,
  body: (timeout: number, deadline: number) => Promise<T>,
  hooks: CallHooks = {},
): Promise<T> {
  throwIfAborted(options?.signal);
  const timeout = Math.max(1, options?.timeout ?? defaultTimeout);
  const deadline = Date.now() + timeout;
  const toError = hooks.toError ?? asBrowserError;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      void abandon(hooks.onAbandon).then((note) =>
        reject(new BrowserError(`${what} did not finish within ${timeout} ms.${note ? ` ${note}` : ''}`, { retryable: true })),
      );
    }, timeout);
  });
  // A body that throws before its first await (a closed driver) rejects like any other: thrown
  // here, it would leave the timer above to reject unhandled when it fires.
  const work = (async () => body(timeout, deadline))();
  work.catch(() => undefined); // the race below may settle first; the loser must not go unhandled
  try {
    return await raceAbort(Promise.race([work, expired]), options?.signal);
  } catch (error) {
    // Cancelled: the work may still hold the tab (a load that never answers); undo it behind the cancel.
    if (options?.signal?.aborted) void abandon(hooks.onAbandon);
    throw await toError(what, error);
  } finally {
    clearTimeout(timer);
  }
}

/** What the abandon hook has to say, within its bound; nothing when there is no hook or it fails. */
async function abandon(onAbandon: CallHooks['onAbandon']): Promise<string | undefined> {
  return onAbandon ? valueWithin(onAbandon(), onAbandonBoundMs) : undefined;
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
