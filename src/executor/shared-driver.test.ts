// A BrowserDriver runs one task at a time: a second Executor's execute() on a driver that is
// running a task is refused before anything runs, instead of acting on the other task's pages.
import { describe, expect, it } from 'vitest';
import { shopBrowser } from '../../test/helpers/loop';
import { leaseDriver } from '../browser/lease';
import { ConfigError } from '../errors';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../testing/scripted-llm';
import { Executor } from './executor';

const answerTask = (llm: ScriptedLLM, browser: ReturnType<typeof shopBrowser>, task = 'x') => new Executor({ sensitiveActions: false, task, llm, browser });

describe('a driver shared by several Executors', () => {
  it('refuses a second task on a driver that is running one, and frees it when the task ends', async () => {
    const browser = shopBrowser();
    const first = answerTask(new ScriptedLLM({ responses: [scriptedPlan(), { fail: 'hang' }] }), browser);
    const running = first.execute();
    const second = answerTask(new ScriptedLLM({ responses: [scriptedPlan({ done: true, webTask: false, finalAnswer: 'b' })] }), browser);

    const refused = await second.execute().catch((error: unknown) => error);
    expect(ConfigError.isInstance(refused)).toBe(true);
    expect(refused).toMatchObject({ field: 'browser' });
    expect((refused as Error).message).toMatch(
      /^This browser driver is in use by another Executor's running task \(task [\w-]+\)\. A BrowserDriver runs one task at a time/,
    );
    expect(second.isRunning).toBe(false);

    first.cancel();
    expect((await running).status).toBe('cancelled');
    const result = await second.execute(); // its task was not used up by the refusal
    expect(result.status).toBe('ok');
    expect(result.finalAnswer).toBe('b');
  });

  it('lets exactly one of twenty parallel tasks run; each other one gets the error, none a wrong answer', async () => {
    const browser = shopBrowser();
    const executors = Array.from({ length: 20 }, (_, index) => {
      const llm = new ScriptedLLM({
        responses: [
          scriptedPlan(),
          scriptedActions([{ go_to_url: { url: `https://shop.test/?task=${index}` } }]),
          scriptedPlan({ done: true, finalAnswer: `answer ${index}` }),
        ],
      });
      return new Executor({ sensitiveActions: false, task: `task ${index}`, llm, browser, planningInterval: 1 });
    });
    const outcomes = await Promise.allSettled(executors.map((executor) => executor.execute()));
    const ran = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(ran).toHaveLength(1);
    expect(ran[0]).toMatchObject({ value: { status: 'ok', finalAnswer: 'answer 0' } });
    expect(outcomes.slice(1).every((outcome) => outcome.status === 'rejected' && ConfigError.isInstance(outcome.reason))).toBe(true);
  });

  it('releases the lease however the task ends, and only once', async () => {
    const browser = shopBrowser();
    const failing = new Executor({ sensitiveActions: false, task: 'x', llm: new ScriptedLLM({ responses: [{ fail: 'status', status: 401 }] }), browser });
    expect((await failing.execute()).status).toBe('failed');
    const release = leaseDriver(browser, { what: 'a test' }); // free again
    expect(() => leaseDriver(browser, { what: 'another test' })).toThrow('This browser driver is in use by a test.');
    release();
    release();
    leaseDriver(browser, { what: 'a third test' })();
  });
});
