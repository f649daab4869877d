import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { BrowserError, RequestCancelledError } from '../errors';
import { withDeadline } from './deadline';

const late = () => new BrowserError('too slow', { code: 'BROWSER_TIMEOUT', retryable: true });

describe('withDeadline', () => {
  it('settles as the body does when it is in time', async () => {
    await expect(withDeadline(1000, new AbortController().signal, late, async () => 'ok')).resolves.toBe('ok');
    await expect(withDeadline(1000, new AbortController().signal, late, async () => Promise.reject(new Error('own')))).rejects.toThrow('own');
    await expect(withDeadline(undefined, new AbortController().signal, late, async () => 'no deadline')).resolves.toBe('no deadline');
  });

  it('throws the timeout error at once when the body never settles, and aborts its signal with it', async () => {
    let seen: AbortSignal | undefined;
    const error = await withDeadline(20, new AbortController().signal, late, (signal) => {
      seen = signal;
      return new Promise<never>(() => undefined);
    }).catch((caught: unknown) => caught);
    expect(BrowserError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'BROWSER_TIMEOUT', retryable: true });
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toBe(error);
  });

  it('rejects as a cancel when the caller aborts, deadline or not', async () => {
    for (const timeout of [1000, undefined]) {
      const controller = new AbortController();
      const pending = withDeadline(timeout, controller.signal, late, () => new Promise<never>(() => undefined));
      controller.abort(new RequestCancelledError('stop'));
      await expect(pending).rejects.toThrow('stop');
    }
  });

  it('turns a body that throws before its first await into a rejection', async () => {
    const body = (): Promise<never> => {
      throw new Error('sync');
    };
    await expect(withDeadline(100, new AbortController().signal, late, body)).rejects.toThrow('sync');
  });

  it('adds one listener to the caller\u2019s signal while the body runs, and none is left after', async () => {
    const controller = new AbortController();
    let during = 0;
    await withDeadline(1000, controller.signal, late, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      during = getEventListeners(controller.signal, 'abort').length;
    });
    expect(during).toBe(1);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
