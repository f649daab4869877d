import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { HangingDriver } from '../../test/helpers/hanging-driver';
import { rejectionOf } from '../../test/helpers/rejection';
import { defineAction } from '../actions/define-action';
import type { ActionContext } from '../actions/types';
import { ConfigError, RequestCancelledError, TimeoutError, URLNotAllowedError } from '../errors';
import { Executor } from '../executor/executor';
import { FakeBrowserDriver, type FakeBrowserDriverOptions, type FakePage } from '../testing/fake-browser-driver';
import { ScriptedLLM } from '../testing/scripted-llm';
import { act } from './act';
import { observe } from './observe';

const home = 'https://shop.example/';
const pages: Record<string, FakePage> = {
  [home]: {
    title: 'Shop',
    content: [
      { tag: 'a', text: 'Mugs', href: 'https://shop.example/mugs' },
      { tag: 'input', attributes: { name: 'q', placeholder: 'Search' } },
      { tag: 'a', text: 'Partner offer', href: 'https://partner.example/offer' },
    ],
  },
  'https://shop.example/mugs': { title: 'Mugs', content: ['Mug A $4'] },
  'https://partner.example/offer': { title: 'Offer', content: ['Buy now'] },
};

const options: FakeBrowserDriverOptions = { startUrl: home, pages };
const policy = { allow: ['shop.example'] };

