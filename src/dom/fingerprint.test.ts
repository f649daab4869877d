import { describe, expect, expectTypeOf, it } from 'vitest';
import type { BrowserDriver, CallOptions, ElementRef, FrameInfo, PageScript } from '../browser/types';
import { BrowserDisconnectedError, BrowserError } from '../errors';
import type { ElementFingerprint } from '../history/types';
import { readFingerprints, type ReadFingerprint } from './fingerprint';
import { runtimeScriptId } from './page-runtime';
import type { FingerprintRequest, PageFingerprint } from './page/fingerprint';

type Answer = (request: FingerprintRequest, frameId: string) => unknown;

/** A driver whose frames answer the `fingerprints` runtime method with `answer`; it records each call. */
function fakeDriver(frames: FrameInfo[], answer: Answer, failFrames: () => Promise<FrameInfo[]> = () => Promise.resolve(frames)) {
  const calls: { frameId: string; request: FingerprintRequest; options: CallOptions | undefined }[] = [];
  const driver: Pick<BrowserDriver, 'evaluate' | 'frames'> = {
    frames: failFrames,
    evaluate<TArg, TResult>(frameId: string, script: PageScript<TArg, TResult>, argument: TArg, options?: CallOptions): Promise<TResult> {
      if (script.id !== runtimeScriptId('fingerprints')) return Promise.reject(new Error(`unexpected script ${script.id}`));
      const request = argument as FingerprintRequest;
      calls.push({ frameId, request, options });
      try {
        return Promise.resolve(answer(request, frameId) as TResult);
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
  return { driver, calls };
}

const top: FrameInfo = { id: 'top', url: 'https://shop.example/cart' };
const child: FrameInfo = { id: 'child', parentId: 'top', url: 'https://pay.example/widget', offset: { x: 0, y: 400 } };

function ref(index: number, frameId = 'top'): ElementRef {
  return { index, frameId, elementId: `doc-${index}`, tagName: 'button', selector: index % 2 ? `#b${index}` : undefined };
}

/** What the page runtime answers for an element: a plausible fingerprint named after its id. */
function pagePrint(elementId: string): PageFingerprint {
  return {
    tagName: 'button',
    role: 'button',
    name: `Button ${elementId}`,
    text: `Button ${elementId}`,
    attributes: { id: elementId, type: 'submit' },
    xpath: '/html/body/button',
    cssPath: `#${elementId}`,
    ancestors: [{ tagName: 'body' }, { tagName: 'html', role: 'document', name: 'Shop' }],
    box: { x: 10, y: 20, width: 80, height: 30 },
  };
}

const answerEach: Answer = (request) => request.elements.map((element) => pagePrint(element.elementId));

describe('readFingerprints', () => {
  it('has the shape of the history’s ElementFingerprint, both ways', () => {
    expectTypeOf<ReadFingerprint>().toExtend<ElementFingerprint>();
    expectTypeOf<ElementFingerprint>().toExtend<ReadFingerprint>();
  });

  it('reads every element of a frame in one call, in order, and adds the frame’s URL', async () => {
    const { driver, calls } = fakeDriver([top, child], answerEach);
    const signal = new AbortController().signal;
    const prints = await readFingerprints(driver, [ref(1), ref(2, 'child'), ref(3)], { signal });
    expect(calls.map((call) => call.frameId).sort()).toEqual(['child', 'top']);
    expect(calls.find((call) => call.frameId === 'top')?.request.elements).toEqual([
      { elementId: 'doc-1', selector: '#b1' },
      { elementId: 'doc-3', selector: '#b3' },
    ]);
    expect(calls.every((call) => call.options?.signal === signal)).toBe(true);
    expect(prints.map((print) => print?.name)).toEqual(['Button doc-1', 'Button doc-2', 'Button doc-3']);
    expect(prints.map((print) => print?.frameUrl)).toEqual([top.url, child.url, top.url]);
    expect(prints[0]).toEqual({ ...pagePrint('doc-1'), frameUrl: top.url });
  });

  it('splits a large frame into bounded calls and keeps the order', async () => {
    const { driver, calls } = fakeDriver([top], answerEach);
    const refs = Array.from({ length: 450 }, (_, index) => ref(index));
    const prints = await readFingerprints(driver, refs);
    expect(calls.map((call) => call.request.elements.length)).toEqual([200, 200, 50]);
    expect(prints.map((print) => print?.attributes.id)).toEqual(refs.map((each) => each.elementId));
  });

  it('answers undefined for an element that is gone, in a frame that is gone, or in a frame that fails', async () => {
    const { driver, calls } = fakeDriver([top, child], (request, frameId) => {
      if (frameId === 'child') throw new BrowserError('Frame was detached', { retryable: true });
      return request.elements.map((element) => (element.elementId === 'doc-2' ? null : pagePrint(element.elementId)));
    });
    const prints = await readFingerprints(driver, [ref(1), ref(2), ref(3, 'child'), ref(4, 'vanished')]);
    expect(prints.map((print) => print?.name)).toEqual(['Button doc-1', undefined, undefined, undefined]);
    expect(calls.map((call) => call.frameId).sort()).toEqual(['child', 'top']);
  });

  it('answers undefined, without throwing, for whatever malformed shape the page sends back', async () => {
    const bad: unknown[] = [
      'not a fingerprint',
      { ...pagePrint('x'), name: 42 },
      { ...pagePrint('x'), name: 'n'.repeat(10_000) },
      { ...pagePrint('x'), tagName: '' },
      { ...pagePrint('x'), ancestors: Array.from({ length: 6 }, () => ({ tagName: 'div' })) },
      { ...pagePrint('x'), attributes: Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`a${index}`, 'v'])) },
      { ...pagePrint('x'), attributes: { id: 7 } },
      { ...pagePrint('x'), box: { x: 1, y: 2, width: -5, height: 3 } },
      { ...pagePrint('x'), box: { x: 'left', y: 2, width: 5, height: 3 } },
      { ...pagePrint('x'), xpath: 'x'.repeat(9000) },
    ];
    const { driver } = fakeDriver([top], () => [...bad, pagePrint('good')]);
    const refs = Array.from({ length: bad.length + 1 }, (_, index) => ref(index));
    const prints = await readFingerprints(driver, refs);
    expect(prints.slice(0, bad.length)).toEqual(bad.map(() => undefined));
    expect(prints[bad.length]?.name).toBe('Button good');
  });

  it('answers undefined for every element of a call whose answer is not one entry per element', async () => {
    for (const answer of [null, 'oops', { length: 2 }, [pagePrint('doc-1')]]) {
      const { driver } = fakeDriver([top], () => answer);
      expect(await readFingerprints(driver, [ref(1), ref(2)]), JSON.stringify(answer)).toEqual([undefined, undefined]);
    }
  });

  it('keeps a missing role and box as undefined (JSON drops them on the way)', async () => {
    const { role: _role, box: _box, ...rest } = pagePrint('doc-1');
    const { driver } = fakeDriver([top], () => [JSON.parse(JSON.stringify(rest))]);
    const [print] = await readFingerprints(driver, [ref(1)]);
    expect(print).toBeDefined();
    expect(print).toHaveProperty('role', undefined);
    expect(print).toHaveProperty('box', undefined);
  });

  it('reads nothing for no refs, and answers undefined for all when the frames cannot be listed', async () => {
    const { driver, calls } = fakeDriver([top], answerEach);
    expect(await readFingerprints(driver, [])).toEqual([]);
    expect(calls).toHaveLength(0);
    const failing = fakeDriver([top], answerEach, () => Promise.reject(new BrowserError('no page', { retryable: true })));
    expect(await readFingerprints(failing.driver, [ref(1)])).toEqual([undefined]);
  });

  it('still throws when the browser is gone or the call was cancelled', async () => {
    const gone = fakeDriver([top], () => {
      throw new BrowserDisconnectedError('The browser has disconnected.');
    });
    await expect(readFingerprints(gone.driver, [ref(1)])).rejects.toBeInstanceOf(BrowserDisconnectedError);
    const controller = new AbortController();
    const reason = new Error('stopped');
    const cancelled = fakeDriver([top], () => {
      controller.abort(reason);
      throw reason;
    });
    await expect(readFingerprints(cancelled.driver, [ref(1)], { signal: controller.signal })).rejects.toBe(reason);
  });
});
