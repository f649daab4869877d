// The checks of the model-client conformance kit that run the client in the real Executor loop,
// Planner and Navigator, on an in-memory shop: a whole task, retries, fatal errors, cancel and
// screenshots. The model's answers come from the kit's server, in the client's wire format.

import { ChatModelAuthError, ChatModelContextLengthError } from '../errors';
import { Executor, type ExecutionResult } from '../executor/executor';
import type { ExecutorOptions } from '../executor/options';
import { describeValue } from './conformance';
import { FakeBrowserDriver, type FakePage } from './fake-browser-driver';
import type { CaseContext, ModelCheck } from './model-conformance-harness';
import { boundAttempts, cancelBoundMs, fastestOf } from './model-conformance-checks';
import type { Answer, WireCall } from './model-conformance-wire';
import { scriptedActions, scriptedPlan } from './scripted-llm';

const shopPages: Record<string, FakePage> = {
  'https://shop.test/': {
    title: 'Shop',
    content: [
      'Welcome to the shop',
      { tag: 'a', text: 'Mugs', href: 'https://shop.test/mugs' },
      { tag: 'a', text: 'Plates', href: 'https://shop.test/plates' },
    ],
  },
  'https://shop.test/mugs': {
    title: 'Mugs',
    content: ['Blue mug $12', { tag: 'button', text: 'Add blue mug' }, 'Red mug $9', { tag: 'button', text: 'Add red mug' }],
  },
};

const fastRetry = { retries: 2, minTimeout: 1, maxTimeout: 2 };

/** The index of the first element line of a state text whose text contains `label`. */
function indexOf(stateText: string, label: string): number | undefined {
  for (const line of stateText.split('\n')) {
    const match = /\[(\d+)\]<[^>]*>(.*) \/>/.exec(line);
    if (match?.[2]?.includes(label)) return Number(match[1]);
  }
  return undefined;
}

const object = (json: string): Answer => ({ object: JSON.parse(json) as unknown });

/** The model of the shop task: the Planner sends the Navigator to the mugs, then accepts its answer. */
function shopModel(call: WireCall): Answer {
  if (call.agent === 'planner') {
    return object(
      call.lastUserText.includes('Blue mug $12')
        ? scriptedPlan({ done: true, finalAnswer: 'The blue mug costs $12.' })
        : scriptedPlan({ nextSteps: 'Open the mugs page' }),
    );
  }
  if (call.agent === 'navigator') {
    const mugs = indexOf(call.lastUserText, 'Mugs');
    return object(
      mugs !== undefined ? scriptedActions([{ click_element: { index: mugs } }]) : scriptedActions([{ done: { text: 'Blue mug $12', success: true } }]),
    );
  }
  return { status: 400, message: 'The conformance server expected a Planner or Navigator request (their system prompt was not in it).' };
}

/** Runs one task on a fresh shop and returns its result, the browser, and the warnings and retries it reported. */
async function runTask(context: CaseContext, options: Partial<ExecutorOptions> & Pick<ExecutorOptions, 'task' | 'llm'>) {
  const browser = new FakeBrowserDriver({ startUrl: 'https://shop.test/', pages: shopPages });
  const executor = new Executor({ sensitiveActions: false, browser, modelRetry: fastRetry, maxSteps: 10, ...options });
  const warnings: string[] = [];
  const retries: string[] = [];
  executor.on('warning', (event) => warnings.push(event.code));
  executor.on('model-retry', (event) => retries.push(event.error.code));
  context.waitingFor('the Executor to finish the task');
  try {
    const result = await executor.execute();
    return { result, browser, warnings, retries, url: await browser.currentUrl() };
  } finally {
    await browser.close();
  }
}

function describeResult(result: ExecutionResult): string {
  return `status ${result.status}${result.error ? `, error ${describeValue(result.error)}` : ''}${result.finalAnswer ? `, final answer ${JSON.stringify(result.finalAnswer)}` : ''}`;
}

function agents(context: CaseContext): string {
  return context.calls.map((call) => call.agent).join(', ') || 'none';
}

