import { describe, expect, it } from 'vitest';
import { conversationText, indexOf } from '../../test/helpers/loop';
import { ConfigError, HistoryFormatError } from '../errors';
import type { ExecutorEvent } from '../events';
import { Executor } from '../executor/executor';
import type { RunHistory } from '../history/types';
import { FakeBrowserDriver, type FakeElement, type FakePage } from '../testing/fake-browser-driver';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../testing/scripted-llm';
import { HistoryReplay, replayHistory } from './replay';

/** A small shop of fake pages; `variant` changes it the way sites change between a recording and a replay. */
function shop(
  variant: 'original' | 'changed' | 'broken' | 'moved' = 'original',
  origin = 'https://shop.test',
): { browser: FakeBrowserDriver; cart: string[]; emails: string[] } {
  const cart: string[] = [];
  const emails: string[] = [];
  const changed = variant !== 'original' && variant !== 'moved';
  const add = (name: string): FakeElement => ({
    tag: 'button',
    text: changed ? `Add ${name} to basket` : `Add ${name}`,
    attributes: { id: changed ? `buy-${name.replace(/\s/g, '-')}` : `add-${name.replace(/\s/g, '-')}` },
    onClick: () => void cart.push(name),
  });
  const mugs: (FakeElement | string)[] = ['Blue mug $12', add('blue mug'), 'Red mug $9', add('red mug')];
  const pages: Record<string, FakePage> = {
    [`${origin}/`]: {
      title: 'Shop',
      content: [
        ...(changed ? [{ tag: 'a', text: 'Winter sale: 20% off', href: `${origin}/sale` } satisfies FakeElement] : []),
        'Welcome to the shop',
        { tag: 'input', attributes: { id: changed ? 'newsletter-mail' : 'email', name: 'email', type: 'email', placeholder: 'Email' } },
        {
          tag: 'button',
          text: 'Subscribe',
          onClick: (driver) => {
            emails.push(driver.valueOf('email') ?? '');
          },
        },
        // Moved: the same link leads elsewhere now.
        {
          tag: 'a',
          text: 'Mugs',
          href: variant === 'moved' ? `${origin}/cups` : `${origin}/mugs`,
          attributes: { id: changed ? 'nav-2' : 'nav-mugs' },
        },
      ],
    },
    [`${origin}/cups`]: { title: 'Cups', content: mugs },
    [`${origin}/mugs`]: {
      title: changed ? 'Mugs | Shop' : 'Mugs',
      // Reordered in the changed shop; in the broken one, nothing can be added any more.
      content:
        variant === 'broken'
          ? ['Quick buy', { tag: 'button', text: 'Order now', onClick: () => void cart.push('blue mug') }, 'Blue mug $12', 'Red mug $9']
          : changed
            ? [...mugs.slice(2), ...mugs.slice(0, 2)]
            : mugs,
    },
  };
  return { browser: new FakeBrowserDriver({ startUrl: `${origin}/`, pages }), cart, emails };
}

/** Records the run: subscribe with an email, open the mugs, add the blue one, finish. */
async function record(): Promise<RunHistory> {
  const { browser, cart } = shop();
  const llm = new ScriptedLLM({
    respond: (request) => {
      const text = request.lastUserText;
      if (request.agent === 'planner') return cart.length > 0 ? scriptedPlan({ done: true, finalAnswer: 'Added the blue mug.' }) : scriptedPlan();
      if (cart.length > 0) return scriptedActions([{ done: { text: 'Added the blue mug', success: true } }]);
      // The email field, still empty (the page shows what was typed as its value).
      if (/<input[^>]*name="email"[^>]*>Email \/>/.test(text) && !text.includes('value="a@example.com"')) {
        return scriptedActions([
          { input_text: { index: Number(/\[(\d+)\]<input[^>]*name="email"/.exec(text)?.[1]), text: 'a@example.com' } },
          { click_element: { index: indexOf(text, 'Subscribe') } },
        ]);
      }
      const mugs = indexOf(text, 'Mugs');
      if (mugs !== undefined) return scriptedActions([{ click_element: { index: mugs } }]);
      return scriptedActions([{ click_element: { index: indexOf(text, 'Add blue mug') } }]);
    },
  });
  const result = await new Executor({
    sensitiveActions: false,
    task: 'Subscribe with a@example.com and add the blue mug to the cart',
    llm,
    browser,
    maxSteps: 8,
    planningInterval: 10,
  }).execute();
  expect(result.status).toBe('ok');
  expect(cart).toEqual(['blue mug']);
  return result.history;
}

