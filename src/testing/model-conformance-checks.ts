// The checks of the model-client conformance kit that call `generate` directly: the request, the
// structured reply, usage, typed errors, timeouts, cancellation and images. Each is a contract
// any LLMClient must keep; provider-specific extras (request ids, exact bodies) do not belong here.

import {
  ChatModelAuthError,
  ChatModelBadRequestError,
  ChatModelContextLengthError,
  ChatModelForbiddenError,
  ChatModelRateLimitError,
  type PlannavError,
} from '../errors';
import { extractJson, stripReasoning } from '../llm/parse-json';
import type { ChatMessage, GenerateRequest, GenerateResult, LLMClient } from '../llm/types';
import { normalizeUsage } from '../llm/usage';
import { describeValue } from './conformance';
import { conformanceApiKey, describeThrown, type CaseContext, type ModelCheck, type ThrownError } from './model-conformance-harness';

const outputSchema = {
  type: 'object',
  properties: { answer: { type: 'string' }, confidence: { type: 'number' } },
  required: ['answer', 'confidence'],
  additionalProperties: false,
};

/** The request of the direct checks: a question with a structured output. */
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
/** A 1x1 PNG. */
const pixel = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
/** How soon an abort must end a call (cancel() of a task is felt at once). */
export const cancelBoundMs = 100;
/**
 * How often a time-bound check is tried before it fails. A client that ignores the abort fails every attempt; one
 * that honours it can still miss the bound once when the machine is loaded (a busy CI runner starves the process for
 * tens of milliseconds), and would then fail the kit for no fault of its own.
 */
export const boundAttempts = 3;

/**
 * Runs `attempt` (which resolves with a time in ms) until one is within `boundMs`, at most `attempts` times; resolves
 * with the fastest time seen. An attempt that throws ends it at once: only lateness is tried again.
 */
export async function fastestOf(attempts: number, boundMs: number, attempt: () => Promise<number>): Promise<number> {
  let fastest = Number.POSITIVE_INFINITY;
  for (let tried = 0; tried < attempts && fastest > boundMs; tried++) fastest = Math.min(fastest, await attempt());
  return fastest;
}
const timeoutBoundMs = 2000;

/** The object of a result as plannav reads it: the parsed one, else the JSON found in its text. */
function objectOf(result: GenerateResult): unknown {
  if (result.object !== undefined) return result.object;
  const parsed = extractJson(result.text ?? '');
  return parsed.ok ? parsed.value : undefined;
}

function sameJson(left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}

const typedErrorFix =
  'for a failed HTTP response, throw chatModelErrorFromStatus({ status, message, code, retryAfterMs, requestId }) from plannav (or throw an error with a numeric `status` and the provider\u2019s message)';

/** Fails unless `thrown` is what plannav needs for an HTTP error of `status`. */
function expectTypedError(
  context: CaseContext,
  thrown: ThrownError,
  expectation: { readonly contract: string; readonly expected: string; readonly holds: (error: PlannavError) => boolean; readonly fix?: string },
): void {
  if (expectation.holds(thrown.typed)) return;
  throw context.fail({
    contract: expectation.contract,
    expected: expectation.expected,
    received: describeThrown(thrown),
    fix: expectation.fix ?? typedErrorFix,
    cause: thrown.raw,
  });
}

function statusCheck(
  name: string,
  reply: { readonly status: number; readonly message: string; readonly retryAfter?: string; readonly contextLength?: boolean },
  expectation: { readonly contract: string; readonly expected: string; readonly holds: (error: PlannavError) => boolean; readonly fix?: string },
): ModelCheck {
  return {
    name,
    run: async (context) => {
      context.enqueue(reply);
      const thrown = await context.generateError(context.client(), question, expectation.contract);
      expectTypedError(context, thrown, expectation);
    },
  };
}