/** A fake browser without setNavigationGuard, like a driver that cannot stop the browser's own navigations. */
function unguardedBrowser(): FakeBrowserDriver {
  const browser = new FakeBrowserDriver(options);
  Object.defineProperty(browser, 'setNavigationGuard', { value: undefined });
  return browser;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('act', () => {
  it('clicks the element of an index of the state observe() returned, and returns the result', async () => {
    const browser = new FakeBrowserDriver(options);
    const state = await observe(browser);
    const result = await act(browser, { action: 'click_element', params: { index: 1 }, state });

    expect(result).toEqual({
      action: 'click_element',
      params: { index: 1 },
      extractedContent: 'Clicked element 1 (<a> "Mugs"). The page navigated to https://shop.example/mugs.',
      includeInMemory: true,
      stopSequence: true,
      blockedNavigations: [],
      // A named action resolves nothing: no cache, no model call.
      cache: 'off',
      usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0, totalTokens: 0, calls: 0, costUsd: 0 },
    });
    expect(browser.calls.find((call) => call.method === 'click')?.args).toEqual([1, state.elements.get(1)?.elementId]);
    expect(await browser.currentUrl()).toBe('https://shop.example/mugs');
  });

  it('types into a field by index', async () => {
    const browser = new FakeBrowserDriver(options);
    const state = await observe(browser);
    const result = await act(browser, { action: 'input_text', params: { index: 2, text: 'blue mug' }, state });

    expect(result.extractedContent).toBe('Typed "blue mug" into element 2 (<input type=text> "Search").');
    expect(result.error).toBeUndefined();
    expect(browser.valueOf('q')).toBe('blue mug');
  });

  it('reports what the page explains as the result\u2019s error, as the Navigator reads it', async () => {
    const browser = new FakeBrowserDriver(options);
    const state = await observe(browser);
    browser.updateContent(['Everything is gone']);
    const result = await act(browser, { action: 'click_element', params: { index: 1 }, state });

    expect(result.error).toBe(
      'Element 1 is no longer on the page (it was removed from the page): the page changed since you read it. Read the page again and use the new index.',
    );
    expect(result.extractedContent).toBeUndefined();
  });

  it('runs an action without an index without a state', async () => {
    const browser = new FakeBrowserDriver(options);
    const result = await act(browser, { action: 'go_to_url', params: { url: 'https://shop.example/mugs' } });
    expect(result.error).toBeUndefined();
    expect(await browser.currentUrl()).toBe('https://shop.example/mugs');
  });

  describe('refuses a misused call with a ConfigError, before touching the browser', () => {
    it('an unknown action', async () => {
      const browser = new FakeBrowserDriver(options);
      const error = await rejectionOf<ConfigError>(act(browser, { action: 'click' }));
      expect(ConfigError.isInstance(error)).toBe(true);
      expect(error.field).toBe('action');
      expect(error.message).toBe(
        'Unknown action "click". Available actions: done, search, go_to_url, go_back, reload_page, wait, wait_for_text, click_element, hover_element, double_click_element, right_click_element, drag_and_drop, click_coordinates, input_text, send_keys, handle_dialog, switch_tab, open_tab, close_tab, scroll_to_percent, scroll_to_top, scroll_to_bottom, previous_page, next_page, scroll_to_text, get_dropdown_options, select_dropdown_option, upload_file, extract_content, save_pdf, search_page, cache_content, ask_human. Add your own with the `actions` option.',
      );
      expect(browser.calls).toEqual([]);
    });

    it('parameters the action\u2019s schema refuses', async () => {
      const browser = new FakeBrowserDriver(options);
      const state = await observe(browser);
      const calls = browser.calls.length;

      const wrongType = await rejectionOf<ConfigError>(act(browser, { action: 'click_element', params: { index: 'first' }, state }));
      expect(wrongType.field).toBe('params.index');
      expect(wrongType.message).toBe(
        'Parameter `index` of action click_element: Invalid input: expected number, received string; got "first". click_element takes: index (integer): The index of the element to click, from the current page state.',
      );

      const missing = await rejectionOf<ConfigError>(act(browser, { action: 'input_text', params: { index: 2 }, state }));
      expect(missing.field).toBe('params.text');
      expect(missing.message).toBe(
        'Parameter `text` of action input_text: Invalid input: expected string, received undefined; it is missing. input_text takes: index (integer): The index of the field, from the current page state; text (string): The text the field should hold; an empty string clears it.',
      );

      const unknown = await rejectionOf<ConfigError>(act(browser, { action: 'wait', params: { second: 1 } }));
      expect(unknown.field).toBe('params.second');
      expect(unknown.message).toBe('Unknown parameter `second` of action wait. wait takes: seconds (integer, default 3): How long to wait, 1 to 60 seconds.');
      expect(browser.calls.length).toBe(calls);
    });

    it('an index without the state it came from, or not in it', async () => {
      const browser = new FakeBrowserDriver(options);
      const noState = await rejectionOf<ConfigError>(act(browser, { action: 'click_element', params: { index: 1 } }));
      expect(noState.field).toBe('state');
      expect(noState.message).toBe(
        'Action click_element acts on the element with index 1, and an index only means something in the page state it came from: pass the `state` that observe() returned, as act(browser, { action, params, state }).',
      );

      const state = await observe(browser);
      const notInState = await rejectionOf<ConfigError>(act(browser, { action: 'click_element', params: { index: 9 }, state }));
      expect(notInState.field).toBe('params.index');
      expect(notInState.message).toBe('There is no element with index 9 in the given state (its indexes are 1 to 3). Use an index from state.elementsText.');
      expect(browser.methodsCalled).not.toContain('click');
    });

    it('a bad option or request field', async () => {
      const browser = new FakeBrowserDriver(options);
      const badPolicy = await rejectionOf<ConfigError>(act(browser, { action: 'go_back' }, { urlPolicy: { allow: 'shop.example' } as never }));
      expect(badPolicy.field).toBe('urlPolicy.allow');
      expect(badPolicy.message).toBe('Option `urlPolicy.allow` of act() must be a list of strings; got "shop.example".');

      const badField = await rejectionOf<ConfigError>(act(browser, { action: 'go_back', param: {} } as never));
      expect(badField.message).toBe('Unknown field `param` of the request of act(). Check its spelling.');

      const relative = await rejectionOf<ConfigError>(act(browser, { action: 'go_back' }, { uploadPaths: ['files'] }));
      expect(relative.message).toBe('Option `uploadPaths.0` of act() must hold absolute paths (such as /home/me/files); got "files".');
      expect(browser.calls).toEqual([]);
    });
  });

  describe('one caller at a time per driver', () => {
    it('refuses a driver another act() is using, and frees it when that call ends', async () => {
      const browser = new HangingDriver('click', options);
      const state = await observe(browser);
      const controller = new AbortController();
      const first = rejectionOf(act(browser, { action: 'click_element', params: { index: 1 }, state }, { signal: controller.signal }));

      const second = await rejectionOf<ConfigError>(act(browser, { action: 'go_back' }));
      expect(ConfigError.isInstance(second)).toBe(true);
      expect(second.field).toBe('browser');
      expect(second.message).toMatch(/^This browser driver is in use by act\(\)\. A BrowserDriver runs one task at a time/);

      controller.abort();
      await first;
      expect((await act(browser, { action: 'go_back' })).error).toBeUndefined();
    });

    it('refuses a driver an Executor runs a task on', async () => {
      const browser = new FakeBrowserDriver(options);
      const llm = new ScriptedLLM({ respond: () => ({ fail: 'hang' }) });
      const executor = new Executor({ task: 'Find a mug', llm, browser });
      const running = executor.execute();
      await vi.waitFor(() => expect(llm.requests.length).toBeGreaterThan(0));

      const error = await rejectionOf<ConfigError>(act(browser, { action: 'go_back' }));
      expect(error.field).toBe('browser');
      expect(error.message).toMatch(/^This browser driver is in use by another Executor's running task \(task [^)]+\)\./);
      executor.cancel();
      await running;
    });

    it('refuses two custom actions with one name', async () => {
      const twin = defineAction({ name: 'twin', description: 'A twin', schema: z.object({}), handler: async () => 'ok' });
      const error = await rejectionOf<ConfigError>(act(new FakeBrowserDriver(options), { action: 'twin' }, { actions: [twin, twin] }));
      expect(error.field).toBe('actions');
      expect(error.message).toBe(
        'Option `actions` of act() has more than one action named "twin": give each action its own name (one named like a built-in replaces the built-in).',
      );
    });
  });

  describe('under a URL policy', () => {
    it('refuses a denied URL the action asks for, before the browser loads it', async () => {
      const browser = new FakeBrowserDriver(options);
      const error = await rejectionOf<URLNotAllowedError>(
        act(browser, { action: 'go_to_url', params: { url: 'https://partner.example/offer' } }, { urlPolicy: policy }),
      );

      expect(URLNotAllowedError.isInstance(error)).toBe(true);
      expect(error.url).toBe('https://partner.example/offer');
      expect(error.message).toBe(
        'act(): the URL policy stopped go_to_url from loading https://partner.example/offer (navigation): host partner.example is not on the allow list.',
      );
      expect(browser.methodsCalled).not.toContain('goto');
      expect(await browser.currentUrl()).toBe(home);
      // The policy was installed in the driver for the call only.
      expect(browser.calls.filter((call) => call.method === 'setNavigationGuard').map((call) => call.args[0])).toEqual(['guard', 'none']);
    });

    it('refuses a link to a denied page through the driver\u2019s guard, which stops it before it loads', async () => {
      const browser = new FakeBrowserDriver(options);
      const state = await observe(browser);
      const error = await rejectionOf<URLNotAllowedError>(act(browser, { action: 'click_element', params: { index: 3 }, state }, { urlPolicy: policy }));

      expect(error.message).toBe(
        'act(): the URL policy stopped click_element from loading https://partner.example/offer (navigation): host partner.example is not on the allow list.',
      );
      expect(await browser.currentUrl()).toBe(home);
      // Stopped by the guard, not left afterwards.
      expect(browser.methodsCalled).not.toContain('goBack');
      expect(browser.calls.filter((call) => call.method === 'setNavigationGuard').map((call) => call.args[0])).toEqual(['guard', 'none']);
    });

    it('leaves a denied page the action ended on when the driver has no guard', async () => {
      const browser = unguardedBrowser();
      const state = await observe(browser);
      const error = await rejectionOf<URLNotAllowedError>(act(browser, { action: 'click_element', params: { index: 3 }, state }, { urlPolicy: policy }));

      expect(URLNotAllowedError.isInstance(error)).toBe(true);
      expect(error.url).toBe('https://partner.example/offer');
      expect(browser.methodsCalled).toContain('goBack');
      expect(await browser.currentUrl()).toBe(home);
    });

    it('lets allowed navigations through', async () => {
      const browser = unguardedBrowser();
      const state = await observe(browser);
      const result = await act(browser, { action: 'click_element', params: { index: 1 }, state }, { urlPolicy: policy });
      expect(result.error).toBeUndefined();
      expect(await browser.currentUrl()).toBe('https://shop.example/mugs');
      expect(browser.methodsCalled).not.toContain('goBack');
    });
  });

  describe('custom actions', () => {
    it('runs one of the `actions` option with its validated parameters and the action context', async () => {
      const seen: { sku: string; quantity: number; url: string | undefined; step: number }[] = [];
      const addToCart = defineAction({
        name: 'add_to_cart',
        description: 'Add a product to the cart',
        schema: z.object({ sku: z.string(), quantity: z.number().int().default(1) }),
        handler: async ({ sku, quantity }, context: ActionContext) => {
          seen.push({ sku, quantity, url: context.state?.url, step: context.step });
          return `Added ${quantity} of ${sku}`;
        },
      });
      const browser = new FakeBrowserDriver(options);
      const result = await act(browser, { action: 'add_to_cart', params: { sku: 'MUG-1' } }, { actions: [addToCart] });

      expect(result.extractedContent).toBe('Added 1 of MUG-1');
      expect(seen).toEqual([{ sku: 'MUG-1', quantity: 1, url: undefined, step: 1 }]);
    });

    it('reads the page for an action limited to some pages when no state is given', async () => {
      const onShop = defineAction({
        name: 'shop_only',
        description: 'Only on the shop',
        schema: z.object({}),
        urlPatterns: ['shop.example'],
        handler: async (_params, context) => `On ${context.state?.title}`,
      });
      const result = await act(new FakeBrowserDriver(options), { action: 'shop_only' }, { actions: [onShop] });
      expect(result.extractedContent).toBe('On Shop');

      const elsewhere = await act(
        new FakeBrowserDriver({ ...options, startUrl: 'https://partner.example/offer' }),
        { action: 'shop_only' },
        { actions: [onShop] },
      );
      expect(elsewhere.error).toBe('Action "shop_only" is only available on pages matching shop.example; the current page is https://partner.example/offer.');
    });

    it('tells an action that needs a model how to give it one', async () => {
      const result = await act(new FakeBrowserDriver(options), { action: 'extract_content', params: { goal: 'the products' } });
      expect(result.error).toBe(
        'The extraction model failed: This action needs a model: pass `llm` in the options of act(). Try again, or with a narrower goal.',
      );
    });
  });

  describe('cancel and timeout', () => {
    it('rejects at once when the signal aborts, even on a driver that ignores it, and aborts the action', async () => {
      const browser = new HangingDriver('click', options);
      const state = await observe(browser);
      const controller = new AbortController();
      const call = rejectionOf<RequestCancelledError>(act(browser, { action: 'click_element', params: { index: 1 }, state }, { signal: controller.signal }));
      await vi.waitFor(() => expect(browser.hungSignals).toHaveLength(1));
      controller.abort();

      const error = await call;
      expect(RequestCancelledError.isInstance(error)).toBe(true);
      expect(error.message).toBe('act() was cancelled.');
      expect(browser.hungSignals[0]?.aborted).toBe(true);
    });

    it('removes the URL policy from the driver at once when the driver is stuck reading the page', async () => {
      const onShop = defineAction({
        name: 'shop_only',
        description: 'Only on the shop',
        schema: z.object({}),
        urlPatterns: ['shop.example'],
        handler: async () => 'ok',
      });
      const browser = new HangingDriver('frames', options);
      const controller = new AbortController();
      const call = rejectionOf(act(browser, { action: 'shop_only' }, { actions: [onShop], urlPolicy: policy, signal: controller.signal }));
      await vi.waitFor(() => expect(browser.hungSignals).toHaveLength(1));
      controller.abort();

      expect(RequestCancelledError.isInstance(await call)).toBe(true);
      await vi.waitFor(() =>
        expect(browser.calls.filter((item) => item.method === 'setNavigationGuard').map((item) => item.args[0])).toEqual(['guard', 'none']),
      );
    });

    it('does not touch the browser when the signal is already aborted', async () => {
      const browser = new FakeBrowserDriver(options);
      const controller = new AbortController();
      controller.abort();
      const error = await rejectionOf(act(browser, { action: 'go_back' }, { signal: controller.signal }));
      expect(RequestCancelledError.isInstance(error)).toBe(true);
      expect(browser.calls).toEqual([]);
    });

    it('fails with a TimeoutError, removes the URL policy from the driver and leaves no timer behind', async () => {
      const browser = new HangingDriver('click', options);
      const state = await observe(browser);
      vi.useFakeTimers();
      const call = rejectionOf<TimeoutError>(act(browser, { action: 'click_element', params: { index: 1 }, state }, { timeout: 2000, urlPolicy: policy }));
      await vi.advanceTimersByTimeAsync(2000);

      const error = await call;
      expect(TimeoutError.isInstance(error)).toBe(true);
      expect(error.timeoutMs).toBe(2000);
      expect(error.message).toBe('act() did not finish within its timeout of 2000 ms. Give it a longer `timeout`, or none.');
      expect(browser.hungSignals[0]?.aborted).toBe(true);
      // The click is still stuck in the driver; the policy is removed all the same.
      await vi.waitFor(() =>
        expect(browser.calls.filter((call) => call.method === 'setNavigationGuard').map((call) => call.args[0])).toEqual(['guard', 'none']),
      );
      expect(vi.getTimerCount()).toBe(0);
    });
  });
});
