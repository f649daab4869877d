// The Executor's own deadlines: a model client without a timeout, a driver call that never
// settles, a stuck action and a page that never settles each end with a typed, recoverable error
// instead of hanging execute() (issue 11 #8). Every stuck call here ignores its signal.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HangingDriver } from '../../test/helpers/hanging-driver';
import { shopBrowser, shopPages } from '../../test/helpers/loop';
import { defineAction } from '../actions/define-action';
import type { ExecutorEventMap } from '../events';
import type { LLMClient } from '../llm/types';
import { FakeBrowserDriver } from '../testing/fake-browser-driver';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../testing/scripted-llm';
import { Executor } from './executor';
import type { ExecutorOptions } from './options';

/** A model client with no timeout of its own whose calls never answer and ignore their signal. */
function deafModel(): LLMClient & { signals: (AbortSignal | undefined)[] } {
  const signals: (AbortSignal | undefined)[] = [];
  return {
    specificationVersion: 'v1',
    provider: 'deaf',
    model: 'never-answers',
    signals,
    generate: (request) => {
      signals.push(request.signal);
      return new Promise<never>(() => undefined);
    },
  };
}

describe('deadlines the Executor enforces', () => {
  it('fails a model call past modelTimeoutMs as a retryable CHAT_MODEL_TIMEOUT, retries it, and ends the task', async () => {
    const llm = deafModel();
    const executor = new Executor({
      sensitiveActions: false,
      task: 'x',
      llm,
      browser: shopBrowser(),
      modelTimeoutMs: 30,
      maxFailures: 2,
      finalAnswerOnLimit: false,
      modelRetry: { retries: 1, minTimeout: 1, maxTimeout: 1 },
    });
    const retries: ExecutorEventMap['model-retry'][] = [];
    executor.on('model-retry', (event) => retries.push(event));
    const result = await executor.execute();
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('MAX_FAILURES_REACHED');
    expect(result.history.steps.map((step) => step.error?.code)).toEqual(['CHAT_MODEL_TIMEOUT', 'CHAT_MODEL_TIMEOUT']);
    expect(result.history.steps[0]?.error).toMatchObject({ retryable: true, message: expect.stringContaining('did not answer within 30 ms (modelTimeoutMs)') });
    expect(retries.map((event) => event.error.code)).toEqual(['CHAT_MODEL_TIMEOUT', 'CHAT_MODEL_TIMEOUT']);
    // Each call was aborted at its deadline, though the client ignored it.
    expect(llm.signals).toHaveLength(4);
    expect(llm.signals.every((signal) => signal?.aborted)).toBe(true);
  });

  it('bounds the extraction model too', async () => {
    const llm = new ScriptedLLM({
      responses: [
        scriptedPlan(),
        scriptedActions([{ extract_content: { goal: 'prices' } }]),
        scriptedActions([{ done: { text: 'gave up' } }]),
        scriptedPlan({ done: true, finalAnswer: 'gave up' }),
      ],
    });
    const executor = new Executor({
      sensitiveActions: false,
      task: 'x',
      llm,
      extractionLLM: deafModel(),
      browser: shopBrowser(),
      modelTimeoutMs: 30,
      modelRetry: { retries: 0 },
    });
    const ends: ExecutorEventMap['action-end'][] = [];
    executor.on('action-end', (event) => ends.push(event));
    const result = await executor.execute();
    expect(result.status).toBe('ok');
    expect(ends[0]?.error?.message).toContain('did not answer within 30 ms');
  });

  it('fails a page read past browserTimeouts.pageState as a retryable BROWSER_TIMEOUT, and ends the task', async () => {
    const browser = new HangingDriver('frames', { startUrl: 'https://shop.test/', pages: shopPages });
    const llm = new ScriptedLLM({ responses: [scriptedPlan()] });
    const executor = new Executor({
      sensitiveActions: false,
      task: 'x',
      llm,
      browser,
      maxFailures: 2,
      finalAnswerOnLimit: false,
      browserTimeouts: { pageState: 40 },
    });
    const result = await executor.execute();
    expect(result.status).toBe('failed');
    expect(result.history.steps.filter((step) => step.actor === 'navigator').map((step) => step.error?.code)).toEqual(['BROWSER_TIMEOUT', 'BROWSER_TIMEOUT']);
    expect(result.history.steps.at(-1)?.error).toMatchObject({ retryable: true, message: expect.stringContaining('Reading the page took longer than 40 ms') });
    expect(browser.hungSignals.length).toBeGreaterThan(0);
    expect(browser.hungSignals.every((signal) => signal.aborted)).toBe(true);
  });

  it('stops an action past browserTimeouts.action; the model reads ACTION_TIMEOUT and goes on', async () => {
    const browser = new HangingDriver('click', { startUrl: 'https://shop.test/', pages: shopPages });
    const llm = new ScriptedLLM({
      responses: [
        scriptedPlan(),
        scriptedActions([{ click_element: { index: 1 } }]),
        scriptedActions([{ done: { text: 'done' } }]),
        scriptedPlan({ done: true, finalAnswer: 'done' }),
      ],
    });
    const executor = new Executor({ sensitiveActions: false, task: 'x', llm, browser, browserTimeouts: { action: 40 } });
    const ends: ExecutorEventMap['action-end'][] = [];
    executor.on('action-end', (event) => ends.push(event));
    const result = await executor.execute();
    expect(result.status).toBe('ok');
    expect(ends[0]?.error).toMatchObject({
      code: 'ACTION_TIMEOUT',
      retryable: true,
      message: expect.stringMatching(/^click_element did not finish within 40 ms/),
    });
    expect(
      llm
        .requestsOf('navigator')[1]
        ?.messages.map((message) => JSON.stringify(message.content))
        .join('\n'),
    ).toContain('click_element did not finish within 40 ms');
  });

  it('gives an action its own timeoutMs, and ask_human none', async () => {
    const quick = defineAction({
      name: 'quick_job',
      description: 'A job',
      schema: z.object({}),
      timeoutMs: 20,
      handler: () => new Promise<never>(() => undefined),
    });
    const llm = new ScriptedLLM({
      responses: [
        scriptedPlan(),
        scriptedActions([{ quick_job: {} }]),
        scriptedActions([{ ask_human: { question: 'Which colour?' } }]),
        scriptedActions([{ done: { text: 'blue' } }]),
        scriptedPlan({ done: true, finalAnswer: 'blue' }),
      ],
    });
    const humanInput = async (): Promise<string> => {
      await new Promise((resolve) => setTimeout(resolve, 80)); // longer than the action deadline
      return 'blue';
    };
    const executor = new Executor({
      sensitiveActions: false,
      task: 'x',
      llm,
      browser: shopBrowser(),
      actions: [quick],
      humanInput,
      browserTimeouts: { action: 30 },
    });
    const ends: ExecutorEventMap['action-end'][] = [];
    executor.on('action-end', (event) => ends.push(event));
    const result = await executor.execute();
    expect(result.status).toBe('ok');
    expect(ends.map((event) => [event.action, event.error?.code])).toEqual([
      ['quick_job', 'ACTION_TIMEOUT'],
      ['ask_human', undefined],
      ['done', undefined],
    ]);
  });

  it('reads the page as it is when it never settles', async () => {
    class Unsettled extends FakeBrowserDriver {
      override waitForSettled(): Promise<void> {
        return new Promise<never>(() => undefined);
      }
    }
    const llm = new ScriptedLLM({ responses: [scriptedPlan(), scriptedActions([{ done: { text: 'ok' } }]), scriptedPlan({ done: true, finalAnswer: 'ok' })] });
    const browser = new Unsettled({ startUrl: 'https://shop.test/', pages: shopPages });
    const result = await new Executor({ sensitiveActions: false, task: 'x', llm, browser, browserTimeouts: { settle: 30 } }).execute();
    expect(result.status).toBe('ok');
    expect(llm.requestsOf('navigator')[0]?.lastUserText).toContain('https://shop.test/');
  });

  it('does not wait forever for a driver that never installs the URL policy', async () => {
    class StuckGuard extends FakeBrowserDriver {
      override setNavigationGuard(): Promise<void> {
        return new Promise<never>(() => undefined);
      }
    }
    const llm = new ScriptedLLM({ responses: [scriptedPlan({ done: true, webTask: false, finalAnswer: 'ok' })] });
    const browser = new StuckGuard({ startUrl: 'https://shop.test/', pages: shopPages });
    const executor = new Executor({
      sensitiveActions: false,
      task: 'x',
      llm,
      browser,
      urlPolicy: { allow: ['shop.test'] },
      browserTimeouts: { pageState: 30 },
    });
    const warnings: string[] = [];
    executor.on('warning', (event) => warnings.push(event.code));
    const result = await executor.execute();
    expect(result.status).toBe('ok');
    expect(warnings).toEqual(['URL_POLICY_GUARD_FAILED', 'URL_POLICY_NOT_ENFORCED_BY_DRIVER']);
  });

  it.each([
    [{ browserTimeouts: { action: 0 } }, 'Option `browserTimeouts.action` must be a positive integer; got 0.'],
    [{ browserTimeouts: { snapshot: 10 } }, 'Unknown option `browserTimeouts.snapshot`. Check its spelling against ExecutorOptions.'],
    [{ modelTimeoutMs: -1 }, 'Option `modelTimeoutMs` must be a positive integer; got -1.'],
  ])('refuses %j', (options, message) => {
    expect(() => new Executor({ sensitiveActions: false, task: 'x', llm: new ScriptedLLM(), browser: shopBrowser(), ...options } as ExecutorOptions)).toThrow(
      message,
    );
  });
});
