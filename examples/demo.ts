// The quick-start demo: a whole task in headless Chromium against a small web shop that this
// script serves on 127.0.0.1. Run it with `npm run demo`; it needs no network and no API key.
//
// The model is a ScriptedLLM (src/demo/scripted-shopper.ts) that reads the page state it is sent,
// as a model would, and picks the cheapest blue item from the prices on the page. With
// OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or PLANNAV_MODEL (such as
// `anthropic:claude-sonnet-4-5`, any spec createLLM takes) set, that real model does the task.
// The run is kept: its history with a screenshot per step, a GIF and an HTML report, in one
// folder under the OS temp folder.

import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Executor, type ExecutionResult, type LLMClient } from 'plannav';
import { createLLM, providerEnvironment } from 'plannav/models';
import { createRunGif, createRunReport, saveHistory } from 'plannav/node';
import { PlaywrightDriver } from 'plannav/playwright';
import type { Product } from '../src/demo/catalogue';
import { demoTask } from '../src/demo/demo-task';
import type { CartLine } from '../src/demo/pages';
import { scriptedShopper } from '../src/demo/scripted-shopper';
import { startDemoShop } from '../src/demo/server';

type Environment = Readonly<Record<string, string | undefined>>;

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** Shuffle the shop's order and prices (the same seed, the same shop). @defaultValue the fixed catalogue */
  readonly seed?: number | undefined;
  /** The price the item must be under, in dollars. @defaultValue 25 */
  readonly maxPrice?: number | undefined;
  /** Where a real model is looked for; pass `{}` to always use the scripted one. @defaultValue process.env */
  readonly env?: Environment | undefined;
  /** Where each line goes. @defaultValue console.log */
  readonly log?: ((line: string) => void) | undefined;
}

/** What a demo run leaves behind. */
export interface DemoRun {
  readonly result: ExecutionResult;
  /** The JSON file the run's history was saved to (its screenshots in the folder `screenshotFolder` names beside it). */
  readonly historyFile: string;
  /** The run as an animated GIF, beside the history. */
  readonly gifFile: string;
  /** The run as a self-contained HTML page, beside the history. */
  readonly reportFile: string;
  /** The cart as the shop's server holds it at the end. */
  readonly cart: readonly CartLine[];
  /** The products the shop sold, in the order its pages listed them. */
  readonly products: readonly Product[];
}

/** Starts the shop and the browser, runs the task, prints each step and saves the history, a GIF and a report of the run. */
export async function runDemo(options: DemoOptions = {}): Promise<DemoRun> {
  const log = options.log ?? ((line: string) => console.log(line));
  const maxPrice = options.maxPrice ?? 25;
  const realModel = modelFromEnvironment(options.env ?? process.env);
  const llm = realModel ?? scriptedShopper();
  const scriptedNote = 'scripted (set OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or PLANNAV_MODEL to use a real one)';
  log(`Model: ${realModel ? `${realModel.provider} ${realModel.model}` : scriptedNote}`);

  const shop = await startDemoShop({ seed: options.seed });
  const browser = await PlaywrightDriver.launch({ headless: true }).catch(async (error: unknown) => {
    await shop.close();
    throw error;
  });
  try {
    const task = demoTask(shop.url, maxPrice);
    // The URL policy keeps the agent (a real model too) on the shop: other sites are refused.
    // recordScreenshots keeps a screenshot of each step in the history, for the GIF and the report.
    const executor = new Executor({ task, llm, browser, maxSteps: 20, recordScreenshots: true, urlPolicy: { allow: [new URL(shop.url).hostname] } });

    executor.on('task-start', (event) => log(`Task: ${event.task}`));
    executor.on('plan-end', ({ plan: decision }) => log(`plan      ${decision.done ? `done: ${decision.finalAnswer}` : `next: ${decision.nextSteps}`}`));
    executor.on('navigator-output', ({ step, nextGoal, memory }) =>
      log(`${`step ${step}`.padEnd(10)}${nextGoal || '-'}${memory ? `  (memory: ${memory})` : ''}`),
    );
    // Actions that cross a trust boundary (here: sending the cart form, ending the task) are decided by the sensitiveActions policy.
    executor.on('sensitive-action', ({ kind, decision, decidedBy, description }) => log(`            ${kind}: ${decision} by ${decidedBy} (${description})`));
    executor.on('action-end', ({ action, params, result, error }) =>
      log(`            ${action} ${JSON.stringify(params)} -> ${error ? `error: ${error.message}` : (result ?? 'ok')}`),
    );

    const result = await executor.execute();
    const folder = join(tmpdir(), `plannav-demo-${result.taskId}`);
    const historyFile = join(folder, 'history.json');
    await saveHistory(historyFile, result.history);
    const { path: gifFile } = await createRunGif(result.history, join(folder, 'run.gif'));
    const { path: reportFile } = await createRunReport(result.history, join(folder, 'report.html'));
    log(
      `\nStatus: ${result.status}, success: ${result.success}, ${result.steps} steps, ${result.usage.calls} model calls, ${(result.durationMs / 1000).toFixed(1)} s`,
    );
    log(`Answer: ${result.finalAnswer ?? result.error?.message ?? '-'}`);
    log(
      `Cart on the server: ${
        shop
          .cart()
          .map(({ product, quantity }) => `${quantity} x ${product.name}`)
          .join(', ') || 'empty'
      }`,
    );
    log(`History: ${historyFile}`);
    log(`GIF: ${gifFile}`);
    log(`Report: ${reportFile}`);
    return { result, historyFile, gifFile, reportFile, cart: shop.cart(), products: shop.products };
  } finally {
    await browser.close();
    await shop.close();
  }
}

/** A real model when the environment names one: PLANNAV_MODEL, or the first provider key set. */
function modelFromEnvironment(env: Environment): LLMClient | undefined {
  const keySet = (provider: keyof typeof providerEnvironment): boolean => providerEnvironment[provider].apiKey.some((name) => env[name]?.trim());
  const spec =
    env.PLANNAV_MODEL?.trim() ||
    (keySet('openai') ? 'openai:gpt-4.1-mini' : keySet('anthropic') ? 'anthropic:claude-sonnet-4-5' : keySet('gemini') ? 'gemini:gemini-2.5-flash' : undefined);
  return spec ? createLLM(spec, { env }) : undefined;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    const { result } = await runDemo();
    if (result.status !== 'ok' || !result.success) process.exitCode = 1;
  } catch (error) {
    console.error(`The demo could not run: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
