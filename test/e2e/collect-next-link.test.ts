// The Collector on a listing paginated only by "Next page" links (examples/collect-site, `/next`), in
// headless Chromium: the view shows such a link without its href, so the survey names it by index.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCollectSite, type CollectSite } from '../../examples/collect-site/server';
import { collectSiteModel, Job } from '../../examples/collect-site/scripted-model';
import { Collector } from '../../src/index';
import { PlaywrightDriver } from '../../src/playwright/index';

const fastRetry = { retries: 0, minTimeout: 1, maxTimeout: 1 };

let browser: PlaywrightDriver;
const sites: CollectSite[] = [];

beforeAll(async () => {
  browser = await PlaywrightDriver.launch({ headless: true });
}, 60_000);
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await Promise.all(sites.splice(0).map((site) => site.close()));
});

describe('the Collector on a listing with only "Next page" links, in headless Chromium', () => {
  it('follows "Next page" to the last page: every posting once, each page loaded once', async () => {
    const site = await startCollectSite({ count: 100 });
    sites.push(site);
    const llm = collectSiteModel();
    const collector = new Collector<Job>({
      llm,
      browser,
      start: new URL('/next?page=1', site.url).href,
      instruction: 'every job posting: id, title, company, salary, link',
      schema: Job,
      key: (job) => job.id,
      modelRetry: fastRetry,
    });
    const found: Job[] = [];
    const reading = (async () => {
      for await (const record of collector.records()) found.push(record.data);
    })();
    const summary = await collector.run();
    await reading;
    expect(summary.error).toBeUndefined();
    expect(summary).toMatchObject({ reason: 'done', pagesDone: 5, pagesFailed: 0, records: 100, duplicates: 0 });
    expect(found.map((job) => job.id).sort()).toEqual(site.reachableItems.map((item) => item.id).sort());
    const pages = Object.entries(site.hits()).filter(([path]) => path.startsWith('/next'));
    expect(pages.map(([path]) => path).sort()).toEqual([1, 2, 3, 4, 5].map((page) => `/next?page=${page}`));
    for (const [path, count] of pages) expect(count, path).toBe(1);
    // The case this is about: the survey saw the link by its text and index only.
    const firstSurvey = llm.requests.find((request) => request.output?.name === 'collect_survey')?.lastUserText ?? '';
    expect(firstSurvey).toMatch(/\[\d+\]<a(?![^>]*href)[^>]*>Next page \/>/);
    expect(firstSurvey).not.toContain('/next?page=2');
  });
});