function fatalCheck(name: string, reply: Answer, expected: { readonly className: string; readonly holds: (error: unknown) => boolean }): ModelCheck {
  return {
    name,
    run: async (context) => {
      context.answer(() => reply);
      const contract = `the Executor ends the task at once on a ${expected.className}, without a retry`;
      const { result } = await runTask(context, { task: 'What is the capital of France?', llm: context.client() });
      if (result.status !== 'failed' || !expected.holds(result.error) || context.calls.length !== 1) {
        throw context.fail({
          contract,
          expected: `status failed with a ${expected.className} after 1 request`,
          received: `${describeResult(result)} after ${context.calls.length} request(s)`,
          fix: 'map the HTTP status to plannav\u2019s typed error (see the error mapping checks), and do not retry inside generate()',
          cause: result.error,
        });
      }
    },
  };
}

/** The checks that run the client in the Executor loop. */
export const executorChecks: readonly ModelCheck[] = [
  {
    name: 'executor › runs a whole task, Planner and Navigator, to completion',
    run: async (context) => {
      context.answer(shopModel);
      const contract = 'the client carries a whole task through the Executor: the Planner plans, the Navigator clicks, the Planner accepts';
      const { result, url } = await runTask(context, { task: 'What does the blue mug cost?', llm: context.client() });
      const sequence = agents(context);
      if (
        result.status !== 'ok' ||
        result.finalAnswer !== 'The blue mug costs $12.' ||
        url !== 'https://shop.test/mugs' ||
        sequence !== 'planner, navigator, navigator, planner'
      ) {
        throw context.fail({
          contract,
          expected: "status ok, final answer 'The blue mug costs $12.', the browser on https://shop.test/mugs, requests planner, navigator, navigator, planner",
          received: `${describeResult(result)}, the browser on ${url}, requests ${sequence}`,
          fix: 'make the direct checks pass first (structured output and errors); the loop needs the object of every reply',
          cause: result.error,
        });
      }
      if (result.usage.calls !== 4 || result.usage.inputTokens !== 400 || result.usage.outputTokens !== 80) {
        throw context.fail({
          contract: 'the usage of every call adds up in the task\u2019s result',
          expected: '4 calls, 400 input and 80 output tokens (100 and 20 per reply)',
          received: describeValue(result.usage),
          fix: context.format.hints.usage,
        });
      }
    },
  },
  {
    name: 'executor › a 503 is retried, then the task succeeds',
    run: async (context) => {
      context.enqueue({ status: 503, message: 'unavailable' }, object(scriptedPlan({ done: true, webTask: false, finalAnswer: 'Paris' })));
      const contract = 'a retryable failure is retried by the Executor, and the next reply of the same client is used';
      const { result, retries } = await runTask(context, { task: 'What is the capital of France?', llm: context.client() });
      if (result.status !== 'ok' || result.finalAnswer !== 'Paris' || context.calls.length !== 2 || retries.join() !== 'CHAT_MODEL_SERVER') {
        throw context.fail({
          contract,
          expected: "status ok, final answer 'Paris', 2 requests, one retry of CHAT_MODEL_SERVER",
          received: `${describeResult(result)}, ${context.calls.length} request(s), retries ${describeValue(retries)}`,
          fix: 'throw a retryable server error for a 503 (see the error mapping checks), and keep the client usable after an error',
          cause: result.error,
        });
      }
    },
  },
  fatalCheck(
    'executor › a 401 ends the task at once, without a retry',
    { status: 401, message: 'Invalid API key' },
    {
      className: 'ChatModelAuthError',
      holds: (error) => ChatModelAuthError.isInstance(error),
    },
  ),
  fatalCheck(
    'executor › a prompt longer than the context window ends the task at once',
    { status: 400, message: 'too long', contextLength: true },
    {
      className: 'ChatModelContextLengthError',
      holds: (error) => ChatModelContextLengthError.isInstance(error),
    },
  ),
  {
    name: 'executor › cancel() during a hanging call ends the task within 100 ms',
    run: async (context) => {
      context.answer(() => ({ hang: true }));
      const contract = `Executor.cancel() during a model call ends the task within ${cancelBoundMs} ms`;
      const cancelOnce = async (): Promise<number> => {
        const browser = new FakeBrowserDriver({ startUrl: 'https://shop.test/', pages: shopPages });
        const executor = new Executor({ sensitiveActions: false, task: 'Say hi', llm: context.client(), browser, modelRetry: fastRetry, maxSteps: 10 });
        try {
          const earlier = context.calls.length;
          const running = executor.execute();
          await context.waitForCalls(earlier + 1, 'the Planner\u2019s request to reach the server');
          const cancelledAt = performance.now();
          executor.cancel();
          context.waitingFor('the cancelled task to end');
          const result = await running;
          const elapsed = performance.now() - cancelledAt;
          if (result.status !== 'cancelled') {
            throw context.fail({
              contract,
              expected: `status cancelled within ${cancelBoundMs} ms`,
              received: describeResult(result),
              fix: 'pass request.signal to fetch (or your SDK) and reject as soon as it aborts',
              cause: result.error,
            });
          }
          return elapsed;
        } finally {
          await browser.close();
        }
      };
      const elapsed = await fastestOf(boundAttempts, cancelBoundMs, cancelOnce);
      if (elapsed > cancelBoundMs) {
        throw context.fail({
          contract,
          expected: `status cancelled within ${cancelBoundMs} ms`,
          received: `cancelled after ${Math.round(elapsed)} ms (the fastest of ${boundAttempts} tries)`,
          fix: 'pass request.signal to fetch (or your SDK) and reject as soon as it aborts',
        });
      }
    },
  },
];

