import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { RequestCancelledError } from '../errors';
import { TaskControl } from './task-control';

describe('TaskControl', () => {
  it('aborts the parts running at a cancel with its error, and none that has ended', () => {
    const control = new TaskControl();
    const running = control.part();
    const ended = control.part();
    ended.end();
    expect(getEventListeners(control.signal, 'abort')).toHaveLength(0);
    control.cancel('enough');
    expect(running.signal.aborted).toBe(true);
    expect(running.signal.reason).toBe(control.signal.reason);
    expect(RequestCancelledError.isInstance(running.signal.reason)).toBe(true);
    expect(ended.signal.aborted).toBe(false);
    // A part started after the cancel is cancelled from the start.
    expect(control.part().signal.reason).toBe(control.signal.reason);
  });

  it('wakes the checkpoints waiting out a pause with the cancel, without a listener each on the signal', async () => {
    const control = new TaskControl();
    control.pause();
    const waits = Array.from({ length: 12 }, () => control.checkpoint().catch((error: unknown) => error));
    await new Promise((resolve) => setImmediate(resolve));
    expect(getEventListeners(control.signal, 'abort')).toHaveLength(0);
    control.cancel('stopped while paused');
    for (const outcome of await Promise.all(waits)) expect(outcome).toMatchObject({ message: 'stopped while paused' });
  });

  it('lets the checkpoints go on when the pause ends', async () => {
    const control = new TaskControl();
    expect(await control.checkpoint()).toBe(false);
    control.pause();
    const wait = control.checkpoint();
    control.resume();
    expect(await wait).toBe(true);
  });
});
