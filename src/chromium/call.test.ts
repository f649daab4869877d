import { describe, expect, it } from 'vitest';
import { BrowserError } from '../errors';
import { guardedCall } from './call';

describe('guardedCall', () => {
  it('turns a body that throws at once into a rejection, and leaves no timer to reject unhandled later', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const call = guardedCall('goto(x)', { timeout: 20 }, 1000, () => {
        throw new BrowserError('The driver is closed: open a new one.');
      });
      await expect(call).rejects.toThrow('The driver is closed');
      await new Promise((done) => setTimeout(done, 80));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
    }
  });

  it('rejects with a retryable BrowserError when the body outlasts the timeout', async () => {
    const error = await guardedCall('goto(x)', { timeout: 20 }, 1000, () => new Promise(() => undefined)).catch((caught: unknown) => caught);
    expect(BrowserError.isInstance(error)).toBe(true);
    expect((error as BrowserError).retryable).toBe(true);
    expect((error as BrowserError).message).toBe('goto(x) did not finish within 20 ms.');
  });

  it('runs onAbandon before rejecting on timeout, and adds what it says to the message', async () => {
    const order: string[] = [];
    const error = await guardedCall('goto(x)', { timeout: 20 }, 1000, () => new Promise(() => undefined), {
      onAbandon: async () => {
        order.push('abandon');
        return 'Loading was stopped.';
      },
    }).catch((caught: unknown) => {
      order.push('rejected');
      return caught;
    });
    expect(order).toEqual(['abandon', 'rejected']);
    expect((error as BrowserError).message).toBe('goto(x) did not finish within 20 ms. Loading was stopped.');
  });

  it('rejects an aborted call at once and runs onAbandon behind the cancel', async () => {
    const controller = new AbortController();
    let abandoned = false;
    let release = (): void => undefined;
    const hook = new Promise<undefined>((resolve) => (release = () => resolve(undefined)));
    const call = guardedCall('goto(x)', { signal: controller.signal }, 1000, () => new Promise(() => undefined), {
      onAbandon: () => {
        abandoned = true;
        return hook;
      },
    });
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'REQUEST_CANCELLED' });
    expect(abandoned).toBe(true);
    release();
  });
});
