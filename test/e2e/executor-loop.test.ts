// The whole loop once, for real: Executor + PlaywrightDriver + ScriptedLLM against a fixture page.
// The scripted Navigator reads the element index from the state text it is sent, as a model would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAction, Executor } from '../../src/index';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../../src/testing/index';
import { startBrowser, type BrowserFixture } from './snapshot-helpers';

let fixture: BrowserFixture;

beforeAll(async () => {
  fixture = await startBrowser();
});

afterAll(async () => {
  await fixture?.close();
});

const clickElement = defineAction({
  name: 'click_element',
  description: 'Click the element with this index',
  schema: z.object({ index: z.number().int() }),
  handler: async ({ index }, context) => {
    await context.driver.click(context.element(index), { signal: context.signal });
    return `Clicked element ${index}`;
  },
});

/** The index of the element line whose text contains `label`, read from the state text. */
function indexIn(stateText: string, label: string): number | undefined {
  const match = new RegExp(`\\[(\\d+)\\]<[^>]*>${label}`).exec(stateText);
  return match ? Number(match[1]) : undefined;
}

describe('Executor with PlaywrightDriver', () => {
  it('clicks by the index in the state text and answers from the page it revealed', async () => {
    await fixture.driver.goto(fixture.server.url('executor.html'));
    const navigatorStates: string[] = [];
    const llm = new ScriptedLLM({
      respond: (request) => {
        if (request.agent === 'planner') {
          const status = /Status: ([^\n<]+)/.exec(request.lastUserText);
          return status ? scriptedPlan({ done: true, finalAnswer: status[1]!.trim() }) : scriptedPlan({ nextSteps: 'Reveal the order status' });
        }
        navigatorStates.push(request.lastUserText);
        const reveal = indexIn(request.lastUserText, 'Show order status');
        if (reveal !== undefined) return scriptedActions([{ click_element: { index: reveal } }]);
        return scriptedActions([{ done: { text: 'The status is shown', success: true } }]);
      },
    });
    const executor = new Executor({
      sensitiveActions: false,
      task: 'What is the status of order 1042?',
      llm,
      browser: fixture.driver,
      actions: [clickElement],
      planningInterval: 1,
    });
    const result = await executor.execute();
    expect(result.status).toBe('ok');
    expect(result.finalAnswer).toBe('shipped on Monday');
    expect(navigatorStates[0]).toContain('Order 1042');
    expect(navigatorStates[0]).toMatch(/\[\d+\]<button>Show order status \/>/);
    expect(navigatorStates[0]).not.toContain('shipped');
    const click = result.history.steps.flatMap((step) => step.actions).find((action) => action.name === 'click_element');
    expect(click).toMatchObject({ element: { tagName: 'button' } });
    expect(await fixture.driver.currentUrl()).toBe(fixture.server.url('executor.html'));
  });
});
