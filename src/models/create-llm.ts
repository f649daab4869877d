// createLLM('provider:model'): the short form for the CLI and quick starts. It reads keys from the
// usual environment variables (through globalThis.process, never a `node:` import) and builds the adapter.

import { AnthropicChatModel } from '../anthropic/anthropic-chat-model';
import { ConfigError } from '../errors';
import { GeminiChatModel } from '../gemini/gemini-chat-model';
import type { LLMClient } from '../llm/types';
import { azureOpenAI, deepseek, groq, lmStudio, mistral, ollama, openai, openRouter, together, vllm, type OpenAIPresetOptions } from '../openai/presets';
import type { FetchFunction } from '../providers/http';

/** The providers `createLLM` knows, as written before the colon. @public */
export type LLMProviderName =
  'openai' | 'azure' | 'anthropic' | 'gemini' | 'google' | 'ollama' | 'vllm' | 'lmstudio' | 'deepseek' | 'groq' | 'openrouter' | 'together' | 'mistral';

/** Options of {@link createLLM}; each overrides what the environment says. @public */
export interface CreateLLMOptions {
  /** The API key, instead of the provider's environment variable. */
  readonly apiKey?: string | undefined;
  /** The base URL (for Azure: the resource endpoint), instead of the environment's or the default. */
  readonly baseURL?: string | undefined;
  /** Where variables are read. @defaultValue `globalThis.process?.env` */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Milliseconds one call may take. @defaultValue 600000 */
  readonly timeout?: number | undefined;
  /** Whether the model accepts images. @defaultValue the provider's default */
  readonly supportsImages?: boolean | undefined;
  /** Extra headers sent with every request. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** The `fetch` to use. @defaultValue `globalThis.fetch` */
  readonly fetch?: FetchFunction | undefined;
}

type Environment = Readonly<Record<string, string | undefined>>;

/**
 * The environment variables each provider reads: the key (the first one set wins), and the
 * optional base URL.
 * @public
 */
