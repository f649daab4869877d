// The per-host slots of a BullMQ collection against a real redis-server: the limit, the delay, a
// server's Retry-After hold, and the lease that frees the slot of a worker that died.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../test/helpers/redis-server';
import { HostSlots, type HostSlot } from './host-slot';

let server: RedisServer;
let redis: Redis;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
}, 20_000);

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

const isSlot = (taken: unknown): taken is HostSlot => typeof taken === 'object' && taken !== null && 'release' in taken;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('HostSlots', () => {
  it('maxConcurrent: a host is busy while its slots are held, other hosts are not, a release frees one', async () => {
    const slots = new HostSlots(redis, 'slots-limit', 10_000);
    const limits = { maxConcurrent: 1, delayMs: 0 };
    const first = await slots.acquire('https://a.test/1', 'job-1', limits);
    expect(isSlot(first)).toBe(true);
    expect(await slots.acquire('https://a.test/2', 'job-2', limits)).toEqual({ busy: true, waitMs: 0 });
    expect(isSlot(await slots.acquire('https://b.test/1', 'job-3', limits))).toBe(true);
    await (first as HostSlot).release();
    expect(isSlot(await slots.acquire('https://a.test/2', 'job-2', limits))).toBe(true);
  });

  it('delayMs: the next start on a host waits out the delay since the last start', async () => {
    const slots = new HostSlots(redis, 'slots-delay', 10_000);
    const limits = { maxConcurrent: undefined, delayMs: 300 };
    expect(isSlot(await slots.acquire('https://a.test/1', 'job-1', limits))).toBe(true);
    const waiting = await slots.acquire('https://a.test/2', 'job-2', limits);
    expect(waiting).toMatchObject({ busy: false });
    expect((waiting as { waitMs: number }).waitMs).toBeGreaterThan(200);
    expect((waiting as { waitMs: number }).waitMs).toBeLessThanOrEqual(300);
    await sleep(320);
    expect(isSlot(await slots.acquire('https://a.test/2', 'job-2', limits))).toBe(true);
  });

  it('hold (a server’s Retry-After): no page of the host starts before it, even without perHost', async () => {
    const slots = new HostSlots(redis, 'slots-hold', 10_000);
    const limits = { maxConcurrent: undefined, delayMs: 0 };
    await slots.hold('https://a.test/1', 2000);
    const waiting = await slots.acquire('https://a.test/2', 'job-2', limits);
    expect((waiting as { waitMs: number }).waitMs).toBeGreaterThan(1800);
    expect(isSlot(await slots.acquire('https://b.test/1', 'job-3', limits))).toBe(true);
  });

  it('a lease that lapses (its worker died and stopped renewing) frees the slot; a live one is renewed', async () => {
    const dead = new HostSlots(redis, 'slots-lease', 200);
    const limits = { maxConcurrent: 1, delayMs: 0 };
    const held = await dead.acquire('https://a.test/1', 'job-1', limits);
    expect(isSlot(held)).toBe(true);
    // Renewed every 100 ms while held: still busy well past one lease.
    await sleep(450);
    expect(await dead.acquire('https://a.test/2', 'job-2', limits)).toEqual({ busy: true, waitMs: 0 });
    // A worker that dies stops renewing: simulated by a holder written with a lease in the past.
    await (held as HostSlot).release();
    await redis.zadd('plannav:{collect-slots-lease}:host:a.test:active', Date.now() - 1, 'job-dead');
    expect(isSlot(await dead.acquire('https://a.test/2', 'job-2', limits))).toBe(true);
  });
});
