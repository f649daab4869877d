// plannav/bullmq end to end (issue 14): the coordinator is a child process, SIGKILLed in the middle of
// a run; a new coordinator of the same collection resumes from what Redis holds. One worker process,
// a real redis-server; every record committed exactly once, and the same summary as an uninterrupted run.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCollectSite, type CollectSite } from '../../examples/collect-site/server';
import { keysOf } from '../../src/bullmq/protocol';
import type { CollectionSummary } from '../../src/collect/events';
import type { CollectedRecord } from '../../src/collect/store';
import type { Job } from '../../examples/collect-site/scripted-model';
import { ChildScripts, until, type ChildScript } from '../helpers/child-scripts';
import { startRedis, type RedisServer } from '../helpers/redis-server';

let redis: RedisServer;
let site: CollectSite;
const scripts = new ChildScripts();
const startScript = (script: string, env: Record<string, string>): ChildScript => scripts.start(`test/e2e/${script}`, env);

beforeAll(async () => {
  // Two slow pages keep a page in flight and others queued when the coordinator dies.
  [redis, site] = await Promise.all([startRedis(), startCollectSite({ slowPages: [4, 8], slowDelayMs: 1500 })]);
}, 30_000);

afterAll(async () => {
  await scripts.stopAll();
  await Promise.all([site?.close(), redis?.stop()]);
}, 20_000);

describe('plannav/bullmq: a coordinator that dies is resumed from Redis', () => {
  it('SIGKILLed twice mid-run, a new coordinator each time: no page read twice, every record once, the counters of an uninterrupted run', async () => {
    const name = 'jobs-resume';
    const env = { REDIS_URL: redis.url, COLLECTION_NAME: name, START_URL: site.pageUrl(1) };
    const worker = startScript('bullmq-worker.ts', env);
    await until(() => worker.events.some((event) => event.type === 'ready'), 90_000, 'the worker to be ready');

    // Two coordinators die, each after three pages of its own; the third finishes the collection.
    const killed: ChildScript[] = [];
    for (let round = 0; round < 2; round++) {
      const coordinator = startScript('bullmq-coordinator.ts', env);
      await until(() => coordinator.events.filter((event) => event.type === 'page').length >= 3, 60_000, `three pages committed by coordinator ${round + 1}`);
      coordinator.child.kill('SIGKILL');
      await coordinator.exited;
      killed.push(coordinator);
    }
    const last = startScript('bullmq-coordinator.ts', env);
    await until(() => last.events.some((event) => event.type === 'end'), 90_000, 'the last coordinator to end');
    const starts = [...killed, last].map((coordinator) => coordinator.events.find((event) => event.type === 'start'));
    const collectionId = starts[0]?.collectionId;
    expect(starts).toMatchObject([{ resumed: false }, { resumed: true, collectionId }, { resumed: true, collectionId }]);
    const summary = last.events.find((event) => event.type === 'end')?.summary as CollectionSummary;
    const committedBefore = killed.flatMap((coordinator) => coordinator.events).filter((event) => event.type === 'page').length;

    const client = new Redis(redis.url);
    try {
      const keys = keysOf(name);
      const stored = (await client.xrange(keys.records, '-', '+')).map(([, fields]) => JSON.parse(fields[1] as string) as CollectedRecord<Job>);
      const ids = stored.map((record) => record.data.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect([...ids].sort()).toEqual(site.reachableItems.map((job) => job.id).sort());
      const pages = (await client.xrange(keys.pages, '-', '+')).map(([, fields]) => JSON.parse(fields[1] as string) as { url: string });
      const urls = pages.map((page) => page.url);
      expect(new Set(urls).size).toBe(urls.length);
      // What an uninterrupted run of this site ends with; the counters carry the first coordinator's pages.
      expect(summary).toMatchObject({
        reason: 'done',
        pagesDone: urls.length,
        pagesFailed: 0,
        records: site.reachableItems.length,
        duplicates: 0,
        invalid: 0,
        pagesQueued: 0,
      });
      expect(last.events.filter((event) => event.type === 'page').length).toBe(summary.pagesDone - committedBefore);
    } finally {
      client.disconnect();
    }
    // The worker read each page once: no page done before the crash was visited again.
    const started = worker.events.filter((event) => event.type === 'page-start').map((event) => event.url);
    expect(new Set(started).size).toBe(started.length);
  }, 240_000);
});
