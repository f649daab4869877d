import { describe, expect, it } from 'vitest';
import { MessageManager } from '../messages/message-manager';
import { FakeBrowserDriver } from '../testing/fake-browser-driver';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../testing/scripted-llm';
import { Executor } from './executor';

describe('Executor: the token budget', () => {
  it('keeps every request within maxInputTokens over a 300-step run', async () => {
    const content = Array.from({ length: 150 }, (_, index) => ({
      tag: 'a',
      text: `Product number ${index} with a long descriptive name`,
      href: `https://shop.test/p/${index}`,
    }));
    const browser = new FakeBrowserDriver({
      startUrl: 'https://shop.test/',
      pages: { 'https://shop.test/': { title: 'Catalogue', content, pixelsBelow: 5000 } },
    });
    const maxInputTokens = 9000; // the system prompt with every built-in action takes about 2,300
    const llm = new ScriptedLLM({
      respond: (request) => {
        if (request.agent === 'planner') return scriptedPlan({ nextSteps: 'Keep reading the catalogue and note every product. '.repeat(5) });
        return scriptedActions([{ cache_content: { content: `Findings of call ${request.callIndex}: ${'product details '.repeat(20)}` } }], {
          memory: `Read ${request.callIndex} pages so far. ${'context '.repeat(30)}`,
        });
      },
    });
    const executor = new Executor({ task: 'Catalogue every product', llm, browser, maxSteps: 300, maxInputTokens, finalAnswerOnLimit: false });
    const result = await executor.execute();

    expect(result.status).toBe('max-steps');
    expect(result.steps).toBe(300);
    const estimator = new MessageManager({ maxInputTokens });
    const sizes = llm.requests.map((request) => request.messages.reduce((sum, message) => sum + estimator.estimateTokens(message), 0));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(maxInputTokens);
    // Without compaction the conversation would have grown far past the budget.
    expect(sizes.length).toBeGreaterThan(300);
    for (const request of llm.requests) {
      expect(request.messages[0]!.role).toBe('system');
      expect(request.messages[1]!.content).toContain('Catalogue every product');
    }
    for (const request of llm.requestsOf('navigator')) {
      expect(request.lastUserText).toContain('[Current browser state]');
      expect(request.lastUserText).toContain('Product number 149');
    }
    const last = llm.requestsOf('navigator').at(-1)!;
    expect(last.messages[2]!.content).toMatch(/^\[\d+ earlier messages were removed to stay within the token budget/);
    expect(last.lastUserText).toContain('Current step: 300/300');
  }, 30_000);
});
