import { describe, expect, it } from 'vitest';
import { conversationText, shopBrowser } from '../../test/helpers/loop';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../testing/scripted-llm';
import { Executor } from './executor';

/**
 * How soon "at once" must be. Each bound below stands against waiting for something of 10 s or more (a hang, a
 * retry delay, a timeout), so a second is still a sharp test; a tighter one fails on a loaded machine for no fault.
 */
const PROMPTLY_MS = 1000;

function askingLLM(question: string): ScriptedLLM {
  return new ScriptedLLM({
    responses: [
      scriptedPlan(),
      scriptedActions([{ ask_human: { question } }]),
      scriptedActions([{ done: { text: 'ok' } }]),
      scriptedPlan({ done: true, finalAnswer: 'ok' }),
    ],
  });
}

describe('Executor: human in the loop', () => {
  it('asks the host\u2019s handler and shows the answer to the model', async () => {
    const llm = askingLLM('Which size?');
    const asked: { question: string; timeout: number; aborted: boolean }[] = [];
    const executor = new Executor({
      sensitiveActions: false,
      task: 'Order a shirt',
      llm,
      browser: shopBrowser(),
      humanTimeoutMs: 5000,
      humanInput: async (question, options) => {
        asked.push({ question: question.question, timeout: options.timeout, aborted: options.signal.aborted });
        return 'Large';
      },
    });
    const result = await executor.execute();
    expect(result.status).toBe('ok');
    expect(asked).toEqual([{ question: 'Which size?', timeout: 5000, aborted: false }]);
    expect(conversationText(llm.requests[2]!)).toContain('The user answered "Which size?": Large');
  });

  it('without a handler, emits human-question and waits for respond()', async () => {
    const llm = askingLLM('Your zip code?');
    const executor = new Executor({ sensitiveActions: false, task: 'Find a store', llm, browser: shopBrowser() });
    const answers: unknown[] = [];
    executor.on('human-question', (event) => {
      expect(event.timeoutMs).toBe(3_600_000);
      setTimeout(() => expect(executor.respond('12345', event.questionId)).toBe(true), 5);
    });
    executor.on('human-answer', (event) => answers.push([event.answer, event.timedOut]));
    const result = await executor.execute();
    expect(result.status).toBe('ok');
    expect(answers).toEqual([['12345', false]]);
    expect(conversationText(llm.requests[2]!)).toContain('The user answered "Your zip code?": 12345');
    expect(executor.respond('late')).toBe(false);
  });

  it('tells the model when no one answered in time', async () => {
    const llm = askingLLM('Anyone there?');
    const executor = new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser(), humanTimeoutMs: 20 });
    const answers: unknown[] = [];
    executor.on('human-answer', (event) => answers.push([event.answer, event.timedOut]));
    const result = await executor.execute();
    expect(result.status).toBe('ok');
    expect(answers).toEqual([[undefined, true]]);
    expect(conversationText(llm.requests[2]!)).toContain('No one answered the question "Anyone there?"');
  });

  it('aborts the handler\u2019s signal on timeout', async () => {
    const llm = askingLLM('Slow?');
    let signalAborted = false;
    const executor = new Executor({
      sensitiveActions: false,
      task: 'x',
      llm,
      browser: shopBrowser(),
      humanTimeoutMs: 20,
      humanInput: (_question, { signal }) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            signalAborted = true;
            resolve(undefined);
          });
        }),
    });
    await executor.execute();
    expect(signalAborted).toBe(true);
    expect(conversationText(llm.requests[2]!)).toContain('No one answered');
  });

  it('ends the wait at once on cancel', async () => {
    const llm = askingLLM('Wait for me?');
    const executor = new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser() });
    executor.on('human-question', () => setTimeout(() => executor.cancel(), 5));
    const started = Date.now();
    const result = await executor.execute();
    expect(result.status).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(PROMPTLY_MS);
    expect(executor.respond('too late')).toBe(false);
  });
});
