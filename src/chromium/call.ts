// Runs one driver call under its caller's `{ signal, timeout }` and turns library failures into
// plannav's BrowserError, so the loop sees one error type whatever went wrong in the browser.
// Generic over the library: a driver with its own words for a failure passes its own `toError`.

import type { CallOptions } from '../browser/types';
import { BrowserError, PlannavError } from '../errors';
import { raceAbort, throwIfAborted } from '../util/abort';

/** The message of any thrown value, first line only (Playwright appends long call logs, protocol errors long details). */
export function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? message).trim();
}

/**
 * Wraps a failure in a BrowserError unless it already is a plannav error (a cancel, a stale
 * element). A library timeout (an error named `TimeoutError`) is retryable.
 */
export function asBrowserError(what: string, error: unknown): PlannavError {
  if (PlannavError.isInstance(error)) return error;
  const timedOut = error instanceof Error && error.name === 'TimeoutError';
  return new BrowserError(`${what} failed: ${firstLine(error)}`, { cause: error, retryable: timedOut });
}

/**
 * Runs `body` with the call's time budget; rejects with a `RequestCancelledError` as soon as the
 * signal aborts and with a retryable `BrowserError` when the budget runs out. Other failures go
 * through `toError`.
 */
export async function guardedCall<T>(
  what: string,
  options: CallOptions | undefined,
  defaultTimeout: number,
  body: (timeout: number) => Promise<T>,
  toError: (what: string, error: unknown) => PlannavError = asBrowserError,
): Promise<T> {
  throwIfAborted(options?.signal);
  const timeout = Math.max(1, options?.timeout ?? defaultTimeout);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BrowserError(`${what} did not finish within ${timeout} ms.`, { retryable: true })), timeout);
  });
  // A body that throws before its first await (a closed driver) rejects like any other: thrown
  // here, it would leave the timer above to reject unhandled when it fires.
  const work = (async () => body(timeout))();
  work.catch(() => undefined); // the race below may settle first; the loser must not go unhandled
  try {
    return await raceAbort(Promise.race([work, expired]), options?.signal);
  } catch (error) {
    throw toError(what, error);
  } finally {
    clearTimeout(timer);
  }
}
