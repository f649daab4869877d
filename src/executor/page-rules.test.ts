// The Navigator's rules about the page under a step: skipping the rest of a step when the page
// changed, the URL policy on the model's and the browser's navigations, actions limited to URLs.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { clickAction, conversationText, indexOf } from '../../test/helpers/loop';
import { configErrorOf } from '../../test/helpers/rejection';
import { defineAction } from '../actions/define-action';
import type { BrowserDriver, NavigationGuard } from '../browser/types';
import { URLNotAllowedError } from '../errors';
import type { ExecutorEventMap } from '../events';
import { FakeBrowserDriver, type FakeElement, type FakePage } from '../testing/fake-browser-driver';
import { ScriptedLLM, scriptedActions, scriptedPlan, type ScriptedRequest } from '../testing/scripted-llm';
import { Executor } from './executor';

const typeAction = defineAction({
  name: 'input_text',
  description: 'Type into the element with this index',
  schema: z.object({ index: z.number().int(), text: z.string() }),
  handler: async ({ index, text }, context) => {
    await context.driver.fill(context.element(index), text, { signal: context.signal });
    return `Typed ${text}`;
  },
});

const goAction = defineAction({
  name: 'go_to_url',
  description: 'Load a URL',
  schema: z.object({ url: z.string() }),
  handler: async ({ url }, context) => {
    context.assertUrlAllowed(url);
    await context.driver.goto(url, { signal: context.signal });
    return { extractedContent: `Loaded ${url}`, includeInMemory: true, stopSequence: true };
  },
});

const menuItem: FakeElement = { tag: 'button', text: 'Menu item' };
const menu: FakeElement = {
  tag: 'button',
  text: 'Open menu',
  onClick: (driver) => driver.updateContent([menu, menuItem, search]),
};
const search: FakeElement = { tag: 'input', attributes: { name: 'q' } };

function site(extra: Record<string, FakePage> = {}): FakeBrowserDriver {
  return new FakeBrowserDriver({
    startUrl: 'https://shop.test/',
    pages: {
      'https://shop.test/': {
        title: 'Shop',
        content: [menu, search, { tag: 'a', text: 'Mugs', href: 'https://shop.test/mugs' }, { tag: 'a', text: 'Evil', href: 'https://evil.test/' }],
      },
      'https://shop.test/mugs': { title: 'Mugs', content: ['Blue mug $12'] },
      ...extra,
    },
  });
}

/** A model that plays the given Navigator steps in order (each a function of the state text), then proposes done. */
function navigatorPlaying(steps: ((state: string) => Record<string, unknown>[])[]): ScriptedLLM {
  let step = 0;
  return new ScriptedLLM({
    respond: (request: ScriptedRequest) => {
      if (request.agent === 'planner') {
        return conversationText(request).includes('finished') ? scriptedPlan({ done: true, finalAnswer: 'ok' }) : scriptedPlan({ nextSteps: 'go on' });
      }
      const play = steps[step++];
      return play ? scriptedActions(play(request.lastUserText)) : scriptedActions([{ done: { text: 'finished', success: true } }]);
    },
  });
}

function collect<K extends keyof ExecutorEventMap>(executor: Executor, name: K): ExecutorEventMap[K][] {
  const events: ExecutorEventMap[K][] = [];
  executor.on(name, (event) => events.push(event));
  return events;
}

