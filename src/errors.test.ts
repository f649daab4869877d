import { describe, expect, it } from 'vitest';
import {
  ActionError,
  BrowserError,
  ChatModelAuthError,
  ChatModelBadRequestError,
  ChatModelError,
  ChatModelForbiddenError,
  ChatModelOutputError,
  ChatModelRateLimitError,
  ConfigError,
  MaxFailuresReachedError,
  MaxStepsReachedError,
  PlannavError,
  RequestCancelledError,
  URLNotAllowedError,
} from './errors';

describe('PlannavError', () => {
  it('carries its code, message, default non-retryable flag and name', () => {
    const error = new PlannavError('CONFIG_ERROR', 'Something is wrong');
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe('CONFIG_ERROR');
    expect(error.message).toBe('Something is wrong');
    expect(error.retryable).toBe(false);
    expect(error.name).toBe('PlannavError');
    expect(error.cause).toBeUndefined();
  });

  it('keeps the cause and honours an explicit retryable flag', () => {
    const cause = new Error('root cause');
    const error = new PlannavError('CHAT_MODEL_ERROR', 'Failed', { cause, retryable: true });
    expect(error.cause).toBe(cause);
    expect(error.retryable).toBe(true);
  });
});

describe('ChatModelError subclasses', () => {
  it('sets code, retryable, name and HTTP details for each class', () => {
    const cases = [
      { error: new ChatModelError('plain', { statusCode: 418 }), code: 'CHAT_MODEL_ERROR', retryable: false, name: 'ChatModelError' },
      { error: new ChatModelAuthError('auth', { statusCode: 401 }), code: 'CHAT_MODEL_AUTH', retryable: false, name: 'ChatModelAuthError' },
      { error: new ChatModelBadRequestError('bad', { statusCode: 400 }), code: 'CHAT_MODEL_BAD_REQUEST', retryable: false, name: 'ChatModelBadRequestError' },
      { error: new ChatModelForbiddenError('forbidden', { statusCode: 403 }), code: 'CHAT_MODEL_FORBIDDEN', retryable: false, name: 'ChatModelForbiddenError' },
      { error: new ChatModelRateLimitError('slow down', { statusCode: 429 }), code: 'CHAT_MODEL_RATE_LIMIT', retryable: true, name: 'ChatModelRateLimitError' },
      { error: new ChatModelOutputError('unusable', { statusCode: 200 }), code: 'CHAT_MODEL_OUTPUT', retryable: false, name: 'ChatModelOutputError' },
    ] as const;
    for (const { error, code, retryable, name } of cases) {
      expect(error.code, name).toBe(code);
      expect(error.retryable, name).toBe(retryable);
      expect(error.name, name).toBe(name);
      expect(error.statusCode, name).toBeGreaterThan(0);
    }
  });

  it('does not let options override the retryability of fatal classes', () => {
    const error = new ChatModelAuthError('auth', { retryable: true });
    expect(error.retryable).toBe(false);
  });

  it('keeps request id, response body, retry-after and output text', () => {
    const rateLimit = new ChatModelRateLimitError('slow down', { requestId: 'req-1', responseBody: '{"error":1}', retryAfterMs: 1500 });
    expect(rateLimit.requestId).toBe('req-1');
    expect(rateLimit.responseBody).toBe('{"error":1}');
    expect(rateLimit.retryAfterMs).toBe(1500);
    const output = new ChatModelOutputError('bad output', { text: 'not json' });
    expect(output.text).toBe('not json');
  });

  it('accepts a custom code and retryable flag on the base chat model class', () => {
    const error = new ChatModelError('timed out', { code: 'CHAT_MODEL_TIMEOUT', retryable: true });
    expect(error.code).toBe('CHAT_MODEL_TIMEOUT');
    expect(error.retryable).toBe(true);
  });
});

