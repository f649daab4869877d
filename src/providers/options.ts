// The options every fetch adapter shares (model, key, base URL, headers, timeout, vision, fetch)
// and their checks at construction, which throw a ConfigError naming the field.

import { ConfigError } from '../errors';
import type { FetchFunction } from './http';

/** Options shared by the fetch adapters (`plannav/openai`, `plannav/anthropic`, `plannav/gemini`). @public */
export interface HttpModelOptions {
  /** The model id, as the provider names it (`gpt-4.1-mini`, `claude-sonnet-4-5`, `gemini-2.5-flash`). */
  readonly model: string;
  /** The API key. Local servers (Ollama, vLLM, LM Studio) need none. */
  readonly apiKey?: string | undefined;
  /** The API's base URL, for proxies, gateways and local servers. @defaultValue the provider's public endpoint */
  readonly baseURL?: string | undefined;
  /** Extra headers sent with every request. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /**
   * Milliseconds one call may take before it fails with a retryable timeout error; a request's
   * own `timeout` takes precedence. @defaultValue 600000 (10 minutes, for slow reasoning models)
   */
  readonly timeout?: number | undefined;
  /** Whether the model accepts images. When false, image parts are left out of requests. @defaultValue true */
  readonly supportsImages?: boolean | undefined;
  /** The `fetch` to use, for tests, proxies or runtimes without a global one. @defaultValue `globalThis.fetch` */
  readonly fetch?: FetchFunction | undefined;
}

/** The default per-call timeout of the fetch adapters, in milliseconds. */
export const defaultTimeoutMs = 600_000;

/** Checks the shared options; `adapter` names the class in messages (`OpenAIChatModel`). */
export function checkHttpModelOptions(adapter: string, options: HttpModelOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigError(`${adapter} needs an options object with at least a model, like new ${adapter}({ model: '…' }).`);
  }
  if (typeof options.model !== 'string' || options.model.trim() === '') {
    throw new ConfigError(`Option \`model\` of ${adapter} must be a non-empty string; got ${JSON.stringify(options.model)}.`, { field: 'model' });
  }
  if (options.apiKey !== undefined && typeof options.apiKey !== 'string') {
    throw new ConfigError(`Option \`apiKey\` of ${adapter} must be a string.`, { field: 'apiKey' });
  }
  if (options.baseURL !== undefined) checkUrl(adapter, 'baseURL', options.baseURL);
  if (options.timeout !== undefined && !(typeof options.timeout === 'number' && options.timeout > 0)) {
    throw new ConfigError(`Option \`timeout\` of ${adapter} must be a positive number of milliseconds; got ${String(options.timeout)}.`, { field: 'timeout' });
  }
  if (options.fetch !== undefined && typeof options.fetch !== 'function') {
    throw new ConfigError(`Option \`fetch\` of ${adapter} must be a function.`, { field: 'fetch' });
  }
  if (options.fetch === undefined && typeof globalThis.fetch !== 'function') {
    throw new ConfigError(`${adapter} needs a global fetch, or a \`fetch\` option, in this runtime.`, { field: 'fetch' });
  }
}

/** Checks that `value` is an absolute http(s) URL. */
export function checkUrl(adapter: string, field: string, value: unknown): void {
  let valid = false;
  if (typeof value === 'string') {
    try {
      valid = /^https?:$/.test(new URL(value).protocol);
    } catch {
      valid = false;
    }
  }
  if (!valid) {
    throw new ConfigError(`Option \`${field}\` of ${adapter} must be an absolute http(s) URL; got ${JSON.stringify(value)}.`, { field });
  }
}

/** Joins a base URL and a path with exactly one slash between them. */
export function joinUrl(baseURL: string, path: string): string {
  return `${baseURL.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** The timeout of one call: the request's, else the adapter's option, else the default. */
export function callTimeout(requestTimeout: number | undefined, optionTimeout: number | undefined): number {
  return requestTimeout ?? optionTimeout ?? defaultTimeoutMs;
}
