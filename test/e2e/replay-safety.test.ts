// Replay that never acts on the wrong element, in headless Chromium: runs recorded once on a small
// shop and order form (test/helpers/replay-shop.ts), replayed on variants of them. Each case is
// judged by what the server received (the cart, the orders), then by the replay's report.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, Executor, type ReplayResult, type RunHistory } from '../../src/index';
import { replayHistory } from '../../src/replay/replay';
import { PlaywrightDriver } from '../../src/playwright/index';
import { ScriptedLLM, scriptedActions, scriptedPlan, type ScriptedRequest } from '../../src/testing/index';
import { startReplayShop, type ReplayShop, type ReplayShopOptions } from '../helpers/replay-shop';

/** The index of the first element line of the state that matches `pattern`, after the first line matching `after`. */
function indexOn(state: string, pattern: RegExp, after?: RegExp): number | undefined {
  const lines = state.split('\n');
  const start = after ? lines.findIndex((line) => after.test(line)) : 0;
  if (start < 0) return undefined;
  for (const line of lines.slice(start)) {
    const match = /^\s*\*?\[(\d+)\]</.exec(line);
    if (match && pattern.test(line)) return Number(match[1]);
  }
  return undefined;
}

const urlOf = (state: string): string => /Current tab: \{[^\n]*?"url":"([^"]*)"/.exec(state)?.[1] ?? '';

type Flow = 'card' | 'product' | 'order';

/** A Navigator stand-in that does one flow on the shop. */
function shopper(flow: Flow, shop: ReplayShop): ScriptedLLM {
  let filled = false;
  return new ScriptedLLM({
    respond: (request: ScriptedRequest) => {
      const state = request.lastUserText;
      if (process.env.DEBUG_SHOP) console.log(`----- ${request.agent}\n${state}`);
      const url = urlOf(state);
      const finished = flow === 'order' ? shop.orders.length > 0 : shop.cart.length > 0;
      if (request.agent === 'planner') return scriptedPlan(finished ? { done: true, finalAnswer: 'Done.' } : {});
      if (finished) {
        const text = flow === 'order' ? 'The order was sent.' : 'The Blue teapot costs $12.00 and is in the cart.';
        return scriptedActions([{ done: { text, success: true } }]);
      }
      if (!url.startsWith(shop.origin)) return scriptedActions([{ go_to_url: { url: flow === 'order' ? `${shop.url}order` : shop.url } }]);
      if (flow === 'card') return scriptedActions([{ click_element: { index: indexOn(state, /Add to cart/, /Blue teapot/) } }]);
      if (flow === 'product') {
        if (url.includes('/item/')) return scriptedActions([{ click_element: { index: indexOn(state, /Add to cart/) } }]);
        return scriptedActions([{ click_element: { index: indexOn(state, /<a[^>]*>Blue teapot/) } }]);
      }
      if (filled) return scriptedActions([{ click_element: { index: indexOn(state, /<button[^>]*>Send/) } }]);
      filled = true;
      return scriptedActions([
        { input_text: { index: indexOn(state, /<input[^>]*name="name"/), text: 'Ada' } },
        { select_dropdown_option: { index: indexOn(state, /<select[^>]*name="shipping"/), text: 'Standard' } },
        { click_element: { index: indexOn(state, /<input[^>]*name="gift"/) } },
        { click_element: { index: indexOn(state, /<input type="radio"[^>]*>Card/) } },
        { input_text: { index: indexOn(state, /<textarea[^>]*name="note"/), text: 'Hello' } },
        { input_text: { index: indexOn(state, /role="textbox"[^>]*>Message/), text: 'Hi there' } },
      ]);
    },
  });
}

const recordings = new Map<Flow, RunHistory>();
let port: number;

beforeAll(async () => {
  const browser = await PlaywrightDriver.launch({ headless: true });
  try {
    for (const flow of ['card', 'product', 'order'] as const) {
      const shop = await startReplayShop({ port: port || undefined });
      port = Number(new URL(shop.origin).port);
      try {
        await browser.goto('about:blank');
        const result = await new Executor({
          task: `${flow} at ${shop.url}`,
          llm: shopper(flow, shop),
          browser,
          maxSteps: 10,
          planningInterval: 100,
          sensitiveActions: false,
        }).execute();
        expect(result.status).toBe('ok');
        if (flow === 'order')
          expect(shop.orders).toEqual([{ name: 'Ada', shipping: 'standard', gift: 'on', payment: 'card', note: 'Hello', message: 'Hi there' }]);
        else expect(shop.cart).toEqual(['Blue teapot']);
        recordings.set(flow, result.history);
      } finally {
        await shop.close();
      }
    }
  } finally {
    await browser.close();
  }
}, 120_000);

