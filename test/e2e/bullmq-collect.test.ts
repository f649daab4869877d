// plannav/bullmq end to end (issue 14): a coordinator here, two worker child processes with their
// own Chromium and model, a real redis-server; one worker is SIGKILLed in the middle of a slow page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCollectSite, type CollectSite } from '../../examples/collect-site/server';
import { createCollectionCoordinator } from '../../src/bullmq/index';
import { collectSiteModel, Job } from '../../examples/collect-site/scripted-model';
import { ChildScripts, until, type ChildScript } from '../helpers/child-scripts';
import { startRedis, type RedisServer } from '../helpers/redis-server';

let redis: RedisServer;
let site: CollectSite;
const scripts = new ChildScripts();
const startWorker = (name: string): ChildScript => scripts.start('test/e2e/bullmq-worker.ts', { REDIS_URL: redis.url, COLLECTION_NAME: name });

beforeAll(async () => {
  [redis, site] = await Promise.all([startRedis(), startCollectSite({ slowPages: [3], slowDelayMs: 4000 })]);
}, 30_000);

afterAll(async () => {
  await scripts.stopAll();
  await Promise.all([site?.close(), redis?.stop()]);
}, 20_000);

describe('plannav/bullmq on a real Redis', () => {
  it('two workers, one killed mid-page: every page committed once, every reachable posting once, the run completes', async () => {
    const name = 'jobs-e2e';
    const first = startWorker(name);
    const second = startWorker(name);
    await until(() => [first, second].every((worker) => worker.events.some((event) => event.type === 'ready')), 90_000, 'both workers to be ready');

    const coordinator = createCollectionCoordinator<Job>({
      connection: redis.url,
      name,
      llm: collectSiteModel(),
      start: site.pageUrl(1),
      instruction: 'every job posting: id, title, company, salary, link',
      schema: Job,
      key: (job) => job.id,
      modelRetry: { retries: 0, minTimeout: 1, maxTimeout: 1 },
      checkEvery: 5,
      pollInterval: 100,
    });
    try {
      const collected: Job[] = [];
      const reading = (async () => {
        for await (const record of coordinator.records()) collected.push(record.data);
      })();
      const summaryPromise = coordinator.run();

      // The worker that starts the slow page dies in the middle of it.
      const slowUrl = site.pageUrl(3);
      const holdsSlowPage = (worker: ChildScript): boolean => worker.events.some((event) => event.type === 'page-start' && event.url === slowUrl);
      await until(() => holdsSlowPage(first) || holdsSlowPage(second), 60_000, 'a worker to start the slow page');
      const victim = holdsSlowPage(first) ? first : second;
      const survivor = victim === first ? second : first;
      victim.child.kill('SIGKILL');
      await victim.exited;

      const summary = await Promise.race([
        summaryPromise,
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('The collection did not end within 90 s.')), 90_000)),
      ]);
      await reading;

      expect(summary).toMatchObject({ reason: 'done', pagesFailed: 0, duplicates: 0 });
      const ids = collected.map((job) => job.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect([...ids].sort()).toEqual(site.reachableItems.map((job) => job.id).sort());
      // Each page committed once, the slow one by the survivor.
      const pages = await coordinator.pages();
      const urls = pages.map((page) => page.url);
      expect(new Set(urls).size).toBe(urls.length);
      expect(urls).toContain(slowUrl);
      expect(pages.length).toBe(summary.pagesDone);
      expect(survivor.events.some((event) => event.type === 'page-end' && event.url === slowUrl)).toBe(true);
      expect(victim.events.some((event) => event.type === 'page-end' && event.url === slowUrl)).toBe(false);
    } finally {
      await coordinator.close();
    }
  }, 240_000);
});
