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
});