let browser: PlaywrightDriver;
beforeAll(async () => {
  browser = await PlaywrightDriver.launch({ headless: true });
});
afterAll(async () => {
  await browser.close();
});

/** Replays `flow` on a fresh shop (on the recording's port unless `options.port` is 0) in a fresh tab; returns the result and the shop. */
async function replayOn(
  flow: Flow,
  shopOptions: ReplayShopOptions,
  options: Omit<Parameters<typeof replayHistory>[1], 'browser'> = {},
): Promise<{ replay: ReplayResult; shop: ReplayShop }> {
  const shop = await startReplayShop({ port, ...shopOptions });
  try {
    await browser.goto('about:blank');
    const replay = await replayHistory(recordings.get(flow) as RunHistory, { browser, ...options });
    if (process.env.DEBUG_SHOP) console.log(JSON.stringify(replay.steps.map((step) => [step.action, step.status, step.reason, step.differences])));
    return { replay, shop };
  } finally {
    await shop.close();
  }
}

const lines = (replay: ReplayResult): string[] => replay.steps.map((step) => `${step.action}:${step.status}`);

describe('replay never acts on the wrong element', () => {
  it('replays the card flow exactly on the shop as recorded', { timeout: 60_000 }, async () => {
    const { replay, shop } = await replayOn('card', {});
    expect(shop.cart).toEqual(['Blue teapot']);
    expect(replay.status).toBe('ok');
  });

  it('refuses another card\u2019s button when the recorded card is gone, and says why', { timeout: 60_000 }, async () => {
    const { replay, shop } = await replayOn('card', { variant: 'teapot-gone' }, { elementTimeoutMs: 500 });
    expect(shop.cart).toEqual([]);
    expect(replay.status).toBe('failed');
    const failed = replay.steps.find((step) => step.status === 'failed');
    expect(failed?.action).toBe('click_element');
    expect(failed?.reason).toMatch(/Blue teapot/);
    // No report of the replay says it healed across records.
    expect(replay.steps.filter((step) => step.status === 'healed')).toEqual([]);
  });

  it('fails the link of the only other product, with its score and name, and under skip adds nothing', { timeout: 60_000 }, async () => {
    const { replay, shop } = await replayOn('product', { variant: 'one-other' }, { onStepFailure: 'skip', elementTimeoutMs: 500 });
    expect(shop.cart).toEqual([]);
    const link = replay.steps.find((step) => step.action === 'click_element');
    expect(link?.status).toBe('failed');
    expect(link?.reason).toMatch(/Blue tray/);
    expect(link?.score).toEqual(expect.any(Number));
    expect(replay.steps.filter((step) => step.action === 'click_element').map((step) => step.status)).toEqual(['failed', 'failed']);
  });

  it('waits for a button a script shows 1.5 s after load', { timeout: 60_000 }, async () => {
    const { replay, shop } = await replayOn('product', { variant: 'late' });
    expect(lines(replay)).toEqual(['go_to_url:exact', 'click_element:exact', 'click_element:exact', 'done:exact']);
    expect(shop.cart).toEqual(['Blue teapot']);
  });

  it('gives up on a late element after `elementTimeoutMs`, with the reason', { timeout: 60_000 }, async () => {
    const { replay, shop } = await replayOn('product', { variant: 'late' }, { elementTimeoutMs: 200 });
    expect(shop.cart).toEqual([]);
    expect(replay.steps.find((step) => step.status === 'failed')?.reason).toMatch(/not found/);
  });

  it('keeps the path of baseURL: a shop served under /store/v2', { timeout: 60_000 }, async () => {
    const { replay, shop } = await replayOn('product', { prefix: '/store/v2', port: 0 }, {});
    expect(replay.status).toBe('failed'); // without baseURL, the recorded URLs are another server's
    const moved = await startReplayShop({ prefix: '/store/v2' });
    try {
      await browser.goto('about:blank');
      const again = await replayHistory(recordings.get('product') as RunHistory, { browser, baseURL: `${moved.origin}/store/v2` });
      expect(again.status).toBe('ok');
      expect(moved.cart).toEqual(['Blue teapot']);
      expect(await browser.currentUrl()).toBe(`${moved.origin}/store/v2/cart`);
    } finally {
      await moved.close();
    }
    expect(shop.cart).toEqual([]);
  });
});

