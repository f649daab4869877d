// The AI SDK bridge's cases, run once per supported `ai` major (ai-sdk.test.ts: v7, ai-sdk-v6.test.ts,
// ai-sdk-v5.test.ts): what reaches the model, that the SDK never retries, how errors and outputs map.
// Each test file points `ai` at one major (vi.mock) and hands in that major's mock model and error classes.

import { describe, expect, it } from 'vitest';
import { AISDKChatModel, type AISDKChatModelOptions } from '../../src/ai-sdk/index';
import { ConfigError, type PlannavError } from '../../src/index';
import { ChatModelAuthError } from '../../src/provider';
import { rejectionOf } from '../helpers/rejection';

/** The language-model specification a mock implements: v2 (ai v5), v3 (ai v6, v7), v4 (ai v7). */
export type SpecificationVersion = 'v2' | 'v3' | 'v4';

/** What the cases read back from a mock's `doGenerateCalls`; the same fields in v2, v3 and v4. */
interface SeenCall {
  readonly prompt: ReadonlyArray<{ readonly role: string; readonly content: unknown }>;
  readonly responseFormat?: unknown;
  readonly temperature?: number | undefined;
  readonly maxOutputTokens?: number | undefined;
  readonly providerOptions?: unknown;
}

type ErrorClass = new (options: never) => Error;

/** One `ai` major as the cases need it. */
export interface AISDKMajor {
  /** The installed version of the `ai` package the bridge imports (checked against `major`). */
  readonly version: string;
  readonly major: 5 | 6 | 7;
  /** That major's `ai` module, which the test file made `ai` resolve to. */
  readonly ai: { readonly APICallError: ErrorClass; readonly LoadAPIKeyError: ErrorClass; readonly generateText: unknown };
  /** The mock model classes to run the cases with, by the specification they implement. */
  readonly mocks: Partial<Record<SpecificationVersion, new (settings?: never) => object>>;
}

const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
const pixel = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** A doGenerate result in the shape of `specification`, with usage that has cached and reasoning tokens. */
function reply(specification: SpecificationVersion, text: string, finish: 'stop' | 'length' = 'stop'): unknown {
  const response = { id: 'resp_1', headers: { 'x-request-id': 'req_1' } };
  if (specification === 'v2') {
    return {
      content: [{ type: 'text', text }],
      finishReason: finish,
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15, cachedInputTokens: 2, reasoningTokens: 1 },
      warnings: [],
      response,
    };
  }
  return {
    content: [{ type: 'text', text }],
    finishReason: { unified: finish, raw: finish },
    usage: { inputTokens: { total: 10, noCache: 8, cacheRead: 2, cacheWrite: 0 }, outputTokens: { total: 5, text: 4, reasoning: 1 } },
    warnings: [],
    response,
  };
}

/** The bytes of a prompt file part as base64, whatever the major put there (v4 wraps data in `{ type: 'data' }`). */
function base64Of(data: unknown): string {
  const tagged = data as { type?: unknown; data?: unknown } | null;
  const inner = typeof data === 'object' && tagged?.type === 'data' ? tagged.data : data;
  return typeof inner === 'string' ? inner : Buffer.from(inner as Uint8Array).toString('base64');
}

/** Collects the AI SDK's warnings (its `AI_SDK_LOG_WARNINGS` hook, in v5, v6 and v7) while `body` runs. */
async function warningsDuring(body: () => Promise<unknown>): Promise<Array<{ type: string }>> {
  const seen: Array<{ type: string }> = [];
  const global = globalThis as { AI_SDK_LOG_WARNINGS?: unknown };
  const before = global.AI_SDK_LOG_WARNINGS;
  global.AI_SDK_LOG_WARNINGS = (options: { warnings: Array<{ type: string }> }) => seen.push(...options.warnings);
  try {
    await body();
  } finally {
    global.AI_SDK_LOG_WARNINGS = before;
  }
  return seen;
}

