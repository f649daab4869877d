// The stand-ins a doc block may use without writing them (`<!-- docs-test: uses llm, browser -->`): a
// scripted model, a Chromium on a small shop served on 127.0.0.1, a recorded run, and your app's own helpers.
// Each is made when a block asks for it and closed after the block by closeStandIns(); nothing leaves 127.0.0.1.

import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { z } from 'zod';
import { Executor, type ExecutionResult, type RunHistory } from 'plannav';
import { saveHistory } from 'plannav/node';
import { PlaywrightDriver } from 'plannav/playwright';
import { ScriptedLLM, scriptedActions, scriptedPlan, type ScriptedRequest, type ScriptedResponse } from 'plannav/testing';
import { chromiumLaunchArgs } from '../../src/chromium/launch-args';
import { pageChromium } from '../helpers/page-chromium';

const PAGES: Record<string, string> = {
  '/': `<title>Mugs</title><h1>Mugs</h1>
<label>Email <input type="email" name="email"></label>
<ul><li><a href="/mugs/blue">Blue mug</a> $12</li><li><a href="/mugs/red">Red mug</a> $14</li></ul>
<p>The blue mug costs $12.</p>`,
  '/mugs': `<title>All mugs</title><h1>All mugs</h1><ul><li>Blue mug, $12</li><li>Red mug, $14</li></ul>`,
  '/mugs/blue': `<title>Blue mug</title><h1>Blue mug</h1><p>The blue mug costs $12.</p>
<form action="/cart" method="post"><button>Add to cart</button></form>`,
  '/mugs/red': `<title>Red mug</title><h1>Red mug</h1><p>The red mug costs $14.</p>`,
  '/cart': `<title>Cart</title><h1>Cart</h1><p>Blue mug, $12. Thank you.</p>`,
};

/** What a block may use by name. Your app would have its own; these behave the same way, offline. */
export interface StandIns {
  /** The shop's home page, such as `http://127.0.0.1:41234/`: a heading, an email field, two mugs with their prices. */
  url: string;
  /** A task about the shop. */
  task: string;
  /** A headless Chromium (a `PlaywrightDriver` on a fresh context of the file's one Chromium), already on `url`. */
  browser: PlaywrightDriver;
  /** A second and a third driver, for the blocks that give several. */
  browserA: PlaywrightDriver;
  browserB: PlaywrightDriver;
  /** A Playwright `Page` of a Chromium of your own, on `url`. */
  page: Page;
  /**
   * A scripted model: the Planner ends the task with what the page says the blue mug costs, the Navigator proposes
   * `done`, and any other call with a schema gets an object of that schema's shape.
   */
  llm: ScriptedLLM;
  /** An Executor over `llm` and `browser` with `task`, not yet run. */
  executor: Executor;
  /** A finished run on the shop (type an email, open the blue mug, then done), with a screenshot per step. */
  result: ExecutionResult;
  /** `result.history`, also saved as `runs/checkout.json` in the block's folder. */
  history: RunHistory;
  /** A job posting's schema. */
  Job: z.ZodType<{ title: string; company: string; link: string }>;
  /** Your app's wishlist service. */
  wishlist: { add(sku: string, options: { signal: AbortSignal }): Promise<void> };
  /** Your app's secret store. */
  vault: { read(name: string): Promise<string> };
  /** Asks the person in your app's UI; answers "yes". */
  askInMyUi: (question: string, signal: AbortSignal) => Promise<string>;
  /** Shows a question in your app's UI and calls back with the answer ("yes"). */
  showPrompt: (question: string, answer: (text: string) => void) => void;
  /** Draws an event in your app's UI. */
  render: (event: unknown) => void;
}

const closers: (() => Promise<void>)[] = [];
let server: Server | undefined;

async function shopUrl(): Promise<string> {
  if (!server) {
    const started = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
      const page = PAGES[path];
      response.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' }).end(page ?? '<h1>Not found</h1>');
    });
    await new Promise<void>((resolve) => started.listen(0, '127.0.0.1', resolve));
    server = started;
  }
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
}

/** An object of the shape of `schema`, for the calls that ask for one. */
function sampleOf(schema: unknown): unknown {
  const node = (schema ?? {}) as { type?: string | string[]; properties?: Record<string, unknown>; items?: unknown; enum?: unknown[]; anyOf?: unknown[] };
  if (node.enum) return node.enum[0];
  if (node.anyOf) return sampleOf(node.anyOf[0]);
  const type = Array.isArray(node.type) ? node.type.find((name) => name !== 'null') : node.type;
  if (type === 'object') return Object.fromEntries(Object.entries(node.properties ?? {}).map(([key, value]) => [key, sampleOf(value)]));
  if (type === 'array') return [sampleOf(node.items)];
  if (type === 'number' || type === 'integer') return 12;
  if (type === 'boolean') return true;
  return 'Blue mug';
}