describe('variables, answers and checks', () => {
  it('fills every kind of field from `variables`', { timeout: 60_000 }, async () => {
    const variables = { name: 'Bob', shipping: 'Express', gift: 'false', payment: 'cash', note: 'Bye', message: 'Yo' };
    const { replay, shop } = await replayOn('order', {}, { variables });
    expect(replay.status).toBe('ok');
    expect(shop.orders).toEqual([{ name: 'Bob', shipping: 'express', payment: 'cash', note: 'Bye', message: 'Yo' }]);
  });

  it('fills the translated, reordered form the same way', { timeout: 60_000 }, async () => {
    const { replay, shop } = await replayOn('order', { variant: 'translated' }, { variables: { name: 'Bob', payment: 'cash' } });
    expect(shop.orders).toEqual([{ name: 'Bob', shipping: 'standard', gift: 'on', payment: 'cash', note: 'Hello', message: 'Hi there' }]);
    expect(replay.status).toBe('ok');
  });

  it('under skip, does not send a form one of whose fields could not be filled', { timeout: 60_000 }, async () => {
    const { replay, shop } = await replayOn('order', {}, { variables: { shipping: 'Overnight' }, onStepFailure: 'skip' });
    expect(shop.orders).toEqual([]);
    const send = replay.steps.find((step) => step.step === 3 && step.action === 'click_element');
    expect(send?.status).toBe('failed');
    expect(send?.reason).toMatch(/could not be filled/);
  });

  it('rejects a variable no recorded field or placeholder takes, naming it and the known ones', () => {
    const history = recordings.get('order') as RunHistory;
    let caught: unknown;
    try {
      void replayHistory(history, { browser, variables: { colour: 'blue' } });
    } catch (error) {
      caught = error;
    }
    expect(ConfigError.isInstance(caught)).toBe(true);
    expect((caught as Error).message).toMatch(/colour/);
    expect((caught as Error).message).toMatch(/shipping/);
  });

  it('reports the recorded final answer as the recorded one, not as the page now', { timeout: 60_000 }, async () => {
    const { replay } = await replayOn('product', { variant: 'price' });
    expect(replay.status).toBe('ok');
    expect(replay.finalAnswerSource).toBe('recording');
    expect(replay.recordedFinalAnswer).toBe('The Blue teapot costs $12.00 and is in the cart.');
  });

  it('runs user checks after a step and at the end, and fails the replay when one does not hold', { timeout: 60_000 }, async () => {
    const good = await replayOn('product', {}, { expect: { steps: { 2: { url: /\/item\/1$/, text: 'Blue teapot' } }, end: { text: 'Blue teapot' } } });
    expect(good.replay.status).toBe('ok');
    expect(good.replay.checks.map((check) => check.passed)).toEqual([true, true]);

    const bad = await replayOn('product', { variant: 'price' }, { expect: { steps: { 2: { text: '$12.00' } } } });
    expect(bad.replay.status).toBe('failed');
    expect(bad.shop.cart).toEqual([]);
    expect(bad.replay.steps.find((step) => step.status === 'failed')?.reason).toMatch(/\$12\.00/);
  });
});

describe('ask-model', () => {
  /** A model that does what the recorded step was for, by the state: clicks the teapot's link. */
  const healer = (): ScriptedLLM =>
    new ScriptedLLM({
      respond: (request) => {
        const link = indexOn(request.lastUserText, /<a[^>]*>Blue teapot/);
        // On the teapot's page already: nothing to do but look.
        return scriptedActions([link === undefined ? { scroll_to_top: {} } : { click_element: { index: link } }]);
      },
    });

  it('heals a step by its intent (a product page opened), not the recorded URL, and counts its calls', { timeout: 60_000 }, async () => {
    const plain = await replayOn('product', { variant: 'renumbered' });
    expect(plain.replay.status).toBe('failed');
    expect(plain.shop.cart).toEqual([]);

    const { replay, shop } = await replayOn('product', { variant: 'renumbered' }, { onStepFailure: 'ask-model', llm: healer() });
    expect(shop.cart).toEqual(['Blue teapot']);
    expect(replay.status).toBe('ok');
    expect(replay.steps.some((step) => step.healedBy === 'model')).toBe(true);
    expect(replay.modelCalls).toBeGreaterThan(0);
  });

  it('falls back to skip when the model fails, and goes on', { timeout: 60_000 }, async () => {
    const failing = new ScriptedLLM({ responses: [] });
    const { replay, shop } = await replayOn(
      'card',
      { variant: 'teapot-gone' },
      { onStepFailure: 'ask-model', onModelFailure: 'skip', llm: failing, elementTimeoutMs: 300 },
    );
    expect(shop.cart).toEqual([]);
    // The replay went on: the final step was tried (and failed too, the browser being elsewhere), not skipped.
    expect(replay.steps.map((step) => step.status)).toEqual(['exact', 'failed', 'failed']);
    expect(replay.modelCalls).toBe(2);
  });
});
