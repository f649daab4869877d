import { describe, expect, it } from 'vitest';
import type { ElementRef } from '../browser/types';
import type { ClickTarget } from '../dom/page/driver/pointer';
import { BrowserError } from '../errors';
import { clickElement } from './element-actions';
import type { ChromiumTransport, PointerClick, PointerOutcome } from './transport';

const ref = { index: 3, tagName: 'button' } as ElementRef;
const click: PointerClick = { button: 'left', modifiers: [], timeout: 30_000, startedLoad: () => false };

/**
 * A transport whose pointer click ends with `outcome`, and whose page answers `pressArrived` with `arrived` (or never,
 * for a page still running a script). Records the element calls.
 */
function transportWhere(outcome: PointerOutcome, arrived: boolean | null | 'never' = false) {
  const calls: string[] = [];
  const target: ClickTarget = { kind: 'centre', x: 5, y: 5, coveredBy: null };
  const answers: Record<string, () => Promise<unknown>> = {
    clickTarget: () => Promise.resolve(target),
    boxKey: () => Promise.resolve('0,0,10,10'),
    stableBox: () => Promise.resolve(false),
    pressArrived: () => (arrived === 'never' ? new Promise<never>(() => undefined) : Promise.resolve(arrived)),
    dispatchClick: () => Promise.resolve(undefined),
  };
  const transport = {
    onElement: (_element: unknown, method: string) => {
      calls.push(method);
      return (answers[method] ?? (() => Promise.reject(new Error(`unexpected ${method}`))))();
    },
    hover: () => Promise.resolve(true),
    pointerClick: () => Promise.resolve(outcome),
  } as unknown as ChromiumTransport<never, never, never>;
  return { transport, calls, run: () => clickElement(transport, {} as never, {} as never, ref, click) };
}

describe('clickElement after the pointer click', () => {
  it('is done when the pointer click was made', async () => {
    const { calls, run } = transportWhere('made');
    expect(await run()).toEqual({ method: 'pointer' });
    expect(calls).not.toContain('pressArrived');
    expect(calls).not.toContain('dispatchClick');
  });

  it('dispatches the click in the page when no press was sent (the element moved away), without asking the page', async () => {
    const { calls, run } = transportWhere('not-sent');
    expect(await run()).toEqual({ method: 'dom' });
    expect(calls).not.toContain('pressArrived');
    expect(calls).toContain('dispatchClick');
  });

  it('dispatches the click when the pointer click timed out and the page says no press reached the element', async () => {
    const { calls, run } = transportWhere('timed-out', false);
    expect(await run()).toEqual({ method: 'dom' });
    expect(calls).toContain('dispatchClick');
  });

  it('does not click a second time when the pointer click timed out after its press reached the element', async () => {
    const { calls, run } = transportWhere('timed-out', true);
    expect(await run()).toEqual({ method: 'pointer' });
    expect(calls).not.toContain('dispatchClick');
  });

  it('neither clicks again nor says it clicked when the page cannot tell (its own listeners came first)', async () => {
    const { calls, run } = transportWhere('timed-out', null);
    await expect(run()).rejects.toThrow(/timed out: the page was busy/);
    expect(calls).not.toContain('dispatchClick');
  });

  it('neither clicks again nor says it clicked when the page is too busy to say: a retryable error, within a bound', async () => {
    const { calls, run } = transportWhere('timed-out', 'never');
    const started = Date.now();
    const error = await run().then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(Date.now() - started).toBeLessThan(5000);
    expect(error).toBeInstanceOf(BrowserError);
    expect((error as BrowserError).retryable).toBe(true);
    expect((error as Error).message).toMatch(/timed out: the page was busy .* Read the page state/);
    expect(calls).not.toContain('dispatchClick');
  });
});
