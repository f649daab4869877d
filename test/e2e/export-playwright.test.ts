// exportPlaywrightScript end to end: the demo task recorded against the demo shop, exported, and the
// script run by the Playwright Test runner: it passes against the shop it was recorded on, and fails
// against the shop's broken variant, where the recorded clicks have nothing to click.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedShopper } from '../../src/demo/scripted-shopper';
import { startDemoShop, type DemoShop } from '../../src/demo/server';
import { findChromium } from '../../src/chromium/find-chromium';
import { Executor, type RunHistory } from '../../src/index';
import { PlaywrightDriver } from '../../src/playwright/index';
import { exportPlaywrightScript } from '../../src/replay/export-playwright';

const playwrightCli = resolve('node_modules/playwright/cli.js');
const headlessArgs = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];

let shop: DemoShop;
let history: RunHistory;
const folders: string[] = [];

beforeAll(async () => {
  shop = await startDemoShop();
  const browser = await PlaywrightDriver.launch({ headless: true });
  try {
    const task = `Find the cheapest blue item under $25 in the Kitchen section of the shop at ${shop.url} and add it to the cart.`;
    const executor = new Executor({
      sensitiveActions: false,
      task,
      llm: scriptedShopper(),
      browser,
      maxSteps: 20,
      urlPolicy: { allow: [new URL(shop.url).hostname] },
    });
    const result = await executor.execute();
    expect(result.success).toBe(true);
    history = result.history;
  } finally {
    await browser.close();
  }
  // The run bought the bowl; the scripts below buy it again in browsers of their own.
  expect(shop.cart().map(({ product }) => product.id)).toEqual(['blue-bowl']);
}, 90_000);

afterAll(async () => {
  await shop?.close();
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

interface RunnerResult {
  readonly code: number;
  readonly output: string;
  readonly script: string;
}

/** Writes the script and a config beside it in a temporary folder and runs the Playwright Test runner on it. */
async function runScript(script: string, baseURL?: string): Promise<RunnerResult> {
  const folder = await mkdtemp(join(tmpdir(), 'plannav-export-'));
  folders.push(folder);
  // The script imports playwright/test: this repository's copy, the one whose runner runs it.
  await symlink(resolve('node_modules'), join(folder, 'node_modules'), 'dir');
  await writeFile(join(folder, 'recorded.spec.ts'), script);
  const config = {
    testDir: folder,
    outputDir: join(folder, 'results'),
    workers: 1,
    retries: 0,
    timeout: 60_000,
    reporter: 'list',
    expect: { timeout: 5_000 },
    use: {
      ...(baseURL ? { baseURL } : {}),
      headless: true,
      actionTimeout: 5_000,
      navigationTimeout: 15_000,
      trace: 'off',
      screenshot: 'off',
      video: 'off',
      launchOptions: { executablePath: findChromium(), args: headlessArgs },
    },
  };
  const configFile = join(folder, 'playwright.config.mjs');
  await writeFile(configFile, `export default ${JSON.stringify(config, null, 2)};\n`);
  return new Promise((resolvePromise) => {
    execFile(
      process.execPath,
      [playwrightCli, 'test', '--config', configFile],
      { cwd: folder, timeout: 90_000, env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', CI: '1' } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolvePromise({ code, output: `${stdout}\n${stderr}`, script });
      },
    );
  });
}

describe('exportPlaywrightScript with the Playwright Test runner', () => {
  it('exports the recorded demo run as a script that passes against the shop it was recorded on', { timeout: 120_000 }, async () => {
    const script = exportPlaywrightScript(history, { importFrom: 'playwright/test', testName: 'buys the cheapest blue kitchen item' });
    expect(script).toContain('await page.getByRole("combobox", { name: ');
    expect(script).toContain('.selectOption({ label: "Blue" });');
    expect(script).toContain('.fill("25");');
    expect(script).toContain('await page.getByRole("button", { name: named("Add to cart") }).click();');
    expect(script).toContain(`await expect(page).toHaveURL(${JSON.stringify(`${shop.url}cart`)});`);
    expect(script).toMatch(/\/\/ Final answer: Blue bowl \(\$11\.50\) is in the cart/);

    const run = await runScript(script);
    expect(run.code, `${run.output}\n--- script ---\n${run.script}`).toBe(0);
    expect(run.output).toContain('1 passed');
    expect(shop.cart()).toEqual([{ product: expect.objectContaining({ id: 'blue-bowl' }), quantity: 2 }]);
  });

  it('fails against the broken shop, where a recorded click has no element any more', { timeout: 120_000 }, async () => {
    await using broken = await startDemoShop({ variant: 'broken' });
    // The recorded URLs become paths, so the script runs against the other shop (the config's baseURL).
    const script = exportPlaywrightScript(history, { importFrom: 'playwright/test', baseURL: shop.url });
    expect(script).toContain('await page.goto("/");');
    const run = await runScript(script, broken.url);
    expect(run.code, `${run.output}\n--- script ---\n${run.script}`).not.toBe(0);
    expect(run.output).toContain('1 failed');
    // The first recorded button the redesign took away ("Apply filters" now reads "Apply filter").
    // Names are matched whole, case and spaces aside (`named()`), as the replay matches them.
    expect(run.output).toMatch(/waiting for getByRole\('button', \{ name: \/\^\\s\*(?:Apply\\s\+filters|Add\\s\+to\\s\+cart)\\s\*\$\/i \}\)/);
    expect(broken.cart()).toEqual([]);
  });
});
