// The Collector end to end on the collection corpus (issue 20): ten listing styles written by
// someone who had not read the Collector, transient and permanent faults, detail-only fields,
// sponsored cards and duplicates, judged against the corpus's ground truth. Headless Chromium.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Collector, type RejectedRecord } from '../../src/index';
import { templateOf } from '../../src/collect/listing-plan';
import { PlaywrightDriver } from '../../src/playwright/index';
import { startCollectCorpus, type CollectCorpus, type CorpusRecord } from '../fixtures/collect-corpus/index';
import { corpusModel, type ModelLedger } from '../helpers/collect-corpus-model';
import { pageChromium } from '../helpers/page-chromium';

const Listing = z.object({
  id: z.string().describe('The last part of the record link'),
  title: z.string(),
  seller: z.string(),
  price: z.string(),
  location: z.string(),
  link: z.string().describe('The address of the record’s own page'),
});
type Listing = z.output<typeof Listing>;

let corpus: CollectCorpus;
let browsers: PlaywrightDriver[] = [];
let run: {
  readonly collector: Collector<Listing>;
  readonly records: Listing[];
  readonly rejects: RejectedRecord[];
  readonly ledger: ModelLedger;
  readonly summary: Awaited<ReturnType<Collector<Listing>['run']>>;
};

beforeAll(async () => {
  // A third of the corpus keeps CI short; every style and every kind of fault is still in it.
  corpus = await startCollectCorpus({ scale: 0.3, hangMs: 6000 });
  browsers = await Promise.all([
    PlaywrightDriver.launch({ headless: true, executablePath: pageChromium() }),
    PlaywrightDriver.launch({ headless: true, executablePath: pageChromium() }),
  ]);
  const { llm, ledger } = corpusModel(corpus.truth, corpus.url);
  const collector = new Collector<Listing>({
    llm,
    browsers,
    concurrency: 2,
    start: corpus.startUrls.map((start) => start.url),
    instruction: 'every listing (not the sponsored ones): id, title, seller, price, location, link',
    schema: Listing,
    key: (listing) => listing.link,
    details: true,
    pageTimeout: 20_000,
    retry: { minDelayMs: 200 },
    modelRetry: { retries: 0, minTimeout: 1, maxTimeout: 1 },
  });
  const records: Listing[] = [];
  const rejects: RejectedRecord[] = [];
  const reading = (async () => {
    for await (const reject of collector.rejects()) rejects.push(reject);
  })();
  for await (const record of collector.records()) records.push(record.data);
  await reading;
  run = { collector, records, rejects, ledger, summary: await collector.run() };
}, 400_000);

afterAll(async () => {
  await Promise.all(browsers.map((browser) => browser.close()));
  await corpus?.close();
});

const fieldsOf = (record: Listing | CorpusRecord): string =>
  JSON.stringify([record.id, record.title, record.seller, record.price, record.location, record.link]);

describe('the Collector on the collection corpus (scale 0.3, faults on)', () => {
  it('collects at least 99 % of the reachable records, every one exactly right, none twice', () => {
    const truth = new Map(corpus.truth.reachable.map((record) => [record.link, record]));
    const wrong = run.records.filter((record) => truth.get(record.link) === undefined || fieldsOf(truth.get(record.link) as CorpusRecord) !== fieldsOf(record));
    expect(wrong).toEqual([]);
    expect(new Set(run.records.map((record) => record.link)).size).toBe(run.records.length);
    const found = new Set(run.records.map((record) => record.link));
    const missed = corpus.truth.reachable.filter((record) => !found.has(record.link));
    expect(missed.length, `missed: ${missed.map((record) => record.link).join(', ')}`).toBeLessThanOrEqual(Math.floor(corpus.truth.reachable.length * 0.01));
    expect(run.summary).toMatchObject({ reason: 'done', records: run.records.length });
  });

  it('keeps the records whose own page cannot complete them in the rejects, with the reason', () => {
    const rejected = run.rejects.map((reject) => (reject.data as { link?: string }).link).sort();
    expect(rejected).toEqual(corpus.truth.incompleteOnly.map((record) => record.link).sort());
    for (const reject of run.rejects) expect(reject.reason).toMatch(/own page|price|location/);
    expect(run.summary.rejected).toBe(run.rejects.length);
  });

  it('ends every page once, as done, failed (with its attempts and last error) or abandoned, and retries the transient failures', () => {
    const pages = run.collector.history.pages;
    expect(new Set(pages.map((page) => page.url)).size).toBe(pages.length);
    const failed = pages.filter((page) => page.status === 'failed');
    for (const page of failed) {
      expect(page.error).toBeTruthy();
      expect(page.attempts).toBeGreaterThanOrEqual(1);
    }
    // Only the corpus's permanent faults fail; every transient one passed on a later attempt.
    const permanent = new Set([
      ...corpus.truth.listingPages.filter((page) => page.permanent).map((page) => page.url),
      ...corpus.truth.faultyDetailPages.filter((page) => page.permanent).map((page) => page.url),
    ]);
    for (const page of failed) expect(permanent, page.url).toContain(page.url);
    expect(run.summary.retries).toBeGreaterThan(0);
    expect(run.summary).toMatchObject({ pagesFailed: failed.length, pagesAbandoned: 0, pagesQueued: 0 });
    expect(run.summary.pagesDone).toBe(pages.filter((page) => page.status === 'done').length);
  });

  it('surveys a template once, and again only where what it learnt no longer holds (an empty page, the end of a chain)', () => {
    const surveys = run.ledger.calls.get('collect_survey') ?? 0;
    const listing = run.collector.history.pages.filter((page) => !page.batch.startsWith('details:'));
    const templates = new Set(listing.map((page) => templateOf(page.url)));
    const empty = listing.filter((page) => page.status === 'done' && page.records === 0).length;
    // At most one survey to learn each template, one where its chain ends, one per page that gave no record.
    expect(surveys).toBeGreaterThan(0);
    expect(surveys).toBeLessThanOrEqual(2 * templates.size + empty);
    expect(surveys).toBeLessThan(listing.length);
  });
});
