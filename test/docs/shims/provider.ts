// TEMPORARY stand-in for the `plannav/provider` entry (plan10.md's split), until src/provider.ts lands:
// the docs test maps `plannav/provider` here only when tsconfig.json has no path for it. Delete at merge.
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
} from '../../../src/llm/types';
export type { JSONSchema } from '../../../src/llm/json-schema';
export type { ModelPrice, PriceTable, TokenUsage } from '../../../src/llm/usage';
export type { ModelRetryOptions } from '../../../src/llm/generate-object';
export { chatModelErrorFromStatus } from '../../../src/llm/model-errors';
export type { HttpFailure } from '../../../src/llm/model-errors';
export { withRetries } from '../../../src/llm/retry';
export type { WithRetriesOptions } from '../../../src/llm/retry';
export {
  ChatModelAuthError,
  ChatModelBadRequestError,
  ChatModelContextLengthError,
  ChatModelForbiddenError,
  ChatModelOutputError,
  ChatModelRateLimitError,
} from '../../../src/errors';