export const providerEnvironment: Readonly<Record<LLMProviderName, { readonly apiKey: readonly string[]; readonly baseURL: readonly string[] }>> = {
  openai: { apiKey: ['OPENAI_API_KEY'], baseURL: ['OPENAI_BASE_URL'] },
  azure: { apiKey: ['AZURE_OPENAI_API_KEY'], baseURL: ['AZURE_OPENAI_ENDPOINT'] },
  anthropic: { apiKey: ['ANTHROPIC_API_KEY'], baseURL: ['ANTHROPIC_BASE_URL'] },
  gemini: { apiKey: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY'], baseURL: ['GEMINI_BASE_URL'] },
  google: { apiKey: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY'], baseURL: ['GEMINI_BASE_URL'] },
  ollama: { apiKey: [], baseURL: ['OLLAMA_HOST', 'OLLAMA_BASE_URL'] },
  vllm: { apiKey: ['VLLM_API_KEY'], baseURL: ['VLLM_BASE_URL'] },
  lmstudio: { apiKey: [], baseURL: ['LMSTUDIO_BASE_URL'] },
  deepseek: { apiKey: ['DEEPSEEK_API_KEY'], baseURL: ['DEEPSEEK_BASE_URL'] },
  groq: { apiKey: ['GROQ_API_KEY'], baseURL: ['GROQ_BASE_URL'] },
  openrouter: { apiKey: ['OPENROUTER_API_KEY'], baseURL: ['OPENROUTER_BASE_URL'] },
  together: { apiKey: ['TOGETHER_API_KEY'], baseURL: ['TOGETHER_BASE_URL'] },
  mistral: { apiKey: ['MISTRAL_API_KEY'], baseURL: ['MISTRAL_BASE_URL'] },
};

/** Providers that run without a key (local servers); a key is still sent when one is set. */
const keyOptional = new Set<LLMProviderName>(['ollama', 'vllm', 'lmstudio']);

function processEnvironment(): Environment {
  const process = (globalThis as { process?: { env?: Environment } }).process;
  return process?.env ?? {};
}

function firstSet(env: Environment, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

/** `ANTHROPIC_BASE_URL` is usually set without `/v1` (as Anthropic's own SDKs read it); the adapter wants it. */
function anthropicBaseURL(url: string): string {
  return /\/v1\/?$/.test(url) ? url : `${url.replace(/\/+$/, '')}/v1`;
}

/** Ollama's `OLLAMA_HOST` is a host (`127.0.0.1:11434`) or a URL without `/v1`. */
function ollamaBaseURL(host: string): string {
  const url = /^https?:\/\//i.test(host) ? host : `http://${host}`;
  return /\/v1\/?$/.test(url) ? url : `${url.replace(/\/+$/, '')}/v1`;
}

/**
 * Builds a model client from `'provider:model'`: `'openai:gpt-4.1-mini'`, `'anthropic:claude-sonnet-4-5'`,
 * `'gemini:gemini-2.5-flash'`, `'ollama:qwen2.5:7b'`, `'azure:my-deployment'`, `'groq:llama-3.3-70b-versatile'`,
 * `'deepseek:deepseek-chat'`, `'openrouter:anthropic/claude-sonnet-4.5'`, `'together:…'`, `'mistral:…'`,
 * `'vllm:…'`, `'lmstudio:…'`. Everything after the first colon is the model id. Keys come from the
 * usual environment variables ({@link providerEnvironment}) unless `options.apiKey` is given.
 *
 * @throws `ConfigError` for an unknown provider, a missing model, or a missing key or endpoint; the
 * message names the environment variable to set.
 *
 * @example
 * ```ts
 * const llm = createLLM('anthropic:claude-sonnet-4-5'); // reads ANTHROPIC_API_KEY
 * ```
 * @public
 */
export function createLLM(spec: string, options: CreateLLMOptions = {}): LLMClient {
  const colon = typeof spec === 'string' ? spec.indexOf(':') : -1;
  const known = Object.keys(providerEnvironment).join(', ');
  if (colon <= 0) {
    throw new ConfigError(`createLLM needs 'provider:model', such as 'openai:gpt-4.1-mini'; got ${JSON.stringify(spec)}. Providers: ${known}.`, {
      field: 'spec',
    });
  }
  const provider = spec.slice(0, colon).trim().toLowerCase();
  const model = spec.slice(colon + 1).trim();
  if (!(provider in providerEnvironment)) {
    throw new ConfigError(`createLLM does not know the provider "${provider}" (in ${JSON.stringify(spec)}). Providers: ${known}.`, { field: 'spec' });
  }
  if (!model) throw new ConfigError(`createLLM needs a model after "${provider}:", such as '${provider}:<model id>'.`, { field: 'spec' });
  const name = provider as LLMProviderName;
  const env = options.env ?? processEnvironment();
  const variables = providerEnvironment[name];
  const apiKey = options.apiKey ?? firstSet(env, variables.apiKey);
  if (!apiKey && !keyOptional.has(name)) {
    const names = variables.apiKey.join(' or ');
    throw new ConfigError(`createLLM('${spec}') needs an API key: set the ${names} environment variable, or pass { apiKey }.`, { field: 'apiKey' });
  }
  const baseURL = options.baseURL ?? firstSet(env, variables.baseURL);
  const common = {
    model,
    apiKey,
    timeout: options.timeout,
    supportsImages: options.supportsImages,
    headers: options.headers,
    fetch: options.fetch,
  };
  const withBase: OpenAIPresetOptions = { ...common, baseURL };
  switch (name) {
    case 'openai':
      return openai(withBase);
    case 'azure': {
      if (!baseURL) {
        throw new ConfigError(`createLLM('${spec}') needs the Azure endpoint: set the AZURE_OPENAI_ENDPOINT environment variable, or pass { baseURL }.`, {
          field: 'baseURL',
        });
      }
      const apiVersion = firstSet(env, ['AZURE_OPENAI_API_VERSION', 'OPENAI_API_VERSION']);
      return azureOpenAI({ ...common, model: undefined, endpoint: baseURL, deployment: model, apiVersion });
    }
    case 'anthropic':
      return new AnthropicChatModel({ ...withBase, baseURL: baseURL ? anthropicBaseURL(baseURL) : undefined });
    case 'gemini':
    case 'google':
      return new GeminiChatModel(withBase);
    case 'ollama':
      return ollama({ ...withBase, baseURL: baseURL ? ollamaBaseURL(baseURL) : undefined });
    case 'vllm':
      return vllm(withBase);
    case 'lmstudio':
      return lmStudio(withBase);
    case 'deepseek':
      return deepseek(withBase);
    case 'groq':
      return groq(withBase);
    case 'openrouter':
      return openRouter(withBase);
    case 'together':
      return together(withBase);
    case 'mistral':
      return mistral(withBase);
  }
}
