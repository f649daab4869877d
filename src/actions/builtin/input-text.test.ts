import { testActionContext } from '../../../test/helpers/action-context';
import { describe, expect, it } from 'vitest';
import type { CallOptions, ElementRef, PageScript } from '../../browser/types';
import { runtimeScriptId } from '../../dom/page-runtime';
import { PageStateReader, defaultIncludeAttributes } from '../../dom/page-state-reader';
import { BrowserError } from '../../errors';
import { FakeBrowserDriver } from '../../testing/fake-browser-driver';
import { ActionRegistry } from '../registry';
import type { ActionContext, ActionResult } from '../types';
import { inputTextAction, reactionWait } from './input-text';

const url = 'https://shop.test/';
const helpers = new Map([
  [runtimeScriptId('watchTyping'), 'watch'],
  [runtimeScriptId('awaitReaction'), 'wait'],
]);

/** What the fake saw of the typing: `fill`, and the watch and the wait with their arguments and call options. */
interface Step {
  readonly step: string;
  readonly argument?: unknown;
  readonly options?: CallOptions | undefined;
}

/** A fake browser that records the watch, the fill and the wait in order, and answers the helpers with `answer`. */
class TypingDriver extends FakeBrowserDriver {
  readonly steps: Step[] = [];

  constructor(private readonly answer: (step: string) => unknown = () => ({ outcome: 'quiet', waitedMs: 300 })) {
    super({ startUrl: url, pages: { [url]: { title: 'Shop', content: [{ tag: 'input', attributes: { name: 'q' } }] } } });
  }

  override async fill(ref: ElementRef, text: string, options?: CallOptions): Promise<void> {
    this.steps.push({ step: 'fill' });
    await super.fill(ref, text, options);
  }

  override async evaluate<TArg, TResult>(frameId: string, script: PageScript<TArg, TResult>, arg: TArg, options?: CallOptions): Promise<TResult> {
    const step = helpers.get(script.id);
    if (!step) return super.evaluate(frameId, script, arg, options);
    this.steps.push({ step, argument: arg, options });
    return this.answer(step) as TResult;
  }
}

async function contextOn(driver: FakeBrowserDriver, signal?: AbortSignal): Promise<ActionContext> {
  const state = await new PageStateReader(driver, { viewportExpansion: -1, includeAttributes: [...defaultIncludeAttributes], maxTextLength: 100 }).capture({
    screenshot: false,
  });
  return testActionContext({ driver, state, ...(signal ? { signal } : {}) });
}

const registry = new ActionRegistry([inputTextAction]);

function typeMug(context: ActionContext): Promise<ActionResult> {
  return registry.run('input_text', { index: 1, text: 'mug' }, context);
}

describe('input_text waits for the page to react to the typing', () => {
  it('has the page note the typing before the fill, then waits with its bounds, the task signal and a bounded call', async () => {
    const driver = new TypingDriver();
    const context = await contextOn(driver);
    const result = await typeMug(context);
    expect(result.extractedContent).toBe('Typed "mug" into element 1 (<input type=text> "q").');
    expect(driver.steps.map((step) => step.step)).toEqual(['watch', 'fill', 'wait']);
    const [watch, , wait] = driver.steps;
    const field = { elementId: context.element(1).elementId, selector: null };
    expect(watch?.argument).toEqual(field);
    expect(watch?.options?.signal).toBe(context.signal);
    expect(wait?.argument).toEqual({ ...field, ...reactionWait });
    expect(wait?.options).toEqual({ signal: context.signal, timeout: reactionWait.maxMs + 1000 });
  });

  it('still types and reports the typing when the page cannot be watched or waited on (it went away meanwhile)', async () => {
    const driver = new TypingDriver(() => {
      throw new BrowserError('Execution context was destroyed.');
    });
    const result = await typeMug(await contextOn(driver));
    expect(result.extractedContent).toBe('Typed "mug" into element 1 (<input type=text> "q").');
    expect(driver.steps.map((step) => step.step)).toEqual(['watch', 'fill', 'wait']);
    expect(driver.valueOf('q')).toBe('mug');
  });

  it('ends with the cancel when the task is cancelled during the wait', async () => {
    const controller = new AbortController();
    const cancelled = new BrowserError('evaluate() was aborted.');
    const driver = new TypingDriver((step) => {
      if (step === 'watch') return true;
      controller.abort();
      throw cancelled;
    });
    await expect(inputTextAction.handler({ index: 1, text: 'mug' }, await contextOn(driver, controller.signal))).rejects.toBe(cancelled);
  });
});
