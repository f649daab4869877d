// The public face of `plannav/provider`, for model-client authors: the LLMClient contract and its messages, usage
// and prices, retries, and the typed errors a client throws for an HTTP failure. An app needs none of it (it imports
// `plannav`, which also has `LLMClient` and the base `ChatModelError`). It must not import a `node:` module.

export type {
  ChatMessage,
  ContentPart,
  FinishReason,
  GenerateRequest,
  GenerateResult,
  ImagePart,
  LLMClient,
  LLMUsage,
  StructuredOutputRequest,
  TextPart,
} from './llm/types';
export type { JSONSchema } from './llm/json-schema';
export type { ModelPrice, PriceTable, TokenUsage } from './llm/usage';
export { withRetries } from './llm/retry';
export type { ModelRetryOptions, WithRetriesOptions } from './llm/retry';
export { chatModelErrorFromStatus } from './llm/model-errors';
export type { HttpFailure } from './llm/model-errors';
export {
  ChatModelAuthError,
  ChatModelBadRequestError,
  ChatModelContextLengthError,
  ChatModelForbiddenError,
  ChatModelOutputError,
  ChatModelRateLimitError,
} from './errors';
export type { ChatModelErrorOptions } from './errors';
