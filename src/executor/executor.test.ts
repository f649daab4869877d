import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { clickAction, conversationText, fastRetry, indexOf, shopBrowser } from '../../test/helpers/loop';
import { defineAction } from '../actions/define-action';
import { ChatModelAuthError, ChatModelBadRequestError, ChatModelForbiddenError, MaxFailuresReachedError, MaxStepsReachedError } from '../errors';
import { FakeBrowserDriver } from '../testing/fake-browser-driver';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../testing/scripted-llm';
import { Executor } from './executor';

describe('Executor: a task run end to end', () => {
  it('navigates by the indices in the state text and ends with the Planner\u2019s answer', async () => {
    const browser = shopBrowser();
    const llm = new ScriptedLLM({
      respond: (request) => {
        if (request.agent === 'planner') {
          return request.lastUserText.includes('Blue mug $12')
            ? scriptedPlan({ done: true, finalAnswer: 'The blue mug costs $12.' })
            : scriptedPlan({ nextSteps: 'Open the mugs page' });
        }
        const mugs = indexOf(request.lastUserText, 'Mugs');
        if (mugs !== undefined) return scriptedActions([{ click_element: { index: mugs } }]);
        return scriptedActions([{ done: { text: 'Blue mug $12', success: true } }]);
      },
    });
    const executor = new Executor({ sensitiveActions: false, task: 'What does the blue mug cost?', llm, browser, actions: [clickAction] });
    const result = await executor.execute();

    expect(result.status).toBe('ok');
    expect(result.success).toBe(true);
    expect(result.finalAnswer).toBe('The blue mug costs $12.');
    expect(result.error).toBeUndefined();
    expect(result.steps).toBe(2);
    expect(await browser.currentUrl()).toBe('https://shop.test/mugs');
    expect(result.usage.calls).toBe(llm.callCount);
    expect(result.usage.inputTokens).toBe(100 * llm.callCount);
    expect(result.usage.totalTokens).toBe(120 * llm.callCount);
    const actors = result.history.steps.map((step) => step.actor);
    expect(actors).toEqual(['planner', 'navigator', 'navigator', 'planner']);
    const click = result.history.steps[1]?.actions[0];
    expect(click).toMatchObject({ name: 'click_element', result: 'Clicked element 1', element: { index: 1, tagName: 'a' } });
    expect(result.history.steps[1]?.browser).toEqual({
      url: 'https://shop.test/',
      title: 'Shop',
      tabs: 1,
      tabList: [{ id: 'tab-1', url: 'https://shop.test/', title: 'Shop' }],
      activeTabId: 'tab-1',
    });
    expect(result.history.tasks[0]).toMatchObject({ task: 'What does the blue mug cost?', status: 'ok', finalAnswer: 'The blue mug costs $12.' });
  });

  it('reports failure when the Navigator finishes with success false and the Planner accepts', async () => {
    const llm = new ScriptedLLM({
      responses: [
        scriptedPlan({ nextSteps: 'try' }),
        scriptedActions([{ done: { text: 'The shop is closed', success: false } }]),
        scriptedPlan({ done: true, finalAnswer: 'The shop is closed.' }),
      ],
    });
    const result = await new Executor({ sensitiveActions: false, task: 'Buy a mug', llm, browser: shopBrowser() }).execute();
    expect(result.status).toBe('ok');
    expect(result.success).toBe(false);
    expect(result.finalAnswer).toBe('The shop is closed.');
  });

  it('returns the done action\u2019s structured data validated against outputSchema', async () => {
    const outputSchema = z.object({ name: z.string(), price: z.number() });
    const llm = new ScriptedLLM({
      responses: [
        scriptedPlan(),
        scriptedActions([{ done: { text: 'found', data: { name: 'Blue mug', price: 'twelve' } } }]),
        scriptedActions([{ done: { text: 'found', data: { name: 'Blue mug', price: 12 } } }]),
        scriptedPlan({ done: true, finalAnswer: 'Blue mug, $12' }),
      ],
    });
    const result = await new Executor({
      sensitiveActions: false,
      task: 'Find a mug',
      llm,
      browser: shopBrowser(),
      outputSchema,
      planningInterval: 5,
    }).execute();
    expect(result.data).toEqual({ name: 'Blue mug', price: 12 });
    expect(result.history.steps[1]?.actions[0]?.error?.message).toMatch(/Invalid parameters for done: data\.price/);
    const jsonSchema = JSON.stringify(llm.requestsOf('navigator')[0]?.output?.schema);
    expect(jsonSchema).toContain('"price"');
  });
});

