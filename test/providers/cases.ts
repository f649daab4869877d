// The adapters under conformance test, each behind one harness: answers described once
// (an object, a cut-off reply, an HTTP error, a hang, a dropped connection) are sent in the
// adapter's own wire format, and the requests it made are read back in one shape.

import { APICallError } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import type { LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { AISDKChatModel } from '../../src/ai-sdk/index';
import { AnthropicChatModel } from '../../src/anthropic/index';
import { GeminiChatModel } from '../../src/gemini/index';
import type { LLMClient, LLMUsage } from '../../src/index';
import {
  azureOpenAI,
  deepseek,
  groq,
  lmStudio,
  mistral,
  ollama,
  openai,
  openAIPresets,
  openRouter,
  together,
  vllm,
  type OpenAIPresetName,
  type OpenAIPresetOptions,
  type OpenAIStructuredOutput,
} from '../../src/openai/index';
import { anthropicError, anthropicMessage } from './servers/anthropic';
import { geminiError, geminiText } from './servers/gemini';
import { MockServer, type RecordedRequest, type ServerReply } from './servers/mock-server';
import { openAIError, openAIObject, openAIText, openAIToolCall } from './servers/openai';

/** Token counts an answer reports, in plannav's terms; each harness writes them in its wire format. */
export interface UsageSpec {
  readonly input: number;
  readonly output: number;
  readonly cached: number;
  readonly reasoning: number;
}

/** One answer, described independently of the wire format. */
export type Answer =
  | { readonly object: unknown; readonly usage?: UsageSpec; readonly reasoning?: string }
  /** A reply cut off by the output token limit. */
  | { readonly truncated: string }
  | { readonly status: number; readonly message: string; readonly retryAfter?: string; readonly contextLength?: boolean }
  | { readonly hang: true }
  | { readonly network: true };

/** A request an adapter made, read back from its wire format. */
export interface Call {
  readonly agent: 'planner' | 'navigator' | 'other';
  readonly lastUserText: string;
  /** Base64 data of every image sent, in order. */
  readonly images: string[];
  /** Every text the request carries (system, messages), joined. */
  readonly allText: string;
}

export interface Harness {
  client(options?: { readonly timeout?: number; readonly supportsImages?: boolean }): LLMClient;
  /** Answers calls once the queue is empty. */
  answer(respond: (call: Call) => Answer): void;
  enqueue(...answers: Answer[]): void;
  readonly calls: Call[];
  /** The request id the service sends with every response. */
  readonly requestId: string;
  /** Whether the provider reports reasoning tokens apart. */
  readonly reportsReasoning: boolean;
  close(): Promise<void>;
}

export interface AdapterCase {
  readonly name: string;
  start(): Promise<Harness>;
}

function agentOf(name: unknown): Call['agent'] {
  if (typeof name !== 'string') return 'other';
  return name.startsWith('planner') ? 'planner' : name.startsWith('navigator') ? 'navigator' : 'other';
}

/** A harness over the mock HTTP server: `toReply` writes answers in the wire format, `toCall` reads requests. */
function serverHarness(
  server: MockServer,
  settings: {
    readonly client: (url: string, options: { readonly timeout?: number; readonly supportsImages?: boolean }) => LLMClient;
    readonly toCall: (request: RecordedRequest) => Call;
    readonly toReply: (answer: Answer, request: RecordedRequest) => ServerReply;
    readonly requestId: string;
    readonly reportsReasoning: boolean;
  },
): Harness {
  const calls: Call[] = [];
  const queue: Answer[] = [];
  let respond: ((call: Call) => Answer) | undefined;
  server.setResponder((request) => {
    const call = settings.toCall(request);
    calls.push(call);
    const answer = queue.shift() ?? respond?.(call) ?? { status: 500, message: 'no answer scripted' };
    return settings.toReply(answer, request);
  });
  return {
    client: (options = {}) => settings.client(server.url, options),
    answer: (next) => {
      respond = next;
    },
    enqueue: (...answers) => queue.push(...answers),
    calls,
    requestId: settings.requestId,
    reportsReasoning: settings.reportsReasoning,
    close: () => server.close(),
  };
}

function textOfContent(content: unknown, textKey = 'text'): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: Record<string, unknown>) => (typeof part[textKey] === 'string' ? (part[textKey] as string) : '')).join('\n');
}

// ---------------------------------------------------------------- OpenAI-compatible presets

const retryAfterHeaders = (answer: { retryAfter?: string }): Record<string, string> => (answer.retryAfter ? { 'retry-after': answer.retryAfter } : {});

