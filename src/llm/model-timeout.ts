// The error of a model call that ran past its deadline: retryable, like a provider's own timeout.

import { ChatModelError } from '../errors';
import type { LLMClient } from './types';

/** The error for a call to `client` that did not answer within `timeoutMs`. */
export function modelTimeout(client: Pick<LLMClient, 'provider' | 'model'>, timeoutMs: number | undefined): ChatModelError {
  return new ChatModelError(
    `The ${client.provider} model ${client.model} did not answer within ${timeoutMs} ms (modelTimeoutMs); the call was aborted and may be retried.`,
    { code: 'CHAT_MODEL_TIMEOUT', retryable: true },
  );
}
