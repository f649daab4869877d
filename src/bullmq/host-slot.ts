// Per-host politeness across every worker of a BullMQ collection: a page holds one of its host's
// slots in Redis while it is read, and starts no sooner than the host's delay allows. No BullMQ here.

import type { Redis } from 'ioredis';
import { keysOf } from './protocol';

/**
 * Takes a slot of a host, by Redis's clock so that workers on machines whose clocks differ agree.
 * KEYS: the host's active set, its next-start key. ARGV: holder, most at once (-1: no limit),
 * milliseconds between two starts, lease in milliseconds. Leases that lapsed (a worker that died)
 * are cleared first. Returns 0 when the slot is taken, -1 when the host is busy, else the
 * milliseconds until its delay (or a server's `Retry-After`) has passed.
 */
const acquireScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local limit = tonumber(ARGV[2])
if limit >= 0 and redis.call('ZCARD', KEYS[1]) >= limit then return -1 end
local next = tonumber(redis.call('GET', KEYS[2]) or '0')
if next > now then return next - now end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[4]), ARGV[1])
local delay = tonumber(ARGV[3])
if delay > 0 then redis.call('SET', KEYS[2], tostring(now + delay), 'PX', delay) end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]) * 2)
return 0
`;

/** Extends a holder's lease (only if it still holds the slot). KEYS: active set. ARGV: holder, lease in milliseconds. */
const renewScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
return 0
`;

/** Makes a host wait (a server's `Retry-After`): no page of it starts before. KEYS: next-start key. ARGV: milliseconds. */
const holdScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local resume = now + tonumber(ARGV[1])
if tonumber(redis.call('GET', KEYS[1]) or '0') < resume then redis.call('SET', KEYS[1], tostring(resume), 'PX', tonumber(ARGV[1])) end
return 0
`;

/** The host of a URL as politeness counts it (host and port). */
export const hostOf = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/** A slot taken: renewed while the page runs, given back by `release()`. */
export interface HostSlot {
  release(): Promise<void>;
}

/** The per-host slots of one collection, over one Redis connection. */
export class HostSlots {
  private readonly keys: ReturnType<typeof keysOf>;

  constructor(
    private readonly redis: Redis,
    name: string,
    private readonly leaseMs: number,
  ) {
    this.keys = keysOf(name);
  }

  /**
   * Takes a slot of `url`'s host for `holder`; returns the slot, or how long to wait before trying
   * again (the host is busy, or its delay has not passed).
   */
  async acquire(
    url: string,
    holder: string,
    limits: { readonly maxConcurrent: number | undefined; readonly delayMs: number },
  ): Promise<HostSlot | { readonly busy: boolean; readonly waitMs: number }> {
    const host = hostOf(url);
    const active = this.keys.hostActive(host);
    const reply = (await this.redis.eval(
      acquireScript,
      2,
      active,
      this.keys.hostNext(host),
      holder,
      String(limits.maxConcurrent ?? -1),
      String(limits.delayMs),
      String(this.leaseMs),
    )) as number;
    if (reply === -1) return { busy: true, waitMs: 0 };
    if (reply > 0) return { busy: false, waitMs: reply };
    // Renewed at half the lease, so that only a worker that died loses it.
    const timer = setInterval(() => void this.redis.eval(renewScript, 1, active, holder, String(this.leaseMs)).catch(() => undefined), this.leaseMs / 2);
    timer.unref();
    let released: Promise<void> | undefined;
    return {
      release: () =>
        (released ??= (async () => {
          clearInterval(timer);
          await this.redis.zrem(active, holder);
        })()),
    };
  }

  /** No page of `url`'s host starts in the next `ms` milliseconds (the server asked for it). */
  async hold(url: string, ms: number): Promise<void> {
    if (ms <= 0) return;
    await this.redis.eval(holdScript, 1, this.keys.hostNext(hostOf(url)), String(Math.ceil(ms)));
  }
}
