// replayHistory on the demo shop in headless Chromium: the demo run recorded once, then replayed
// without a model on the shop as it was, on the shop after a redesign (ids renamed, listings
// reordered, a button reworded, a new banner), and on a broken shop where one recorded step
// cannot be done the recorded way: it fails with a reason, and `ask-model` recovers it.
import { beforeAll, describe, expect, it } from 'vitest';
import { scriptedShopper } from '../../src/demo/scripted-shopper';
import { startDemoShop, type DemoShopOptions } from '../../src/demo/server';
import { Executor, type ReplayStepReport, type RunHistory } from '../../src/index';
import { replayHistory } from '../../src/replay/replay';
import { PlaywrightDriver } from '../../src/playwright/index';

let history: RunHistory;
let port: number;

/**
 * Runs `replay` in a fresh browser (no cookie of an earlier run: the recording started without
 * one too) on the shop served where the recording's was (its URLs are in the recording); returns
 * what it returned and the server's cart.
 */
async function onShop<T>(variant: DemoShopOptions['variant'], replay: (browser: PlaywrightDriver) => Promise<T>): Promise<{ value: T; cart: string[] }> {
  const shop = await startDemoShop({ port, variant });
  const browser = await PlaywrightDriver.launch({ headless: true });
  try {
    const value = await replay(browser);
    return { value, cart: shop.cart().map(({ product, quantity }) => `${quantity} x ${product.id}`) };
  } finally {
    await browser.close();
    await shop.close();
  }
}

const summary = (steps: readonly ReplayStepReport[]): string[] => steps.map((step) => `${step.action}:${step.status}${step.reason ? ` (${step.reason})` : ''}`);

beforeAll(async () => {
  const browser = await PlaywrightDriver.launch({ headless: true });
  const shop = await startDemoShop();
  port = Number(new URL(shop.url).port);
  try {
    const task = `Find the cheapest blue item under $25 in the Kitchen section of the shop at ${shop.url} and add it to the cart.`;
    const result = await new Executor({ sensitiveActions: false, task, llm: scriptedShopper(), browser, maxSteps: 20 }).execute();
    expect(result.success).toBe(true);
    expect(shop.cart().map(({ product }) => product.id)).toEqual(['blue-bowl']);
    history = result.history;
  } finally {
    await browser.close();
    await shop.close();
  }
}, 90_000);

describe('replayHistory on the demo shop', () => {
  it('replays the run exactly on the shop it was recorded on, and buys the same item', { timeout: 90_000 }, async () => {
    const { value: replay, cart } = await onShop('original', (browser) => replayHistory(history, { browser }));
    expect(summary(replay.steps).filter((line) => !line.includes(':exact'))).toEqual([]);
    expect(replay.status).toBe('ok');
    expect(replay.usage.calls).toBe(0);
    expect(cart).toEqual(['1 x blue-bowl']);
  });

  it('heals every step on the redesigned shop, and the server\u2019s cart is right', { timeout: 90_000 }, async () => {
    const { value: replay, cart } = await onShop('changed', (browser) => replayHistory(history, { browser }));
    const lines = summary(replay.steps);
    expect(lines.filter((line) => !/:(exact|healed)$/.test(line))).toEqual([]);
    expect(replay.steps.some((step) => step.status === 'healed')).toBe(true);
    expect(replay.status).toBe('ok');
    expect(cart).toEqual(['1 x blue-bowl']);
  });

  it('fails the step it cannot do on the broken shop with a reason, and ask-model recovers it', { timeout: 120_000 }, async () => {
    const { value: broken, cart: nothing } = await onShop('broken', (browser) => replayHistory(history, { browser }));
    const failed = broken.steps.find((step) => step.status === 'failed');
    expect(broken.status).toBe('failed');
    expect(failed?.reason).toBeTruthy();
    expect(nothing).toEqual([]);

    const llm = scriptedShopper();
    const { value: healed, cart } = await onShop('broken', (browser) => replayHistory(history, { browser, onStepFailure: 'ask-model', llm }));
    expect(summary(healed.steps).filter((line) => !/:(exact|healed)/.test(line))).toEqual([]);
    expect(healed.steps.some((step) => step.healedBy === 'model')).toBe(true);
    expect(healed.usage.calls).toBeGreaterThan(0);
    expect(cart).toEqual(['1 x blue-bowl']);
  });
});
