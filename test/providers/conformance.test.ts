// The conformance suite every model adapter passes: one file, parameterised by adapter (each
// OpenAI-compatible preset incl. Azure, Anthropic, Gemini against local servers speaking their wire
// format, and the AI SDK adapter over a mock model). No key, no internet.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clickAction, fastRetry, indexOf, shopBrowser } from '../helpers/loop';
import {
  ChatModelAuthError,
  ChatModelBadRequestError,
  ChatModelContextLengthError,
  ChatModelError,
  ChatModelForbiddenError,
  ChatModelRateLimitError,
  Executor,
  RequestCancelledError,
  withRetries,
  type ChatMessage,
  type GenerateRequest,
  type PlannavError,
} from '../../src/index';
import { scriptedActions, scriptedPlan } from '../../src/testing/index';
import { adapterCases, expectedUsage, type Harness } from './cases';
import { rejectionOf } from '../helpers/rejection';

const outputSchema = {
  type: 'object',
  properties: { answer: { type: 'string' }, confidence: { type: 'number' } },
  required: ['answer', 'confidence'],
  additionalProperties: false,
};

const question: GenerateRequest = {
  messages: [
    { role: 'system', content: 'You answer questions.' },
    { role: 'user', content: 'What is the capital of France?' },
  ],
  output: { name: 'answer_output', description: 'An answer', schema: outputSchema },
  maxOutputTokens: 500,
  temperature: 0.2,
};

const answer = { answer: 'Paris', confidence: 0.9 };
const fast = { minTimeout: 1, maxTimeout: 5 };
// A 1x1 PNG.
const pixel = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** The object of a result: the parsed one, else the JSON of its text. */
function objectOf(result: { object?: unknown; text?: string | undefined }): unknown {
  return result.object ?? JSON.parse(result.text ?? 'null');
}