describe('Executor: Planner cadence and authority', () => {
  it('runs the Planner when nSteps % planningInterval === 0', async () => {
    const llm: ScriptedLLM = new ScriptedLLM({
      respond: (request): string => {
        if (request.agent === 'planner') return scriptedPlan({ done: llm.requestsOf('navigator').length >= 5, finalAnswer: 'done' });
        return scriptedActions([{ cache_content: { content: `note ${request.callIndex}` } }]);
      },
    });
    const executor = new Executor({ sensitiveActions: false, task: 'Take notes', llm, browser: shopBrowser(), planningInterval: 2 });
    const planSteps: number[] = [];
    executor.on('plan-end', (event) => planSteps.push(event.step));
    const result = await executor.execute();
    expect(planSteps).toEqual([0, 2, 4, 6]);
    expect(result.steps).toBe(6);
  });

  it('treats the Navigator\u2019s done as a proposal: the Planner is asked at once and may continue', async () => {
    const llm = new ScriptedLLM({
      responses: [
        scriptedPlan({ nextSteps: 'look' }),
        scriptedActions([{ done: { text: 'premature' } }]),
        scriptedPlan({ done: false, nextSteps: 'the cart is still empty' }),
        scriptedActions([{ cache_content: { content: 'cart checked' } }]),
        scriptedActions([{ done: { text: 'now finished' } }]),
        scriptedPlan({ done: 'TRUE', finalAnswer: 'finished' }),
      ],
    });
    const executor = new Executor({ sensitiveActions: false, task: 'Fill the cart', llm, browser: shopBrowser(), planningInterval: 10 });
    const planSteps: number[] = [];
    executor.on('plan-end', (event) => planSteps.push(event.step));
    const result = await executor.execute();
    expect(planSteps).toEqual([0, 1, 3]);
    expect(result.status).toBe('ok');
    expect(result.finalAnswer).toBe('finished');
    expect(result.steps).toBe(3);
  });

  it('accepts "true"/"false" strings for done and web_task', async () => {
    const llm = new ScriptedLLM({ responses: [scriptedPlan({ done: 'false', webTask: 'False', finalAnswer: 'Paris' })] });
    const browser = shopBrowser();
    const result = await new Executor({ sensitiveActions: false, task: 'What is the capital of France?', llm, browser }).execute();
    expect(result.status).toBe('ok');
    expect(result.finalAnswer).toBe('Paris');
    expect(llm.callCount).toBe(1);
  });

  it('answers a plain question (web_task false) without the Navigator or the browser', async () => {
    const llm = new ScriptedLLM({ responses: [scriptedPlan({ done: true, webTask: false, finalAnswer: '4' })] });
    const browser = shopBrowser();
    const result = await new Executor({ sensitiveActions: false, task: 'What is 2 + 2?', llm, browser }).execute();
    expect(result).toMatchObject({ status: 'ok', success: true, finalAnswer: '4', steps: 0 });
    expect(llm.requestsOf('navigator')).toHaveLength(0);
    expect(browser.calls).toEqual([]);
  });

  it('shows the first planning call no browser state, and every later one the current state, with the plan before it', async () => {
    const llm = new ScriptedLLM({
      respond: (request) => {
        if (request.agent === 'planner') return scriptedPlan({ done: request.callIndex > 2, nextSteps: `plan ${request.callIndex}`, finalAnswer: 'ok' });
        return scriptedActions([{ cache_content: { content: 'seen' } }]);
      },
    });
    await new Executor({ sensitiveActions: false, task: 'Look around', llm, browser: shopBrowser(), planningInterval: 1 }).execute();
    const [first, second] = llm.requestsOf('planner');
    expect(conversationText(first!)).not.toContain('[Current browser state]');
    expect(second!.lastUserText).toContain('[Current browser state]');
    expect(second!.lastUserText).toContain('https://shop.test/');
    expect(second!.messages[0]).toMatchObject({ role: 'system' });
    expect(second!.messages[0]!.content).toContain('You are the Planner');
    // The Navigator's request after the second plan: the plan sits right before the state message.
    const navigatorAfterSecondPlan = llm.requests[second!.callIndex + 1]!;
    const messages = navigatorAfterSecondPlan.messages;
    expect(messages[messages.length - 1]!.content).toContain('[Current browser state]');
    expect(messages[messages.length - 2]).toMatchObject({ role: 'assistant', content: expect.stringContaining('plan 2') });
    expect(messages[0]!.content).toContain('You are the Navigator');
  });
});