function openAIToCall(request: RecordedRequest): Call {
  const body = request.body;
  const messages: Array<{ role: string; content: unknown }> = body.messages ?? [];
  const system = messages.filter((message) => message.role === 'system').map((message) => textOfContent(message.content)).join('\n');
  const named = /named (\w+)/.exec(system)?.[1];
  const name = body.response_format?.json_schema?.name ?? body.tools?.[0]?.function?.name ?? named;
  const lastUser = [...messages].reverse().find((message) => message.role === 'user');
  const images = messages.flatMap((message) =>
    Array.isArray(message.content)
      ? message.content.filter((part: { type: string }) => part.type === 'image_url').map((part: { image_url: { url: string } }) => part.image_url.url.replace(/^data:[^,]+,/, ''))
      : [],
  );
  return {
    agent: agentOf(name),
    lastUserText: textOfContent(lastUser?.content),
    images,
    allText: messages.map((message) => textOfContent(message.content)).join('\n'),
  };
}

function openAIToReply(method: OpenAIStructuredOutput) {
  return (answer: Answer, request: RecordedRequest): ServerReply => {
    const name = request.body.response_format?.json_schema?.name ?? request.body.tools?.[0]?.function?.name ?? 'output';
    if ('hang' in answer) return { hang: true };
    if ('network' in answer) return { destroy: true };
    if ('status' in answer) {
      return answer.contextLength
        ? openAIError(answer.status, "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.", { code: 'context_length_exceeded' })
        : openAIError(answer.status, answer.message, { headers: retryAfterHeaders(answer), type: answer.status === 429 ? 'rate_limit_exceeded' : 'invalid_request_error' });
    }
    if ('truncated' in answer) {
      return method === 'tool' ? openAIToolCall(name, answer.truncated, { finishReason: 'length' }) : openAIText(answer.truncated, { finishReason: 'length' });
    }
    const usage = answer.usage
      ? {
          prompt_tokens: answer.usage.input,
          completion_tokens: answer.usage.output,
          prompt_tokens_details: { cached_tokens: answer.usage.cached },
          completion_tokens_details: { reasoning_tokens: answer.usage.reasoning },
        }
      : undefined;
    return openAIObject(method, name, answer.object, { ...(usage ? { usage } : {}), ...(answer.reasoning ? { reasoningContent: answer.reasoning } : {}) });
  };
}

const openAIFactories: Record<Exclude<OpenAIPresetName, 'azure'>, (options: OpenAIPresetOptions) => LLMClient> = {
  openai,
  ollama,
  vllm,
  lmstudio: lmStudio,
  deepseek,
  groq,
  openrouter: openRouter,
  together,
  mistral,
};

function openAICase(preset: Exclude<OpenAIPresetName, 'azure'>): AdapterCase {
  const method = openAIPresets[preset].structuredOutput;
  return {
    name: `openai preset ${preset} (${method})`,
    start: async () =>
      serverHarness(await MockServer.start(), {
        client: (url, options) => openAIFactories[preset]({ model: 'mock-model', apiKey: 'sk-test', baseURL: `${url}/v1`, ...options }),
        toCall: openAIToCall,
        toReply: openAIToReply(method),
        requestId: 'req_openai_123',
        reportsReasoning: true,
      }),
  };
}

const azureCase: AdapterCase = {
  name: 'openai preset azure (json_schema)',
  start: async () =>
    serverHarness(await MockServer.start(), {
      client: (url, options) => azureOpenAI({ endpoint: url, deployment: 'my-gpt', apiKey: 'azure-key', ...options }),
      toCall: openAIToCall,
      toReply: openAIToReply('json_schema'),
      requestId: 'req_openai_123',
      reportsReasoning: true,
    }),
};

// ---------------------------------------------------------------- Anthropic

