import { describe, expect, it } from 'vitest';
import { BrowserError, ChatModelOutputError, TimeoutError, URLNotAllowedError } from '../errors';
import { assertPageAnswered, judgeFailure, PageStatusError, resolvePageRetry, retryAfterMs, retryDelayMs } from './page-retry';

describe('page retries', () => {
  it('tells the failures that may pass from those that cannot', () => {
    expect(judgeFailure(new PageStatusError('https://a.test/', 503, undefined))).toEqual({ transient: true, retryAfterMs: undefined });
    expect(judgeFailure(new PageStatusError('https://a.test/', 429, 2000))).toEqual({ transient: true, retryAfterMs: 2000 });
    expect(judgeFailure(new PageStatusError('https://a.test/', 404, undefined)).transient).toBe(false);
    expect(judgeFailure(new TimeoutError(1000, 'Reading a page')).transient).toBe(true);
    expect(judgeFailure(new BrowserError('net::ERR_CONNECTION_RESET', { retryable: true })).transient).toBe(true);
    expect(judgeFailure(new BrowserError('no such element', { retryable: false })).transient).toBe(false);
    expect(judgeFailure(new URLNotAllowedError('https://b.test/', 'denied')).transient).toBe(false);
    expect(judgeFailure(new ChatModelOutputError('not JSON')).transient).toBe(false);
    expect(judgeFailure(new Error('anything else')).transient).toBe(false);
  });

  it('reads Retry-After as seconds or as a date, and nothing else', () => {
    const now = Date.parse('2026-12-06T12:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs(' 1.5 ', now)).toBe(1500);
    expect(retryAfterMs('Sun, 06 Dec 2026 12:00:10 GMT', now)).toBe(10_000);
    expect(retryAfterMs('Sun, 06 Dec 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });

  it('throws for an HTTP error answer only, with the status and the wait the server asked for', () => {
    expect(() => assertPageAnswered('https://a.test/', undefined)).not.toThrow();
    expect(() => assertPageAnswered('https://a.test/', { status: 304, headers: {} })).not.toThrow();
    let thrown: unknown;
    try {
      assertPageAnswered('https://a.test/list', { status: 429, headers: { 'retry-after': '2' } });
    } catch (error) {
      thrown = error;
    }
    expect(PageStatusError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({
      status: 429,
      retryAfterMs: 2000,
      retryable: true,
      message: 'https://a.test/list answered HTTP 429 (it asked to wait 2 s).',
    });
  });

  it('backs off exponentially from minDelayMs, at least what the server asked, at most maxDelayMs', () => {
    const retry = resolvePageRetry({ minDelayMs: 100, factor: 3, maxDelayMs: 1000 });
    expect(retry.attempts).toBe(3);
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, retry, undefined))).toEqual([100, 300, 900, 1000]);
    expect(retryDelayMs(1, retry, 700)).toBe(700);
    expect(retryDelayMs(1, retry, 60_000)).toBe(1000);
  });
});
