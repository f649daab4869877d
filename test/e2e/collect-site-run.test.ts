// The Collector end to end (issue 14): headless Chromium over the local job board
// (examples/collect-site), with a scripted model that decides only from what it is shown.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCollectSite, type CollectSite, type CollectSiteOptions } from '../../examples/collect-site/server';
import { Collector, type CollectOptions, type CollectorEventMap } from '../../src/index';
import { fileCollectionStore } from '../../src/node/index';
import { PlaywrightDriver } from '../../src/playwright/index';
import { collectSiteModel as siteModel, Job } from '../../examples/collect-site/scripted-model';
import { pageChromium } from '../helpers/page-chromium';

const fastRetry = { retries: 0, minTimeout: 1, maxTimeout: 1 };
let browser: PlaywrightDriver;
let secondBrowser: PlaywrightDriver;
const sites: CollectSite[] = [];
/** The collections a test started: one that outlives its test (a timeout) is cancelled, so the next test gets the browser. */
const runs: Collector<Job>[] = [];

beforeAll(async () => {
  [browser, secondBrowser] = await Promise.all([
    PlaywrightDriver.launch({ headless: true, executablePath: pageChromium() }),
    PlaywrightDriver.launch({ headless: true, executablePath: pageChromium() }),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([browser?.close(), secondBrowser?.close()]);
});
afterEach(async () => {
  await Promise.all(runs.splice(0).map((run) => Promise.race([run.close(), new Promise((resolve) => setTimeout(resolve, 15_000))])));
  await Promise.all(sites.splice(0).map((site) => site.close()));
});

async function start(options: CollectSiteOptions = {}): Promise<CollectSite> {
  const site = await startCollectSite(options);
  sites.push(site);
  return site;
}

function collector(site: CollectSite, options: Partial<CollectOptions<Job>> = {}): Collector<Job> {
  const run = new Collector<Job>({
    llm: siteModel(),
    browser,
    start: site.pageUrl(1),
    instruction: 'every job posting: id, title, company, salary, link',
    schema: Job,
    key: (job) => job.id,
    modelRetry: fastRetry,
    ...options,
  });
  runs.push(run);
  return run;
}

async function records(run: Collector<Job>): Promise<Job[]> {
  const found: Job[] = [];
  for await (const record of run.records()) found.push(record.data);
  return found;
}

/** The ids, sorted: pages are read in the frontier's order (page 1 links 2, 3 and the last), not the listing's. */
const idsOf = (jobs: readonly { readonly id: string }[]): string[] => jobs.map((job) => job.id).sort();

/** A page of the listing variant `path` was loaded exactly once (batches of `/more` and `/scroll` included). */
function expectEachOnce(site: CollectSite, prefix: string): void {
  const hits = Object.entries(site.hits()).filter(([path]) => path.startsWith(prefix));
  expect(hits.length).toBeGreaterThan(0);
  for (const [path, count] of hits) expect(count, path).toBe(1);
}

// A run reads 12 to 24 pages in Chromium: 10 to 20 s on an idle machine, and several times that on a loaded one.
describe('the Collector on the collection site, in headless Chromium', { timeout: 120_000 }, () => {
  it('numbered pages behind a cookie wall: every reachable posting once, no page loaded twice', async () => {
    const site = await start({ cookieWall: true });
    const run = collector(site);
    const pages: CollectorEventMap<Job>['collect-page'][] = [];
    run.on('collect-page', (event) => void pages.push(event));
    const found = records(run);
    const summary = await run.run();
    expect(summary).toMatchObject({ reason: 'done', pagesDone: 12, pagesFailed: 0, duplicates: 0, invalid: 0, records: 240 });
    const jobs = await found;
    expect(jobs).toHaveLength(site.reachableItems.length);
    expect(idsOf(jobs)).toEqual(idsOf(site.reachableItems));
    // The records are what the page says, not just their ids.
    const truth = new Map(site.items.map((item) => [item.id, item]));
    for (const job of jobs)
      expect(job).toMatchObject({ title: truth.get(job.id)?.title, company: truth.get(job.id)?.company, link: truth.get(job.id)?.detailUrl });
    // Page 1 twice: the wall, then the same page again as the consent form's redirect lands back on it.
    expect(site.hits()['/jobs?page=1']).toBe(2);
    for (const [path, count] of Object.entries(site.hits())) if (path.startsWith('/jobs?page=') && path !== '/jobs?page=1') expect(count, path).toBe(1);
    // The wall: accepted once, by the short Navigator task of the first page; the cookie holds for the rest.
    expect(site.hits()['POST /consent']).toBe(1);
    expect(pages.filter((page) => page.interaction !== undefined).map((page) => page.url)).toEqual([site.pageUrl(1)]);
  });

  // `batches`, where given: how many batch requests (`<path>/items?page=N`) the listing makes.
  it.each<[path: string, behaviour: string, batches: number | undefined]>([
    ['/more', '"Load more" until the last batch', 11],
    ['/scroll', 'infinite scroll to the end', undefined],
  ])('%s: %s, every posting once', async (path, _behaviour, batches) => {
    const site = await start();
    const run = collector(site, { start: new URL(path, site.url).href });
    const found = records(run);
    const summary = await run.run();
    expect(summary.error).toBeUndefined();
    expect(summary).toMatchObject({ reason: 'done', pagesDone: 1, pagesFailed: 0, records: 240, duplicates: 0 });
    const jobs = await found;
    expect(jobs).toHaveLength(240);
    expect(idsOf(jobs)).toEqual(idsOf(site.reachableItems));
    expectEachOnce(site, path);
    if (batches !== undefined) expect(Object.keys(site.hits()).filter((hit) => hit.startsWith(`${path}/items`))).toHaveLength(batches);
  });

  it('three broken pages in a row abandon their batch; the run goes on with the other source and ends done', async () => {
    const broken = await start({ brokenRun: { start: 5, length: 3 } });
    const healthy = await start({ count: 60 });
    // The broken site's pages 5-9 as a known list (one batch, read in order); the healthy site as a start URL (another).
    const run = collector(healthy, {
      start: healthy.pageUrl(1),
      urls: [5, 6, 7, 8, 9].map((page) => broken.pageUrl(page)),
      key: (job) => job.link,
      maxFailures: 3,
      // One attempt each: the budget counts pages that failed every attempt (retries have tests of their own).
      retry: { attempts: 1 },
    });
    const failures: CollectorEventMap<Job>['collect-failure'][] = [];
    run.on('collect-failure', (event) => void failures.push(event));
    const found = records(run);
    const summary = await run.run();
    expect(failures.map((failure) => [failure.url, failure.consecutiveFailures, failure.abandoned])).toEqual([
      [broken.pageUrl(5), 1, false],
      [broken.pageUrl(6), 2, false],
      [broken.pageUrl(7), 3, true],
    ]);
    expect(failures[2]?.dropped).toBe(2);
    expect(summary).toMatchObject({ reason: 'done', pagesFailed: 3, pagesAbandoned: 2, batchesAbandoned: 1, pagesDone: 3, records: 60 });
    expect(idsOf(await found)).toEqual(idsOf(healthy.reachableItems));
    // The abandoned pages were never requested.
    expect(broken.hits()['/jobs?page=8']).toBeUndefined();
    expect(broken.hits()['/jobs?page=9']).toBeUndefined();
  });

  it('a progress check that answers stop ends the run as stopped, with its reason', async () => {
    const site = await start();
    const llm = siteModel({ check: () => ({ object: { decision: 'stop', reason: 'enough postings for the report', instruction: '' } }) });
    const run = collector(site, { llm, checkEvery: 2 });
    const checks: CollectorEventMap<Job>['collect-check'][] = [];
    run.on('collect-check', (event) => void checks.push(event));
    const summary = await run.run();
    expect(summary).toMatchObject({ reason: 'stopped', message: 'enough postings for the report', pagesDone: 2, records: 40 });
    expect(checks).toMatchObject([{ pages: 2, decision: 'stop', reason: 'enough postings for the report' }]);
    expect(run.history.checks).toMatchObject([{ decision: 'stop' }]);
  });

  it('a run cancelled after 4 pages resumes from its file store: the output equals an uninterrupted run, no finished page loaded again', async () => {
    const site = await start();
    const dir = await mkdtemp(join(tmpdir(), 'plannav-collect-'));
    try {
      const first = collector(site, { store: fileCollectionStore<Job>(dir) });
      let finished = 0;
      first.on('collect-page', () => {
        if (++finished === 4) first.cancel('interrupted on purpose');
      });
      const firstSummary = await first.run();
      expect(firstSummary).toMatchObject({ reason: 'cancelled', pagesDone: 4 });
      const afterFirst = site.hits();

      const second = collector(site, { store: fileCollectionStore<Job>(dir) });
      const secondSummary = await second.run();
      expect(secondSummary).toMatchObject({ reason: 'done', pagesDone: 12, records: 240, duplicates: 0 });
      // A page the first run finished was not loaded by the second.
      for (const [path, count] of Object.entries(afterFirst)) if (path.startsWith('/jobs')) expect(site.hits()[path], path).toBe(count);
      expectEachOnce(site, '/jobs');

      const stored: Job[] = [];
      for await (const record of fileCollectionStore<Job>(dir).records()) stored.push(record.data);
      const uninterrupted = await records(collector(site));
      const sortById = (jobs: readonly Job[]): Job[] => [...jobs].sort((a, b) => a.id.localeCompare(b.id));
      expect(stored).toHaveLength(240);
      expect(sortById(stored)).toEqual(sortById(uninterrupted));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('two browsers, concurrency 2, perHost.maxConcurrent 1: every posting once, the site never sees two requests at once', async () => {
    const site = await start();
    const run = collector(site, { browser: undefined, browsers: [browser, secondBrowser], concurrency: 2, perHost: { maxConcurrent: 1 } });
    const found = records(run);
    const summary = await run.run();
    expect(summary).toMatchObject({ reason: 'done', pagesDone: 12, records: 240, duplicates: 0 });
    expect(idsOf(await found)).toEqual(idsOf(site.reachableItems));
    expectEachOnce(site, '/jobs');
    expect(site.maxInFlight()).toBe(1);
  });
});