describe('other error classes', () => {
  it('gives RequestCancelledError a default message and makes it non-retryable', () => {
    const error = new RequestCancelledError(undefined, { retryable: true });
    expect(error.message).toBe('The request was cancelled.');
    expect(error.code).toBe('REQUEST_CANCELLED');
    expect(error.retryable).toBe(false);
    expect(error.name).toBe('RequestCancelledError');
  });

  it('makes URLNotAllowedError a BrowserError with its own code and the url', () => {
    const error = new URLNotAllowedError('https://evil.test/');
    expect(error.code).toBe('URL_NOT_ALLOWED');
    expect(error.url).toBe('https://evil.test/');
    expect(error.message).toContain('https://evil.test/');
    expect(BrowserError.isInstance(error)).toBe(true);
    expect(new BrowserError('page failed').code).toBe('BROWSER_ERROR');
  });

  it('reports the cap of MaxStepsReachedError and the last failure of MaxFailuresReachedError', () => {
    const steps = new MaxStepsReachedError(25);
    expect(steps.maxSteps).toBe(25);
    expect(steps.code).toBe('MAX_STEPS_REACHED');
    expect(steps.message).toContain('25');
    const last = new Error('element not found');
    const failures = new MaxFailuresReachedError(3, last);
    expect(failures.failures).toBe(3);
    expect(failures.cause).toBe(last);
    expect(failures.message).toContain('3 failed steps');
    expect(failures.message).toContain('element not found');
  });

  it('keeps the action of ActionError and the field of ConfigError', () => {
    const action = new ActionError('click_element', 'No element 7');
    expect(action.action).toBe('click_element');
    expect(action.code).toBe('ACTION_ERROR');
    const config = new ConfigError('maxSteps must be positive', { field: 'maxSteps' });
    expect(config.field).toBe('maxSteps');
    expect(config.code).toBe('CONFIG_ERROR');
    expect(config.name).toBe('ConfigError');
  });
});

describe('isInstance', () => {
  const rateLimitError = new ChatModelRateLimitError('slow down');

  it('recognises an instance of the class itself, of its parents and of the base', () => {
    expect(ChatModelRateLimitError.isInstance(rateLimitError)).toBe(true);
    expect(ChatModelError.isInstance(rateLimitError)).toBe(true);
    expect(PlannavError.isInstance(rateLimitError)).toBe(true);
  });

  it('rejects sibling classes, subclasses and unrelated values', () => {
    expect(ChatModelAuthError.isInstance(rateLimitError)).toBe(false);
    expect(BrowserError.isInstance(rateLimitError)).toBe(false);
    expect(ChatModelRateLimitError.isInstance(new ChatModelError('base'))).toBe(false);
    expect(PlannavError.isInstance(new Error('plain'))).toBe(false);
    expect(PlannavError.isInstance(null)).toBe(false);
    expect(PlannavError.isInstance('PlannavError')).toBe(false);
    expect(PlannavError.isInstance(undefined)).toBe(false);
  });

  it('recognises an object from another copy of the package by its marker, without instanceof', () => {
    const foreign = { [Symbol.for('plannav.error.ChatModelError')]: true, message: 'from another copy' };
    expect(foreign instanceof ChatModelError).toBe(false);
    expect(ChatModelError.isInstance(foreign)).toBe(true);
    expect(ChatModelAuthError.isInstance(foreign)).toBe(false);
  });

  it('does not accept a marker that is merely truthy', () => {
    const foreign = { [Symbol.for('plannav.error.ChatModelError')]: 'yes' };
    expect(ChatModelError.isInstance(foreign)).toBe(false);
  });

  it('marks instances of a user subclass with every class of its chain', () => {
    class CustomModelError extends ChatModelError {
      static override readonly errorName: string = 'CustomModelError';
    }
    const error = new CustomModelError('custom');
    expect(error.name).toBe('CustomModelError');
    expect(CustomModelError.isInstance(error)).toBe(true);
    expect(ChatModelError.isInstance(error)).toBe(true);
    expect(PlannavError.isInstance(error)).toBe(true);
    expect(CustomModelError.isInstance(new ChatModelError('base'))).toBe(false);
  });
});
