// The quick-start demo: a whole task run by the Planner/Navigator loop, offline. The model is a
// ScriptedLLM that decides from the page text it receives; the browser is an in-memory shop.
// Run it with `npm run demo`.

import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { defineAction, Executor } from 'plannav';
import { FakeBrowserDriver, ScriptedLLM, scriptedActions, scriptedPlan, type FakeElement, type ScriptedRequest } from 'plannav/testing';

// ---- The shop: a home page and a catalogue whose "Add to cart" buttons update the page. ----
const products = [
  { name: 'Red mug', colour: 'red', price: 9 },
  { name: 'Blue mug', colour: 'blue', price: 14 },
  { name: 'Navy teapot', colour: 'blue', price: 35 },
  { name: 'Blue bowl', colour: 'blue', price: 11 },
  { name: 'Green plate', colour: 'green', price: 7 },
];
const cart: string[] = [];
const catalogue: (FakeElement | string)[] = [];
for (const product of products) {
  catalogue.push(`${product.name} - colour: ${product.colour} - $${product.price}`);
  catalogue.push({
    tag: 'button',
    text: 'Add to cart',
    attributes: { 'aria-label': `Add ${product.name} to cart` },
    onClick: (browser) => {
      cart.push(product.name);
      browser.updateContent([...catalogue, `Cart: ${cart.length} item(s): ${cart.join(', ')}`]);
    },
  });
}
const browser = new FakeBrowserDriver({
  startUrl: 'https://shop.example/',
  pages: {
    'https://shop.example/': {
      title: 'Demo Shop',
      content: ['Welcome to the Demo Shop', { tag: 'a', text: 'Kitchen', href: 'https://shop.example/kitchen' }, { tag: 'a', text: 'Garden', href: 'https://shop.example/garden' }],
    },
    'https://shop.example/kitchen': { title: 'Kitchen - Demo Shop', content: catalogue },
  },
});

// ---- A host-defined action, exactly as an app would write one. ----
const clickElement = defineAction({
  name: 'click_element',
  description: 'Click the element with this index.',
  schema: z.object({ index: z.number().int().describe('The index shown in the page state') }),
  handler: async ({ index }, context) => {
    await context.driver.click(context.element(index), { signal: context.signal });
    await context.driver.waitForSettled({ signal: context.signal });
    return `Clicked element ${index}.`;
  },
});

// ---- The scripted model: it reads the state text like a model would, never fixed indices. ----
function elementIndex(state: string, pattern: RegExp): number | undefined {
  for (const line of state.split('\n')) {
    const match = /\[(\d+)\]<[^>]*>.* \/>/.exec(line);
    if (match && pattern.test(line)) return Number(match[1]);
  }
  return undefined;
}

function navigate(request: ScriptedRequest): string {
  const state = request.lastUserText;
  if (/Cart: \d+ item/.test(state)) {
    const item = /Cart: \d+ item\(s\): ([^\n]+)/.exec(state)?.[1] ?? '';
    return scriptedActions([{ done: { text: `Added ${item} to the cart.`, success: true } }], { evaluation: 'Success - the cart shows the item', memory: `Cart holds ${item}` });
  }
  const kitchen = elementIndex(state, />Kitchen \/>/);
  if (kitchen !== undefined) {
    return scriptedActions([{ click_element: { index: kitchen } }], { evaluation: 'Unknown', nextGoal: 'Open the kitchen catalogue' });
  }
  const blue = [...state.matchAll(/^(.+) - colour: blue - \$(\d+)$/gm)]
    .map((match) => ({ name: match[1] as string, price: Number(match[2]) }))
    .filter((product) => product.price < 20)
    .sort((a, b) => a.price - b.price)[0];
  if (blue) {
    const button = elementIndex(state, new RegExp(`aria-label="Add ${blue.name} to cart"`));
    return scriptedActions([{ click_element: { index: button } }], { memory: `Cheapest blue item under $20: ${blue.name} at $${blue.price}`, nextGoal: `Add ${blue.name} to the cart` });
  }
  return scriptedActions([{ done: { text: 'No blue item under $20 was found.', success: false } }]);
}

function plan(request: ScriptedRequest): string {
  const cartLine = /Cart: \d+ item\(s\): ([^\n]+)/.exec(request.lastUserText)?.[1];
  if (cartLine) return scriptedPlan({ done: true, observation: 'The cart holds the item.', finalAnswer: `Done: ${cartLine} is in the cart.` });
  return scriptedPlan({ observation: 'The shop is open.', nextSteps: 'Open the kitchen catalogue, find the cheapest blue item under $20, add it to the cart.' });
}

const llm = new ScriptedLLM({ respond: (request) => (request.agent === 'planner' ? plan(request) : navigate(request)) });

// ---- The run, printed step by step. ----
const executor = new Executor({
  task: 'Find the cheapest blue item under $20 in the kitchen section and add it to the cart.',
  llm,
  browser,
  actions: [clickElement],
});
executor.on('task-start', (event) => console.log(`Task: ${event.task}`));
executor.on('plan-end', ({ step, plan: decision }) =>
  console.log(`[planner  after step ${step}] ${decision.done ? `done: ${decision.finalAnswer}` : `next: ${decision.nextSteps}`}`),
);
executor.on('navigator-output', ({ step, nextGoal, memory }) => console.log(`[navigator step ${step}] goal: ${nextGoal || '-'}${memory ? ` | memory: ${memory}` : ''}`));
executor.on('action-end', ({ step, action, params, result, error }) =>
  console.log(`[navigator step ${step}]   ${action} ${JSON.stringify(params)} -> ${error ? `error: ${error}` : result}`),
);

const result = await executor.execute();
console.log(`\nStatus: ${result.status}, success: ${result.success}, steps: ${result.steps}`);
console.log(`Answer: ${result.finalAnswer}`);
console.log(`Tokens: ${result.usage.inputTokens} in, ${result.usage.outputTokens} out, ${result.usage.calls} model calls`);
const historyFile = join(tmpdir(), `plannav-demo-${result.taskId}.json`);
await writeFile(historyFile, JSON.stringify(result.history, null, 2));
console.log(`History: ${historyFile}`);
if (result.status !== 'ok' || !result.success) process.exitCode = 1;
