// Every model adapter of plannav through the shipped conformance kit (plannav/testing): each
// OpenAI-compatible preset incl. Azure, Anthropic, Gemini, and the AI SDK adapter over an AI SDK
// model speaking OpenAI's wire format, all against the kit's local servers. Then what our adapters
// do beyond the contract (request ids, images left out by the adapter itself). No key, no internet.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AISDKChatModel } from '../../src/ai-sdk/index';
import { AnthropicChatModel } from '../../src/anthropic/index';
import { GeminiChatModel } from '../../src/gemini/index';
import { ChatModelError, type LLMClient } from '../../src/index';
import type { ChatMessage } from '../../src/provider';
import {
  azureOpenAI,
  deepseek,
  groq,
  lmStudio,
  mistral,
  ollama,
  openai,
  openRouter,
  together,
  vllm,
  type OpenAIPresetName,
  type OpenAIPresetOptions,
} from '../../src/openai/index';
import { modelClientConformance, registerConformance, type ModelClientSettings, type ModelWireFormat } from '../../src/testing/index';
import { anthropicWireFormat } from '../../src/testing/model-conformance-anthropic';
import { geminiWireFormat } from '../../src/testing/model-conformance-gemini';
import { openAIWireFormat } from '../../src/testing/model-conformance-openai';
import { LoopbackServer } from '../../src/testing/model-conformance-server';
import type { Answer, WireCall, WireFormatSpec } from '../../src/testing/model-conformance-wire';
import { rejectionOf } from '../helpers/rejection';
import { openAICompatibleModel } from './ai-sdk-openai-model';

interface Adapter {
  readonly name: string;
  readonly wireFormat: ModelWireFormat;
  readonly createClient: (settings: ModelClientSettings) => LLMClient;
  /** The request id the adapter reports, as the kit's server sends it. */
  readonly requestId: string;
}

const formats: Record<ModelWireFormat, WireFormatSpec> = { openai: openAIWireFormat, anthropic: anthropicWireFormat, gemini: geminiWireFormat };

const presets: Record<Exclude<OpenAIPresetName, 'azure'>, (options: OpenAIPresetOptions) => LLMClient> = {
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

const adapters: readonly Adapter[] = [
  ...Object.entries(presets).map(([preset, factory]) => ({
    name: `openai preset ${preset}`,
    wireFormat: 'openai' as const,
    createClient: ({ baseURL, apiKey, timeout, supportsImages }: ModelClientSettings) =>
      factory({ model: 'mock-model', baseURL, apiKey, timeout, supportsImages }),
    requestId: openAIWireFormat.requestId,
  })),
  {
    name: 'openai preset azure',
    wireFormat: 'openai',
    createClient: ({ origin, apiKey, timeout, supportsImages }) => azureOpenAI({ endpoint: origin, deployment: 'my-gpt', apiKey, timeout, supportsImages }),
    requestId: openAIWireFormat.requestId,
  },
  {
    name: 'anthropic',
    wireFormat: 'anthropic',
    createClient: ({ baseURL, apiKey, timeout, supportsImages }) => new AnthropicChatModel({ model: 'claude-mock', baseURL, apiKey, timeout, supportsImages }),
    requestId: anthropicWireFormat.requestId,
  },
  {
    name: 'gemini',
    wireFormat: 'gemini',
    createClient: ({ baseURL, apiKey, timeout, supportsImages }) => new GeminiChatModel({ model: 'gemini-mock', baseURL, apiKey, timeout, supportsImages }),
    requestId: geminiWireFormat.requestId,
  },
  {
    name: 'ai-sdk (an AI SDK model on the OpenAI wire format)',
    wireFormat: 'openai',
    createClient: ({ baseURL, apiKey, timeout, supportsImages }) =>
      new AISDKChatModel({ model: openAICompatibleModel({ baseURL, apiKey }), timeout, supportsImages }),
    requestId: openAIWireFormat.requestId,
  },
];

for (const adapter of adapters) {
  describe(`conformance: ${adapter.name}`, () => {
    registerConformance(modelClientConformance({ wireFormat: adapter.wireFormat, createClient: adapter.createClient }), it);
  });
}

// ---------------------------------------------------------------- beyond the contract

const question = {
  messages: [{ role: 'user', content: 'What is the capital of France?' }],
  output: { name: 'answer_output', schema: { type: 'object', properties: { answer: { type: 'string' } } } },
} as const;

describe.each(adapters)('adapter extras: $name', (adapter) => {
  const format = formats[adapter.wireFormat];
  let server: LoopbackServer;
  const calls: WireCall[] = [];
  const queue: Answer[] = [];
  beforeEach(async () => {
    calls.length = 0;
    queue.length = 0;
    server = await LoopbackServer.start((request) => {
      calls.push(format.read(request));
      return format.write(queue.shift() ?? { status: 500, message: 'no answer scripted' }, request);
    });
  });
  afterEach(async () => {
    await server.close();
  });
  const client = (supportsImages?: boolean) =>
    adapter.createClient({ baseURL: `${server.url}${format.basePath}`, origin: server.url, apiKey: 'key', supportsImages });

  it('reports the provider\u2019s request id on results and on errors', async () => {
    queue.push({ object: { answer: 'Paris' } }, { status: 401, message: 'bad key' }, { status: 429, message: 'slow down', retryAfter: '1' });
    const result = await client().generate(question);
    expect(result.requestId).toBe(adapter.requestId);
    for (let failure = 0; failure < 2; failure++) {
      const error = await rejectionOf<ChatModelError>(client().generate(question));
      expect(ChatModelError.isInstance(error)).toBe(true);
      expect(error.requestId).toBe(adapter.requestId);
    }
  });

  it('leaves images out itself, keeping the text, when supportsImages is false', async () => {
    queue.push({ object: { answer: 'A page' } });
    const llm = client(false);
    expect(llm.supportsImages).toBe(false);
    const messages: ChatMessage[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is on this page?' },
          { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
        ],
      },
    ];
    await llm.generate({ ...question, messages });
    expect(calls[0]?.images).toEqual([]);
    expect(calls[0]?.allText).toContain('What is on this page?');
  });
});
