// The optional validator: an independent check of the Planner's done (issue 11, getting unstuck).
import { describe, expect, it } from 'vitest';
import { shopBrowser } from '../../test/helpers/loop';
import type { ExecutorEventMap } from '../events';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../testing/scripted-llm';
import { Executor } from './executor';

const verdict = (isValid: boolean, reason: string): string => JSON.stringify({ is_valid: isValid, reason });

describe('validatorLLM', () => {
  it('sends the loop back with its reason, then accepts the corrected answer; its usage counts', async () => {
    const llm: ScriptedLLM = new ScriptedLLM({
      respond: (request) => {
        const plans = llm.requestsOf('planner').length;
        if (request.agent === 'planner') return scriptedPlan({ done: plans !== 1 ? true : false, finalAnswer: plans === 2 ? 'Blue mug' : 'Blue mug, $12' });
        return scriptedActions([{ done: { text: 'found it' } }]);
      },
      usage: { inputTokens: 10, outputTokens: 1 },
    });
    const validatorLLM = new ScriptedLLM({
      responses: [verdict(false, 'The price was asked for and is missing.'), verdict(true, 'Name and price match the page.')],
      usage: { inputTokens: 100, outputTokens: 5 },
    });
    const executor = new Executor({
      sensitiveActions: false,
      task: 'Name the blue mug and its price',
      llm,
      validatorLLM,
      browser: shopBrowser(),
      planningInterval: 1,
    });
    const verdicts: ExecutorEventMap['validation-end'][] = [];
    executor.on('validation-end', (event) => verdicts.push(event));
    const result = await executor.execute();

    expect(result.status).toBe('ok');
    expect(result.finalAnswer).toBe('Blue mug, $12');
    expect(verdicts.map((event) => [event.valid, event.answer, event.actor])).toEqual([
      [false, 'Blue mug', 'validator'],
      [true, 'Blue mug, $12', 'validator'],
    ]);
    // The rejection reached the agents: the next Planner request quotes the reason.
    expect(JSON.stringify(llm.requestsOf('planner')[2]?.messages)).toContain(
      'The final answer was checked against the request and rejected: The price was asked for and is missing.',
    );
    expect(result.history.steps.filter((step) => step.actor === 'validator')).toHaveLength(2);
    expect(validatorLLM.requests[0]?.lastUserText).toContain('<proposed_answer>\nBlue mug\n</proposed_answer>');
    expect(result.usage.inputTokens).toBe(llm.callCount * 10 + 2 * 100);
  });

  it('lets the answer stand after two rejections, and is not asked for plain questions', async () => {
    const llm = new ScriptedLLM({
      respond: (request) => (request.agent === 'planner' ? scriptedPlan({ done: true, finalAnswer: 'an answer' }) : scriptedActions([{ done: { text: 'x' } }])),
    });
    const validatorLLM = new ScriptedLLM({ respond: () => verdict(false, 'Never good enough.') });
    const result = await new Executor({ sensitiveActions: false, task: 'x', llm, validatorLLM, browser: shopBrowser(), planningInterval: 1 }).execute();
    expect(result.status).toBe('ok');
    expect(result.finalAnswer).toBe('an answer');
    expect(validatorLLM.callCount).toBe(2);

    const quiet = new ScriptedLLM({ respond: () => verdict(false, 'unused') });
    const plain = await new Executor({
      sensitiveActions: false,
      task: 'What is 2+2?',
      llm: new ScriptedLLM({ responses: [scriptedPlan({ done: true, webTask: false, finalAnswer: '4' })] }),
      validatorLLM: quiet,
      browser: shopBrowser(),
    }).execute();
    expect(plain.finalAnswer).toBe('4');
    expect(quiet.callCount).toBe(0);
  });
});
