import { afterEach, describe, expect, it, vi } from 'vitest';
import { rejectionOf } from '../../test/helpers/rejection';
import { RequestCancelledError, TimeoutError } from '../errors';
import { boundedCall } from './bounded-call';

afterEach(() => {
  vi.useRealTimers();
});

/** Work that never settles and ignores its signal; `seen` receives the signal it was given. */
function hang(seen: AbortSignal[]): (signal: AbortSignal) => Promise<never> {
  return (signal) => {
    seen.push(signal);
    return new Promise<never>(() => undefined);
  };
}

describe('boundedCall', () => {
  it('returns what the work returns and leaves no timer behind', async () => {
    vi.useFakeTimers();
    await expect(boundedCall('work()', { timeout: 1000 }, async () => 42)).resolves.toBe(42);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects with a TimeoutError naming the call when the time runs out, and aborts the work', async () => {
    vi.useFakeTimers();
    const seen: AbortSignal[] = [];
    const call = rejectionOf<TimeoutError>(boundedCall('work()', { timeout: 250 }, hang(seen)));
    await vi.advanceTimersByTimeAsync(250);
    const error = await call;
    expect(TimeoutError.isInstance(error)).toBe(true);
    expect(error.timeoutMs).toBe(250);
    expect(error.message).toBe('work() did not finish within its timeout of 250 ms. Give it a longer `timeout`, or none.');
    expect(seen[0]?.aborted).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects at once when the caller aborts, with the caller\u2019s cancel as is', async () => {
    const controller = new AbortController();
    const seen: AbortSignal[] = [];
    const call = rejectionOf(boundedCall('work()', { signal: controller.signal, timeout: 60_000 }, hang(seen)));
    const reason = new RequestCancelledError('Stopped by the user.');
    controller.abort(reason);
    expect(await call).toBe(reason);
    expect(seen[0]?.aborted).toBe(true);
  });

  it('wraps another abort reason in a RequestCancelledError naming the call', async () => {
    const controller = new AbortController();
    const call = rejectionOf<RequestCancelledError>(boundedCall('work()', { signal: controller.signal }, hang([])));
    controller.abort();
    const error = await call;
    expect(RequestCancelledError.isInstance(error)).toBe(true);
    expect(TimeoutError.isInstance(error)).toBe(false);
    expect(error.message).toBe('work() was cancelled.');
  });

  it('does not start the work when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const body = vi.fn(async () => 1);
    const error = await rejectionOf(boundedCall('work()', { signal: controller.signal }, body));
    expect(RequestCancelledError.isInstance(error)).toBe(true);
    expect(body).not.toHaveBeenCalled();
  });

  it('rejects like the work when it throws before its first await', async () => {
    const failure = new Error('closed');
    await expect(
      boundedCall('work()', { timeout: 1000 }, () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
  });
});
