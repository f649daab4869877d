import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { rejectionOf } from '../../test/helpers/rejection';
import { RequestCancelledError } from '../errors';
import { cancellationError, raceAbort, sleep, throwIfAborted } from './abort';

function abortedSignal(reason?: unknown): AbortSignal {
  const controller = new AbortController();
  controller.abort(reason);
  return controller.signal;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('cancellationError', () => {
  it('returns the abort reason when it is a RequestCancelledError', () => {
    const reason = new RequestCancelledError('Stopped by the user.');
    expect(cancellationError(abortedSignal(reason))).toBe(reason);
  });

  it('wraps any other reason in a new RequestCancelledError', () => {
    const reason = new Error('shutdown');
    const error = cancellationError(abortedSignal(reason));
    expect(RequestCancelledError.isInstance(error)).toBe(true);
    expect(error.message).toBe('The task was cancelled.');
    expect(error.cause).toBe(reason);
  });

  it('wraps the default AbortError reason of abort()', () => {
    const error = cancellationError(abortedSignal());
    expect(RequestCancelledError.isInstance(error)).toBe(true);
    expect((error.cause as Error).name).toBe('AbortError');
  });
});

describe('throwIfAborted', () => {
  it('does nothing without a signal or with a live signal', () => {
    expect(() => throwIfAborted(undefined)).not.toThrow();
    expect(() => throwIfAborted(new AbortController().signal)).not.toThrow();
  });

  it('throws the cancellation error of an aborted signal', () => {
    const reason = new RequestCancelledError('cancelled here');
    expect(() => throwIfAborted(abortedSignal(reason))).toThrow(reason);
    expect(() => throwIfAborted(abortedSignal('plain reason'))).toThrow(RequestCancelledError);
  });
});

describe('raceAbort', () => {
  it('returns the promise itself when there is no signal', () => {
    const promise = Promise.resolve(1);
    expect(raceAbort(promise, undefined)).toBe(promise);
  });

  it('settles with the value or the error of the promise while the signal is live', async () => {
    const signal = new AbortController().signal;
    expect(await raceAbort(Promise.resolve('value'), signal)).toBe('value');
    const failure = new Error('failed');
    expect(await rejectionOf(raceAbort(Promise.reject(failure), signal))).toBe(failure);
  });

  it('rejects at once for a signal that is already aborted', async () => {
    const reason = new RequestCancelledError('already cancelled');
    const error = await rejectionOf(raceAbort(new Promise(() => undefined), abortedSignal(reason)));
    expect(error).toBe(reason);
  });

  it('does not leave an unhandled rejection when the raced promise fails after an early abort', async () => {
    const failing = Promise.reject(new Error('late failure'));
    const error = await rejectionOf(raceAbort(failing, abortedSignal()));
    expect(RequestCancelledError.isInstance(error)).toBe(true);
  });

  it('rejects as soon as the signal aborts, without waiting for the promise', async () => {
    const controller = new AbortController();
    const outcome = rejectionOf(raceAbort(new Promise(() => undefined), controller.signal));
    const reason = new RequestCancelledError('stop now');
    controller.abort(reason);
    expect(await outcome).toBe(reason);
  });

  it('reports a cancel rather than the error of a promise that fails because of the abort', async () => {
    const controller = new AbortController();
    const promise = new Promise((_, reject) => {
      controller.signal.addEventListener('abort', () => reject(new Error('socket closed')));
    });
    const outcome = rejectionOf(raceAbort(promise, controller.signal));
    controller.abort();
    expect(RequestCancelledError.isInstance(await outcome)).toBe(true);
  });

  it('stops listening to the signal once the promise settles', async () => {
    const controller = new AbortController();
    const remove = vi.spyOn(controller.signal, 'removeEventListener');
    await raceAbort(Promise.resolve(1), controller.signal);
    expect(remove).toHaveBeenCalledWith('abort', expect.any(Function));
  });
});

describe('sleep', () => {
  it('resolves after the given time', async () => {
    vi.useFakeTimers();
    let done = false;
    const pending = sleep(1_000).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await pending;
    expect(done).toBe(true);
  });

  it('rejects with a RequestCancelledError and clears its timer when the signal aborts', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const outcome = rejectionOf(sleep(60_000, controller.signal));
    await vi.advanceTimersByTimeAsync(10);
    controller.abort();
    expect(RequestCancelledError.isInstance(await outcome)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const reason = new RequestCancelledError('already');
    expect(await rejectionOf(sleep(60_000, abortedSignal(reason)))).toBe(reason);
  });
});

describe('sleep and its listeners', () => {
  it('leaves no abort listener behind once the wait is over', async () => {
    const controller = new AbortController();
    for (let round = 0; round < 20; round++) await sleep(0, controller.signal);
    expect(EventEmitter.getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