const clientChecks: ModelCheck[] = [
  {
    name: 'client › implements LLMClient v1',
    run: async (context) => {
      const client = context.client();
      const problems = [
        client.specificationVersion === 'v1' ? undefined : `specificationVersion is ${describeValue(client.specificationVersion)}`,
        typeof client.provider === 'string' && client.provider !== '' ? undefined : `provider is ${describeValue(client.provider)}`,
        typeof client.model === 'string' && client.model !== '' ? undefined : `model is ${describeValue(client.model)}`,
        client.supportsImages === undefined || typeof client.supportsImages === 'boolean'
          ? undefined
          : `supportsImages is ${describeValue(client.supportsImages)}`,
      ].filter((problem) => problem !== undefined);
      if (problems.length > 0) {
        throw context.fail({
          contract: 'an LLMClient says which version of the interface it implements, its provider and its model',
          expected: "specificationVersion 'v1', a non-empty provider and model, supportsImages a boolean or undefined",
          received: problems.join('; '),
          fix: "set specificationVersion: 'v1' and name the provider and model (they appear in events, history and prices)",
        });
      }
    },
  },
  {
    name: 'client › sends the API key',
    run: async (context) => {
      context.enqueue({ object: answer });
      await context.generate(context.client(), question, 'a client authenticates with the API key it was given');
      const request = context.calls[0]?.request;
      const headerValues = Object.values(request?.headers ?? {}).flatMap((value) => (Array.isArray(value) ? value : [value ?? '']));
      const sent =
        headerValues.some((value) => value.includes(conformanceApiKey)) || [...(request?.query.values() ?? [])].some((value) => value === conformanceApiKey);
      if (!sent) {
        throw context.fail({
          contract: 'a client authenticates with the API key it was given',
          expected: `the key ${JSON.stringify(conformanceApiKey)} in a header (Authorization, x-api-key, api-key, x-goog-api-key, …) or the query string`,
          received: `headers ${describeValue(Object.keys(request?.headers ?? {}))}`,
          fix: 'pass the `apiKey` the kit gives createClient to your client',
        });
      }
    },
  },
];

const structuredOutputChecks: ModelCheck[] = [
  {
    name: 'structured output › returns the requested object and sends the schema',
    run: async (context) => {
      context.enqueue({ object: answer });
      const contract = 'with `output` set, a client sends the schema and returns the object the model wrote (as `object`, or as JSON in `text`)';
      const result = await context.generate(context.client(), question, contract);
      const call = context.calls[0];
      const body = JSON.stringify(call?.request.body ?? '');
      const missing = Object.keys(outputSchema.properties).filter((property) => !new RegExp(`\\\\?"${property}\\\\?"`).test(body));
      if (missing.length > 0) {
        throw context.fail({
          contract,
          expected: 'the request to carry output.schema (its properties "answer" and "confidence")',
          received: `a request without ${missing.map((property) => `"${property}"`).join(' and ')}`,
          fix: `send request.output.schema the way the ${context.format.name} API takes it (a JSON schema response format, a forced tool, or in the prompt)`,
        });
      }
      if (!call?.allText.includes('What is the capital of France?') || !call.allText.includes('You answer questions.')) {
        throw context.fail({
          contract: 'a client sends every message of the conversation',
          expected: 'the system and user messages in the request',
          received: describeValue(call?.allText ?? ''),
          fix: `map request.messages to the ${context.format.name} message format, the system message included`,
        });
      }
      const object = objectOf(result);
      if (!sameJson(object, answer)) {
        throw context.fail({
          contract,
          expected: describeValue(answer),
          received: `object ${describeValue(result.object)}, text ${describeValue(result.text)}`,
          fix: 'return the parsed JSON as `object`, or the model\u2019s JSON text as `text`',
        });
      }
      if (result.finishReason !== undefined && result.finishReason !== 'stop' && result.finishReason !== 'tool-calls') {
        throw context.fail({
          contract: 'finishReason says why the model stopped',
          expected: "finishReason 'stop' or 'tool-calls' for a complete reply",
          received: describeValue(result.finishReason),
          fix: "map the provider's normal stop reasons to 'stop' (or 'tool-calls' for a forced tool)",
        });
      }
    },
  },
  {
    name: 'structured output › leaves the model\u2019s reasoning out of the text',
    run: async (context) => {
      const secret = 'SECRET-CHAIN-OF-THOUGHT-41';
      context.enqueue({ object: answer, reasoning: secret });
      const contract = 'reasoning a provider returns apart is not part of `text` (it would reach the conversation and the saved history)';
      const result = await context.generate(context.client(), question, contract);
      if (stripReasoning(result.text ?? '').includes(secret) || !sameJson(objectOf(result), answer)) {
        throw context.fail({
          contract,
          expected: `the object ${describeValue(answer)} and no reasoning in text`,
          received: `object ${describeValue(result.object)}, text ${describeValue(result.text)}`,
          fix: context.format.hints.reasoning,
        });
      }
    },
  },
  {
    name: 'structured output › reports a reply cut off by the token limit as finishReason length',
    run: async (context) => {
      context.enqueue({ truncated: '{"answer": "Par' });
      const contract = "a reply cut off by the output token limit has finishReason 'length' and no `object`, so plannav can say why it is unusable";
      const result = await context.generate(context.client(), question, contract);
      if (result.finishReason !== 'length' || result.object !== undefined) {
        throw context.fail({
          contract,
          expected: "finishReason 'length', object undefined",
          received: `finishReason ${describeValue(result.finishReason)}, object ${describeValue(result.object)}`,
          fix: context.format.hints.truncated,
        });
      }
    },
  },
];

