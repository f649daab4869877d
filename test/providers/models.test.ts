// createLLM('provider:model'): the adapter, URL and key header each provider gets, keys read from
// the environment, and ConfigErrors that name the variable to set.

import { afterEach, describe, expect, it } from 'vitest';
import { createLLM, providerEnvironment } from '../../src/models/index';
import { configErrorOf } from '../helpers/rejection';

interface Sent {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: Record<string, unknown>;
}

/** A fetch that records the request and answers with a reply each wire format can read. */
function recordingFetch(sent: Sent[]) {
  return async (url: string, init: RequestInit): Promise<Response> => {
    sent.push({ url, headers: init.headers as Record<string, string>, body: JSON.parse(init.body as string) as Record<string, unknown> });
    return new Response(
      JSON.stringify({ choices: [{ message: { content: 'ok' }, finish_reason: 'stop' }], content: [{ type: 'text', text: 'ok' }], candidates: [] }),
      { status: 200 },
    );
  };
}

async function firstRequest(
  spec: string,
  env: Record<string, string>,
  options: { baseURL?: string } = {},
): Promise<{ sent: Sent; provider: string; model: string }> {
  const sent: Sent[] = [];
  const llm = createLLM(spec, { env, fetch: recordingFetch(sent), ...options });
  await llm.generate({ messages: [{ role: 'user', content: 'Hi' }] });
  const first = sent[0];
  if (!first) throw new Error('no request');
  return { sent: first, provider: llm.provider, model: llm.model };
}