/** Registers the bridge's cases for one `ai` major, once per mock specification it accepts. */
export function describeAISDKBridge(kit: AISDKMajor): void {
  it(`runs against ai v${kit.major} (${kit.version})`, async () => {
    expect(Number(kit.version.split('.')[0])).toBe(kit.major);
    // The bridge's `import … from 'ai'` must reach this major, not the devDependency.
    expect((await import('ai')).generateText).toBe(kit.ai.generateText);
  });

  for (const [specification, MockModel] of Object.entries(kit.mocks) as Array<[SpecificationVersion, new (settings?: never) => object]>) {
    const mock = (settings: { provider?: string; modelId?: string; doGenerate?: unknown } = {}) =>
      new MockModel(settings as never) as AISDKChatModelOptions['model'] & { readonly doGenerateCalls: readonly SeenCall[] };

    describe(`ai v${kit.major}, a ${specification} model`, () => {
      it('reports the model\u2019s provider and id', () => {
        const llm = new AISDKChatModel({ model: mock({ provider: 'openai.chat', modelId: 'gpt-4.1-mini' }) });
        expect(llm).toMatchObject({ specificationVersion: 'v1', provider: 'openai.chat', model: 'gpt-4.1-mini', supportsImages: true });
      });

      it('sends the system prompt, the turns, the JSON schema and the settings, and returns the parsed object', async () => {
        const model = mock({ doGenerate: reply(specification, '{"answer":"hi"}') });
        const llm = new AISDKChatModel({ model, providerOptions: { openai: { reasoningEffort: 'low' } } });
        const result = await llm.generate({
          messages: [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'Hi' },
            { role: 'assistant', content: 'Hello' },
            { role: 'system', content: 'Late note' },
            { role: 'user', content: 'Again' },
          ],
          output: { name: 'answer_output', description: 'The answer', schema },
          temperature: 0.1,
          maxOutputTokens: 99,
        });
        expect(result.object).toEqual({ answer: 'hi' });
        expect(result).toMatchObject({ text: '{"answer":"hi"}', finishReason: 'stop', requestId: 'req_1' });
        expect(result.usage).toEqual({ inputTokens: 10, outputTokens: 5, cachedInputTokens: 2, reasoningTokens: 1 });
        const options = model.doGenerateCalls[0];
        expect(options?.prompt[0]).toEqual({ role: 'system', content: 'Be brief.' });
        expect(options?.prompt.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user', 'user']);
        // v5's Output.object takes no name or description, so only the schema reaches a v5 model.
        const naming = kit.major === 5 ? {} : { name: 'answer_output', description: 'The answer' };
        expect(options?.responseFormat).toMatchObject({ type: 'json', ...naming, schema });
        expect(options?.temperature).toBe(0.1);
        expect(options?.maxOutputTokens).toBe(99);
        expect(options?.providerOptions).toEqual({ openai: { reasoningEffort: 'low' } });
      });

      it('sends images as image file parts, without a deprecation warning, and leaves them out when images are off', async () => {
        const messages = [
          {
            role: 'user' as const,
            content: [
              { type: 'text' as const, text: 'What is this?' },
              { type: 'image' as const, data: pixel, mediaType: 'image/png' as const },
            ],
          },
        ];
        const model = mock({ doGenerate: reply(specification, '{"answer":"a pixel"}') });
        const warnings = await warningsDuring(() => new AISDKChatModel({ model }).generate({ messages, output: { name: 'answer_output', schema } }));
        expect(warnings.filter((warning) => warning.type === 'deprecated')).toEqual([]);
        const content = model.doGenerateCalls[0]?.prompt[0]?.content as Array<{ type: string; mediaType?: string; data?: unknown }>;
        expect(content.map((part) => part.type)).toEqual(['text', 'file']);
        expect(content[1]?.mediaType).toBe('image/png');
        expect(base64Of(content[1]?.data)).toBe(pixel);

        const textOnly = mock({ doGenerate: reply(specification, 'ok') });
        await new AISDKChatModel({ model: textOnly, supportsImages: false }).generate({ messages });
        expect((textOnly.doGenerateCalls[0]?.prompt[0]?.content as Array<{ type: string }>).map((part) => part.type)).toEqual(['text']);
      });

      it('never lets the AI SDK retry: one doGenerate call per generate, even for a retryable error', async () => {
        let calls = 0;
        const model = mock({
          doGenerate: async () => {
            calls++;
            throw new kit.ai.APICallError({
              message: 'Service unavailable',
              url: 'https://x.test',
              requestBodyValues: {},
              statusCode: 503,
              isRetryable: true,
            } as never);
          },
        });
        const error = await rejectionOf<PlannavError>(new AISDKChatModel({ model }).generate({ messages: [{ role: 'user', content: 'Hi' }] }));
        expect(calls).toBe(1);
        expect(error.code).toBe('CHAT_MODEL_SERVER');
        expect(error.retryable).toBe(true);
      });

      it('returns text that is not valid JSON as text, for plannav to parse and repair', async () => {
        const model = mock({ doGenerate: reply(specification, '<think>hmm</think>\n```json\n{"answer":"hi"}\n```', 'length') });
        const result = await new AISDKChatModel({ model }).generate({ messages: [{ role: 'user', content: 'Hi' }], output: { name: 'answer_output', schema } });
        expect(result.object).toBeUndefined();
        expect(result.text).toContain('```json');
        expect(result.finishReason).toBe('length');
        expect(result.usage).toMatchObject({ inputTokens: 10, outputTokens: 5 });
      });

      it('maps a missing provider key to a ChatModelAuthError', async () => {
        const model = mock({
          doGenerate: async () => {
            throw new kit.ai.LoadAPIKeyError({
              message: 'OpenAI API key is missing. Pass it using the apiKey parameter or the OPENAI_API_KEY environment variable.',
            } as never);
          },
        });
        const error = await rejectionOf<PlannavError>(new AISDKChatModel({ model }).generate({ messages: [{ role: 'user', content: 'Hi' }] }));
        expect(ChatModelAuthError.isInstance(error)).toBe(true);
        expect(error.message).toContain('OPENAI_API_KEY');
      });

      it('refuses a missing model or a bad timeout with a ConfigError', () => {
        expect(() => new AISDKChatModel({ model: undefined as never })).toThrow(ConfigError);
        expect(() => new AISDKChatModel({ model: mock(), timeout: 0 })).toThrow(/timeout/);
      });
    });
  }
}