describe('Executor: the Navigator\u2019s actions', () => {
  it('runs at most maxActionsPerStep actions and tells the model about the rest', async () => {
    const llm = new ScriptedLLM({
      responses: [
        scriptedPlan(),
        scriptedActions([1, 2, 3, 4, 5].map((n) => ({ cache_content: { content: `note ${n}` } }))),
        scriptedActions([{ done: { text: 'ok' } }]),
        scriptedPlan({ done: true, finalAnswer: 'ok' }),
      ],
    });
    const result = await new Executor({ sensitiveActions: false, task: 'Notes', llm, browser: shopBrowser(), maxActionsPerStep: 2 }).execute();
    expect(result.history.steps[1]?.actions.map((action) => action.result)).toEqual(['Cached findings: note 1', 'Cached findings: note 2']);
    const nextRequest = conversationText(llm.requests[2]!);
    expect(nextRequest).toContain('Only the first 2 actions ran: 3 more were dropped');
    const schema = llm.requests[1]!.output!.schema as { properties: { action: { maxItems: number } } };
    expect(schema.properties.action.maxItems).toBe(2);
  });

  it('keeps only the actions that ran in the history and the conversation, however many the model wrote', async () => {
    const flood = Array.from({ length: 10_000 }, (_, n) => ({ cache_content: { content: `note ${n}` } }));
    const llm = new ScriptedLLM({
      responses: [scriptedPlan(), scriptedActions(flood), scriptedActions([{ done: { text: 'ok' } }]), scriptedPlan({ done: true, finalAnswer: 'ok' })],
    });
    const result = await new Executor({ sensitiveActions: false, task: 'Notes', llm, browser: shopBrowser() }).execute();
    const flooded = result.history.steps[1]!;
    expect(flooded.actions).toHaveLength(10);
    expect((flooded.modelOutput as { action: unknown[] }).action).toHaveLength(10);
    const nextRequest = conversationText(llm.requests[2]!);
    expect(nextRequest).toContain('Only the first 10 actions ran: 9990 more were dropped');
    expect(nextRequest).not.toContain('note 10"');
    // The request before the flood, plus ten actions and their results: some thousands of characters, not 400,000.
    expect(nextRequest.length).toBeLessThan(conversationText(llm.requests[1]!).length + 5_000);
  });

  it('builds the action schema from the registered actions', async () => {
    const llm = new ScriptedLLM({ responses: [scriptedPlan(), scriptedActions([{ done: { text: 'x' } }]), scriptedPlan({ done: true })] });
    await new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser(), actions: [clickAction], excludeActions: ['wait'] }).execute();
    const schema = JSON.stringify(llm.requestsOf('navigator')[0]!.output!.schema);
    for (const name of ['click_element', 'done', 'cache_content', 'ask_human']) expect(schema).toContain(`"${name}"`);
    expect(schema).not.toContain('"wait"');
    expect(llm.requestsOf('navigator')[0]!.messages[0]!.content).toContain('- click_element: Click the element with this index');
  });

  it('turns unknown actions and invalid parameters into errors the model reads next step', async () => {
    const llm = new ScriptedLLM({
      responses: [
        scriptedPlan(),
        scriptedActions([{ teleport: { to: 'mars' } }, { click_element: { index: 'first' } }, { cache_content: { content: 'still here' } }]),
        scriptedActions([{ done: { text: 'ok' } }]),
        scriptedPlan({ done: true, finalAnswer: 'ok' }),
      ],
    });
    const result = await new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser(), actions: [clickAction] }).execute();
    expect(result.status).toBe('ok');
    const text = conversationText(llm.requests[2]!);
    expect(text).toMatch(
      /Action error:\n<untrusted_content>\nUnknown action "teleport". Available actions: done, search, go_to_url, .*click_element, .*ask_human./,
    );
    expect(text).toMatch(/Action error:\n<untrusted_content>\nInvalid parameters for click_element: index: /);
    expect(text).toContain('Action result:\n<untrusted_content>\nCached findings: still here');
  });

  it('reports a stale index as a recoverable error, not a failure of the task', async () => {
    const llm = new ScriptedLLM({
      responses: [
        scriptedPlan(),
        scriptedActions([{ click_element: { index: 99 } }]),
        scriptedActions([{ done: { text: 'gave up' } }]),
        scriptedPlan({ done: true, finalAnswer: 'ok' }),
      ],
    });
    const result = await new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser(), actions: [clickAction] }).execute();
    expect(result.status).toBe('ok');
    expect(conversationText(llm.requests[2]!)).toContain('There is no element with index 99');
  });

  it('skips the actions after done and says which', async () => {
    const llm = new ScriptedLLM({
      responses: [scriptedPlan(), scriptedActions([{ done: { text: 'ok' } }, { cache_content: { content: 'late' } }]), scriptedPlan({ done: true })],
    });
    const result = await new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser() }).execute();
    expect(result.history.steps[1]?.actions.map((action) => action.name)).toEqual(['done']);
    expect(conversationText(llm.requests[2]!)).toContain('Skipped 1 action(s) that did not run because done ends the step: cache_content.');
  });

  it('lets a host action see the driver, the state the model saw and the extraction model', async () => {
    const extractionLLM = new ScriptedLLM({ model: 'extractor', responses: ['summary'] });
    let seen: { url: string | undefined; extractor: string; step: number } | undefined;
    const inspect = defineAction({
      name: 'inspect',
      description: 'Inspect',
      schema: z.object({}),
      handler: async (_params, context) => {
        seen = { url: context.state?.url, extractor: context.extractionLLM.model, step: context.step };
        return 'inspected';
      },
    });
    const llm = new ScriptedLLM({
      responses: [scriptedPlan(), scriptedActions([{ inspect: {} }]), scriptedActions([{ done: { text: 'x' } }]), scriptedPlan({ done: true })],
    });
    await new Executor({ sensitiveActions: false, task: 'x', llm, extractionLLM, browser: shopBrowser(), actions: [inspect] }).execute();
    expect(seen).toEqual({ url: 'https://shop.test/', extractor: 'extractor', step: 1 });
  });
});

