import { describe, expect, it } from 'vitest';
import { shopBrowser } from '../../test/helpers/loop';
import { defineAction } from '../actions/define-action';
import { ConfigError } from '../errors';
import { z } from 'zod';
import { ScriptedLLM } from '../testing/scripted-llm';
import { Executor } from './executor';

function attempt(overrides: Record<string, unknown>): { error: unknown; llm: ScriptedLLM; browser: ReturnType<typeof shopBrowser> } {
  const llm = new ScriptedLLM();
  const browser = shopBrowser();
  try {
    new Executor({ task: 'x', llm, browser, ...overrides });
    return { error: undefined, llm, browser };
  } catch (error) {
    return { error, llm, browser };
  }
}

/** A custom action called `lookup`; `which` tells copies apart. */
function lookup(which: string) {
  return defineAction({ name: 'lookup', description: `Look up (${which})`, schema: z.object({}), handler: async () => which });
}

describe('Executor options', () => {
  it.each([
    [{ maxSteps: -1 }, 'maxSteps', 'Option `maxSteps` must be a positive integer; got -1.'],
    [{ maxSteps: 2.5 }, 'maxSteps', 'Option `maxSteps` must be an integer; got 2.5.'],
    [{ planningInterval: 0 }, 'planningInterval', 'Option `planningInterval` must be a positive integer; got 0.'],
    [{ maxFailures: '3' }, 'maxFailures', 'Option `maxFailures` must be a number; got "3".'],
    [{ useVision: 'yes' }, 'useVision', 'Option `useVision` must be a boolean; got "yes".'],
    [{ maxInputTokens: 10 }, 'maxInputTokens', 'Option `maxInputTokens` must be at least 1000; got 10.'],
    [{ temperature: 3 }, 'temperature', 'Option `temperature` must be between 0 and 2; got 3.'],
    [{ task: '   ' }, 'task', 'Option `task` must not be empty; got "   ".'],
    [{ llm: undefined }, 'llm', 'Option `llm` must be an LLMClient (specificationVersion "v1" and a generate() method); it is missing.'],
    [{ browser: {} }, 'browser', 'Option `browser` must be a BrowserDriver (specificationVersion "v1"), such as a PlaywrightDriver; got object.'],
    [{ maxStep: 10 }, 'maxStep', 'Unknown option `maxStep`. Check its spelling against ExecutorOptions.'],
    [{ modelRetry: { retry: 1 } }, 'modelRetry.retry', 'Unknown option `modelRetry.retry`. Check its spelling against ExecutorOptions.'],
    [{ modelRetry: { retries: -1 } }, 'modelRetry.retries', 'Option `modelRetry.retries` must be 0 or more; got -1.'],
    [{ excludeActions: ['done'] }, 'excludeActions', 'Option `excludeActions` cannot exclude `done`: the Navigator needs it to finish.'],
    [{ excludeActions: ['click'] }, 'excludeActions', 'Option `excludeActions` names unknown built-in actions: click.'],
    [
      { actions: [lookup('first'), lookup('second'), lookup('first')] },
      'actions',
      'Option `actions` has more than one action named "lookup": give each action its own name (one named like a built-in replaces the built-in).',
    ],
  ])('rejects %o with a ConfigError naming the field, before anything runs', (overrides, field, message) => {
    const { error, llm, browser } = attempt(overrides);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as ConfigError).field).toBe(field);
    expect((error as ConfigError).message).toBe(message);
    expect(llm.callCount).toBe(0);
    expect(browser.calls).toEqual([]);
  });

  it('accepts the documented defaults', () => {
    expect(attempt({}).error).toBeUndefined();
    expect(attempt({ maxSteps: 1, planningInterval: 1, viewportExpansion: -1, temperature: 0 }).error).toBeUndefined();
  });
});
