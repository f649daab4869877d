// plannav/bullmq and a Redis that goes away (issue 20): a coordinator and two workers in a child
// process, whose stderr is kept; Redis is shut down mid-run and started again on the same port.
import { afterAll, describe, expect, it } from 'vitest';
import { ChildScripts, until } from '../helpers/child-scripts';
import { redisCommand, startRedis, type RedisServer } from '../helpers/redis-server';

const scripts = new ChildScripts();
const servers: RedisServer[] = [];

afterAll(async () => {
  await scripts.stopAll();
  for (const server of servers) await server.stop();
}, 20_000);

/** Starts a redis-server on `port` once the one before has let it go: at most 20 tries. */
async function startAgain(port: number, directory: string): Promise<RedisServer> {
  for (let tries = 0; ; tries++) {
    try {
      return await startRedis({ port, directory });
    } catch (error) {
      if (tries >= 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

describe('plannav/bullmq when Redis goes away and comes back with its data', () => {
  it('warnings REDIS_UNAVAILABLE then REDIS_RECONNECTED, no ioredis stack on stderr, and the run completes', async () => {
    const first = await startRedis();
    servers.push(first);
    const run = scripts.start('test/e2e/bullmq-outage-run.ts', { REDIS_URL: first.url, COLLECTION_NAME: 'outage', PAGES: '8' }, { captureStderr: true });
    await until(() => run.events.some((event) => event.type === 'page'), 30_000, 'a first page committed');
    // Saved and down: what survives is what a Redis with persistence keeps.
    await redisCommand(first.port, ['SHUTDOWN', 'SAVE']).catch(() => undefined);
    await until(() => run.events.some((event) => event.type === 'warning' && event.code === 'REDIS_UNAVAILABLE'), 10_000, 'REDIS_UNAVAILABLE');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    servers.push(await startAgain(first.port, first.directory));
    await until(() => run.events.some((event) => event.type === 'end'), 40_000, `the run to end, after ${JSON.stringify(run.events)} and ${run.stderr()}`);
    const codes = run.events.filter((event) => event.type === 'warning').map((event) => event.code);
    expect(codes).toEqual(['REDIS_UNAVAILABLE', 'REDIS_RECONNECTED']);
    const workerCodes = run.events.filter((event) => event.type === 'worker-warning').map((event) => `${String(event.worker)}:${String(event.code)}`);
    expect(workerCodes.sort()).toEqual(['0:REDIS_RECONNECTED', '0:REDIS_UNAVAILABLE', '1:REDIS_RECONNECTED', '1:REDIS_UNAVAILABLE']);
    const end = run.events.find((event) => event.type === 'end') as { summary: { reason: string; pagesDone: number; records: number; duplicates: number } };
    expect(end.summary).toMatchObject({ reason: 'done', pagesDone: 8, records: 16, duplicates: 0 });
    await Promise.race([run.exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    expect(run.stderr()).not.toMatch(/ioredis|ECONNREFUSED|Connection is closed|\n\s+at /);
  }, 90_000);
});
