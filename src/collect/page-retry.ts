// Whether a page that failed is tried again, and when: transient failures (5xx, 429, timeouts,
// network errors, a crashed page) are retried with backoff; anything else fails the page at once.

import type { NavigationResponse } from '../browser/types';
import { BrowserError, isFatalError, TimeoutError, URLNotAllowedError, type PlannavErrorOptions } from '../errors';

/**
 * How a collection retries a page that failed for a reason that may pass: a server error (5xx),
 * 429 or 408, a timeout, a network error, a crashed page, an error page. Only a page that fails all
 * its attempts counts as failed (and towards `maxFailures`).
 * @public
 */
export interface PageRetryOptions {
  /** The most attempts of one page, the first included; 1 means no retry. @defaultValue 3 */
  readonly attempts?: number | undefined;
  /** Milliseconds before the first retry; each later one waits `factor` times longer. @defaultValue 1000 */
  readonly minDelayMs?: number | undefined;
  /** The longest wait between two attempts, a server's `Retry-After` included. @defaultValue 30000 */
  readonly maxDelayMs?: number | undefined;
  /** How much longer each wait is than the one before. @defaultValue 2 */
  readonly factor?: number | undefined;
}

/** {@link PageRetryOptions} with the defaults filled in. */
export interface ResolvedPageRetry {
  readonly attempts: number;
  readonly minDelayMs: number;
  readonly maxDelayMs: number;
  readonly factor: number;
}

/** The defaults of {@link PageRetryOptions}. */
export const defaultPageRetry: ResolvedPageRetry = { attempts: 3, minDelayMs: 1000, maxDelayMs: 30_000, factor: 2 };

/** Fills in the defaults. */
export function resolvePageRetry(options: PageRetryOptions | undefined): ResolvedPageRetry {
  return {
    attempts: options?.attempts ?? defaultPageRetry.attempts,
    minDelayMs: options?.minDelayMs ?? defaultPageRetry.minDelayMs,
    maxDelayMs: options?.maxDelayMs ?? defaultPageRetry.maxDelayMs,
    factor: options?.factor ?? defaultPageRetry.factor,
  };
}

/** HTTP statuses that say "try again later": a timeout, too many requests, a server error. */
function isTransientStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

/** A page's server answered with an error status: the page has no records to read. */
export class PageStatusError extends BrowserError {
  static override readonly errorName: string = 'PageStatusError';
  /** The HTTP status. */
  readonly status: number;
  /** How long the server asked to wait (`Retry-After`), in milliseconds. */
  readonly retryAfterMs: number | undefined;

  constructor(url: string, status: number, retryAfterMs: number | undefined, options: PlannavErrorOptions = {}) {
    const wait = retryAfterMs === undefined ? '' : ` (it asked to wait ${Math.round(retryAfterMs / 1000)} s)`;
    super(`${url} answered HTTP ${status}${wait}.`, { ...options, retryable: isTransientStatus(status) });
    this.status = status;
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * Reads a `Retry-After` header: seconds, or an HTTP date. Undefined when absent or unreadable.
 * @param now - milliseconds since the epoch, for a date
 */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Throws a {@link PageStatusError} when the goto's answer is an HTTP error (400 and up). */
export function assertPageAnswered(url: string, response: NavigationResponse | undefined): void {
  if (!response || response.status < 400) return;
  throw new PageStatusError(url, response.status, retryAfterMs(response.headers['retry-after'], Date.now()));
}

/** What a failure of one attempt means for the page. */
export interface FailureVerdict {
  /** Another attempt may succeed. */
  readonly transient: boolean;
  /** The least wait before the next attempt that the server asked for. */
  readonly retryAfterMs: number | undefined;
}

/**
 * Whether a page's failure may pass. A timeout of the page, a network error or a crashed page,
 * an error page and a transient HTTP status may; a denied URL, a 404 and the model's own errors do not.
 */
export function judgeFailure(error: unknown): FailureVerdict {
  if (PageStatusError.isInstance(error)) {
    return { transient: isTransientStatus(error.status), retryAfterMs: error.retryAfterMs };
  }
  if (TimeoutError.isInstance(error)) return { transient: true, retryAfterMs: undefined };
  if (URLNotAllowedError.isInstance(error) || isFatalError(error)) return { transient: false, retryAfterMs: undefined };
  // A BrowserError the driver marks retryable: a network error, a load that did not answer, a crashed tab.
  if (BrowserError.isInstance(error)) return { transient: error.retryable, retryAfterMs: undefined };
  return { transient: false, retryAfterMs: undefined };
}

/**
 * Milliseconds to wait before attempt `attempt + 1` after `attempt` attempts failed: exponential
 * backoff from `minDelayMs`, at least what the server asked for, at most `maxDelayMs`.
 */
export function retryDelayMs(attempt: number, retry: ResolvedPageRetry, serverAskedMs: number | undefined): number {
  const backoff = retry.minDelayMs * retry.factor ** Math.max(0, attempt - 1);
  return Math.min(retry.maxDelayMs, Math.max(backoff, serverAskedMs ?? 0));
}
