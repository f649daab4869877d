// The model-client conformance kit: the contract checks plannav's own adapters pass, for anyone who
// writes an LLMClient, as runner-agnostic cases. It validates its options and assembles the checks;
// the checks themselves live beside it (direct calls, and the Executor loop).

import { z } from 'zod';
import { ConfigError } from '../errors';
import type { LLMClient } from '../llm/types';
import type { ConformanceCase } from './conformance';
import { anthropicWireFormat } from './model-conformance-anthropic';
import { directChecks } from './model-conformance-checks';
import { executorChecks, executorImageChecks } from './model-conformance-executor';
import { geminiWireFormat } from './model-conformance-gemini';
import { toConformanceCase } from './model-conformance-harness';
import { openAIWireFormat } from './model-conformance-openai';
import type { ModelWireFormat, WireFormatSpec } from './model-conformance-wire';

/** What the kit passes to `createClient`: where its server listens, and how to set the client up. @public */
export interface ModelClientSettings {
  /**
   * The server's URL with the API version path of the wire format, as the providers' own clients
   * take it: `http://127.0.0.1:<port>/v1` (OpenAI, Anthropic) or `http://127.0.0.1:<port>/v1beta`
   * (Gemini). The server answers a POST to any path below it.
   */
  readonly baseURL: string;
  /** The server's origin, `http://127.0.0.1:<port>`, for clients that add the path themselves (Azure's `endpoint`). */
  readonly origin: string;
  /** The API key the client must send; the server accepts it in any header or the query string. */
  readonly apiKey: string;
  /**
   * Milliseconds every call of this client may take before it fails with a retryable timeout
   * error, when the check sets it; otherwise the client's own default applies.
   */
  readonly timeout?: number | undefined;
  /**
   * Whether the client sends images (its `supportsImages`), when the check sets it; otherwise the
   * client's own default applies.
   */
  readonly supportsImages?: boolean | undefined;
}

/** Options of {@link modelClientConformance}. @public */
export interface ModelClientConformanceOptions {
  /**
   * The wire format the client speaks; the kit's server answers in it: `openai` (chat
   * completions, also Azure, Ollama, vLLM and other compatible servers), `anthropic` (Messages)
   * or `gemini` (generateContent).
   */
  readonly wireFormat: ModelWireFormat;
  /**
   * Builds the client under test against the kit's server. Called once or more per case; pass
   * `baseURL` (or `origin`), `apiKey`, and `timeout` and `supportsImages` when they are set.
   *
   * @example
   * ```ts
   * createClient: ({ baseURL, apiKey, timeout, supportsImages }) => new MyGatewayClient({ baseURL, apiKey, timeout, supportsImages })
   * ```
   */
  readonly createClient: (settings: ModelClientSettings) => LLMClient;
  /**
   * Milliseconds one case may take before it fails as hanging. Keep it below your test runner's
   * own timeout (5000 ms in vitest and jest), so the kit's message is the one you see.
   * @defaultValue 4000
   */
  readonly caseTimeout?: number | undefined;
}

const wireFormats: Readonly<Record<ModelWireFormat, WireFormatSpec>> = {
  openai: openAIWireFormat,
  anthropic: anthropicWireFormat,
  gemini: geminiWireFormat,
};

const optionsSchema = z
  .object({
    wireFormat: z.enum(['openai', 'anthropic', 'gemini'], { error: 'must be "openai", "anthropic" or "gemini"' }),
    createClient: z.custom<ModelClientConformanceOptions['createClient']>((value) => typeof value === 'function', {
      error: 'must be a function that returns your LLMClient',
    }),
    caseTimeout: z.number({ error: 'must be a number of milliseconds' }).int('must be an integer').positive('must be positive').optional(),
  })
  .strict();

function resolveOptions(options: ModelClientConformanceOptions): z.output<typeof optionsSchema> {
  const parsed = optionsSchema.safeParse(options);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0] as z.core.$ZodIssue;
  if (issue.code === 'unrecognized_keys') {
    const field = issue.keys[0] ?? '';
    throw new ConfigError(`Unknown option \`${field}\` of modelClientConformance. Check its spelling against ModelClientConformanceOptions.`, { field });
  }
  const field = issue.path.join('.');
  const value = typeof options === 'object' && options !== null ? (options as unknown as Record<string, unknown>)[field] : undefined;
  const shown = typeof value === 'string' ? JSON.stringify(value) : typeof value === 'function' ? 'a function' : String(value);
  const got = value === undefined ? 'it is missing' : `got ${shown}`;
  throw new ConfigError(`Option \`${field}\` of modelClientConformance ${issue.message}; ${got}.`, { field });
}

/**
 * The conformance checks of an `LLMClient`, one {@link ConformanceCase} per contract: structured
 * output (the schema sent, the object returned, reasoning left out, cut-off replies), usage, typed
 * errors (401, 403, 400/422, 429 with Retry-After, 5xx, a dropped connection, context length, no
 * retries of its own), timeouts, cancellation within 100 ms, images, and whole tasks in the
 * Executor loop.
 *
 * @remarks
 * Each case starts its own server on 127.0.0.1 (a free port), speaking `wireFormat`, builds the
 * client with `createClient` against it, and closes the server when it ends; nothing reaches the
 * network. The cases need Node's `http` module (Node 20+, or Bun and Deno's Node compatibility).
 * A failed case rejects with a {@link ConformanceError} naming the contract, what was expected,
 * what came back and how to fix it. Errors are judged as plannav reads them, so a client may
 * throw plannav's typed errors or any error with a numeric `status`. The result is an array:
 * filter it by `name` to run some checks only.
 *
 * @example
 * ```ts
 * import { it } from 'vitest';
 * import { modelClientConformance, registerConformance } from 'plannav/testing';
 * import { MyGatewayClient } from './my-gateway-client';
 *
 * registerConformance(
 *   modelClientConformance({
 *     wireFormat: 'openai',
 *     createClient: ({ baseURL, apiKey, timeout, supportsImages }) => new MyGatewayClient({ baseURL, apiKey, timeout, supportsImages }),
 *   }),
 *   it,
 * );
 * ```
 * @throws `ConfigError` when an option is invalid.
 * @public
 */
export function modelClientConformance(options: ModelClientConformanceOptions): ConformanceCase[] {
  const resolved = resolveOptions(options);
  const format = wireFormats[resolved.wireFormat];
  const caseTimeout = resolved.caseTimeout ?? 4000;
  return [...directChecks, ...executorImageChecks, ...executorChecks].map((check) => toConformanceCase(check, format, resolved.createClient, caseTimeout));
}
