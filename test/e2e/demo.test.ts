// The quick-start demo end to end: the shop, headless Chromium, the Executor and the scripted model.
// What was bought is read from the shop's server, never from what the demo printed.
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadHistory } from '../../src/node/index';
import { runDemo as runDemoOnce, type DemoOptions, type DemoRun } from '../../examples/demo';
import { catalogue, type Product } from '../../src/demo/catalogue';

const runFolders: string[] = [];
afterAll(() => Promise.all(runFolders.map((folder) => rm(folder, { recursive: true, force: true }))));

/** Runs the demo and remembers the folder of its files, to remove it afterwards. */
async function runDemo(options: DemoOptions): Promise<DemoRun> {
  const run = await runDemoOnce(options);
  runFolders.push(dirname(run.historyFile));
  return run;
}

/** The answer, worked out from the catalogue alone: the cheapest blue kitchen item under the price. */
function cheapestBlueKitchenItem(products: readonly Product[], maxPriceCents: number): Product {
  const candidates = products.filter((product) => product.category === 'kitchen' && product.colour === 'Blue' && product.priceCents < maxPriceCents);
  const cheapest = candidates.sort((a, b) => a.priceCents - b.priceCents)[0];
  if (!cheapest) throw new Error('the catalogue has no blue kitchen item under the price');
  return cheapest;
}

function expectBought(run: DemoRun, product: Product): void {
  expect(run.result.status).toBe('ok');
  expect(run.result.success).toBe(true);
  expect(run.cart.map(({ product: item, quantity }) => ({ id: item.id, quantity }))).toEqual([{ id: product.id, quantity: 1 }]);
}

describe('npm run demo', () => {
  it('buys the cheapest blue item under $25 in the kitchen, prints each step and saves the history, a GIF and a report', { timeout: 60_000 }, async () => {
    const lines: string[] = [];
    const run = await runDemo({ env: {}, log: (line) => lines.push(line) });

    const expected = cheapestBlueKitchenItem(run.products, 2500);
    expect(expected.id).toBe('blue-bowl');
    expectBought(run, expected);
    expect(run.result.finalAnswer).toContain('Blue bowl');

    for (const file of [run.historyFile, run.gifFile, run.reportFile]) expect(existsSync(file), file).toBe(true);
    expect(new Set([run.historyFile, run.gifFile, run.reportFile].map((file) => dirname(file))).size).toBe(1);
    const history = await loadHistory(run.historyFile);
    expect(history.schemaVersion).toBe(2);
    expect(history.screenshots.size).toBeGreaterThan(0);
    expect(history.tasks).toHaveLength(1);
    const actions = history.steps.flatMap((step) => step.actions.map((action) => action.name));
    expect(actions).toEqual(expect.arrayContaining(['go_to_url', 'click_element', 'select_dropdown_option', 'input_text', 'cache_content', 'done']));
    expect(history.steps.flatMap((step) => step.actions).every((action) => action.error === undefined)).toBe(true);

    const gif = await readFile(run.gifFile);
    expect(gif.subarray(0, 6).toString('latin1')).toBe('GIF89a');
    // One card per step of the history: createRunReport writes each as <article class="step <actor>" …>.
    const report = await readFile(run.reportFile, 'utf8');
    expect(report.split('<article class="step').length - 1).toBe(history.steps.length);

    expect(lines[0]).toMatch(/^Model: scripted/);
    expect(lines).toContain('step 1    Open the shop');
    expect(lines).toContain(`History: ${run.historyFile}`);
    expect(lines).toContain(`GIF: ${run.gifFile}`);
    expect(lines).toContain(`Report: ${run.reportFile}`);
  });

  it('decides from the page it reads: a shuffled shop with other prices gets the right item', { timeout: 90_000 }, async () => {
    // Seeds whose answers differ from the fixed shop's and from each other: a fixed index or name cannot pass.
    const seeds = [2, 4];
    const answers = seeds.map((seed) => cheapestBlueKitchenItem(catalogue(seed), 2500).id);
    expect(new Set([...answers, 'blue-bowl']).size).toBe(seeds.length + 1);

    for (const seed of seeds) {
      const run = await runDemo({ seed, env: {}, log: () => undefined });
      expect(run.products).toEqual(catalogue(seed));
      expectBought(run, cheapestBlueKitchenItem(run.products, 2500));
    }
  });

  it('reports failure, and buys nothing, when no item is under the price', { timeout: 60_000 }, async () => {
    const run = await runDemo({ maxPrice: 3, env: {}, log: () => undefined });
    expect(run.result.status).toBe('ok');
    expect(run.result.success).toBe(false);
    expect(run.cart).toEqual([]);
  });

  it('uses a real model when a provider key is set', { timeout: 60_000 }, async () => {
    // A stand-in for the provider that turns the key down: the task ends at once, and we see what was sent.
    const seen: { path?: string; authorization?: string } = {};
    const provider = createServer((request, response) => {
      seen.path = request.url;
      seen.authorization = request.headers.authorization;
      response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Incorrect API key provided.' } }));
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    try {
      const lines: string[] = [];
      const baseURL = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`;
      const run = await runDemo({ env: { OPENAI_API_KEY: 'sk-demo-test', OPENAI_BASE_URL: baseURL }, log: (line) => lines.push(line) });
      expect(lines[0]).toBe('Model: openai gpt-4.1-mini');
      expect(seen).toEqual({ path: '/v1/chat/completions', authorization: 'Bearer sk-demo-test' });
      expect(run.result.status).toBe('failed');
      expect(run.result.error?.name).toBe('ChatModelAuthError');
      expect(run.cart).toEqual([]);
    } finally {
      provider.closeAllConnections();
      await new Promise((resolve) => provider.close(resolve));
    }
  });
});
