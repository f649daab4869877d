// A deadline around one call into code we do not control (a model client, a browser driver):
// the call gets a signal that aborts when the deadline passes, and its caller gets a typed,
// recoverable error at once, even when the call ignores its signal.

import type { PlannavError } from '../errors';
import { raceAbort } from './abort';

/**
 * Runs `body` and settles as it does, unless `timeoutMs` passes first: then `body`'s signal aborts
 * with the error `onTimeout` makes, and that error is thrown. A cancel of `signal` aborts `body`
 * and rejects as a cancel, as `raceAbort` does. Without `timeoutMs`, only the cancel applies.
 */
export async function withDeadline<T>(
  timeoutMs: number | undefined,
  signal: AbortSignal,
  onTimeout: () => PlannavError,
  body: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  if (timeoutMs === undefined) return raceAbort((async () => body(signal))(), signal);
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = onTimeout();
      // Rejected before the abort, so the race ends with this error, not the cancel the abort makes of it.
      reject(error);
      controller.abort(error);
    }, timeoutMs);
  });
  try {
    // Started inside an async function, so a body that throws at once rejects like any other. The
    // race is on our own signal, which the caller's aborts: one listener on the caller's signal per call.
    return await Promise.race([raceAbort((async () => body(controller.signal))(), controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}
