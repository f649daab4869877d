// Presets of OpenAIChatModel for the common OpenAI-compatible services: base URL, structured-output
// method, token field and vision of each, in one table that createLLM reads too.

import { ConfigError } from '../errors';
import { checkUrl, joinUrl } from '../providers/options';
import { OpenAIChatModel, type OpenAIChatModelOptions } from './openai-chat-model';
import type { OpenAIStructuredOutput } from './wire';

/** The services with a preset. @public */
export type OpenAIPresetName = 'openai' | 'azure' | 'ollama' | 'vllm' | 'lmstudio' | 'deepseek' | 'groq' | 'openrouter' | 'together' | 'mistral';

/** The defaults a preset gives {@link OpenAIChatModel}. @public */
export interface OpenAIPreset {
  /** The public or usual local base URL (Azure has none: it is built from the endpoint). */
  readonly baseURL: string | undefined;
  /** The structured-output method the service handles best. */
  readonly structuredOutput: OpenAIStructuredOutput;
  /** Whether to send images by default. */
  readonly supportsImages: boolean;
  /** The body field for the output token limit. */
  readonly maxTokensParameter: 'max_tokens' | 'max_completion_tokens';
  /** Whether the service requires an API key. */
  readonly requiresApiKey: boolean;
}

/**
 * The defaults of each preset. Structured output: strict JSON schema where the service supports
 * it, a forced tool call on Groq (JSON schema only on some of its models), JSON mode with the
 * schema in the prompt on DeepSeek and Together.
 * @public
 */
export const openAIPresets: Readonly<Record<OpenAIPresetName, OpenAIPreset>> = {
  openai: {
    baseURL: 'https://api.openai.com/v1',
    structuredOutput: 'json_schema',
    supportsImages: true,
    maxTokensParameter: 'max_completion_tokens',
    requiresApiKey: true,
  },
  azure: { baseURL: undefined, structuredOutput: 'json_schema', supportsImages: true, maxTokensParameter: 'max_completion_tokens', requiresApiKey: true },
  ollama: {
    baseURL: 'http://localhost:11434/v1',
    structuredOutput: 'json_schema',
    supportsImages: true,
    maxTokensParameter: 'max_tokens',
    requiresApiKey: false,
  },
  vllm: { baseURL: 'http://localhost:8000/v1', structuredOutput: 'json_schema', supportsImages: true, maxTokensParameter: 'max_tokens', requiresApiKey: false },
  lmstudio: {
    baseURL: 'http://localhost:1234/v1',
    structuredOutput: 'json_schema',
    supportsImages: true,
    maxTokensParameter: 'max_tokens',
    requiresApiKey: false,
  },
  deepseek: {
    baseURL: 'https://api.deepseek.com/v1',
    structuredOutput: 'json_object',
    supportsImages: false,
    maxTokensParameter: 'max_tokens',
    requiresApiKey: true,
  },
  groq: {
    baseURL: 'https://api.groq.com/openai/v1',
    structuredOutput: 'tool',
    supportsImages: true,
    maxTokensParameter: 'max_completion_tokens',
    requiresApiKey: true,
  },
  openrouter: {
    baseURL: 'https://openrouter.ai/api/v1',
    structuredOutput: 'json_schema',
    supportsImages: true,
    maxTokensParameter: 'max_tokens',
    requiresApiKey: true,
  },
  together: {
    baseURL: 'https://api.together.xyz/v1',
    structuredOutput: 'json_object',
    supportsImages: true,
    maxTokensParameter: 'max_tokens',
    requiresApiKey: true,
  },
  mistral: {
    baseURL: 'https://api.mistral.ai/v1',
    structuredOutput: 'json_schema',
    supportsImages: true,
    maxTokensParameter: 'max_tokens',
    requiresApiKey: true,
  },
};

/** Options of a preset: those of {@link OpenAIChatModel}, every default coming from the preset. @public */
export type OpenAIPresetOptions = Omit<OpenAIChatModelOptions, 'provider' | 'apiKeyHeader' | 'queryParams'>;

