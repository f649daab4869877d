import { describe, expect, it } from 'vitest';
import type { ElementRef } from '../browser/types';
import type { ClickTarget } from '../dom/page/driver/pointer';
import { clickElement, pressBound } from './element-actions';
import type { ChromiumTransport, PointerClick } from './transport';

const ref = { index: 3, tagName: 'button' } as ElementRef;
const click: PointerClick = { button: 'left', modifiers: [], timeout: 30_000, startedLoad: () => false };

/**
 * A transport whose pointer click gives up (as on a busy page or an element that moved away), and whose page answers
 * `pressArrived` with `arrived` (or never, for a page still running a handler). Records the element calls.
 */
function givingUpTransport(arrived: boolean | 'never') {
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
    pointerClick: () => Promise.resolve(false),
  } as unknown as ChromiumTransport<never, never, never>;
  return { transport, calls };
}

describe('clickElement when the pointer click gives up', () => {
  it('dispatches the click in the page when no press reached it', async () => {
    const { transport, calls } = givingUpTransport(false);
    expect(await clickElement(transport, {} as never, {} as never, ref, click)).toEqual({ method: 'dom' });
    expect(calls).toContain('dispatchClick');
  });

  it('does not click a second time when the press reached the page', async () => {
    const { transport, calls } = givingUpTransport(true);
    expect(await clickElement(transport, {} as never, {} as never, ref, click)).toEqual({ method: 'pointer' });
    expect(calls).not.toContain('dispatchClick');
  });

  it('counts the click as made, within a bound, when the page is too busy to say', async () => {
    const { transport, calls } = givingUpTransport('never');
    const started = Date.now();
    expect(await clickElement(transport, {} as never, {} as never, ref, click)).toEqual({ method: 'pointer' });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(calls).not.toContain('dispatchClick');
  });
});

describe('pressBound', () => {
  it('is the settle bound, at least 1 s, within the call budget', () => {
    expect(pressBound(30_000, 5000)).toBe(5000);
    expect(pressBound(30_000, 200)).toBe(1000);
    expect(pressBound(2000, 5000)).toBe(1600);
  });
});