describe('Navigator: the rest of a step is skipped when the page changed', () => {
  it('skips the actions after one that loaded another URL, and names them', async () => {
    const browser = site();
    const llm = navigatorPlaying([(state) => [{ click_element: { index: indexOf(state, 'Mugs') } }, { input_text: { index: 1, text: 'mug' } }]]);
    const executor = new Executor({ sensitiveActions: false, task: 'Open mugs', llm, browser, actions: [clickAction, typeAction], planningInterval: 10 });
    const ends = collect(executor, 'action-end');
    await executor.execute();

    expect(ends.map((event) => event.action)).toEqual(['click_element', 'done']);
    expect(browser.methodsCalled).not.toContain('fill');
    const second = llm.requests.filter((request) => request.agent === 'navigator')[1] as ScriptedRequest;
    expect(conversationText(second)).toContain(
      'Skipped 1 action(s) that did not run because the page changed after click_element (the URL changed to https://shop.test/mugs): input_text.',
    );
  });

  it('skips the actions after one that made new elements appear', async () => {
    const browser = site();
    const llm = navigatorPlaying([(state) => [{ click_element: { index: indexOf(state, 'Open menu') } }, { input_text: { index: 2, text: 'mug' } }]]);
    const executor = new Executor({ sensitiveActions: false, task: 'Open the menu', llm, browser, actions: [clickAction, typeAction], planningInterval: 10 });
    await executor.execute();

    expect(browser.methodsCalled).not.toContain('fill');
    const second = llm.requests.filter((request) => request.agent === 'navigator')[1] as ScriptedRequest;
    expect(conversationText(second)).toContain('(1 new element(s) appeared): input_text');
    expect(second.lastUserText).toContain('Menu item');
  });

  it('runs every action when the page stays the same', async () => {
    const browser = site();
    const llm = navigatorPlaying([
      (state) => [{ input_text: { index: Number(/\[(\d+)\]<input/.exec(state)?.[1]), text: 'mug' } }, { click_element: { index: indexOf(state, 'Mugs') } }],
    ]);
    const executor = new Executor({ sensitiveActions: false, task: 'Search', llm, browser, actions: [clickAction, typeAction], planningInterval: 10 });
    const ends = collect(executor, 'action-end');
    await executor.execute();

    expect(ends.map((event) => event.action)).toEqual(['input_text', 'click_element', 'done']);
    expect(ends.every((event) => event.error === undefined)).toBe(true);
  });

  it('skips the rest when the active tab changed', async () => {
    const opener: FakeElement = {
      tag: 'button',
      text: 'Open help',
      onClick: async (driver) => {
        await driver.openTab('https://shop.test/mugs');
      },
    };
    const browser = new FakeBrowserDriver({ startUrl: 'https://shop.test/', pages: { 'https://shop.test/': { title: 'Shop', content: [opener, search] } } });
    const llm = navigatorPlaying([(state) => [{ click_element: { index: indexOf(state, 'Open help') } }, { input_text: { index: 1, text: 'x' } }]]);
    const executor = new Executor({ sensitiveActions: false, task: 'Help', llm, browser, actions: [clickAction, typeAction], planningInterval: 10 });
    await executor.execute();

    const second = llm.requests.filter((request) => request.agent === 'navigator')[1] as ScriptedRequest;
    expect(conversationText(second)).toContain('(the active tab changed): input_text');
    expect(browser.methodsCalled).not.toContain('fill');
  });
});