/** Whether an OpenAI model id names a reasoning model (o-series, gpt-5 but not gpt-5-chat), which refuses `temperature`. */
export function isOpenAIReasoningModel(model: string): boolean {
  return /^(o\d+|gpt-5(?!(\.\d+)?-chat))/i.test(model.replace(/^openai\//i, ''));
}

/**
 * A hosted service without a key fails on its first call; say so at construction instead. A custom
 * base URL (a gateway, a proxy) or an own auth header may need no key.
 */
function checkKey(
  preset: string,
  options: { readonly apiKey?: string | undefined; readonly baseURL?: string | undefined; readonly headers?: Readonly<Record<string, string>> | undefined },
  requiresApiKey: boolean,
): void {
  const ownAuth = Object.keys(options?.headers ?? {}).some((header) => /^(authorization|api-key)$/i.test(header));
  if (requiresApiKey && !options?.apiKey && options?.baseURL === undefined && !ownAuth) {
    throw new ConfigError(`Option \`apiKey\` of ${preset}() is required: pass the service's API key (or an authorization header).`, { field: 'apiKey' });
  }
}

function fromPreset(name: OpenAIPresetName, options: OpenAIPresetOptions, extra: Partial<OpenAIChatModelOptions> = {}): OpenAIChatModel {
  const preset = openAIPresets[name];
  checkKey(name, options, preset.requiresApiKey);
  return new OpenAIChatModel({
    baseURL: preset.baseURL,
    structuredOutput: preset.structuredOutput,
    supportsImages: preset.supportsImages,
    maxTokensParameter: preset.maxTokensParameter,
    ...extra,
    ...withoutUndefined(options),
    // Checked by the constructor, which names the field when it is missing.
    model: options?.model,
    provider: name,
  });
}

function withoutUndefined<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options ?? {}).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/**
 * OpenAI. Strict JSON-schema output when the schema allows it; `temperature` is left out for
 * reasoning models (o-series, gpt-5).
 * @example
 * ```ts
 * const llm = openai({ model: 'gpt-4.1-mini', apiKey: process.env.OPENAI_API_KEY });
 * ```
 * @public
 */
export function openai(options: OpenAIPresetOptions): OpenAIChatModel {
  return fromPreset('openai', options, { sendTemperature: !isOpenAIReasoningModel(options?.model ?? '') });
}

/** Options of {@link azureOpenAI}. @public */
export interface AzureOpenAIOptions extends Omit<OpenAIPresetOptions, 'model' | 'baseURL'> {
  /** The resource's endpoint, such as `https://my-resource.openai.azure.com`. */
  readonly endpoint: string;
  /** The deployment's name: it selects the model. */
  readonly deployment: string;
  /** The underlying model, for events and to know a reasoning model. @defaultValue the deployment's name */
  readonly model?: string | undefined;
  /** The API version (query parameter `api-version`). @defaultValue '2024-10-21' */
  readonly apiVersion?: string | undefined;
}

/**
 * Azure OpenAI: the deployment URL `{endpoint}/openai/deployments/{deployment}/chat/completions`,
 * the `api-key` header and the `api-version` query parameter.
 * @example
 * ```ts
 * const llm = azureOpenAI({ endpoint: 'https://my-resource.openai.azure.com', deployment: 'gpt-4o', apiKey: process.env.AZURE_OPENAI_API_KEY });
 * ```
 * @public
 */
export function azureOpenAI(options: AzureOpenAIOptions): OpenAIChatModel {
  checkUrl('azureOpenAI', 'endpoint', options?.endpoint);
  if (typeof options.deployment !== 'string' || options.deployment.trim() === '') {
    throw new ConfigError(`Option \`deployment\` of azureOpenAI must be the deployment's name; got ${JSON.stringify(options.deployment)}.`, {
      field: 'deployment',
    });
  }
  checkKey('azureOpenAI', { ...options, baseURL: undefined }, true);
  const { endpoint, deployment, apiVersion, model, ...rest } = options;
  const modelName = model ?? deployment;
  return new OpenAIChatModel({
    structuredOutput: openAIPresets.azure.structuredOutput,
    supportsImages: openAIPresets.azure.supportsImages,
    maxTokensParameter: openAIPresets.azure.maxTokensParameter,
    sendTemperature: !isOpenAIReasoningModel(modelName),
    ...withoutUndefined(rest),
    model: modelName,
    baseURL: joinUrl(endpoint, `openai/deployments/${encodeURIComponent(deployment)}`),
    apiKeyHeader: 'api-key',
    queryParams: { 'api-version': apiVersion ?? '2024-10-21' },
    provider: 'azure',
  });
}

/** Ollama's OpenAI-compatible API, on `http://localhost:11434/v1` by default; no key. @public */
export function ollama(options: OpenAIPresetOptions): OpenAIChatModel {
  return fromPreset('ollama', options);
}

/** A vLLM server, on `http://localhost:8000/v1` by default. @public */
export function vllm(options: OpenAIPresetOptions): OpenAIChatModel {
  return fromPreset('vllm', options);
}

/** LM Studio's local server, on `http://localhost:1234/v1` by default. @public */
export function lmStudio(options: OpenAIPresetOptions): OpenAIChatModel {
  return fromPreset('lmstudio', options);
}

/**
 * DeepSeek: JSON mode with the schema in the prompt, no images by default. The reasoner's
 * `reasoning_content` is not part of the answer.
 * @public
 */
export function deepseek(options: OpenAIPresetOptions): OpenAIChatModel {
  return fromPreset('deepseek', options);
}

/** Groq: structured output through a forced tool call. @public */
export function groq(options: OpenAIPresetOptions): OpenAIChatModel {
  return fromPreset('groq', options);
}

/** OpenRouter: JSON-schema output, passed on to the routed model. @public */
export function openRouter(options: OpenAIPresetOptions): OpenAIChatModel {
  return fromPreset('openrouter', options);
}

/** Together AI: JSON mode with the schema in the prompt. @public */
export function together(options: OpenAIPresetOptions): OpenAIChatModel {
  return fromPreset('together', options);
}

/** Mistral: JSON-schema output. @public */
export function mistral(options: OpenAIPresetOptions): OpenAIChatModel {
  return fromPreset('mistral', options);
}