const usageChecks: ModelCheck[] = [
  {
    name: 'usage › maps input, output, cached and reasoning tokens',
    run: async (context) => {
      const spec = { input: 1200, output: 300, cached: 800, reasoning: 120 };
      context.enqueue({ object: answer, usage: spec });
      const contract = 'usage reports the tokens the provider counted, in plannav\u2019s terms (they price the run and enforce budgets)';
      const result = await context.generate(context.client(), question, contract);
      const expected = {
        inputTokens: spec.input,
        outputTokens: spec.output,
        cachedInputTokens: spec.cached,
        reasoningTokens: context.format.reportsReasoning ? spec.reasoning : 0,
      };
      const received = normalizeUsage(result.usage);
      const wrong = (Object.keys(expected) as Array<keyof typeof expected>).filter((field) => received[field] !== expected[field]);
      if (wrong.length > 0) {
        throw context.fail({
          contract,
          expected: describeValue(expected),
          received: `usage ${describeValue(result.usage)} (wrong: ${wrong.join(', ')})`,
          fix: context.format.hints.usage,
        });
      }
    },
  },
];

const errorChecks: ModelCheck[] = [
  statusCheck(
    'error mapping › 401 is a ChatModelAuthError with the provider\u2019s message',
    { status: 401, message: 'Incorrect API key provided' },
    {
      contract: 'a 401 is a ChatModelAuthError, not retryable, whose message keeps the provider\u2019s (the task ends at once and says why)',
      expected: "ChatModelAuthError (code CHAT_MODEL_AUTH, retryable false) whose message contains 'Incorrect API key provided'",
      holds: (error) => ChatModelAuthError.isInstance(error) && !error.retryable && error.message.includes('Incorrect API key provided'),
    },
  ),
  statusCheck(
    'error mapping › 403 is a ChatModelForbiddenError',
    { status: 403, message: 'Model not allowed for this key' },
    {
      contract: 'a 403 is a ChatModelForbiddenError, not retryable',
      expected: 'ChatModelForbiddenError (code CHAT_MODEL_FORBIDDEN, retryable false)',
      holds: (error) => ChatModelForbiddenError.isInstance(error) && !error.retryable,
    },
  ),
  ...[400, 422].map((status) =>
    statusCheck(
      `error mapping › ${status} is a ChatModelBadRequestError with the provider\u2019s message`,
      { status, message: 'Invalid schema for response_format' },
      {
        contract: `a ${status} is a ChatModelBadRequestError, not retryable, whose message keeps the provider\u2019s`,
        expected: "ChatModelBadRequestError (code CHAT_MODEL_BAD_REQUEST, retryable false) whose message contains 'Invalid schema for response_format'",
        holds: (error) =>
          ChatModelBadRequestError.isInstance(error) &&
          error.code === 'CHAT_MODEL_BAD_REQUEST' &&
          !error.retryable &&
          error.message.includes('Invalid schema for response_format'),
      },
    ),
  ),
  statusCheck(
    'error mapping › 429 is a retryable ChatModelRateLimitError with Retry-After',
    { status: 429, message: 'Rate limit reached', retryAfter: '7' },
    {
      contract: 'a 429 is a retryable ChatModelRateLimitError whose retryAfterMs is the Retry-After header (plannav waits at least that long)',
      expected: 'ChatModelRateLimitError (code CHAT_MODEL_RATE_LIMIT, retryable true) with retryAfterMs 7000 (Retry-After: 7)',
      holds: (error) => ChatModelRateLimitError.isInstance(error) && error.retryable && error.retryAfterMs === 7000,
      fix: 'throw chatModelErrorFromStatus({ status: 429, message, retryAfterMs }) from plannav, with retryAfterMs read from the Retry-After header (seconds, or an HTTP date)',
    },
  ),
  ...[500, 503].map((status) =>
    statusCheck(
      `error mapping › ${status} is a retryable server error`,
      { status, message: 'The server is overloaded' },
      {
        contract: `a ${status} is a retryable ChatModelError with code CHAT_MODEL_SERVER (plannav retries it with backoff)`,
        expected: 'a ChatModelError (code CHAT_MODEL_SERVER, retryable true)',
        holds: (error) => error.code === 'CHAT_MODEL_SERVER' && error.retryable,
      },
    ),
  ),
  {
    name: 'error mapping › a dropped connection is a retryable network error',
    run: async (context) => {
      context.enqueue({ network: true });
      const contract = 'a connection that fails is a retryable ChatModelError with code CHAT_MODEL_NETWORK';
      const thrown = await context.generateError(context.client(), question, contract);
      expectTypedError(context, thrown, {
        contract,
        expected: 'a ChatModelError (code CHAT_MODEL_NETWORK, retryable true)',
        holds: (error) => error.code === 'CHAT_MODEL_NETWORK' && error.retryable,
        fix: "let fetch's own error through (plannav reads 'fetch failed' and ECONNRESET as network errors), or throw new ChatModelError(message, { code: 'CHAT_MODEL_NETWORK', retryable: true, cause })",
      });
    },
  },
  statusCheck(
    'error mapping › a prompt longer than the context window is a ChatModelContextLengthError',
    { status: 400, message: 'too long', contextLength: true },
    {
      contract: 'a prompt longer than the model\u2019s context window is a ChatModelContextLengthError, not retryable',
      expected: 'ChatModelContextLengthError (code CHAT_MODEL_CONTEXT_LENGTH, retryable false)',
      holds: (error) => ChatModelContextLengthError.isInstance(error) && error.code === 'CHAT_MODEL_CONTEXT_LENGTH' && !error.retryable,
      fix: 'pass the provider\u2019s error code and message to chatModelErrorFromStatus({ status, message, code }) from plannav: it recognises the providers\u2019 context-length errors',
    },
  ),
  {
    name: 'error mapping › the client does not retry on its own',
    run: async (context) => {
      context.enqueue({ status: 503, message: 'unavailable' }, { object: answer });
      const contract = 'generate() makes one request and does not retry: plannav retries what is retryable, with backoff, and counts the failures';
      await context.generateError(context.client(), question, contract);
      if (context.calls.length !== 1) {
        throw context.fail({
          contract,
          expected: '1 request for a 503',
          received: `${context.calls.length} requests`,
          fix: 'turn off the retries of your HTTP client or SDK (maxRetries: 0)',
        });
      }
    },
  },
];

