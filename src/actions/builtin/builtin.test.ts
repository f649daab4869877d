import { testActionContext } from '../../../test/helpers/action-context';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { RequestCancelledError } from '../../errors';
import { ActionRegistry } from '../registry';
import type { ActionContext, HumanAnswer } from '../types';
import { askHumanAction } from './ask-human';
import { cacheContentAction } from './cache-content';
import { doneAction } from './done';
import { waitAction } from './wait';

function actionContext(options: { signal?: AbortSignal; answer?: HumanAnswer; questions?: string[] } = {}): ActionContext {
  return testActionContext(options);
}

describe('done action', () => {
  const registry = new ActionRegistry([doneAction()]);

  it('finishes with success by default and stops the sequence', async () => {
    const result = await registry.run('done', { text: 'The cheapest mug costs $4.' }, actionContext());
    expect(result).toEqual({
      isDone: true,
      success: true,
      extractedContent: 'The cheapest mug costs $4.',
      data: undefined,
      includeInMemory: true,
      stopSequence: true,
    });
  });

  it('reports failure and passes optional data through', async () => {
    const result = await registry.run('done', { text: 'Blocked by a sign-in.', success: false, data: { reason: 'login' } }, actionContext());
    expect(result.isDone).toBe(true);
    expect(result.success).toBe(false);
    expect(result.data).toEqual({ reason: 'login' });
  });

  it('requires the text', async () => {
    const result = await registry.run('done', { success: true }, actionContext());
    expect(result.error).toMatch(/^Invalid parameters for done: text: /);
    expect(result.isDone).toBeUndefined();
  });

  describe('with a data schema', () => {
    const typedRegistry = new ActionRegistry([doneAction(z.object({ price: z.number(), currency: z.string() }))]);

    it('accepts data of the required shape', async () => {
      const result = await typedRegistry.run('done', { text: 'Found it', data: { price: 4, currency: 'USD' } }, actionContext());
      expect(result.isDone).toBe(true);
      expect(result.data).toEqual({ price: 4, currency: 'USD' });
    });

    it('rejects invalid data with an error result naming the field', async () => {
      const result = await typedRegistry.run('done', { text: 'Found it', data: { price: 'four', currency: 'USD' } }, actionContext());
      expect(result.isDone).toBeUndefined();
      expect(result.error).toMatch(/^Invalid parameters for done: data\.price: /);
    });

    it('rejects missing data', async () => {
      const result = await typedRegistry.run('done', { text: 'Found it' }, actionContext());
      expect(result.error).toContain('data');
    });
  });
});

describe('wait action', () => {
  const registry = new ActionRegistry([waitAction]);

  beforeEach(() => {
    vi.useFakeTimers();
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits the given number of seconds before reporting', async () => {
    let settled = false;
    const pending = registry.run('wait', { seconds: 5 }, actionContext()).then((result) => {
      settled = true;
      return result;
    });
    await vi.advanceTimersByTimeAsync(4_999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBe(true);
    expect(await pending).toEqual({ extractedContent: 'Waited 5 seconds.', includeInMemory: true });
  });

  it('waits three seconds by default', async () => {
    let settled = false;
    const pending = registry.run('wait', {}, actionContext()).then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(2_999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await pending;
    expect(settled).toBe(true);
  });

  it('rejects waits outside 1 to 60 seconds', async () => {
    expect((await registry.run('wait', { seconds: 0 }, actionContext())).error).toContain('seconds');
    expect((await registry.run('wait', { seconds: 61 }, actionContext())).error).toContain('seconds');
  });

  it('rejects with a RequestCancelledError when cancelled during the wait', async () => {
    const controller = new AbortController();
    const pending = registry.run('wait', { seconds: 30 }, actionContext({ signal: controller.signal }));
    const outcome = pending.then(
      () => 'resolved',
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(1_000);
    controller.abort();
    const error = await outcome;
    expect(RequestCancelledError.isInstance(error)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('cache_content action', () => {
  const registry = new ActionRegistry([cacheContentAction]);

  it('keeps the findings in memory', async () => {
    const result = await registry.run('cache_content', { content: 'Mug A: $4, Mug B: $6' }, actionContext());
    expect(result).toEqual({ extractedContent: 'Cached findings: Mug A: $4, Mug B: $6', includeInMemory: true });
  });

  it('rejects empty content', async () => {
    const result = await registry.run('cache_content', { content: '' }, actionContext());
    expect(result.error).toMatch(/^Invalid parameters for cache_content: content: /);
  });
});

describe('ask_human action', () => {
  const registry = new ActionRegistry([askHumanAction]);

  it('asks the question and reports the answer', async () => {
    const questions: string[] = [];
    const result = await registry.run('ask_human', { question: 'Which size?' }, actionContext({ questions, answer: { answer: 'Large', timedOut: false } }));
    expect(questions).toEqual(['Which size?']);
    expect(result).toEqual({ extractedContent: 'The user answered "Which size?": Large', includeInMemory: true });
  });

  it('says no one answered when the wait timed out', async () => {
    const result = await registry.run('ask_human', { question: 'Which size?' }, actionContext({ answer: { answer: undefined, timedOut: true } }));
    expect(result.extractedContent).toBe('No one answered the question "Which size?". Continue without the answer or finish with done.');
    expect(result.includeInMemory).toBe(true);
  });

  it('treats a missing answer as no answer', async () => {
    const result = await registry.run('ask_human', { question: 'Which size?' }, actionContext({ answer: { answer: undefined, timedOut: false } }));
    expect(result.extractedContent).toContain('No one answered');
  });

  it('requires a question', async () => {
    const result = await registry.run('ask_human', { question: '' }, actionContext());
    expect(result.error).toMatch(/^Invalid parameters for ask_human: question: /);
  });
});
