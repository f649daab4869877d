import { testActionContext } from '../../../test/helpers/action-context';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CallOptions, ElementRef, PageScript } from '../../browser/types';
import { runtimeScriptId } from '../../dom/page-runtime';
import { PageStateReader, defaultIncludeAttributes } from '../../dom/page-state-reader';
import { BrowserError } from '../../errors';
import { FakeBrowserDriver } from '../../testing/fake-browser-driver';
import { ActionRegistry } from '../registry';
import type { ActionContext, ActionResult } from '../types';
import { inputTextAction, reactionWait } from './input-text';

const url = 'https://shop.test/';
const reactionId = runtimeScriptId('awaitReaction');

/**
 * A fake browser that records the reaction waits it is asked for (and what the field held then),
 * answers them with `answer`, and whose `fill` takes `fillMs` on a mocked clock.
 */
class ReactingDriver extends FakeBrowserDriver {
  readonly waits: { argument: unknown; options: CallOptions | undefined; valueThen: string | undefined }[] = [];

  constructor(private readonly behaviour: { fillMs?: number; answer?: (options: CallOptions | undefined) => unknown } = {}) {
    super({ startUrl: url, pages: { [url]: { title: 'Shop', content: [{ tag: 'input', attributes: { name: 'q' } }] } } });
  }

  override async fill(ref: ElementRef, text: string, options?: CallOptions): Promise<void> {
    await super.fill(ref, text, options);
    if (this.behaviour.fillMs) vi.setSystemTime(Date.now() + this.behaviour.fillMs);
  }

  override async evaluate<TArg, TResult>(frameId: string, script: PageScript<TArg, TResult>, arg: TArg, options?: CallOptions): Promise<TResult> {
    if (script.id !== reactionId) return super.evaluate(frameId, script, arg, options);
    this.waits.push({ argument: arg, options, valueThen: this.valueOf('q') });
    return (this.behaviour.answer ? this.behaviour.answer(options) : { outcome: 'quiet', waitedMs: 300 }) as TResult;
  }
}

async function contextOn(driver: FakeBrowserDriver, signal?: AbortSignal) {
  const state = await new PageStateReader(driver, { viewportExpansion: -1, includeAttributes: [...defaultIncludeAttributes], maxTextLength: 100 }).capture({ screenshot: false });
  return testActionContext({ driver, state, ...(signal ? { signal } : {}) });
}

const registry = new ActionRegistry([inputTextAction]);

function typeMug(context: ActionContext): Promise<ActionResult> {
  return registry.run('input_text', { index: 1, text: 'mug' }, context);
}

afterEach(() => {
  vi.useRealTimers();
});

describe('input_text waits for the page to react to the typing', () => {
  it('asks the page to wait after filling, with the windows counted from the start of the typing and the call bounded', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const driver = new ReactingDriver({ fillMs: 200 });
    const context = await contextOn(driver);
    const result = await typeMug(context);
    expect(result.extractedContent).toBe('Typed "mug" into element 1 (<input type=text> "q").');
    expect(driver.waits).toHaveLength(1);
    const [wait] = driver.waits;
    expect(wait?.valueThen).toBe('mug');
    expect(wait?.argument).toMatchObject({ firstChangeMs: reactionWait.firstChangeMs - 200, quietMs: reactionWait.quietMs, maxMs: reactionWait.maxMs - 200 });
    expect(wait?.options?.signal).toBe(context.signal);
    expect(wait?.options?.timeout).toBe(reactionWait.maxMs - 200 + 1000);
  });

  it('does not wait when settling after the fill took the whole first-change window', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const driver = new ReactingDriver({ fillMs: reactionWait.firstChangeMs });
    const result = await typeMug(await contextOn(driver));
    expect(result.extractedContent).toBe('Typed "mug" into element 1 (<input type=text> "q").');
    expect(driver.waits).toEqual([]);
  });

  it('still reports the typing when the wait fails (the page went away while waiting)', async () => {
    const driver = new ReactingDriver({
      answer: () => {
        throw new BrowserError('Execution context was destroyed.');
      },
    });
    const result = await typeMug(await contextOn(driver));
    expect(result.extractedContent).toBe('Typed "mug" into element 1 (<input type=text> "q").');
    expect(driver.valueOf('q')).toBe('mug');
  });

  it('ends with the cancel when the task is cancelled during the wait', async () => {
    const controller = new AbortController();
    const cancelled = new BrowserError('evaluate() was aborted.');
    const driver = new ReactingDriver({
      answer: () => {
        controller.abort();
        throw cancelled;
      },
    });
    await expect(inputTextAction.handler({ index: 1, text: 'mug' }, await contextOn(driver, controller.signal))).rejects.toBe(cancelled);
  });
});