const anthropicCase: AdapterCase = {
  name: 'anthropic',
  start: async () =>
    serverHarness(await MockServer.start(), {
      client: (url, options) => new AnthropicChatModel({ model: 'claude-mock', apiKey: 'ant-key', baseURL: `${url}/v1`, ...options }),
      toCall: (request) => {
        const messages: Array<{ role: string; content: unknown }> = request.body.messages ?? [];
        const lastUser = [...messages].reverse().find((message) => message.role === 'user');
        const images = messages.flatMap((message) =>
          Array.isArray(message.content) ? message.content.filter((block: { type: string }) => block.type === 'image').map((block: { source: { data: string } }) => block.source.data) : [],
        );
        return {
          agent: agentOf(request.body.tools?.[0]?.name),
          lastUserText: textOfContent(lastUser?.content),
          images,
          allText: [textOfContent(request.body.system), ...messages.map((message) => textOfContent(message.content))].join('\n'),
        };
      },
      toReply: (answer, request) => {
        const name = request.body.tools?.[0]?.name ?? 'output';
        if ('hang' in answer) return { hang: true };
        if ('network' in answer) return { destroy: true };
        if ('status' in answer) {
          if (answer.contextLength) return anthropicError(400, 'prompt is too long: 210000 tokens > 200000 maximum');
          const type = answer.status === 429 ? 'rate_limit_error' : answer.status === 401 ? 'authentication_error' : answer.status >= 500 ? 'api_error' : 'invalid_request_error';
          return anthropicError(answer.status, answer.message, { type, headers: retryAfterHeaders(answer) });
        }
        if ('truncated' in answer) {
          return anthropicMessage([{ type: 'tool_use', id: 'toolu_1', name, input: {} }], { stopReason: 'max_tokens' });
        }
        const usage = answer.usage
          ? { input_tokens: answer.usage.input - answer.usage.cached, output_tokens: answer.usage.output, cache_read_input_tokens: answer.usage.cached, cache_creation_input_tokens: 0 }
          : undefined;
        const blocks: Record<string, unknown>[] = [];
        if (answer.reasoning) blocks.push({ type: 'thinking', thinking: answer.reasoning, signature: 'sig' });
        blocks.push({ type: 'tool_use', id: 'toolu_1', name, input: answer.object });
        return anthropicMessage(blocks, { stopReason: 'tool_use', ...(usage ? { usage } : {}) });
      },
      requestId: 'req_anthropic_123',
      reportsReasoning: false,
    }),
};

// ---------------------------------------------------------------- Gemini

const geminiCase: AdapterCase = {
  name: 'gemini',
  start: async () =>
    serverHarness(await MockServer.start(), {
      client: (url, options) => new GeminiChatModel({ model: 'gemini-mock', apiKey: 'g-key', baseURL: `${url}/v1beta`, ...options }),
      toCall: (request) => {
        const contents: Array<{ role: string; parts: Array<{ text?: string; inlineData?: { data: string } }> }> = request.body.contents ?? [];
        const lastUser = [...contents].reverse().find((content) => content.role === 'user');
        const properties = request.body.generationConfig?.responseSchema?.properties ?? {};
        const agent = 'web_task' in properties ? 'planner' : 'action' in properties ? 'navigator' : 'other';
        return {
          agent,
          lastUserText: (lastUser?.parts ?? []).map((part) => part.text ?? '').join('\n'),
          images: contents.flatMap((content) => content.parts.flatMap((part) => (part.inlineData ? [part.inlineData.data] : []))),
          allText: [
            ...(request.body.systemInstruction?.parts ?? []).map((part: { text: string }) => part.text),
            ...contents.flatMap((content) => content.parts.map((part) => part.text ?? '')),
          ].join('\n'),
        };
      },
      toReply: (answer) => {
        if ('hang' in answer) return { hang: true };
        if ('network' in answer) return { destroy: true };
        if ('status' in answer) {
          if (answer.contextLength) return geminiError(400, 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).');
          const status = answer.status === 429 ? 'RESOURCE_EXHAUSTED' : answer.status === 401 ? 'UNAUTHENTICATED' : answer.status === 403 ? 'PERMISSION_DENIED' : answer.status >= 500 ? 'UNAVAILABLE' : 'INVALID_ARGUMENT';
          return geminiError(answer.status, answer.message, { status, headers: retryAfterHeaders(answer) });
        }
        if ('truncated' in answer) return geminiText(answer.truncated, { finishReason: 'MAX_TOKENS' });
        const usage = answer.usage
          ? {
              promptTokenCount: answer.usage.input,
              candidatesTokenCount: answer.usage.output - answer.usage.reasoning,
              thoughtsTokenCount: answer.usage.reasoning,
              cachedContentTokenCount: answer.usage.cached,
            }
          : undefined;
        return geminiText(JSON.stringify(answer.object), { ...(usage ? { usage } : {}), ...(answer.reasoning ? { thought: answer.reasoning } : {}) });
      },
      requestId: 'req_gemini_123',
      reportsReasoning: true,
    }),
};

// ---------------------------------------------------------------- AI SDK (mock model)

function abortError(): Error {
  const error = new Error('This operation was aborted');
  error.name = 'AbortError';
  return error;
}