function newModel(): ScriptedLLM {
  return new ScriptedLLM({
    respond: ({ agent, lastUserText, output }: ScriptedRequest): ScriptedResponse => {
      const price = /costs (\$\d+)/.exec(lastUserText)?.[1] ?? '$12';
      if (agent === 'planner') return scriptedPlan({ done: true, finalAnswer: `The blue mug costs ${price}.` });
      if (agent === 'navigator') return scriptedActions([{ done: { text: `It costs ${price}.` } }]);
      if (agent === 'validator') return { object: { is_valid: true, reason: 'ok', answer: `The blue mug costs ${price}.` } };
      return output ? { object: sampleOf(output.schema) } : 'The blue mug costs $12.';
    },
  });
}

/** One Chromium for every block of the file (a launch per block was a CPU-second each); each stand-in gets a context of its own. */
let shared: Promise<Browser> | undefined;

function sharedBrowser(): Promise<Browser> {
  shared ??= chromium.launch({ executablePath: pageChromium(), args: [...chromiumLaunchArgs] });
  return shared;
}

/** A fresh context of the shared Chromium, closed after the block. */
async function freshContext(): Promise<BrowserContext> {
  const context = await (await sharedBrowser()).newContext();
  closers.push(() => context.close());
  return context;
}

/** A `PlaywrightDriver` on a fresh context of the shared Chromium, on `url`: what a block sees as `PlaywrightDriver.launch()`. */
async function launch(url: string): Promise<PlaywrightDriver> {
  const driver = await PlaywrightDriver.attach(await freshContext());
  closers.push(() => driver.close());
  await driver.goto(url);
  return driver;
}

async function recordRun(url: string): Promise<ExecutionResult> {
  const browser = await launch(url);
  let step = 0;
  const llm = new ScriptedLLM({
    respond: ({ agent, lastUserText }) => {
      if (agent === 'planner')
        return scriptedPlan({ done: lastUserText.includes('Add to cart'), nextSteps: 'Open the blue mug', finalAnswer: 'The blue mug costs $12.' });
      step += 1;
      const email = /\[(\d+)\]<input[^>]*name="email"/.exec(lastUserText)?.[1];
      const link = /\[(\d+)\]<a[^>]*>Blue mug/.exec(lastUserText)?.[1];
      if (step === 1 && email && link)
        return scriptedActions([{ input_text: { index: Number(email), text: 'ada@example.com' } }, { click_element: { index: Number(link) } }]);
      return scriptedActions([{ done: { text: 'The blue mug costs $12.' } }]);
    },
  });
  const executor = new Executor({ task: 'How much is the blue mug?', llm, browser, recordScreenshots: true, planningInterval: 1 });
  const result = await executor.execute({ timeout: 60_000 });
  await executor.close();
  if (!result.success) throw new Error(`the stand-in run failed: ${result.status} ${result.error?.message ?? ''}`);
  await browser.goto(url);
  return result;
}

/** The stand-ins named by `names`, made for one block; close them with {@link closeStandIns}. */
export async function standIns<const Names extends readonly (keyof StandIns)[]>(names: Names): Promise<Pick<StandIns, Names[number]>> {
  const made: Partial<StandIns> = {};
  const url = await shopUrl();
  for (const name of names) {
    switch (name) {
      case 'url':
        made.url = url;
        break;
      case 'task':
        made.task = 'How much is the blue mug?';
        break;
      case 'browser':
        made.browser = await launch(url);
        break;
      case 'browserA':
        made.browserA = await launch(url);
        break;
      case 'browserB':
        made.browserB = await launch(url);
        break;
      case 'page': {
        made.page = await (await freshContext()).newPage();
        await made.page.goto(url);
        break;
      }
      case 'llm':
        made.llm = newModel();
        break;
      case 'executor': {
        const executor = new Executor({ task: 'How much is the blue mug?', llm: made.llm ?? newModel(), browser: made.browser ?? (await launch(url)) });
        closers.push(() => executor.close());
        made.executor = executor;
        break;
      }
      case 'result':
      case 'history': {
        made.result ??= await recordRun(url);
        made.history = made.result.history;
        mkdirSync('runs', { recursive: true });
        await saveHistory('runs/checkout.json', made.result.history);
        break;
      }
      case 'Job':
        made.Job = z.object({ title: z.string(), company: z.string(), link: z.string() });
        break;
      case 'wishlist':
        made.wishlist = { add: () => Promise.resolve() };
        break;
      case 'vault':
        made.vault = { read: () => Promise.resolve('partner-key-1234') };
        break;
      case 'askInMyUi':
        made.askInMyUi = () => Promise.resolve('yes');
        break;
      case 'showPrompt':
        made.showPrompt = (_question, answer) => answer('yes');
        break;
      case 'render':
        made.render = () => undefined;
        break;
      default:
        throw new Error(`No stand-in named ${JSON.stringify(name)}: test/docs/prelude.ts lists them.`);
    }
  }
  return made as Pick<StandIns, Names[number]>;
}

/** Closes what the last block's stand-ins opened (browsers, executors), newest first. */
export async function closeStandIns(): Promise<void> {
  for (const close of closers.splice(0).reverse()) await close();
}

/** Stops the shop's server and the shared Chromium; after the last block. */
export async function stopShop(): Promise<void> {
  const running = server;
  server = undefined;
  if (running) await new Promise<void>((resolve) => running.close(() => resolve()));
  const browser = shared;
  shared = undefined;
  if (browser) await (await browser).close();
}