/** For the replays that meet a missing element on purpose: each would wait the default 5 s for it to appear. */
const GIVE_UP_SOON = { elementTimeoutMs: 300 } as const;

describe('replayHistory', () => {
  it('replays a recording exactly on the page it was recorded on, without a model', async () => {
    const history = await record();
    const clicks = history.steps.flatMap((step) => step.actions).filter((action) => action.name === 'click_element');
    expect(clicks.every((action) => action.fingerprint?.tagName !== undefined)).toBe(true);

    const { browser, cart, emails } = shop();
    const replay = await replayHistory(history, { browser });
    expect(replay.steps.map((step) => [step.action, step.status])).toEqual([
      ['input_text', 'exact'],
      ['click_element', 'exact'],
      ['click_element', 'exact'],
      ['click_element', 'exact'],
      ['done', 'exact'],
    ]);
    expect(replay.status).toBe('ok');
    expect(cart).toEqual(['blue mug']);
    expect(emails).toEqual(['a@example.com']);
    expect(replay.finalAnswer).toBe('Added the blue mug');
    expect(replay.usage.calls).toBe(0);
    expect(await browser.currentUrl()).toBe('https://shop.test/mugs');
  });

  it('heals on a changed page: renamed ids, reordered items, changed text and a new banner', async () => {
    const history = await record();
    const { browser, cart } = shop('changed');
    const replay = await replayHistory(history, { browser });
    expect(replay.status).toBe('ok');
    expect(replay.steps.every((step) => step.status === 'exact' || step.status === 'healed')).toBe(true);
    const healed = replay.steps.filter((step) => step.status === 'healed');
    expect(healed.length).toBeGreaterThan(0);
    expect(healed.every((step) => step.healedBy === 'match' && (step.score ?? 0) > 0 && (step.differences?.length ?? 0) > 0)).toBe(true);
    // The blue mug, not the first "Add … to basket" button of the reordered list.
    expect(cart).toEqual(['blue mug']);
    // A title that changed is said, and fails nothing.
    const mugs = replay.steps.find((step) => step.differences?.some((text) => text.includes('title')));
    expect(mugs?.differences).toContain('the page\u2019s title is "Mugs | Shop", where the recording had "Mugs"'.replace('\u2019', "'"));
  });

  it('fails a step that leaves the browser elsewhere than the recording, and with skip goes on', async () => {
    const history = await record();
    const stopped = await replayHistory(history, { browser: shop('moved').browser });
    const failed = stopped.steps.find((step) => step.status === 'failed');
    expect(failed?.reason).toBe(
      'the browser is at https://shop.test/cups, where the recording was at https://shop.test/mugs (after acting on element 3 "Mugs")',
    );
    expect(stopped.steps.at(-1)?.status).toBe('skipped');

    const { browser, cart } = shop('moved');
    const skipping = await replayHistory(history, { browser, onStepFailure: 'skip', ...GIVE_UP_SOON });
    expect(skipping.status).toBe('failed');
    // Nothing is skipped: the steps after the failed one are tried, but the browser is off the
    // recorded path (the cups page has the same buttons): an element there is not taken for the
    // recorded page's, and nothing is added.
    expect(skipping.steps.map((step) => step.status)).not.toContain('skipped');
    expect(skipping.steps.find((step) => step.status === 'failed')?.reason).toMatch(/cups/);
    expect(skipping.steps.find((step) => step.action === 'click_element' && step.reason?.includes('not on the page the recording acted on'))).toBeDefined();
    expect(cart).toEqual([]);

    const unchecked = await replayHistory(history, { browser: shop('moved').browser, checkOutcome: false });
    expect(unchecked.status).toBe('ok');
  });

  it('stops the whole replay at a failed step: the later tasks are skipped too', async () => {
    const history = await record();
    // The same session with a follow-up task that does it all again.
    const followUp = { ...history.tasks[0]!, taskId: 'follow-up', task: 'Again' };
    const twice: RunHistory = {
      ...history,
      tasks: [...history.tasks, followUp],
      steps: [...history.steps, ...history.steps.map((step) => ({ ...step, taskId: 'follow-up', taskIndex: 1 }))],
    };
    const replay = await replayHistory(twice, { browser: shop('broken').browser, ...GIVE_UP_SOON });
    const second = replay.steps.filter((step) => step.taskId === 'follow-up');
    expect(second.length).toBeGreaterThan(0);
    expect(second.every((step) => step.status === 'skipped' && step.reason?.startsWith('the replay stopped at step'))).toBe(true);
  });

  it('replays extract_content with a model (its calls counted), and skips it without one', async () => {
    const history = await record();
    const [first] = history.steps.filter((step) => step.actor === 'navigator');
    const extract = { ...first!.actions[0]!, name: 'extract_content', params: { goal: 'the welcome line' }, fingerprint: undefined, element: undefined };
    const withExtract: RunHistory = {
      ...history,
      steps: history.steps.map((step) => (step === first ? { ...step, actions: [extract, ...step.actions] } : step)),
    };
    const skipped = await replayHistory(withExtract, { browser: shop().browser });
    expect(skipped.steps[0]).toMatchObject({ action: 'extract_content', status: 'skipped' });
    expect(skipped.steps[0]?.reason).toMatch(/needs a model/);

    const llm = new ScriptedLLM({ respond: () => ({ object: { extracted: 'Welcome to the shop' } }) });
    const events: string[] = [];
    const replay = new HistoryReplay(withExtract, { browser: shop().browser, llm });
    replay.on('model-call-end', (event) => events.push(event.model));
    const result = await replay.run();
    expect(result.steps[0]).toMatchObject({ action: 'extract_content', status: 'exact' });
    expect(result.history.steps[0]?.actions[0]?.result).toContain('Welcome to the shop');
    expect(llm.callCount).toBeGreaterThan(0);
    expect(result.usage.calls).toBe(llm.callCount);
    expect(events).toHaveLength(llm.callCount);
  });

  it('replays against the site where it is now with baseURL', async () => {
    const history = await record();
    // The same shop, served under another origin: the recorded URLs are not its URLs.
    const lost = await replayHistory(history, { browser: shop('original', 'https://staging.shop.test').browser });
    expect(lost.status).toBe('failed');
    expect(lost.steps.find((step) => step.status === 'failed')?.reason).toMatch(
      /^the browser is at https:\/\/staging\.shop\.test\/\S*, where the recording was at https:\/\/shop\.test\//,
    );
    const { browser, cart } = shop('original', 'https://staging.shop.test');
    const replay = await replayHistory(history, { browser, baseURL: 'https://staging.shop.test/' });
    expect(replay.status).toBe('ok');
    expect(cart).toEqual(['blue mug']);
  });

  it('ends cancelled when its signal aborts, and waits between actions when asked', async () => {
    const history = await record();
    const controller = new AbortController();
    const replay = new HistoryReplay(history, { browser: shop().browser, signal: controller.signal, delayBetweenActions: 50 });
    replay.on('action-end', () => controller.abort());
    const started = Date.now();
    const result = await replay.run();
    expect(result.status).toBe('cancelled');
    expect(result.error?.code).toBe('REQUEST_CANCELLED');
    expect(result.steps.filter((step) => step.status === 'exact')).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(5_000);

    const timed = await replayHistory(history, { browser: shop().browser, delayBetweenActions: 1_000, timeout: 100 });
    expect(timed.status).toBe('timed-out');
    expect(timed.error?.code).toBe('TIMEOUT');

    const paced = Date.now();
    await replayHistory(history, { browser: shop().browser, delayBetweenActions: 60 });
    expect(Date.now() - paced).toBeGreaterThanOrEqual(4 * 60);
  });

  it('substitutes variables into what the run typed', async () => {
    const history = await record();
    const { browser, emails } = shop();
    const replay = await replayHistory(history, { browser, variables: { email: 'b@example.com' } });
    expect(replay.status).toBe('ok');
    expect(emails).toEqual(['b@example.com']);
  });

  it('fails a step it cannot do with the reason, stops, and skips the rest', async () => {
    const history = await record();
    const { browser, cart } = shop('broken');
    const replay = await replayHistory(history, { browser, ...GIVE_UP_SOON });
    expect(replay.status).toBe('failed');
    const failed = replay.steps.find((step) => step.status === 'failed');
    expect(failed?.action).toBe('click_element');
    expect(failed?.reason).toMatch(/not found/);
    expect(replay.steps.slice(replay.steps.indexOf(failed!) + 1).every((step) => step.status === 'skipped')).toBe(true);
    expect(cart).toEqual([]);
  });

  it('with ask-model, hands the failed step to the Navigator, and counts its usage', async () => {
    const history = await record();
    const { browser: again, cart } = shop('broken');
    // The Navigator finds the other way to buy on the page it is shown.
    const llm = new ScriptedLLM({ respond: (request) => scriptedActions([{ click_element: { index: indexOf(request.lastUserText, 'Order now') } }]) });
    const replay = await replayHistory(history, { browser: again, onStepFailure: 'ask-model', llm, ...GIVE_UP_SOON });
    const healed = replay.steps.find((step) => step.healedBy === 'model');
    expect(healed).toMatchObject({ action: 'click_element', status: 'healed' });
    expect(healed?.reason).toMatch(/not found/);
    expect(replay.status).toBe('ok');
    expect(cart).toEqual(['blue mug']);
    expect(llm.callCount).toBeGreaterThan(0);
    // Its calls count in the result, in the replay's history step, and its action is recorded there.
    expect(replay.usage.calls).toBe(llm.callCount);
    const step = replay.history.steps.find((record) => record.modelCalls.length > 0);
    expect(step?.usage.calls).toBe(llm.callCount);
    expect(step?.actions.some((action) => action.name === 'click_element' && action.fingerprint?.name === 'Order now')).toBe(true);
    // The model was told which recorded action could not be done, and why.
    const told = conversationText(llm.requests[0]!);
    expect(told).toContain('could not be done the recorded way: click_element on the button "Add blue mug"');
    expect(told).toMatch(/Why: the recorded button "Add blue mug" was not found/);
  });

  it('sends the run\u2019s events and a replay-step per recorded action, and keeps its own history', async () => {
    const history = await record();
    const { browser } = shop();
    const events: ExecutorEvent['type'][] = [];
    const replay = new HistoryReplay(history, { browser });
    for (const name of ['task-start', 'step-start', 'action-end', 'replay-step', 'task-end'] as const) replay.on(name, () => events.push(name));
    const result = await replay.run();
    expect(events[0]).toBe('task-start');
    expect(events.at(-1)).toBe('task-end');
    expect(events.filter((name) => name === 'replay-step')).toHaveLength(result.steps.length);
    expect(events.filter((name) => name === 'action-end')).toHaveLength(5);
    expect(result.history.steps.flatMap((step) => step.actions).map((action) => action.name)).toEqual([
      'input_text',
      'click_element',
      'click_element',
      'click_element',
      'done',
    ]);
    // The replay's own history replays too.
    expect((await replayHistory(result.history, { browser: shop().browser })).status).toBe('ok');
  });

  it('refuses bad options and histories it cannot read', async () => {
    const history = await record();
    const { browser } = shop();
    expect(() => new HistoryReplay(history, { browser, onStepFailure: 'ask-model' })).toThrow(ConfigError);
    expect(() => new HistoryReplay(history, { browser, delayBetweenActions: -1 })).toThrow(/delayBetweenActions/);
    const newer = { ...history, schemaVersion: 3 } as unknown as RunHistory;
    expect(() => new HistoryReplay(newer, { browser })).toThrow(HistoryFormatError);
  });
});
