// What the URL policy stops while no task runs: a `url-blocked` event at once (betweenTasks, the
// last task's id), once per kind and URL, in session streams only. (The note the next task's
// agents read is checked with real drivers in test/e2e/guard-between-tasks.test.ts.)
import { describe, expect, it } from 'vitest';
import { shopBrowser } from '../../test/helpers/loop';
import type { NavigationGuard } from '../browser/types';
import type { ExecutorEvent, ExecutorEventMap } from '../events';
import { ScriptedLLM, scriptedPlan } from '../testing/scripted-llm';
import { Executor } from './executor';

/** A fake browser whose installed guard the test can reach, as a page's own navigation would. */
function guardedBrowser(): { browser: ReturnType<typeof shopBrowser>; guard: () => NavigationGuard } {
  const browser = shopBrowser();
  let installed: NavigationGuard | undefined;
  const setNavigationGuard = browser.setNavigationGuard.bind(browser);
  browser.setNavigationGuard = async (guard, options) => {
    installed = guard;
    return setNavigationGuard(guard, options);
  };
  return { browser, guard: () => installed as NavigationGuard };
}

const answer = (finalAnswer: string): string => scriptedPlan({ done: true, finalAnswer });

describe('a navigation stopped between tasks', () => {
  it('is an event at once with betweenTasks and the last task id, once per kind and URL, and the next task does not send it again', async () => {
    const { browser, guard } = guardedBrowser();
    const llm = new ScriptedLLM({ responses: [answer('one'), answer('two')] });
    const executor = new Executor({ task: 'Look', llm, browser, urlPolicy: { allow: ['shop.test'] } });
    const blocked: ExecutorEventMap['url-blocked'][] = [];
    executor.on('url-blocked', (event) => blocked.push(event));
    const session: ExecutorEvent[] = [];
    const sessionStream = executor.events({ scope: 'session' });
    const reading = (async () => {
      for await (const event of sessionStream) session.push(event);
    })();
    const first = await executor.execute();
    expect(first.status).toBe('ok');
    expect(blocked).toEqual([]);

    // A task stream opened now is the next task's: it must not get what happens before that task.
    executor.addFollowUpTask('Look again');
    const taskStream = executor.events();
    guard().blocked({ url: 'https://evil.test/a', reason: 'host evil.test is not on the allow list', kind: 'navigation' });
    guard().blocked({ url: 'https://evil.test/a', reason: 'host evil.test is not on the allow list', kind: 'navigation' });
    guard().blocked({ url: 'https://evil.test/pixel', reason: 'host evil.test is not on the allow list', kind: 'request' });
    expect(blocked).toEqual([
      expect.objectContaining({ taskId: first.taskId, step: 0, actor: 'system', url: 'https://evil.test/a', kind: 'navigation', betweenTasks: true }),
      expect.objectContaining({ taskId: first.taskId, url: 'https://evil.test/pixel', kind: 'request', betweenTasks: true }),
    ]);

    const second = await executor.execute();
    expect(second.status).toBe('ok');
    expect(blocked).toHaveLength(2);
    const inTaskStream: ExecutorEvent[] = [];
    for await (const event of taskStream) inTaskStream.push(event);
    expect(inTaskStream.filter((event) => event.type === 'url-blocked')).toEqual([]);
    expect(inTaskStream[0]).toMatchObject({ type: 'task-start', taskId: second.taskId });

    await executor.close();
    await reading;
    expect(session.filter((event) => event.type === 'url-blocked').map((event) => event.betweenTasks)).toEqual([true, true]);
  });
});