describe('Executor: failures', () => {
  it('ends with MaxFailuresReachedError after maxFailures failed steps in a row', async () => {
    const llm = new ScriptedLLM({ respond: (request) => (request.agent === 'planner' ? scriptedPlan() : 'not json at all') });
    const result = await new Executor({
      sensitiveActions: false,
      task: 'x',
      llm,
      browser: shopBrowser(),
      maxFailures: 3,
      planningInterval: 100,
      finalAnswerOnLimit: false,
    }).execute();
    expect(result.status).toBe('failed');
    expect(MaxFailuresReachedError.isInstance(result.error)).toBe(true);
    expect(result.error?.message).toContain('3 failed steps in a row');
    // Each failed step: one call and one repair call with the validation error.
    expect(llm.requestsOf('navigator')).toHaveLength(6);
    const repair = llm.requestsOf('navigator')[1]!;
    expect(repair.messages[repair.messages.length - 1]!.content).toContain('could not be read as JSON');
    expect(result.history.steps.filter((step) => step.error?.code === 'CHAT_MODEL_OUTPUT')).toHaveLength(3);
    // Calls whose output was unusable still cost tokens: they count in the step and the task.
    expect(result.usage.calls).toBe(llm.callCount);
    expect(result.history.steps[1]?.usage.calls).toBe(2);
  });

  it('resets the failure count on a good step', async () => {
    const script = ['bad', 'bad', 'good', 'bad', 'bad', 'good', 'done'];
    let navigatorCalls = 0;
    const llm = new ScriptedLLM({
      respond: (request) => {
        if (request.agent === 'planner') return scriptedPlan({ done: navigatorCalls >= script.length, finalAnswer: 'ok' });
        const kind = script[Math.floor(navigatorCalls++ / 1)];
        if (kind === 'bad') return { fail: 'status', status: 500 };
        if (kind === 'good') return scriptedActions([{ cache_content: { content: 'progress' } }]);
        return scriptedActions([{ done: { text: 'ok' } }]);
      },
    });
    const executor = new Executor({
      sensitiveActions: false,
      task: 'x',
      llm,
      browser: shopBrowser(),
      maxFailures: 3,
      planningInterval: 100,
      modelRetry: { retries: 0 },
    });
    const counts: number[] = [];
    executor.on('step-end', (event) => {
      if (event.actor === 'navigator') counts.push(event.consecutiveFailures);
    });
    const result = await executor.execute();
    expect(result.status).toBe('ok');
    expect(result.history.steps.filter((step) => step.error).length).toBe(4);
    expect(counts).toEqual([1, 2, 0, 1, 2, 0, 0]);
  });

  it('counts a step whose every action failed as a failure', async () => {
    const llm = new ScriptedLLM({ respond: (request) => (request.agent === 'planner' ? scriptedPlan() : scriptedActions([{ click_element: { index: 42 } }])) });
    const result = await new Executor({
      sensitiveActions: false,
      task: 'x',
      llm,
      browser: shopBrowser(),
      actions: [clickAction],
      maxFailures: 2,
      planningInterval: 100,
      finalAnswerOnLimit: false,
    }).execute();
    expect(MaxFailuresReachedError.isInstance(result.error)).toBe(true);
    expect(result.steps).toBe(2);
    expect(result.history.steps[1]?.error).toMatchObject({ code: 'ACTION_ERROR', message: expect.stringContaining('Every action of step 1 failed') });
  });

  it.each([
    [401, ChatModelAuthError],
    [403, ChatModelForbiddenError],
    [400, ChatModelBadRequestError],
  ])('ends at once on HTTP %i without retrying or using the failure budget', async (status, errorClass) => {
    const llm = new ScriptedLLM({ responses: [scriptedPlan(), { fail: 'status', status }] });
    const result = await new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser(), maxFailures: 5, modelRetry: fastRetry }).execute();
    expect(result.status).toBe('failed');
    expect(errorClass.isInstance(result.error)).toBe(true);
    expect(llm.callCount).toBe(2);
    expect(result.history.steps[1]?.error?.code).toBe(result.error?.code);
  });

  it('retries transient model errors (429, 5xx, network, timeout) with backoff before they count', async () => {
    const llm = new ScriptedLLM({
      responses: [
        { fail: 'status', status: 429, retryAfterMs: 5 },
        { fail: 'status', status: 503 },
        scriptedPlan(),
        { fail: 'network' },
        { fail: 'timeout' },
        scriptedActions([{ done: { text: 'ok' } }]),
        scriptedPlan({ done: true, finalAnswer: 'ok' }),
      ],
    });
    const executor = new Executor({
      sensitiveActions: false,
      task: 'x',
      llm,
      browser: shopBrowser(),
      modelRetry: { retries: 3, minTimeout: 1, maxTimeout: 2 },
    });
    const retries: string[] = [];
    executor.on('model-retry', (event) => retries.push(`${event.actor}:${event.error.code}`));
    const result = await executor.execute();
    expect(result.status).toBe('ok');
    expect(retries).toEqual(['planner:CHAT_MODEL_RATE_LIMIT', 'planner:CHAT_MODEL_SERVER', 'navigator:CHAT_MODEL_NETWORK', 'navigator:CHAT_MODEL_TIMEOUT']);
    expect(result.history.steps.every((step) => step.error === undefined)).toBe(true);
  });

  it('retries a call the model client aborted on its own, instead of taking it for a cancel', async () => {
    const selfAborting = new Error('The client gave up.');
    selfAborting.name = 'AbortError';
    const llm = new ScriptedLLM({
      responses: [
        scriptedPlan(),
        { fail: 'error', error: selfAborting },
        scriptedActions([{ done: { text: 'ok' } }]),
        scriptedPlan({ done: true, finalAnswer: 'ok' }),
      ],
    });
    const result = await new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser(), modelRetry: fastRetry }).execute();
    expect(result.status).toBe('ok');
    expect(llm.callCount).toBe(4);
  });

  it('asks the Planner again when its check of a done proposal failed, before acting on', async () => {
    const llm = new ScriptedLLM({
      responses: [
        scriptedPlan(),
        scriptedActions([{ done: { text: 'ok' } }]),
        { fail: 'status', status: 500 },
        scriptedPlan({ done: true, finalAnswer: 'checked' }),
      ],
    });
    const result = await new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser(), modelRetry: { retries: 0 } }).execute();
    expect(result).toMatchObject({ status: 'ok', finalAnswer: 'checked', steps: 1 });
    expect(llm.requests.map((request) => request.agent)).toEqual(['planner', 'navigator', 'planner', 'planner']);
  });

  it('ends with status max-steps and MaxStepsReachedError at the cap', async () => {
    const llm = new ScriptedLLM({
      respond: (request) => (request.agent === 'planner' ? scriptedPlan() : scriptedActions([{ cache_content: { content: 'again' } }])),
    });
    const result = await new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser(), maxSteps: 4, finalAnswerOnLimit: false }).execute();
    expect(result.status).toBe('max-steps');
    expect(result.success).toBe(false);
    expect(MaxStepsReachedError.isInstance(result.error)).toBe(true);
    expect(result.steps).toBe(4);
    expect(llm.requestsOf('navigator')).toHaveLength(4);
  });

  it('lets the Planner check a done proposed on the last allowed step', async () => {
    const llm = new ScriptedLLM({
      responses: [scriptedPlan(), scriptedActions([{ done: { text: 'ok' } }]), scriptedPlan({ done: true, finalAnswer: 'just in time' })],
    });
    const result = await new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser(), maxSteps: 1 }).execute();
    expect(result).toMatchObject({ status: 'ok', finalAnswer: 'just in time' });
  });

  it('keeps a complete history when the run fails', async () => {
    const llm = new ScriptedLLM({
      responses: [scriptedPlan(), scriptedActions([{ cache_content: { content: 'first' } }]), { fail: 'status', status: 401 }],
    });
    const executor = new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser() });
    const result = await executor.execute();
    expect(result.status).toBe('failed');
    expect(result.history.steps.map((step) => [step.actor, step.error?.code])).toEqual([
      ['planner', undefined],
      ['navigator', undefined],
      ['navigator', 'CHAT_MODEL_AUTH'],
    ]);
    expect(result.history.steps[2]?.browser?.url).toBe('https://shop.test/');
    // All but the screenshot bytes is JSON (a Map, which JSON writes as {}).
    const { screenshots, ...json } = executor.history;
    expect(JSON.parse(JSON.stringify(executor.history))).toEqual({ ...json, screenshots: {} });
    expect(screenshots.size).toBe(0);
    expect(executor.history.tasks[0]?.status).toBe('failed');
  });

  it('ends at once, after one failed step, on a browser that is gone', async () => {
    const browser = new FakeBrowserDriver();
    await browser.close();
    const llm = new ScriptedLLM({ respond: () => scriptedPlan() });
    const result = await new Executor({ sensitiveActions: false, task: 'x', llm, browser, maxFailures: 3 }).execute();
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('BROWSER_DISCONNECTED');
    expect(result.error?.message).toContain('The browser is closed');
    expect(result.history.steps.filter((step) => step.error !== undefined)).toHaveLength(1);
  });
});