describe('URL policy in the loop', () => {
  it('refuses a URL the model asks for before the driver is called, tells the model, and goes on', async () => {
    const browser = site();
    const llm = navigatorPlaying([() => [{ go_to_url: { url: 'https://evil.test/steal' } }]]);
    const executor = new Executor({
      sensitiveActions: false,
      task: 'Go',
      llm,
      browser,
      actions: [goAction],
      urlPolicy: { deny: ['evil.test'] },
      planningInterval: 10,
    });
    const blocked = collect(executor, 'url-blocked');
    const result = await executor.execute();

    expect(result.status).toBe('ok');
    expect(browser.calls.filter((call) => call.method === 'goto')).toEqual([]);
    expect(blocked).toEqual([expect.objectContaining({ url: 'https://evil.test/steal', kind: 'action', reason: expect.stringContaining('evil.test') })]);
    const second = llm.requests.filter((request) => request.agent === 'navigator')[1] as ScriptedRequest;
    expect(conversationText(second)).toContain('Navigation to https://evil.test/steal is not allowed');
  });

  it('refuses non-web schemes even without lists', async () => {
    const browser = site();
    const llm = navigatorPlaying([() => [{ go_to_url: { url: 'javascript:alert(1)' } }]]);
    const executor = new Executor({ sensitiveActions: false, task: 'Go', llm, browser, actions: [goAction], planningInterval: 10 });
    await executor.execute();
    expect(browser.calls.filter((call) => call.method === 'goto')).toEqual([]);
  });

  it('installs the policy in the driver, reports what the browser was stopped from loading, and keeps it until close()', async () => {
    const browser = site();
    const llm = navigatorPlaying([(state) => [{ click_element: { index: indexOf(state, 'Evil') } }, { input_text: { index: 2, text: 'x' } }]]);
    const executor = new Executor({
      sensitiveActions: false,
      task: 'Go',
      llm,
      browser,
      actions: [clickAction, typeAction],
      urlPolicy: { allow: ['shop.test'] },
      planningInterval: 10,
    });
    const blocked = collect(executor, 'url-blocked');
    const result = await executor.execute();

    expect(result.status).toBe('ok');
    expect(await browser.currentUrl()).toBe('https://shop.test/');
    expect(blocked).toEqual([expect.objectContaining({ url: 'https://evil.test/', kind: 'navigation', actor: 'system' })]);
    const guardCalls = browser.calls.filter((call) => call.method === 'setNavigationGuard').map((call) => call.args[0]);
    expect(guardCalls).toEqual(['guard']);
    await executor.close();
    expect(browser.calls.filter((call) => call.method === 'setNavigationGuard').map((call) => call.args[0])).toEqual(['guard', 'none']);
    const second = llm.requests.filter((request) => request.agent === 'navigator')[1] as ScriptedRequest;
    expect(conversationText(second)).toContain('The browser was stopped from loading https://evil.test/ (navigation: host evil.test is not on the allow list');
    // The step's error does not hide that the typing still ran: the page did not change.
    expect(browser.methodsCalled).toContain('fill');
  });

  it('ends the task at the first stopped navigation when onBlocked is end-task', async () => {
    const browser = site();
    const llm = navigatorPlaying([(state) => [{ click_element: { index: indexOf(state, 'Evil') } }]]);
    const executor = new Executor({
      sensitiveActions: false,
      task: 'Go',
      llm,
      browser,
      actions: [clickAction],
      urlPolicy: { deny: ['evil.test'], onBlocked: 'end-task' },
    });
    const result = await executor.execute();

    expect(result.status).toBe('failed');
    expect(URLNotAllowedError.isInstance(result.error)).toBe(true);
    expect((result.error as URLNotAllowedError).url).toBe('https://evil.test/');
  });

  it('ends the task when the model asks for a denied URL and onBlocked is end-task', async () => {
    const browser = site();
    const llm = navigatorPlaying([() => [{ go_to_url: { url: 'https://evil.test/' } }]]);
    const executor = new Executor({
      sensitiveActions: false,
      task: 'Go',
      llm,
      browser,
      actions: [goAction],
      urlPolicy: { deny: ['evil.test'], onBlocked: 'end-task' },
    });
    const result = await executor.execute();
    expect(result.status).toBe('failed');
    expect(URLNotAllowedError.isInstance(result.error)).toBe(true);
  });

  it('with a driver that cannot guard, warns once and leaves a denied page an action ended on', async () => {
    const fake = site();
    // The same driver without setNavigationGuard, as a third-party driver may be.
    const browser: BrowserDriver = new Proxy(fake, {
      get: (target, key, receiver) => (key === 'setNavigationGuard' ? undefined : Reflect.get(target, key, receiver)),
      has: (target, key) => key !== 'setNavigationGuard' && Reflect.has(target, key),
    });
    const llm = navigatorPlaying([(state) => [{ click_element: { index: indexOf(state, 'Evil') } }]]);
    const executor = new Executor({
      sensitiveActions: false,
      task: 'Go',
      llm,
      browser,
      actions: [clickAction],
      urlPolicy: { allow: ['shop.test'] },
      planningInterval: 10,
    });
    const warnings = collect(executor, 'warning');
    await executor.execute();

    expect(warnings.map((event) => event.code)).toEqual(['URL_POLICY_NOT_ENFORCED_BY_DRIVER']);
    expect(fake.methodsCalled).toContain('goBack');
    expect(await fake.currentUrl()).toBe('https://shop.test/');
    const second = llm.requests.filter((request) => request.agent === 'navigator')[1] as ScriptedRequest;
    expect(conversationText(second)).toContain('The browser was stopped from loading https://evil.test/');
  });

  it('notes a stopped frame or prefetch without failing the action or ending the task', async () => {
    const fake = site();
    let guard: NavigationGuard | undefined;
    // A page whose button loads a denied ad frame: the driver's guard reports it, as PlaywrightDriver does.
    const adButton: FakeElement = {
      tag: 'button',
      text: 'Show deals',
      onClick: () => guard?.blocked({ url: 'https://ads.evil.test/frame', reason: 'host ads.evil.test is on the deny list', kind: 'frame' }),
    };
    fake.setPage('https://shop.test/deals', { title: 'Deals', content: [adButton] });
    await fake.goto('https://shop.test/deals');
    const browser: BrowserDriver = new Proxy(fake, {
      get: (target, key, receiver) =>
        key === 'setNavigationGuard'
          ? async (installed: NavigationGuard | undefined) => {
              guard = installed;
              await target.setNavigationGuard(installed);
            }
          : Reflect.get(target, key, receiver),
    });
    const llm = navigatorPlaying([(state) => [{ click_element: { index: indexOf(state, 'Show deals') } }]]);
    const executor = new Executor({
      sensitiveActions: false,
      task: 'Deals',
      llm,
      browser,
      actions: [clickAction],
      urlPolicy: { deny: ['evil.test'], onBlocked: 'end-task' },
      planningInterval: 10,
    });
    const ends = collect(executor, 'action-end');
    const blocked = collect(executor, 'url-blocked');
    const result = await executor.execute();

    expect(result.status).toBe('ok');
    expect(blocked.map((event) => event.kind)).toEqual(['frame']);
    expect(ends[0]).toMatchObject({
      action: 'click_element',
      error: undefined,
      result: 'Clicked element 1 Note: the URL policy kept the page from loading https://ads.evil.test/frame (frame: host ads.evil.test is on the deny list).',
    });
  });

  it('rejects bad policy entries and relative upload paths before anything runs', () => {
    const base = { task: 't', llm: new ScriptedLLM(), browser: site() };
    expect(configErrorOf(() => new Executor({ sensitiveActions: false, ...base, urlPolicy: { allow: ['javascript:x'] } })).field).toMatch(/^urlPolicy/);
    expect(configErrorOf(() => new Executor({ sensitiveActions: false, ...base, urlPolicy: { onBlocked: 'stop' as 'report' } })).field).toBe(
      'urlPolicy.onBlocked',
    );
    expect(configErrorOf(() => new Executor({ sensitiveActions: false, ...base, uploadPaths: ['files/a.txt'] })).field).toBe('uploadPaths.0');
  });
});