const hangingCallChecks: ModelCheck[] = [
  {
    name: 'timeouts › the client\u2019s timeout ends a hanging call with a retryable timeout error',
    run: async (context) => {
      context.enqueue({ hang: true });
      const contract = 'a call that outlives the client\u2019s timeout fails with a retryable ChatModelError with code CHAT_MODEL_TIMEOUT';
      await expectTimeout(
        context,
        context.client({ timeout: 50 }),
        question,
        50,
        contract,
        'pass the `timeout` the kit gives createClient on to every call (an AbortSignal.timeout joined with request.signal)',
      );
    },
  },
  {
    name: 'timeouts › a request\u2019s own timeout takes precedence over the client\u2019s',
    run: async (context) => {
      context.enqueue({ hang: true });
      const contract = 'request.timeout, when set, takes precedence over the client\u2019s timeout';
      await expectTimeout(
        context,
        context.client({ timeout: 60_000 }),
        { ...question, timeout: 30 },
        30,
        contract,
        'use request.timeout when it is set, else the client\u2019s timeout',
      );
    },
  },
  {
    name: 'cancellation › an abort ends a hanging call within 100 ms',
    run: async (context) => {
      const contract = `an abort of request.signal makes generate() reject within ${cancelBoundMs} ms (cancel() of a task is felt at once)`;
      const elapsed = await fastestOf(boundAttempts, cancelBoundMs, () => {
        context.enqueue({ hang: true });
        return abortHangingCall(context, contract);
      });
      if (elapsed > cancelBoundMs) {
        throw context.fail({
          contract,
          expected: `a rejection within ${cancelBoundMs} ms of the abort`,
          received: `a rejection after ${Math.round(elapsed)} ms (the fastest of ${boundAttempts} tries)`,
          fix: 'pass request.signal to fetch (or your SDK) and reject as soon as it aborts',
        });
      }
    },
  },
  {
    name: 'cancellation › an abort closes the HTTP request',
    run: async (context) => {
      context.enqueue({ hang: true });
      const contract = 'an abort of request.signal ends the HTTP request too, not only the promise (no connection is left open)';
      await abortHangingCall(context, contract);
      context.waitingFor('the server to see the aborted request closed');
      for (let tries = 0; tries < 100 && !context.server.wasClosedUnanswered(0); tries++) await new Promise((resolve) => setTimeout(resolve, 5));
      if (!context.server.wasClosedUnanswered(0)) {
        throw context.fail({
          contract,
          expected: 'the request\u2019s connection closed within 500 ms of the abort',
          received: 'the connection still open',
          fix: 'pass request.signal to fetch (or your SDK), rather than only racing the call against it',
        });
      }
    },
  },
];