/** The checks that send screenshots through the client, in the Executor loop. */
export const executorImageChecks: readonly ModelCheck[] = [
  {
    name: 'images › useVision screenshots reach a client that supports images',
    run: async (context) => {
      context.enqueue(
        object(scriptedPlan({ nextSteps: 'Finish' })),
        object(scriptedActions([{ done: { text: 'Done', success: true } }])),
        object(scriptedPlan({ done: true, finalAnswer: 'Done.' })),
      );
      const contract = 'with useVision, the Navigator\u2019s screenshot reaches the model through a client created with supportsImages: true';
      const llm = context.client({ supportsImages: true });
      const { result, warnings } = await runTask(context, { task: 'Look at the page', llm, useVision: true });
      const images = context.calls.filter((call) => call.agent === 'navigator').flatMap((call) => call.images);
      if (result.status !== 'ok' || images.length === 0 || warnings.includes('IMAGES_UNSUPPORTED')) {
        throw context.fail({
          contract,
          expected: 'status ok, at least one image in a Navigator request, no IMAGES_UNSUPPORTED warning',
          received: `${describeResult(result)}, ${images.length} image(s), warnings ${describeValue(warnings)}, supportsImages ${describeValue(llm.supportsImages)}`,
          fix: `honour the supportsImages the kit passes to createClient, and ${context.format.hints.images}`,
          cause: result.error,
        });
      }
    },
  },
  {
    name: 'images › a client created with supportsImages: false says so, and gets no image',
    run: async (context) => {
      context.enqueue(
        object(scriptedPlan({ nextSteps: 'Finish' })),
        object(scriptedActions([{ done: { text: 'Done', success: true } }])),
        object(scriptedPlan({ done: true, finalAnswer: 'Done.' })),
      );
      const contract = 'a client for a model without vision reports supportsImages: false, so plannav sends it text only and warns';
      const llm = context.client({ supportsImages: false });
      if (llm.supportsImages !== false) {
        throw context.fail({
          contract,
          expected: 'supportsImages false',
          received: `supportsImages ${describeValue(llm.supportsImages)}`,
          fix: 'set the client\u2019s supportsImages from the setting the kit passes to createClient',
        });
      }
      const { result, warnings } = await runTask(context, { task: 'Look at the page', llm, useVision: true });
      const images = context.calls.flatMap((call) => call.images);
      if (result.status !== 'ok' || images.length > 0 || !warnings.includes('IMAGES_UNSUPPORTED')) {
        throw context.fail({
          contract,
          expected: 'status ok, no image in any request, an IMAGES_UNSUPPORTED warning',
          received: `${describeResult(result)}, ${images.length} image(s), warnings ${describeValue(warnings)}`,
          fix: 'leave images out of requests when supportsImages is false',
          cause: result.error,
        });
      }
    },
  },
];
