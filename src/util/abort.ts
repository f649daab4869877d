// Cancellation helpers: every wait in plannav goes through these, so cancel() is felt at once
// even when a model client or a driver ignores its AbortSignal.

import { RequestCancelledError } from '../errors';

/** The error a cancelled wait rejects with: the signal's reason when it is one of ours. */
export function cancellationError(signal: AbortSignal): RequestCancelledError {
  const reason: unknown = signal.reason;
  if (RequestCancelledError.isInstance(reason)) return reason;
  return new RequestCancelledError('The task was cancelled.', { cause: reason });
}

/** Throws a `RequestCancelledError` if `signal` is aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw cancellationError(signal);
}

/** Settles like `promise`, or rejects with a `RequestCancelledError` as soon as `signal` aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(cancellationError(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(cancellationError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(signal.aborted ? cancellationError(signal) : error);
      },
    );
  });
}

/** Waits `ms` milliseconds, or rejects with a `RequestCancelledError` as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(cancellationError(signal));
  return new Promise<void>((resolve, reject) => {
    // The listener goes when the timer fires: waits happen often and must not pile up listeners.
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(cancellationError(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