/** Fails unless `request` on `client` ends soon after `timeoutMs` with a retryable timeout error. */
async function expectTimeout(
  context: CaseContext,
  client: LLMClient,
  request: GenerateRequest,
  timeoutMs: number,
  contract: string,
  fix: string,
): Promise<void> {
  const outcome = await settledWithin(context.generateError(client, request, contract), timeoutBoundMs);
  if (outcome === 'late') {
    throw context.fail({
      contract,
      expected: `a rejection soon after the timeout of ${timeoutMs} ms`,
      received: `still pending after ${timeoutBoundMs} ms`,
      fix,
    });
  }
  expectTypedError(context, outcome, {
    contract,
    expected: 'a ChatModelError (code CHAT_MODEL_TIMEOUT, retryable true)',
    holds: (error) => error.code === 'CHAT_MODEL_TIMEOUT' && error.retryable,
    fix: `${fix}; plannav reads a TimeoutError, or an AbortError of your own controller, as a timeout`,
  });
}

/** What `promise` resolves to, or `'late'` when it takes longer than `ms`. */
async function settledWithin<T>(promise: Promise<T>, ms: number): Promise<T | 'late'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Starts a hanging call, aborts it once the server has it, and returns the ms it took to reject. */
async function abortHangingCall(context: CaseContext, contract: string): Promise<number> {
  const controller = new AbortController();
  const earlier = context.calls.length;
  const pending = context.generateError(context.client(), { ...question, signal: controller.signal }, contract);
  await context.waitForCalls(earlier + 1, 'the request to reach the server');
  const abortedAt = performance.now();
  controller.abort();
  const outcome = await settledWithin(pending, 1000);
  if (outcome === 'late') {
    throw context.fail({
      contract,
      expected: `a rejection within ${cancelBoundMs} ms of the abort`,
      received: 'still pending 1000 ms after the abort',
      fix: 'pass request.signal to fetch (or your SDK) and reject as soon as it aborts',
    });
  }
  return performance.now() - abortedAt;
}

const withImage: ChatMessage[] = [
  { role: 'system', content: 'You describe screenshots.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is on this page?' },
      { type: 'image', data: pixel, mediaType: 'image/png' },
    ],
  },
];

const imageChecks: ModelCheck[] = [
  {
    name: 'images › sends image parts in the wire format',
    run: async (context) => {
      context.enqueue({ object: answer });
      const contract = 'a client created with supportsImages: true sends the image parts of user messages, and their text';
      await context.generate(context.client({ supportsImages: true }), { ...question, messages: withImage }, contract);
      const call = context.calls[0];
      if (!sameJson(call?.images, [pixel]) || !call?.allText.includes('What is on this page?')) {
        throw context.fail({
          contract,
          expected: `one image with the PNG's base64 data, and the text 'What is on this page?'`,
          received: `images ${describeValue(call?.images.map((image) => (image.length > 24 ? `${image.slice(0, 24)}…` : image)))}, text ${describeValue(call?.allText)}`,
          fix: context.format.hints.images,
        });
      }
    },
  },
];

/** The checks that call `generate` directly, in the order a reader meets them. */
export const directChecks: readonly ModelCheck[] = [
  ...clientChecks,
  ...structuredOutputChecks,
  ...usageChecks,
  ...errorChecks,
  ...hangingCallChecks,
  ...imageChecks,
];
