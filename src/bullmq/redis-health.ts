// Whether Redis is reachable, as warnings: one when the connection drops, one when it is back.
// It listens to ioredis's events so that an outage never prints ioredis's stacks on stderr.

import type { Redis } from 'ioredis';
import { describeThrown } from '../util/describe-thrown';

/** Error codes and messages of a connection that failed or dropped, as ioredis and BullMQ report them. */
const connectionCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const connectionMessage = /Connection is closed|Stream isn't writeable|connect (ECONNREFUSED|ETIMEDOUT)|ECONNRESET|read ECONNRESET|write EPIPE/i;

/** Whether an error says Redis could not be reached (rather than that a command failed). */
export function isConnectionError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && connectionCodes.has(code)) return true;
  return connectionMessage.test(describeThrown(error));
}

/** What {@link watchRedis} returns. */
export interface RedisHealth {
  /** Reports that Redis is unreachable (another connection found out): a warning unless one was given already. */
  down(error: unknown): void;
  /** Whether Redis is unreachable as far as is known. */
  readonly isDown: boolean;
  /** Stops reporting: the connection is being closed on purpose. */
  stop(): void;
}

/**
 * Watches one ioredis connection: `warn('REDIS_UNAVAILABLE', …)` when it drops or cannot connect,
 * `warn('REDIS_RECONNECTED', …)` and `onBack()` when it is ready again. ioredis reconnects by itself
 * and BullMQ's commands wait meanwhile (`maxRetriesPerRequest: null`), so the run goes on afterwards.
 */
export function watchRedis(redis: Redis, warn: (code: string, message: string) => void, onBack?: () => void): RedisHealth {
  let isDown = false;
  let stopped = false;
  let lastError: unknown;
  const where = `${redis.options.host ?? 'localhost'}:${redis.options.port ?? 6379}`;
  const down = (error: unknown): void => {
    if (stopped || isDown) return;
    isDown = true;
    const why = error === undefined ? 'the connection closed' : describeThrown(error);
    warn('REDIS_UNAVAILABLE', `Redis at ${where} is unreachable (${why}); waiting for it, the collection goes on when it is back.`);
  };
  redis.on('error', (error: unknown) => {
    lastError = error;
    if (isConnectionError(error)) down(error);
  });
  redis.on('close', () => down(lastError));
  redis.on('ready', () => {
    lastError = undefined;
    if (stopped || !isDown) return;
    isDown = false;
    warn('REDIS_RECONNECTED', `Redis at ${where} is reachable again; the collection goes on.`);
    onBack?.();
  });
  return {
    down,
    get isDown() {
      return isDown;
    },
    stop: () => void (stopped = true),
  };
}