describe('Executor: vision', () => {
  it('sends the screenshot to the Navigator and Planner when useVision is on', async () => {
    const llm = new ScriptedLLM({
      respond: (request) =>
        request.agent === 'planner' ? scriptedPlan({ done: request.callIndex > 0 }) : scriptedActions([{ cache_content: { content: 'x' } }]),
    });
    await new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser(), useVision: true, planningInterval: 1 }).execute();
    const hasImage = (index: number): boolean =>
      llm.requests[index]!.messages.some((message) => Array.isArray(message.content) && message.content.some((part) => part.type === 'image'));
    expect(hasImage(1)).toBe(true);
    expect(hasImage(2)).toBe(true);
  });

  it('keeps images from the Planner when useVisionForPlanner is off', async () => {
    const llm = new ScriptedLLM({
      respond: (request) =>
        request.agent === 'planner' ? scriptedPlan({ done: request.callIndex > 0 }) : scriptedActions([{ cache_content: { content: 'x' } }]),
    });
    await new Executor({
      sensitiveActions: false,
      task: 'x',
      llm,
      browser: shopBrowser(),
      useVision: true,
      useVisionForPlanner: false,
      planningInterval: 1,
    }).execute();
    const planner = llm.requestsOf('planner')[1]!;
    expect(planner.messages.every((message) => typeof message.content === 'string')).toBe(true);
    expect(planner.lastUserText).toContain('[Current browser state]');
  });

  it('gives a model without vision text only and warns instead of failing', async () => {
    const llm = new ScriptedLLM({
      supportsImages: false,
      responses: [scriptedPlan(), scriptedActions([{ done: { text: 'x' } }]), scriptedPlan({ done: true })],
    });
    const executor = new Executor({ sensitiveActions: false, task: 'x', llm, browser: shopBrowser(), useVision: true });
    const warnings: string[] = [];
    executor.on('warning', (event) => warnings.push(`${event.actor}:${event.code}`));
    const result = await executor.execute();
    expect(result.status).toBe('ok');
    expect(warnings).toContain('navigator:IMAGES_UNSUPPORTED');
    expect(llm.requests.every((request) => request.messages.every((message) => typeof message.content === 'string'))).toBe(true);
  });
});
