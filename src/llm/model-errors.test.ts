import { describe, expect, it } from 'vitest';
import {
  ChatModelAuthError,
  ChatModelBadRequestError,
  ChatModelError,
  ChatModelForbiddenError,
  ChatModelOutputError,
  ChatModelRateLimitError,
  RequestCancelledError,
} from '../errors';
import { chatModelErrorFromStatus, toChatModelError } from './model-errors';

describe('chatModelErrorFromStatus', () => {
  const cases = [
    { status: 401, errorClass: ChatModelAuthError, code: 'CHAT_MODEL_AUTH', retryable: false },
    { status: 403, errorClass: ChatModelForbiddenError, code: 'CHAT_MODEL_FORBIDDEN', retryable: false },
    { status: 400, errorClass: ChatModelBadRequestError, code: 'CHAT_MODEL_BAD_REQUEST', retryable: false },
    { status: 422, errorClass: ChatModelBadRequestError, code: 'CHAT_MODEL_BAD_REQUEST', retryable: false },
    { status: 429, errorClass: ChatModelRateLimitError, code: 'CHAT_MODEL_RATE_LIMIT', retryable: true },
    { status: 408, errorClass: ChatModelError, code: 'CHAT_MODEL_ERROR', retryable: true },
    { status: 409, errorClass: ChatModelError, code: 'CHAT_MODEL_ERROR', retryable: true },
    { status: 500, errorClass: ChatModelError, code: 'CHAT_MODEL_SERVER', retryable: true },
    { status: 503, errorClass: ChatModelError, code: 'CHAT_MODEL_SERVER', retryable: true },
    { status: 404, errorClass: ChatModelError, code: 'CHAT_MODEL_ERROR', retryable: false },
  ] as const;

  for (const { status, errorClass, code, retryable } of cases) {
    it(`maps HTTP ${status} to ${errorClass.errorName} with code ${code}`, () => {
      const error = chatModelErrorFromStatus({ status, message: 'provider says no', requestId: 'req-42', responseBody: '{"e":1}' });
      expect(errorClass.isInstance(error)).toBe(true);
      expect(error.name).toBe(errorClass.errorName);
      expect(error.code).toBe(code);
      expect(error.retryable).toBe(retryable);
      expect(error.statusCode).toBe(status);
      expect(error.requestId).toBe('req-42');
      expect(error.responseBody).toBe('{"e":1}');
      expect(error.message).toContain(`HTTP ${status}`);
      expect(error.message).toContain('provider says no');
      expect(error.message).toContain('request id req-42');
    });
  }

  it('keeps the retry-after delay of a rate limit', () => {
    const error = chatModelErrorFromStatus({ status: 429, retryAfterMs: 2500 });
    expect(ChatModelRateLimitError.isInstance(error)).toBe(true);
    expect((error as ChatModelRateLimitError).retryAfterMs).toBe(2500);
  });

  it('leaves the request id and detail out of the message when there are none', () => {
    const error = chatModelErrorFromStatus({ status: 500 });
    expect(error.message).toBe('The model call failed (HTTP 500).');
  });

  it('does not mark the 4xx auth, forbidden and bad-request classes as rate limits', () => {
    expect(ChatModelRateLimitError.isInstance(chatModelErrorFromStatus({ status: 401 }))).toBe(false);
    expect(ChatModelAuthError.isInstance(chatModelErrorFromStatus({ status: 403 }))).toBe(false);
  });
});

describe('toChatModelError', () => {
  it('passes typed plannav errors through unchanged', () => {
    const typed = new ChatModelOutputError('bad output');
    expect(toChatModelError(typed)).toBe(typed);
    const cancelled = new RequestCancelledError();
    expect(toChatModelError(cancelled)).toBe(cancelled);
  });

  it('turns an AbortError into a RequestCancelledError keeping the cause', () => {
    const abort = new Error('aborted');
    abort.name = 'AbortError';
    const error = toChatModelError(abort);
    expect(RequestCancelledError.isInstance(error)).toBe(true);
    expect(error.cause).toBe(abort);
    expect(error.retryable).toBe(false);
  });

  it('turns a DOMException AbortError into a RequestCancelledError', () => {
    const error = toChatModelError(new DOMException('The operation was aborted.', 'AbortError'));
    expect(RequestCancelledError.isInstance(error)).toBe(true);
  });

  it('turns a TimeoutError into a retryable timeout error', () => {
    const timeout = new Error('took too long');
    timeout.name = 'TimeoutError';
    const error = toChatModelError(timeout);
    expect(ChatModelError.isInstance(error)).toBe(true);
    expect(error.code).toBe('CHAT_MODEL_TIMEOUT');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('took too long');
    expect(error.cause).toBe(timeout);
  });

  it('maps an object with a numeric status 429 to a rate limit error with the object as cause', () => {
    const providerError = { status: 429, message: 'Too many requests' };
    const error = toChatModelError(providerError);
    expect(ChatModelRateLimitError.isInstance(error)).toBe(true);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('Too many requests');
    expect(error.cause).toBe(providerError);
  });

  it('maps an Error with a numeric statusCode like an HTTP failure', () => {
    const providerError = Object.assign(new Error('invalid key'), { statusCode: 401 });
    const error = toChatModelError(providerError);
    expect(ChatModelAuthError.isInstance(error)).toBe(true);
    expect(error.cause).toBe(providerError);
  });

  it('turns a fetch failure into a retryable network error', () => {
    const failure = new TypeError('fetch failed');
    const error = toChatModelError(failure);
    expect(error.code).toBe('CHAT_MODEL_NETWORK');
    expect(error.retryable).toBe(true);
    expect(error.cause).toBe(failure);
  });

  it('turns an error with a connection-reset code into a retryable network error', () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const error = toChatModelError(reset);
    expect(error.code).toBe('CHAT_MODEL_NETWORK');
    expect(error.retryable).toBe(true);
  });

  it('reads a network code from the cause of the error', () => {
    const wrapped = new TypeError('request failed', { cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }) });
    const error = toChatModelError(wrapped);
    expect(error.code).toBe('CHAT_MODEL_NETWORK');
    expect(error.retryable).toBe(true);
  });

  it('describes a thrown plain object by its JSON, not [object Object]', () => {
    const error = toChatModelError({ type: 'overloaded', detail: 'try later' });
    expect(error.message).toBe('The model call failed: {"type":"overloaded","detail":"try later"}');
  });

  it('turns any other error into a non-retryable chat model error', () => {
    const plain = new Error('something odd');
    const error = toChatModelError(plain);
    expect(ChatModelError.isInstance(error)).toBe(true);
    expect(error.code).toBe('CHAT_MODEL_ERROR');
    expect(error.retryable).toBe(false);
    expect(error.message).toBe('The model call failed: something odd');
    expect(error.cause).toBe(plain);
  });

  it('turns a thrown string into a non-retryable chat model error', () => {
    const error = toChatModelError('boom');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('boom');
  });

  it('does not treat an ordinary TypeError as a network error', () => {
    const error = toChatModelError(new TypeError('x is not a function'));
    expect(error.code).toBe('CHAT_MODEL_ERROR');
    expect(error.retryable).toBe(false);
  });
});