describe('createLLM', () => {
  it.each([
    ['openai:gpt-4.1-mini', { OPENAI_API_KEY: 'sk-o' }, 'https://api.openai.com/v1/chat/completions', 'authorization', 'Bearer sk-o', 'openai', 'gpt-4.1-mini'],
    [
      'anthropic:claude-sonnet-4-5',
      { ANTHROPIC_API_KEY: 'sk-a' },
      'https://api.anthropic.com/v1/messages',
      'x-api-key',
      'sk-a',
      'anthropic',
      'claude-sonnet-4-5',
    ],
    [
      'gemini:gemini-2.5-flash',
      { GEMINI_API_KEY: 'g' },
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent',
      'x-goog-api-key',
      'g',
      'gemini',
      'gemini-2.5-flash',
    ],
    [
      'google:gemini-2.5-pro',
      { GOOGLE_API_KEY: 'g2' },
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent',
      'x-goog-api-key',
      'g2',
      'gemini',
      'gemini-2.5-pro',
    ],
    [
      'groq:llama-3.3-70b-versatile',
      { GROQ_API_KEY: 'gq' },
      'https://api.groq.com/openai/v1/chat/completions',
      'authorization',
      'Bearer gq',
      'groq',
      'llama-3.3-70b-versatile',
    ],
    [
      'deepseek:deepseek-chat',
      { DEEPSEEK_API_KEY: 'ds' },
      'https://api.deepseek.com/v1/chat/completions',
      'authorization',
      'Bearer ds',
      'deepseek',
      'deepseek-chat',
    ],
    [
      'openrouter:anthropic/claude-sonnet-4.5',
      { OPENROUTER_API_KEY: 'or' },
      'https://openrouter.ai/api/v1/chat/completions',
      'authorization',
      'Bearer or',
      'openrouter',
      'anthropic/claude-sonnet-4.5',
    ],
    [
      'together:meta-llama/Llama-3.3-70B',
      { TOGETHER_API_KEY: 'tg' },
      'https://api.together.xyz/v1/chat/completions',
      'authorization',
      'Bearer tg',
      'together',
      'meta-llama/Llama-3.3-70B',
    ],
    [
      'mistral:mistral-large-latest',
      { MISTRAL_API_KEY: 'ms' },
      'https://api.mistral.ai/v1/chat/completions',
      'authorization',
      'Bearer ms',
      'mistral',
      'mistral-large-latest',
    ],
  ] as const)('%s reads its key and calls its API', async (spec, env, url, header, value, provider, model) => {
    const { sent, ...client } = await firstRequest(spec, env);
    expect(sent.url).toBe(url);
    expect(sent.headers[header]).toBe(value);
    expect(client).toEqual({ provider, model });
  });

  it('ollama needs no key, keeps the colons of the model id, and reads OLLAMA_HOST', async () => {
    const local = await firstRequest('ollama:qwen2.5:7b', {});
    expect(local.sent.url).toBe('http://localhost:11434/v1/chat/completions');
    expect(local.sent.body.model).toBe('qwen2.5:7b');
    expect(local.sent.headers.authorization).toBeUndefined();
    const remote = await firstRequest('ollama:llama3.2', { OLLAMA_HOST: '10.0.0.5:11434' });
    expect(remote.sent.url).toBe('http://10.0.0.5:11434/v1/chat/completions');
  });

  it('vllm and lmstudio default to their local ports; a base URL from the environment wins', async () => {
    expect((await firstRequest('vllm:Qwen/Qwen2.5-7B', {})).sent.url).toBe('http://localhost:8000/v1/chat/completions');
    expect((await firstRequest('lmstudio:qwen', {})).sent.url).toBe('http://localhost:1234/v1/chat/completions');
    expect((await firstRequest('vllm:m', { VLLM_BASE_URL: 'http://gpu-box:9000/v1', VLLM_API_KEY: 'v' })).sent.headers.authorization).toBe('Bearer v');
    expect((await firstRequest('openai:gpt-4o', { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'https://proxy.test/v1' })).sent.url).toBe(
      'https://proxy.test/v1/chat/completions',
    );
  });

  it('takes ANTHROPIC_BASE_URL with or without /v1, as Anthropic\u2019s own SDKs read it', async () => {
    const bare = await firstRequest('anthropic:claude-sonnet-4-5', { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'https://gateway.test' });
    expect(bare.sent.url).toBe('https://gateway.test/v1/messages');
    const versioned = await firstRequest('anthropic:claude-sonnet-4-5', { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'https://gateway.test/v1/' });
    expect(versioned.sent.url).toBe('https://gateway.test/v1/messages');
  });

  it('azure uses the endpoint, the deployment and the api-key header', async () => {
    const { sent, model, provider } = await firstRequest('azure:gpt-4o-prod', {
      AZURE_OPENAI_API_KEY: 'az',
      AZURE_OPENAI_ENDPOINT: 'https://my-resource.openai.azure.com',
      AZURE_OPENAI_API_VERSION: '2025-04-01-preview',
    });
    expect(sent.url).toBe('https://my-resource.openai.azure.com/openai/deployments/gpt-4o-prod/chat/completions?api-version=2025-04-01-preview');
    expect(sent.headers['api-key']).toBe('az');
    expect({ model, provider }).toEqual({ model: 'gpt-4o-prod', provider: 'azure' });
  });

  it('names the missing environment variable', () => {
    const openaiError = configErrorOf(() => createLLM('openai:gpt-4.1-mini', { env: {} }));
    expect(openaiError.message).toContain('OPENAI_API_KEY');
    expect(openaiError.field).toBe('apiKey');
    expect(configErrorOf(() => createLLM('anthropic:claude-sonnet-4-5', { env: { ANTHROPIC_API_KEY: '  ' } })).message).toContain('ANTHROPIC_API_KEY');
    expect(configErrorOf(() => createLLM('gemini:gemini-2.5-flash', { env: {} })).message).toContain('GEMINI_API_KEY or GOOGLE_API_KEY');
    expect(configErrorOf(() => createLLM('azure:dep', { env: { AZURE_OPENAI_API_KEY: 'k' } })).message).toContain('AZURE_OPENAI_ENDPOINT');
  });

  it('takes an apiKey option instead of the environment', () => {
    expect(createLLM('groq:m', { env: {}, apiKey: 'direct' }).provider).toBe('groq');
  });

  it('reads process.env by default', () => {
    process.env.MISTRAL_API_KEY = 'from-process';
    expect(createLLM('mistral:mistral-small').model).toBe('mistral-small');
  });

  it.each([['gpt-4.1-mini'], ['unknown:model'], ['openai:'], [':model']])('refuses %j with a ConfigError', (spec) => {
    const error = configErrorOf(() => createLLM(spec, { env: { OPENAI_API_KEY: 'k' } }));
    expect(error.message).toMatch(/provider|model/);
  });

  it('lists the environment variables of every provider', () => {
    expect(providerEnvironment.openai.apiKey).toEqual(['OPENAI_API_KEY']);
    expect(providerEnvironment.ollama.apiKey).toEqual([]);
  });
});

afterEach(() => {
  delete process.env.MISTRAL_API_KEY;
});