describe('Actions limited to URL patterns', () => {
  const adminAction = defineAction({
    name: 'approve_order',
    description: 'Approve the open order',
    urlPatterns: ['https://shop.test/admin/*'],
    schema: z.object({}),
    handler: async () => 'Approved',
  });

  it('are offered in the output schema only on matching pages, and refused elsewhere', async () => {
    const browser = site({ 'https://shop.test/admin/orders': { title: 'Orders', content: ['Order 1'] } });
    const llm = navigatorPlaying([
      () => [{ approve_order: {} }],
      () => [{ go_to_url: { url: 'https://shop.test/admin/orders' } }],
      () => [{ approve_order: {} }],
    ]);
    const executor = new Executor({ sensitiveActions: false, task: 'Approve', llm, browser, actions: [goAction, adminAction], planningInterval: 10 });
    const ends = collect(executor, 'action-end');
    await executor.execute();

    const schemas = llm.requests.filter((request) => request.agent === 'navigator').map((request) => JSON.stringify(request.output?.schema));
    expect(schemas[0]).not.toContain('approve_order');
    expect(schemas[2]).toContain('approve_order');
    expect(ends[0]?.error).toEqual({
      name: 'ActionError',
      code: 'ACTION_UNAVAILABLE',
      message: 'Action "approve_order" is only available on pages matching https://shop.test/admin/*; the current page is https://shop.test/.',
      retryable: false,
    });
    expect(ends[2]).toMatchObject({ action: 'approve_order', result: 'Approved', error: undefined });
  });

  it('are refused when the page moved away from a matching URL while the model was deciding', async () => {
    const browser = site({ 'https://shop.test/admin/orders': { title: 'Orders', content: ['Order 1'] } });
    await browser.goto('https://shop.test/admin/orders');
    let approved = 0;
    const counting = defineAction({ ...adminAction, handler: async () => `Approved ${++approved}` });
    const llm = navigatorPlaying([
      () => {
        // The page navigates on its own before the action runs.
        void browser.goto('https://shop.test/');
        return [{ approve_order: {} }];
      },
    ]);
    const executor = new Executor({ sensitiveActions: false, task: 'Approve', llm, browser, actions: [counting], planningInterval: 10 });
    const ends = collect(executor, 'action-end');
    await executor.execute();

    expect(approved).toBe(0);
    expect(ends[0]?.error).toEqual({
      name: 'ActionError',
      code: 'ACTION_UNAVAILABLE',
      message: 'Action "approve_order" is only available on pages matching https://shop.test/admin/*; the current page is https://shop.test/.',
      retryable: false,
    });
  });
});

describe('The extraction model in actions', () => {
  it('reports its calls as model-call events, so its tokens count in the task usage', async () => {
    const extractionLLM = new ScriptedLLM({ responses: [{ text: 'A short page.', usage: { inputTokens: 1000, outputTokens: 50 } }] });
    const summarize = defineAction({
      name: 'summarize',
      description: 'Summarize the page',
      schema: z.object({}),
      handler: async (_params, context) => {
        const reply = await context.extractionLLM.generate({ messages: [{ role: 'user', content: 'summarize' }], signal: context.signal });
        return reply.text ?? '';
      },
    });
    const llm = navigatorPlaying([() => [{ summarize: {} }]]);
    const executor = new Executor({ sensitiveActions: false, task: 'Sum up', llm, extractionLLM, browser: site(), actions: [summarize], planningInterval: 10 });
    const calls = collect(executor, 'model-call-end');
    const result = await executor.execute();

    expect(extractionLLM.callCount).toBe(1);
    expect(calls.filter((event) => event.usage.inputTokens === 1000)).toHaveLength(1);
    expect(result.usage.inputTokens).toBe(1000 + 100 * llm.callCount);
  });
});
