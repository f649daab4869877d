// Runs one call under its caller's `{ signal, timeout }`: the work gets a signal that aborts on
// either, and the call rejects at once even when the work ignores it. No timer or listener outlives it.

import { RequestCancelledError, TimeoutError } from '../errors';
import { raceAbort } from './abort';

/** The caller's side of a bounded call. */
export interface BoundedCallOptions {
  readonly signal?: AbortSignal | undefined;
  /** Milliseconds the call may take; none when absent. */
  readonly timeout?: number | undefined;
}

/** The error for a caller's abort: its reason when that is a cancel of ours, else a cancel naming `what`. */
function cancelled(signal: AbortSignal, what: string): RequestCancelledError {
  const reason: unknown = signal.reason;
  if (RequestCancelledError.isInstance(reason)) return reason;
  return new RequestCancelledError(`${what} was cancelled.`, { cause: reason });
}

/**
 * Runs `body` with a signal that aborts when the caller's `signal` does (rejecting with a
 * `RequestCancelledError`) or when `timeout` ms have passed (a `TimeoutError` naming `what`).
 */
export async function boundedCall<T>(what: string, options: BoundedCallOptions, body: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const { signal, timeout } = options;
  if (signal?.aborted) throw cancelled(signal, what);
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(cancelled(signal as AbortSignal, what));
  signal?.addEventListener('abort', onAbort, { once: true });
  const timer = timeout === undefined ? undefined : setTimeout(() => controller.abort(new TimeoutError(timeout, what)), timeout);
  try {
    // Started inside an async function, so a body that throws at once rejects like any other.
    const work = (async () => body(controller.signal))();
    return await raceAbort(work, controller.signal);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