function aiSdkCall(options: LanguageModelV3CallOptions): Call {
  const prompt = options.prompt;
  const lastUser = [...prompt].reverse().find((message) => message.role === 'user');
  const textOf = (content: unknown): string =>
    typeof content === 'string' ? content : Array.isArray(content) ? content.map((part: { type: string; text?: string }) => (part.type === 'text' ? (part.text ?? '') : '')).join('\n') : '';
  const images = prompt.flatMap((message) =>
    message.role === 'user'
      ? message.content.flatMap((part) => (part.type === 'file' && part.mediaType.startsWith('image/') ? [typeof part.data === 'string' ? part.data : Buffer.from(part.data as Uint8Array).toString('base64')] : []))
      : [],
  );
  const name = options.responseFormat?.type === 'json' ? options.responseFormat.name : undefined;
  return { agent: agentOf(name), lastUserText: textOf(lastUser?.content), images, allText: prompt.map((message) => textOf(message.content)).join('\n') };
}

const aiSdkHeaders = { 'x-request-id': 'req_aisdk_123' };

async function aiSdkAnswer(answer: Answer, options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
  const apiError = (statusCode: number | undefined, message: string, headers: Record<string, string>, data?: unknown): APICallError =>
    new APICallError({
      message,
      url: 'https://api.example.test/v1/chat/completions',
      requestBodyValues: {},
      statusCode,
      responseHeaders: headers,
      responseBody: JSON.stringify({ error: { message } }),
      isRetryable: statusCode === undefined || statusCode === 429 || statusCode >= 500,
      data,
    });
  if ('hang' in answer) {
    return new Promise((_resolve, reject) => {
      options.abortSignal?.addEventListener('abort', () => reject(abortError()), { once: true });
    });
  }
  if ('network' in answer) throw apiError(undefined, 'Cannot connect to API: fetch failed', {});
  if ('status' in answer) {
    if (answer.contextLength) {
      throw apiError(400, "This model's maximum context length is 128000 tokens.", aiSdkHeaders, { error: { code: 'context_length_exceeded' } });
    }
    throw apiError(answer.status, answer.message, { ...aiSdkHeaders, ...retryAfterHeaders(answer) });
  }
  const base = { warnings: [], response: { id: 'resp_aisdk', headers: aiSdkHeaders } };
  if ('truncated' in answer) {
    return {
      ...base,
      content: [{ type: 'text', text: answer.truncated }],
      finishReason: { unified: 'length', raw: 'length' },
      usage: { inputTokens: { total: 100, noCache: 100, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 20, text: 20, reasoning: 0 } },
    };
  }
  const usage = answer.usage ?? { input: 100, output: 20, cached: 0, reasoning: 0 };
  const content: LanguageModelV3Content[] = [];
  if (answer.reasoning) content.push({ type: 'reasoning', text: answer.reasoning });
  content.push({ type: 'text', text: JSON.stringify(answer.object) });
  return {
    ...base,
    content,
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: {
      inputTokens: { total: usage.input, noCache: usage.input - usage.cached, cacheRead: usage.cached, cacheWrite: 0 },
      outputTokens: { total: usage.output, text: usage.output - usage.reasoning, reasoning: usage.reasoning },
    },
  };
}

const aiSdkCase: AdapterCase = {
  name: 'ai-sdk (MockLanguageModelV3)',
  start: async () => {
    const calls: Call[] = [];
    const queue: Answer[] = [];
    let respond: ((call: Call) => Answer) | undefined;
    const model = new MockLanguageModelV3({
      provider: 'mock-provider',
      modelId: 'mock-model',
      doGenerate: async (options) => {
        const call = aiSdkCall(options);
        calls.push(call);
        return aiSdkAnswer(queue.shift() ?? respond?.(call) ?? { status: 500, message: 'no answer scripted' }, options);
      },
    });
    return {
      client: (options = {}) => new AISDKChatModel({ model, ...options }),
      answer: (next) => {
        respond = next;
      },
      enqueue: (...answers) => queue.push(...answers),
      calls,
      requestId: 'req_aisdk_123',
      reportsReasoning: true,
      close: async () => undefined,
    };
  },
};

/** Every adapter the conformance suite runs against. */
export const adapterCases: readonly AdapterCase[] = [
  ...(['openai', 'ollama', 'vllm', 'lmstudio', 'deepseek', 'groq', 'openrouter', 'together', 'mistral'] as const).map(openAICase),
  azureCase,
  anthropicCase,
  geminiCase,
  aiSdkCase,
];

/** What plannav's usage should read for `spec` from a provider that does (or does not) report reasoning apart. */
export function expectedUsage(spec: UsageSpec, reportsReasoning: boolean): LLMUsage {
  return { inputTokens: spec.input, outputTokens: spec.output, cachedInputTokens: spec.cached, reasoningTokens: reportsReasoning ? spec.reasoning : undefined };
}