describe.each(adapterCases)('conformance: $name', (adapterCase) => {
  let harness: Harness;
  beforeEach(async () => {
    harness = await adapterCase.start();
  });
  afterEach(async () => {
    await harness.close();
  });

  describe('structured output', () => {
    it('returns the requested object and sends the schema', async () => {
      harness.enqueue({ object: answer });
      const result = await harness.client().generate(question);
      expect(objectOf(result)).toEqual(answer);
      expect(result.finishReason === 'stop' || result.finishReason === 'tool-calls').toBe(true);
      expect(harness.calls).toHaveLength(1);
      expect(harness.calls[0]?.agent).toBe('other');
      expect(harness.calls[0]?.allText).toContain('What is the capital of France?');
    });

    it('leaves the model\u2019s reasoning out of the text', async () => {
      harness.enqueue({ object: answer, reasoning: 'SECRET-CHAIN-OF-THOUGHT' });
      const result = await harness.client().generate(question);
      expect(objectOf(result)).toEqual(answer);
      expect(result.text ?? '').not.toContain('SECRET-CHAIN-OF-THOUGHT');
    });

    it('reports a reply cut off by the token limit as finishReason length', async () => {
      harness.enqueue({ truncated: '{"answer": "Par' });
      const result = await harness.client().generate(question);
      expect(result.finishReason).toBe('length');
      expect(result.object).toBeUndefined();
    });
  });

  describe('usage', () => {
    it('maps input, output, cached and reasoning tokens', async () => {
      const spec = { input: 1200, output: 300, cached: 800, reasoning: 120 };
      harness.enqueue({ object: answer, usage: spec });
      const result = await harness.client().generate(question);
      expect(result.usage).toEqual(expectedUsage(spec, harness.reportsReasoning));
      expect(result.requestId).toBe(harness.requestId);
    });
  });

  describe('error mapping', () => {
    it('401 is a ChatModelAuthError with the provider\u2019s message and the request id', async () => {
      harness.enqueue({ status: 401, message: 'Incorrect API key provided' });
      const error = await rejectionOf<PlannavError>(harness.client().generate(question));
      expect(ChatModelAuthError.isInstance(error)).toBe(true);
      expect(error.retryable).toBe(false);
      expect(error.message).toContain('Incorrect API key provided');
      expect((error as ChatModelError).statusCode).toBe(401);
      expect((error as ChatModelError).requestId).toBe(harness.requestId);
    });

    it('403 is a ChatModelForbiddenError', async () => {
      harness.enqueue({ status: 403, message: 'Model not allowed for this key' });
      const error = await rejectionOf<PlannavError>(harness.client().generate(question));
      expect(ChatModelForbiddenError.isInstance(error)).toBe(true);
      expect(error.retryable).toBe(false);
    });

    it.each([400, 422])('%i is a ChatModelBadRequestError with the provider\u2019s message', async (status) => {
      harness.enqueue({ status, message: 'Invalid schema for response_format' });
      const error = await rejectionOf<PlannavError>(harness.client().generate(question));
      expect(ChatModelBadRequestError.isInstance(error)).toBe(true);
      expect(ChatModelContextLengthError.isInstance(error)).toBe(false);
      expect(error.code).toBe('CHAT_MODEL_BAD_REQUEST');
      expect(error.message).toContain('Invalid schema for response_format');
      expect(error.retryable).toBe(false);
    });

    it('429 is a retryable ChatModelRateLimitError with Retry-After', async () => {
      harness.enqueue({ status: 429, message: 'Rate limit reached', retryAfter: '7' });
      const error = await rejectionOf<PlannavError>(harness.client().generate(question));
      expect(ChatModelRateLimitError.isInstance(error)).toBe(true);
      expect(error.retryable).toBe(true);
      expect((error as ChatModelRateLimitError).retryAfterMs).toBe(7000);
      expect((error as ChatModelError).requestId).toBe(harness.requestId);
    });

    it.each([500, 503])('%i is a retryable server error', async (status) => {
      harness.enqueue({ status, message: 'The server is overloaded' });
      const error = await rejectionOf<PlannavError>(harness.client().generate(question));
      expect(ChatModelError.isInstance(error)).toBe(true);
      expect(error.code).toBe('CHAT_MODEL_SERVER');
      expect(error.retryable).toBe(true);
    });

    it('a dropped connection is a retryable network error', async () => {
      harness.enqueue({ network: true });
      const error = await rejectionOf<PlannavError>(harness.client().generate(question));
      expect(error.code).toBe('CHAT_MODEL_NETWORK');
      expect(error.retryable).toBe(true);
    });

    it('a prompt longer than the context window is a ChatModelContextLengthError', async () => {
      harness.enqueue({ status: 400, message: 'too long', contextLength: true });
      const error = await rejectionOf<PlannavError>(harness.client().generate(question));
      expect(ChatModelContextLengthError.isInstance(error)).toBe(true);
      expect(error.code).toBe('CHAT_MODEL_CONTEXT_LENGTH');
      expect(error.retryable).toBe(false);
    });
  });

  describe('timeouts and cancellation', () => {
    it('the timeout option ends a hanging call with a retryable timeout error', async () => {
      harness.enqueue({ hang: true });
      const started = performance.now();
      const error = await rejectionOf<PlannavError>(harness.client({ timeout: 50 }).generate(question));
      expect(error.code).toBe('CHAT_MODEL_TIMEOUT');
      expect(error.retryable).toBe(true);
      expect(performance.now() - started).toBeLessThan(2000);
    });

    it('a request\u2019s own timeout takes precedence over the option', async () => {
      harness.enqueue({ hang: true });
      const error = await rejectionOf<PlannavError>(harness.client({ timeout: 60_000 }).generate({ ...question, timeout: 30 }));
      expect(error.code).toBe('CHAT_MODEL_TIMEOUT');
    });

    it('a cancel during a hanging call ends it within 100 ms', async () => {
      harness.enqueue({ hang: true });
      const controller = new AbortController();
      const pending = harness.client().generate({ ...question, signal: controller.signal });
      for (let tries = 0; tries < 200 && harness.calls.length === 0; tries++) await new Promise((resolve) => setTimeout(resolve, 5));
      const cancelledAt = performance.now();
      controller.abort();
      const error = await rejectionOf<PlannavError>(pending);
      expect(RequestCancelledError.isInstance(error)).toBe(true);
      expect(performance.now() - cancelledAt).toBeLessThan(100);
    });

    it('Executor.cancel() during a hanging call ends the task within 100 ms', async () => {
      harness.answer(() => ({ hang: true }));
      const executor = new Executor({ task: 'Say hi', llm: harness.client(), browser: shopBrowser(), modelRetry: fastRetry });
      const running = executor.execute();
      for (let tries = 0; tries < 200 && harness.calls.length === 0; tries++) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(harness.calls.length).toBe(1);
      const cancelledAt = performance.now();
      executor.cancel();
      const result = await running;
      expect(result.status).toBe('cancelled');
      expect(performance.now() - cancelledAt).toBeLessThan(100);
    });
  });

  describe('images', () => {
    const withImage: ChatMessage[] = [
      { role: 'system', content: 'You describe screenshots.' },
      { role: 'user', content: [{ type: 'text', text: 'What is on this page?' }, { type: 'image', data: pixel, mediaType: 'image/png' }] },
    ];

    it('sends image parts in the provider\u2019s format', async () => {
      harness.enqueue({ object: answer });
      await harness.client({ supportsImages: true }).generate({ ...question, messages: withImage });
      expect(harness.calls[0]?.images).toEqual([pixel]);
      expect(harness.calls[0]?.allText).toContain('What is on this page?');
    });

    it('leaves images out, keeping the text, when supportsImages is false', async () => {
      harness.enqueue({ object: answer });
      const client = harness.client({ supportsImages: false });
      expect(client.supportsImages).toBe(false);
      await client.generate({ ...question, messages: withImage });
      expect(harness.calls[0]?.images).toEqual([]);
      expect(harness.calls[0]?.allText).toContain('What is on this page?');
    });
  });

  describe('withRetries', () => {
    it('retries a 503, then returns the answer', async () => {
      harness.enqueue({ status: 503, message: 'unavailable' }, { object: answer });
      const result = await withRetries(harness.client(), fast).generate(question);
      expect(objectOf(result)).toEqual(answer);
      expect(harness.calls).toHaveLength(2);
    });

    it('honours Retry-After of a 429 before retrying', async () => {
      harness.enqueue({ status: 429, message: 'slow down', retryAfter: '0.1' }, { object: answer });
      const started = performance.now();
      await withRetries(harness.client(), fast).generate(question);
      expect(performance.now() - started).toBeGreaterThanOrEqual(90);
      expect(harness.calls).toHaveLength(2);
    });

    it('does not retry a 401', async () => {
      harness.enqueue({ status: 401, message: 'bad key' }, { object: answer });
      const error = await rejectionOf<PlannavError>(withRetries(harness.client(), fast).generate(question));
      expect(ChatModelAuthError.isInstance(error)).toBe(true);
      expect(harness.calls).toHaveLength(1);
    });

    it('can be cancelled during the wait between tries', async () => {
      harness.enqueue({ status: 500, message: 'boom' }, { object: answer });
      const controller = new AbortController();
      const pending = withRetries(harness.client(), { minTimeout: 10_000, maxTimeout: 10_000 }).generate({ ...question, signal: controller.signal });
      for (let tries = 0; tries < 200 && harness.calls.length === 0; tries++) await new Promise((resolve) => setTimeout(resolve, 5));
      await new Promise((resolve) => setTimeout(resolve, 20));
      const cancelledAt = performance.now();
      controller.abort();
      expect(RequestCancelledError.isInstance(await rejectionOf<PlannavError>(pending))).toBe(true);
      expect(performance.now() - cancelledAt).toBeLessThan(100);
      expect(harness.calls).toHaveLength(1);
    });
  });

  describe('the Executor loop', () => {
    it('runs a whole task, Planner and Navigator, to completion', async () => {
      harness.answer((call) => {
        if (call.agent === 'planner') {
          return {
            object: JSON.parse(
              call.lastUserText.includes('Blue mug $12') ? scriptedPlan({ done: true, finalAnswer: 'The blue mug costs $12.' }) : scriptedPlan({ nextSteps: 'Open the mugs page' }),
            ),
          };
        }
        if (call.agent === 'navigator') {
          const mugs = indexOf(call.lastUserText, 'Mugs');
          return { object: JSON.parse(mugs !== undefined ? scriptedActions([{ click_element: { index: mugs } }]) : scriptedActions([{ done: { text: 'Blue mug $12', success: true } }])) };
        }
        return { status: 400, message: `unexpected call ${call.agent}` };
      });
      const browser = shopBrowser();
      const executor = new Executor({ task: 'What does the blue mug cost?', llm: harness.client(), browser, actions: [clickAction], modelRetry: fastRetry });
      const result = await executor.execute();
      expect(result.error).toBeUndefined();
      expect(result.status).toBe('ok');
      expect(result.finalAnswer).toBe('The blue mug costs $12.');
      expect(await browser.currentUrl()).toBe('https://shop.test/mugs');
      expect(harness.calls.map((call) => call.agent)).toEqual(['planner', 'navigator', 'navigator', 'planner']);
      expect(result.usage.calls).toBe(4);
      expect(result.usage.inputTokens).toBe(400);
      expect(result.usage.outputTokens).toBe(80);
    });

    it('sends screenshots with useVision, and text only with a warning when the model has no vision', async () => {
      const plan = { object: JSON.parse(scriptedPlan({ nextSteps: 'Finish' })) };
      const finish = { object: JSON.parse(scriptedActions([{ done: { text: 'Done', success: true } }])) };
      const accept = { object: JSON.parse(scriptedPlan({ done: true, finalAnswer: 'Done.' })) };
      for (const supportsImages of [true, false]) {
        harness.calls.length = 0;
        harness.enqueue(plan, finish, accept);
        const executor = new Executor({ task: 'Look at the page', llm: harness.client({ supportsImages }), browser: shopBrowser(), useVision: true, modelRetry: fastRetry });
        const warnings: string[] = [];
        executor.on('warning', (event) => warnings.push(event.code));
        const result = await executor.execute();
        expect(result.status).toBe('ok');
        const navigatorImages = harness.calls.filter((call) => call.agent === 'navigator').flatMap((call) => call.images);
        if (supportsImages) {
          expect(navigatorImages.length).toBeGreaterThan(0);
          expect(warnings).not.toContain('IMAGES_UNSUPPORTED');
        } else {
          expect(harness.calls.flatMap((call) => call.images)).toEqual([]);
          expect(warnings).toContain('IMAGES_UNSUPPORTED');
        }
      }
    });

    it('retries a 503 and then succeeds', async () => {
      harness.enqueue({ status: 503, message: 'unavailable' }, { object: JSON.parse(scriptedPlan({ done: true, webTask: false, finalAnswer: 'Paris' })) });
      const executor = new Executor({ task: 'What is the capital of France?', llm: harness.client(), browser: shopBrowser(), modelRetry: fastRetry });
      const retries: string[] = [];
      executor.on('model-retry', (event) => retries.push(event.error.code));
      const result = await executor.execute();
      expect(result.status).toBe('ok');
      expect(result.finalAnswer).toBe('Paris');
      expect(harness.calls).toHaveLength(2);
      expect(retries).toEqual(['CHAT_MODEL_SERVER']);
    });

    it('ends at once on a prompt longer than the context window, reported as such', async () => {
      harness.answer(() => ({ status: 400, message: 'too long', contextLength: true }));
      const executor = new Executor({ task: 'What is the capital of France?', llm: harness.client(), browser: shopBrowser(), modelRetry: fastRetry });
      const result = await executor.execute();
      expect(result.status).toBe('failed');
      expect(ChatModelContextLengthError.isInstance(result.error)).toBe(true);
      expect(harness.calls).toHaveLength(1);
    });

    it('ends at once on a 401, without retrying', async () => {
      harness.answer(() => ({ status: 401, message: 'Invalid API key' }));
      const executor = new Executor({ task: 'What is the capital of France?', llm: harness.client(), browser: shopBrowser(), modelRetry: fastRetry });
      const result = await executor.execute();
      expect(result.status).toBe('failed');
      expect(ChatModelAuthError.isInstance(result.error)).toBe(true);
      expect(harness.calls).toHaveLength(1);
    });
  });
});
