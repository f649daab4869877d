// The contract between plannav and a language model: what a model adapter implements.
// Types only; nothing here may call a model.

import type { JSONSchema } from './json-schema';

/** A text part of a message. @public */
export interface TextPart {
  /** Marks a text part. */
  readonly type: 'text';
  /** The text. */
  readonly text: string;
}

/** An image part of a message, as base64 data. @public */
export interface ImagePart {
  /** Marks an image part. */
  readonly type: 'image';
  /** Base64-encoded image bytes, without a `data:` prefix. */
  readonly data: string;
  /** The image's media type. */
  readonly mediaType: 'image/jpeg' | 'image/png' | 'image/webp';
}

/** A part of a user message. @public */
export type ContentPart = TextPart | ImagePart;

/**
 * One message of a conversation sent to a model. Only user messages carry images.
 * @public
 */
export type ChatMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string | readonly ContentPart[] }
  | { readonly role: 'assistant'; readonly content: string };

/** Ask the model for one JSON object of a given shape. @public */
export interface StructuredOutputRequest {
  /** A short identifier for the object, usable as a tool or schema name (`[a-zA-Z0-9_-]`). */
  readonly name: string;
  /** What the object is, for providers that show it to the model. */
  readonly description?: string | undefined;
  /** The JSON Schema (draft 2020-12 subset) the object must follow. */
  readonly schema: JSONSchema;
}

/** One call to a language model. @public */
export interface GenerateRequest {
  /** The conversation, oldest first. */
  readonly messages: readonly ChatMessage[];
  /** When set, the model is asked for one JSON object of this shape. */
  readonly output?: StructuredOutputRequest | undefined;
  /** Sampling temperature, if the caller has a preference. */
  readonly temperature?: number | undefined;
  /** Upper bound on the tokens of the reply. */
  readonly maxOutputTokens?: number | undefined;
  /** Aborts the call. An adapter must reject promptly with a `RequestCancelledError`. */
  readonly signal?: AbortSignal | undefined;
  /** Milliseconds after which the adapter should give up with a retryable timeout error. */
  readonly timeout?: number | undefined;
}

/** Token counts reported by one model call. Missing counts are taken as 0. @public */
export interface LLMUsage {
  /** Tokens of the prompt the model read. */
  readonly inputTokens?: number | undefined;
  /** Tokens the model wrote in its reply. */
  readonly outputTokens?: number | undefined;
  /** Input tokens served from the provider's prompt cache. */
  readonly cachedInputTokens?: number | undefined;
  /** Output tokens spent on hidden reasoning. */
  readonly reasoningTokens?: number | undefined;
}

/** Why the model stopped. @public */
export type FinishReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'error' | 'other';

/** What a model call returned. @public */
export interface GenerateResult {
  /** The reply's text, if any. For structured output it may hold the JSON. */
  readonly text?: string | undefined;
  /** The structured object when the provider returned one already parsed (a tool call, a JSON schema response). */
  readonly object?: unknown;
  /** Token counts of the call. */
  readonly usage?: LLMUsage | undefined;
  /** Why the model stopped; `length` means the reply was cut off by the token limit. */
  readonly finishReason?: FinishReason | undefined;
  /** The provider's response, for debugging. */
  readonly raw?: unknown;
  /** The provider's request id, for support. */
  readonly requestId?: string | undefined;
}

/**
 * A language model, as plannav calls it. Implement this to plug in any model or gateway.
 *
 * @remarks
 * Throw the typed errors (`ChatModelAuthError`, `ChatModelRateLimitError`, …) for HTTP failures,
 * or any error with a numeric `status`: plannav maps it. Do not retry inside `generate`: the
 * Executor retries what is retryable, with backoff.
 *
 * @example
 * ```ts
 * const llm: LLMClient = {
 *   specificationVersion: 'v1', provider: 'my-gateway', model: 'm-1',
 *   async generate({ messages, output, signal }) {
 *     const reply = await callMyGateway(messages, output?.schema, signal);
 *     return { text: reply.text, usage: { inputTokens: reply.in, outputTokens: reply.out } };
 *   },
 * };
 * ```
 * @public
 */
export interface LLMClient {
  /** The version of this interface the client implements. */
  readonly specificationVersion: 'v1';
  /** The provider's name, for events and history (`openai`, `anthropic`, …). */
  readonly provider: string;
  /** The model's id. */
  readonly model: string;
  /** Whether the model accepts images. When false, images are removed and a warning event is sent. @defaultValue true */
  readonly supportsImages?: boolean | undefined;
  /** Makes one call. */
  generate(request: GenerateRequest): Promise<GenerateResult>;
}
