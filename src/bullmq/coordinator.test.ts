// The BullMQ coordinator against a real redis-server (test/helpers/redis-server.ts) with in-process
// workers over fake browsers and a scripted model: what reaches the summary, the budget, the checks.
import { Queue, Worker, type ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startRedis, type RedisServer } from '../../test/helpers/redis-server';
import type { CollectionSummary, CollectorEventMap } from '../collect/events';
import type { CollectedRecord, RejectedRecord } from '../collect/store';
import { emptyUsage } from '../llm/usage';
import { FakeBrowserDriver, type FakeElement, type FakePage, ScriptedLLM, type ScriptedRequest, type ScriptedResponse } from '../testing/index';
import { createCollectionCoordinator, type CollectionCoordinator, type CollectionCoordinatorOptions } from './coordinator';
import { keysOf, pageJobId, queueName, queuePrefix, redisOptions, type CommittedOutcome, type PageJobResult } from './protocol';
import { readCollectionRejects } from './records';
import { createCollectionWorker, type CollectionWorker } from './worker';

const Item = z.object({ id: z.number().int(), name: z.string() });
type Item = z.output<typeof Item>;

const fastRetry = { retries: 0, minTimeout: 1, maxTimeout: 1 };

function link(text: string, href: string): FakeElement {
  return { tag: 'a', text, href, attributes: { href } };
}

/**
 * Listings of `pages` pages of `perPage` items at https://<host>/list?page=N, each linking to the
 * next; a broken page shows a server error. Item ids run on across hosts from `firstId`.
 */
function listing(options: { pages: number; perPage: number; host?: string; broken?: readonly number[]; firstId?: number }): Record<string, FakePage> {
  const host = options.host ?? 'site.test';
  const pages: Record<string, FakePage> = {};
  for (let page = 1; page <= options.pages; page++) {
    const url = `https://${host}/list?page=${page}`;
    const next = page < options.pages ? [link(`Page ${page + 1}`, `https://${host}/list?page=${page + 1}`)] : [];
    if (options.broken?.includes(page)) {
      pages[url] = { title: 'Error', content: ['500 Internal Server Error', ...next] };
      continue;
    }
    const first = (page - 1) * options.perPage + (options.firstId ?? 1);
    const items = Array.from({ length: options.perPage }, (_, offset) => `Item ${first + offset}: Widget ${first + offset}`);
    pages[url] = { title: `List page ${page}`, content: [...items, ...next] };
  }
  return pages;
}

/**
 * The scripted model reads what it is shown; `check` answers the progress checks; a page whose
 * extraction text `hold` gives a promise for is answered only once that promise resolves. The hold
 * is on the extraction, not the survey: a page of a template its worker already knows is not surveyed.
 */
function siteModel(
  options: { check?: (request: ScriptedRequest) => ScriptedResponse; latencyMs?: number; hold?: (text: string) => Promise<void> | undefined } = {},
): ScriptedLLM {
  return new ScriptedLLM({
    latencyMs: options.latencyMs,
    respond: async (request) => {
      const text = request.lastUserText;
      switch (request.output?.name) {
        case 'collect_survey':
          return {
            object: {
              page_error: text.includes('500 Internal Server Error') ? '500 Internal Server Error' : '',
              blocked_by: '',
              next_pages: [...text.matchAll(/<a[^>]*>Page (\d+) \/>/g)].map((match) => `/list?page=${match[1] as string}`),
              load_more_index: null,
              infinite_scroll: false,
            },
          };
        case 'collect_extract':
          await options.hold?.(text);
          return { object: { records: [...text.matchAll(/Item (\d+): (Widget \d+)/g)].map((match) => ({ id: Number(match[1]), name: match[2] })) } };
        case 'collect_check':
          return options.check?.(request) ?? { object: { decision: 'continue', reason: 'fine', instruction: '' } };
        default:
          return { fail: 'status', status: 400, message: `unexpected call ${request.output?.name ?? ''}` };
      }
    },
  });
}

/** A promise the test opens when something happened. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const ids = (records: readonly Item[]): number[] => records.map((item) => item.id).sort((a, b) => a - b);
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, index) => from + index);

/** The URLs the workers' browsers loaded, in order. */
const loaded = (browsers: readonly FakeBrowserDriver[]): unknown[] =>
  browsers.flatMap((browser) => browser.calls.filter((call) => call.method === 'goto').map((call) => call.args[0])).sort();

let redis: RedisServer;
let collections = 0;
const freshName = (): string => `unit-${++collections}`;

beforeAll(async () => {
  redis = await startRedis();
}, 20_000);

afterAll(async () => {
  await redis?.stop();
});

/** The ids of the records in the collection's stream in Redis. */
async function storedIds(name: string): Promise<number[]> {
  const client = new Redis(redis.url);
  try {
    const entries = await client.xrange(keysOf(name).records, '-', '+');
    return ids(entries.map(([, fields]) => (JSON.parse(fields[1] as string) as CollectedRecord<Item>).data));
  } finally {
    client.disconnect();
  }
}

/** The page outcomes in the collection's stream in Redis. */
async function storedOutcomes(name: string): Promise<CommittedOutcome[]> {
  const client = new Redis(redis.url);
  try {
    return (await client.xrange(keysOf(name).pages, '-', '+')).map(([, fields]) => JSON.parse(fields[1] as string) as CommittedOutcome);
  } finally {
    client.disconnect();
  }
}

/** The coordinator and the workers' browsers of a collection being run, for event listeners. */
interface Running {
  readonly coordinator: CollectionCoordinator<Item>;
  readonly browsers: readonly FakeBrowserDriver[];
}

interface Run {
  readonly summary: CollectionSummary;
  readonly events: { readonly [K in keyof CollectorEventMap<Item>]?: CollectorEventMap<Item>[K][] };
  readonly records: Item[];
  /** The workers' page-start, page-end, page-retry and warning events, in the order they happened (one process). */
  readonly workerEvents: {
    readonly type: string;
    readonly url: string;
    readonly worker: number;
    readonly timestamp: number;
    readonly attempt?: number;
    readonly delayMs?: number;
    readonly code?: string;
  }[];
}

/**
 * Runs one collection (a fresh name) with `workers` in-process workers, each over its own fake
 * browser of `pages` and its own `model`; the coordinator's planner is `planner`.
 */
async function runCollection(options: {
  name?: string;
  /** Another Redis than the file's. */
  connection?: string;
  pages: Record<string, FakePage>;
  model?: () => ScriptedLLM;
  planner?: ScriptedLLM;
  workers?: number;
  coordinator: Omit<CollectionCoordinatorOptions<Item>, 'connection' | 'name' | 'llm' | 'schema' | 'instruction'> & { instruction?: string };
  onEvent?: { readonly [K in keyof CollectorEventMap<Item>]?: (event: CollectorEventMap<Item>[K], run: Running) => void };
  /** Called as a worker's browser starts loading a URL. */
  onLoad?: (url: string) => void;
}): Promise<Run & { models: ScriptedLLM[]; browsers: FakeBrowserDriver[]; name: string }> {
  const name = options.name ?? freshName();
  const connection = options.connection ?? redis.url;
  const coordinator = createCollectionCoordinator<Item>({
    connection,
    name,
    llm: options.planner ?? siteModel(),
    schema: Item,
    instruction: 'every item: id, name',
    key: (item) => String(item.id),
    modelRetry: fastRetry,
    pollInterval: 20,
    ...options.coordinator,
  });
  const events: Record<string, unknown[]> = {};
  for (const event of [
    'collect-start',
    'collect-page',
    'collect-failure',
    'collect-check',
    'collect-model-call',
    'collect-pause',
    'collect-resume',
    'collect-end',
  ] as const)
    coordinator.on(event, (payload) => void (events[event] ??= []).push(payload));
  const models: ScriptedLLM[] = [];
  const browsers: FakeBrowserDriver[] = [];
  for (const [event, listener] of Object.entries(options.onEvent ?? {}))
    coordinator.on(event as keyof CollectorEventMap, (payload: unknown) =>
      (listener as (payload: unknown, run: Running) => void)(payload, { coordinator, browsers }),
    );
  const workers: CollectionWorker[] = [];
  const workerEvents: Run['workerEvents'][number][] = [];
  try {
    const records: Item[] = [];
    const reading = (async () => {
      for await (const record of coordinator.records()) records.push(record.data);
    })();
    for (let index = 0; index < (options.workers ?? 1); index++) {
      const model = options.model?.() ?? siteModel();
      const browser = new FakeBrowserDriver({ pages: options.pages });
      const { onLoad } = options;
      if (onLoad) {
        const goto = browser.goto.bind(browser);
        browser.goto = (url, callOptions) => {
          onLoad(url);
          return goto(url, callOptions);
        };
      }
      models.push(model);
      browsers.push(browser);
      const worker = await createCollectionWorker({ connection, name, llm: model, browser, schema: Item });
      worker.on('page-start', (event) => workerEvents.push({ type: 'page-start', url: event.url, worker: index, timestamp: event.timestamp }));
      worker.on('page-end', (event) => workerEvents.push({ type: 'page-end', url: event.url, worker: index, timestamp: event.timestamp }));
      worker.on('page-retry', (event) =>
        workerEvents.push({ type: 'page-retry', url: event.url, worker: index, timestamp: event.timestamp, attempt: event.attempt, delayMs: event.delayMs }),
      );
      worker.on('worker-warning', (event) => workerEvents.push({ type: 'warning', url: '', worker: index, timestamp: event.timestamp, code: event.code }));
      workers.push(worker);
    }
    const summary = await coordinator.run();
    await reading;
    return { summary, events, records, models, browsers, name, workerEvents };
  } finally {
    await Promise.all(workers.map((worker) => worker.close()));
    await coordinator.close();
  }
}

describe('createCollectionCoordinator on a real Redis', () => {
  it('reports the workers’ model calls: one collect-model-call per survey and extraction call, with its time and tokens in the summary', async () => {
    const { summary, events, models, records } = await runCollection({
      pages: listing({ pages: 3, perPage: 2 }),
      model: () => siteModel({ latencyMs: 5 }),
      workers: 2,
      coordinator: { start: 'https://site.test/list?page=1', checkEvery: 100 },
    });
    expect(ids(records)).toEqual(range(1, 6));
    expect(summary).toMatchObject({ reason: 'done', pagesDone: 3 });
    const calls = events['collect-model-call'] ?? [];
    const byRole = (role: string): number => calls.filter((call) => call.role === role).length;
    const answered = (name: string): number => models.flatMap((model) => model.requests).filter((request) => request.output?.name === name).length;
    expect(byRole('navigator')).toBe(answered('collect_survey'));
    expect(byRole('extraction')).toBe(answered('collect_extract'));
    // One extraction per page; one survey per worker that read a page (its first: the other pages of
    // the template reuse what that worker learnt), no longer one per page.
    expect(byRole('extraction')).toBe(3);
    const readers = models.filter((model) => model.requests.some((request) => request.output?.name === 'collect_extract'));
    for (const model of readers) expect(model.requests.filter((request) => request.output?.name === 'collect_survey')).toHaveLength(1);
    expect(byRole('navigator')).toBe(readers.length);
    // Each call waited 5 ms for its answer: the workers' model time reaches the coordinator.
    for (const call of calls) expect(call.durationMs).toBeGreaterThan(0);
    expect(calls.every((call) => call.provider === 'scripted' && call.error === undefined)).toBe(true);
    expect(summary.usage.calls).toBe(calls.length);
  });

  it('gives up a batch after maxFailures failed pages in a row: its waiting pages are dropped, a page already taken ends, other batches go on', async () => {
    const pages = { ...listing({ pages: 6, perPage: 3, broken: [2, 3] }), ...listing({ pages: 2, perPage: 3, host: 'other.test', firstId: 101 }) };
    const abandoned = gate();
    const { summary, events, records, name } = await runCollection({
      pages,
      // Page 4 is in the worker's hands when its batch is given up; pages 5 and 6 wait behind it.
      model: () => siteModel({ hold: (text) => (text.includes('Item 10:') ? abandoned.promise : undefined) }),
      coordinator: {
        urls: [...[1, 2, 3, 4, 5, 6].map((page) => `https://site.test/list?page=${page}`), 'https://other.test/list?page=1'],
        maxFailures: 2,
        checkEvery: 100,
        // One attempt each: the error pages fail at once (retries have their own test).
        retry: { attempts: 1 },
      },
      onEvent: { 'collect-failure': (event) => event.abandoned && abandoned.open() },
    });
    const failures = events['collect-failure'] ?? [];
    expect(failures.map((event) => [event.url, event.consecutiveFailures, event.abandoned, event.dropped])).toEqual([
      ['https://site.test/list?page=2', 1, false, 0],
      ['https://site.test/list?page=3', 2, true, 2],
    ]);
    expect(summary).toMatchObject({ reason: 'done', pagesDone: 4, pagesFailed: 2, pagesAbandoned: 2, batchesAbandoned: 1, pagesQueued: 0 });
    // Page 4 ended normally; pages 5 and 6 were never read; the other host's batch was read to its end.
    expect(ids(records)).toEqual([1, 2, 3, 10, 11, 12, 101, 102, 103, 104, 105, 106]);
    // Every page ends in Redis as done, failed or abandoned.
    const outcomes = (await storedOutcomes(name)).map((outcome) => [outcome.url.replace('https://', ''), outcome.status, outcome.attempts]);
    expect(outcomes.sort()).toEqual([
      ['other.test/list?page=1', 'done', 1],
      ['other.test/list?page=2', 'done', 1],
      ['site.test/list?page=1', 'done', 1],
      ['site.test/list?page=2', 'failed', 1],
      ['site.test/list?page=3', 'failed', 1],
      ['site.test/list?page=4', 'done', 1],
      ['site.test/list?page=5', 'abandoned', 0],
      ['site.test/list?page=6', 'abandoned', 0],
    ]);
  });

  it('a check that says stop: no page starts after it, the page in flight is still committed, the run ends stopped with its reason', async () => {
    const checked = gate();
    const { summary, events, records, browsers } = await runCollection({
      pages: listing({ pages: 6, perPage: 2 }),
      // Page 3 is in flight during the check after 2 pages; 4 to 6 are waiting.
      model: () => siteModel({ hold: (text) => (text.includes('Item 5:') ? checked.promise : undefined) }),
      planner: siteModel({ check: () => ({ object: { decision: 'stop', reason: 'enough widgets', instruction: '' } }) }),
      coordinator: { urls: [1, 2, 3, 4, 5, 6].map((page) => `https://site.test/list?page=${page}`), checkEvery: 2 },
      onEvent: { 'collect-check': () => checked.open() },
    });
    expect((events['collect-check'] ?? []).map((check) => [check.pages, check.decision])).toEqual([[2, 'stop']]);
    expect(summary).toMatchObject({ reason: 'stopped', message: 'enough widgets', pagesDone: 3, records: 6, pagesQueued: 0 });
    expect(ids(records)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(loaded(browsers)).toEqual([1, 2, 3].map((page) => `https://site.test/list?page=${page}`));
  });

  it('a check that adjusts the instruction: the pages that start after it are read with the new one, on every worker', async () => {
    const checked = gate();
    const { summary, models } = await runCollection({
      pages: listing({ pages: 6, perPage: 2 }),
      // Pages 3 and 4 are in the two workers' hands during the check after 2 pages; 5 and 6 are waiting.
      model: () => siteModel({ hold: (text) => (/Item [57]:/.test(text) ? checked.promise : undefined) }),
      planner: siteModel({ check: () => ({ object: { decision: 'adjust', reason: 'too broad', instruction: 'only widgets with an even id' } }) }),
      workers: 2,
      coordinator: { urls: [1, 2, 3, 4, 5, 6].map((page) => `https://site.test/list?page=${page}`), checkEvery: 2 },
      onEvent: { 'collect-check': () => checked.open() },
    });
    expect(summary).toMatchObject({ reason: 'done', pagesDone: 6 });
    // Each page's extraction (every page has one; only a worker's first page is surveyed) is asked for the instruction in force when the page started.
    const extractions = models.flatMap((model) => model.requests).filter((request) => request.output?.name === 'collect_extract');
    const instructionOf = (page: number): string | undefined => {
      const extraction = extractions.find((request) => request.lastUserText.includes(`Item ${2 * page - 1}:`));
      return /^Goal: (.*)/.exec(extraction?.lastUserText ?? '')?.[1];
    };
    expect([1, 2, 3, 4, 5, 6].map(instructionOf)).toEqual([
      ...Array<string>(4).fill('every item: id, name'),
      ...Array<string>(2).fill('only widgets with an even id'),
    ]);
  });

  it('maxPages: no more pages than that are enqueued, and the run ends max-pages', async () => {
    const { summary, records, browsers } = await runCollection({
      pages: listing({ pages: 6, perPage: 3 }),
      coordinator: { start: 'https://site.test/list?page=1', maxPages: 3, checkEvery: 100 },
    });
    expect(summary).toMatchObject({ reason: 'max-pages', pagesDone: 3, records: 9, pagesQueued: 0 });
    expect(ids(records)).toEqual(range(1, 9));
    expect(loaded(browsers)).toEqual([1, 2, 3].map((page) => `https://site.test/list?page=${page}`));
  });

  it('maxRecords: exactly that many records are kept (the rest of the last page is neither kept nor a duplicate), and the run ends max-records', async () => {
    const { summary, records, name } = await runCollection({
      pages: listing({ pages: 4, perPage: 3 }),
      coordinator: { start: 'https://site.test/list?page=1', maxRecords: 5, checkEvery: 100 },
    });
    expect(summary).toMatchObject({ reason: 'max-records', records: 5, duplicates: 0, pagesDone: 2 });
    expect(ids(records)).toEqual(range(1, 5));
    expect(await storedIds(name)).toEqual(range(1, 5));
  });

  describe('resuming what an earlier coordinator of the collection left in Redis', () => {
    const page = (number: number): string => `https://site.test/list?page=${number}`;
    const batch = `start:${page(1)}`;

    it('a page enqueued whose job was never added (the coordinator died in between) is enqueued again', async () => {
      const name = freshName();
      const keys = keysOf(name);
      const client = new Redis(redis.url);
      try {
        await client.hset(keys.run, 'collectionId', 'earlier-run');
        await client.hset(keys.enqueued, pageJobId(page(2)), JSON.stringify({ url: page(2), batch, depth: 1 }));
      } finally {
        client.disconnect();
      }
      const { summary, events, records, browsers } = await runCollection({
        name,
        pages: listing({ pages: 3, perPage: 3 }),
        coordinator: { start: page(1), checkEvery: 100 },
      });
      expect(events['collect-start']).toMatchObject([{ resumed: true, collectionId: 'earlier-run' }]);
      expect(summary).toMatchObject({ reason: 'done', pagesDone: 3, records: 9, duplicates: 0 });
      expect(ids(records)).toEqual(range(1, 9));
      expect(loaded(browsers)).toEqual([page(1), page(2), page(3)]);
    });

    it('a page committed whose job was not removed yet: not counted again, not read again, its next pages enqueued', async () => {
      const name = freshName();
      const keys = keysOf(name);
      const jobId = pageJobId(page(1));
      const result: PageJobResult<Item> = {
        status: 'done',
        records: [1, 2, 3].map((id) => ({ id, name: `Widget ${id}` })),
        invalid: 0,
        links: [page(2)],
        loadMore: 0,
        interaction: undefined,
        modelCalls: [],
        durationMs: 1,
        attempts: 1,
      };
      // The earlier coordinator: page 1 read by a worker and committed (as the commit script does), then it died.
      const queue = new Queue(queueName(name), { connection: redisOptions(redis.url) as ConnectionOptions, prefix: queuePrefix });
      const worker = new Worker(queueName(name), () => Promise.resolve(result), {
        connection: redisOptions(redis.url) as ConnectionOptions,
        prefix: queuePrefix,
      });
      const client = new Redis(redis.url);
      try {
        await client.hset(keys.run, 'collectionId', 'earlier-run');
        await client.hset(keys.enqueued, jobId, JSON.stringify({ url: page(1), batch, depth: 0 }));
        await queue.add('page', { url: page(1), batch, depth: 0 }, { jobId, attempts: 1 });
        for (let tries = 0; (await queue.getJobState(jobId)) !== 'completed'; tries++) {
          if (tries > 200) throw new Error('The staged page was not completed within 200 looks.');
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        await worker.close();
        await client.sadd(keys.committed, jobId);
        for (const data of result.records) {
          await client.set(keys.record(String(data.id)), jobId);
          await client.xadd(
            keys.records,
            '*',
            'record',
            JSON.stringify({ data, source: page(1), collectedAt: new Date().toISOString(), key: String(data.id) }),
          );
        }
        const outcome = { url: page(1), batch, status: 'done', records: 3, duplicates: 0, invalid: 0, usage: emptyUsage };
        await client.xadd(keys.pages, '*', 'page', JSON.stringify(outcome), 'job', jobId);
      } finally {
        await worker.close();
        await queue.close();
        client.disconnect();
      }
      const { summary, records, browsers } = await runCollection({
        name,
        pages: listing({ pages: 3, perPage: 3 }),
        coordinator: { start: page(1), checkEvery: 100 },
      });
      expect(summary).toMatchObject({ reason: 'done', pagesDone: 3, records: 9, duplicates: 0 });
      // This run streams only what it committed; Redis holds every record once.
      expect(ids(records)).toEqual(range(4, 9));
      expect(await storedIds(name)).toEqual(range(1, 9));
      expect(loaded(browsers)).toEqual([page(2), page(3)]);
    });
  });

  describe('pause, resume and cancel', () => {
    const page = (number: number): string => `https://site.test/list?page=${number}`;

    /** Waits, at most 200 looks, until the collection's queue is paused in Redis. */
    async function untilPaused(name: string): Promise<void> {
      const queue = new Queue(queueName(name), { connection: redisOptions(redis.url) as ConnectionOptions, prefix: queuePrefix });
      try {
        for (let tries = 0; !(await queue.isPaused()); tries++) {
          if (tries > 200) throw new Error('The queue was not paused.');
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      } finally {
        await queue.close();
      }
    }

    /** Waits, at most 200 looks, until the collection's queue holds `waiting` waiting pages and none in a worker's hands. */
    async function untilIdle(name: string, waiting: number): Promise<void> {
      const queue = new Queue(queueName(name), { connection: redisOptions(redis.url) as ConnectionOptions, prefix: queuePrefix });
      try {
        for (let tries = 0; ; tries++) {
          const counts = await queue.getJobCounts('waiting', 'active');
          if (counts.waiting === waiting && counts.active === 0) return;
          if (tries > 200) throw new Error(`The queue did not settle on ${waiting} waiting pages: ${JSON.stringify(counts)}.`);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      } finally {
        await queue.close();
      }
    }

    it('pause: workers take no new page (a check meanwhile does not undo it), the page in flight is committed; resume goes on', async () => {
      const name = freshName();
      const inFlight = gate();
      let loadedWhilePaused: unknown[] = [];
      const run = runCollection({
        name,
        pages: listing({ pages: 4, perPage: 2 }),
        // Page 2 is in the worker's hands when the run is paused.
        model: () => siteModel({ hold: (text) => (text.includes('Item 3:') ? inFlight.promise : undefined) }),
        coordinator: { urls: [1, 2, 3, 4].map(page), checkEvery: 1 },
        onEvent: {
          'collect-page': (event, { coordinator, browsers }) => {
            if (event.url === page(1)) {
              coordinator.pause();
              void untilPaused(name).then(inFlight.open);
            }
            if (event.url === page(2))
              void untilIdle(name, 2).then(() => {
                loadedWhilePaused = loaded(browsers);
                coordinator.resume();
              });
          },
        },
      });
      const { summary, events, records } = await run;
      expect(loadedWhilePaused).toEqual([page(1), page(2)]);
      expect(summary).toMatchObject({ reason: 'done', pagesDone: 4, records: 8 });
      expect(ids(records)).toEqual(range(1, 8));
      expect((events['collect-check'] ?? []).length).toBe(3);
      expect([events['collect-pause']?.length, events['collect-resume']?.length]).toEqual([1, 1]);
    });

    it('cancel while paused: the run ends cancelled with the pages left counted, and a coordinator started again reads them', async () => {
      const name = freshName();
      const inFlight = gate();
      const first = await runCollection({
        name,
        pages: listing({ pages: 4, perPage: 2 }),
        model: () => siteModel({ hold: (text) => (text.includes('Item 3:') ? inFlight.promise : undefined) }),
        coordinator: { urls: [1, 2, 3, 4].map(page), checkEvery: 100 },
        onEvent: {
          'collect-page': (event, { coordinator }) => {
            if (event.url !== page(1)) return;
            coordinator.pause();
            void untilPaused(name)
              .then(inFlight.open)
              .then(() => untilIdle(name, 2))
              .then(() => coordinator.cancel('enough for today'));
          },
        },
      });
      expect(first.summary.reason).toBe('cancelled');
      // One worker: at most the own page it had taken when the run was cancelled was read then.
      expect(first.summary.detailPages).toBeLessThanOrEqual(1);
      expect(first.summary.message).toBe('enough for today');
      // Page 2 ended while paused: committed, or left for the next coordinator to commit.
      expect(first.summary.pagesDone + first.summary.pagesQueued).toBe(4);
      expect(loaded(first.browsers)).toEqual([page(1), page(2)]);
      const second = await runCollection({ name, pages: listing({ pages: 4, perPage: 2 }), coordinator: { urls: [1, 2, 3, 4].map(page), checkEvery: 100 } });
      expect(second.events['collect-start']).toMatchObject([{ resumed: true }]);
      expect(second.summary).toMatchObject({ reason: 'done', pagesDone: 4, records: 8, duplicates: 0 });
      expect(await storedIds(name)).toEqual(range(1, 8));
      expect(loaded(second.browsers)).toEqual([page(3), page(4)]);
    });
  });
});

describe('a Redis that loses the collection’s state', () => {
  const page = (number: number): string => `https://site.test/list?page=${number}`;

  it('Redis restarted empty (no persistence) mid-run: the run ends failed with a CONFIG_ERROR that says what to do, within a bounded time', async () => {
    const server = await startRedis();
    let restarted: RedisServer | undefined;
    let coordinator: CollectionCoordinator<Item> | undefined;
    const inFlight = gate();
    try {
      const run = runCollection({
        connection: server.url,
        pages: listing({ pages: 4, perPage: 2 }),
        // Page 2 is in the worker's hands while Redis goes away and comes back empty.
        model: () => siteModel({ hold: (text) => (text.includes('Item 3:') ? inFlight.promise : undefined) }),
        coordinator: { urls: [1, 2, 3, 4].map(page), checkEvery: 100 },
        onEvent: {
          'collect-start': (_event, running) => void (coordinator = running.coordinator),
          'collect-page': (event) => {
            if (event.url !== page(1)) return;
            void (async () => {
              await server.stop();
              restarted = await startRedis({ port: server.port });
              inFlight.open();
            })();
          },
        },
      });
      const ended = await Promise.race([run, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 30_000))]);
      expect(ended).not.toBe('hung');
      const { summary } = ended as Run;
      expect(summary.reason).toBe('failed');
      expect(summary.error).toMatchObject({ code: 'CONFIG_ERROR' });
      expect(summary.message).toMatch(/lost the collection/);
      expect(summary.message).toMatch(/persistence/);
      expect(summary.pagesDone).toBe(1);
      // The worker says once that Redis went away, once that it is back, once that its page was lost: no more.
      const warnings = (ended as Run).workerEvents.filter((event) => event.type === 'warning').map((event) => event.code);
      expect(warnings.length).toBeLessThanOrEqual(4);
      expect(warnings.filter((code) => code === 'REDIS_UNAVAILABLE')).toHaveLength(1);
    } finally {
      inFlight.open();
      coordinator?.cancel();
      await restarted?.stop();
      await server.stop();
    }
  }, 60_000);
});

describe('a page job that vanished while the run survives', () => {
  it('is enqueued again (PAGE_JOB_LOST) and read: the run completes', async () => {
    const page = (number: number): string => `https://site.test/list?page=${number}`;
    const name = freshName();
    const inFlight = gate();
    const warnings: string[] = [];
    const { summary, records } = await runCollection({
      name,
      pages: listing({ pages: 3, perPage: 2 }),
      // Page 2 is in the worker's hands while page 3's job is removed behind the coordinator's back.
      model: () => siteModel({ hold: (text) => (text.includes('Item 3:') ? inFlight.promise : undefined) }),
      coordinator: { urls: [1, 2, 3].map(page), checkEvery: 100 },
      onEvent: {
        'collect-warning': (event) => void warnings.push(event.code),
        'collect-page': (event) => {
          if (event.url !== page(1)) return;
          const queue = new Queue(queueName(name), { connection: redisOptions(redis.url) as ConnectionOptions, prefix: queuePrefix });
          void queue
            .remove(pageJobId(page(3)))
            .finally(() => queue.close())
            .then(inFlight.open);
        },
      },
    });
    expect(warnings).toEqual(['PAGE_JOB_LOST']);
    expect(summary).toMatchObject({ reason: 'done', pagesDone: 3, records: 6 });
    expect(ids(records)).toEqual(range(1, 6));
  });
});

describe('page retries', () => {
  it('a page that fails transiently is tried again after a backoff and counts as done; one that fails every attempt is failed once, with its attempts', async () => {
    const page = (number: number): string => `https://site.test/list?page=${number}`;
    // Page 2 shows a server error on its first two loads, page 3 on every load.
    const pages = listing({ pages: 3, perPage: 2 });
    const loads = new Map<string, number>();
    const errorPage: FakePage = { title: 'Error', content: ['500 Internal Server Error'] };
    const flaky = (url: string, failures: number): FakePage =>
      new Proxy(pages[url] as FakePage, {
        get: (target, property: keyof FakePage) => ((loads.get(url) ?? 0) <= failures ? errorPage[property] : target[property]),
      });
    const { summary, events, records, workerEvents, name, models } = await runCollection({
      pages: { [page(1)]: pages[page(1)] as FakePage, [page(2)]: flaky(page(2), 2), [page(3)]: flaky(page(3), Number.POSITIVE_INFINITY) },
      workers: 2,
      coordinator: {
        urls: [1, 2, 3].map(page),
        checkEvery: 100,
        maxFailures: 2,
        retry: { attempts: 3, minDelayMs: 50, factor: 2 },
      },
      onLoad: (url) => void loads.set(url, (loads.get(url) ?? 0) + 1),
    });
    expect(summary).toMatchObject({ reason: 'done', pagesDone: 2, pagesFailed: 1, records: 4, batchesAbandoned: 0 });
    expect(ids(records)).toEqual([1, 2, 3, 4]);
    // The model calls of the attempts that failed are counted too.
    expect(summary.usage.calls).toBe(models.reduce((total, model) => total + model.requests.length, 0));
    // Each worker's calls, in order: s survey and e extraction of a page that loaded, x survey and y
    // extraction of an error page. A worker that does not know the template yet surveys first: an
    // error page fails on that survey (x), a good one is learnt (s e). Once it knows the template, a
    // page is extracted first: records end it (e); none (y) call for a fresh survey, which fails (y x).
    const token = (request: ScriptedRequest): string => {
      const error = request.lastUserText.includes('500 Internal Server Error');
      return request.output?.name === 'collect_survey' ? (error ? 'x' : 's') : request.output?.name === 'collect_extract' ? (error ? 'y' : 'e') : '?';
    };
    const calls = models.map((model) => model.requests.map(token).join(''));
    for (const sequence of calls) expect(sequence).toMatch(/^x*(se(yx|e)*)?$/);
    const count = (letter: string): number => calls.join('').split(letter).length - 1;
    // Every failed attempt (two of page 2, three of page 3) ends on a survey that says error page; pages 1 and 2 are each extracted once.
    expect([count('x'), count('e')]).toEqual([5, 2]);
    // Page 1 is read first, by a worker that knows nothing yet: at least one survey of a good page, at most one per worker.
    expect(count('s')).toBeGreaterThanOrEqual(1);
    expect(count('s')).toBeLessThanOrEqual(2);
    // Was 2 + (2 + 2) + 3 when every attempt was surveyed: now an extraction comes first on a worker that knows the template.
    expect(summary.usage.calls).toBe(count('s') + 2 + 5 + count('y'));
    expect([loads.get(page(1)), loads.get(page(2)), loads.get(page(3))]).toEqual([1, 3, 3]);
    // Only the last failure counts: one collect-failure, one in a row, the batch not given up.
    expect((events['collect-failure'] ?? []).map((event) => [event.url, event.consecutiveFailures, event.abandoned])).toEqual([[page(3), 1, false]]);
    const retries = workerEvents.filter((event) => event.type === 'page-retry');
    expect(retries.filter((event) => event.url === page(2)).map((event) => [event.attempt, event.delayMs])).toEqual([
      [1, 50],
      [2, 100],
    ]);
    // Each retry waited out its backoff.
    for (const url of [page(2), page(3)]) {
      const starts = workerEvents.filter((event) => event.type === 'page-start' && event.url === url).map((event) => event.timestamp);
      expect(starts).toHaveLength(3);
      expect((starts[1] as number) - (starts[0] as number)).toBeGreaterThanOrEqual(45);
      expect((starts[2] as number) - (starts[1] as number)).toBeGreaterThanOrEqual(95);
    }
    const outcomes = await storedOutcomes(name);
    expect(outcomes.map((outcome) => [outcome.url, outcome.status, outcome.attempts]).sort()).toEqual([
      [page(1), 'done', 1],
      [page(2), 'done', 3],
      [page(3), 'failed', 3],
    ]);
    expect(outcomes.find((outcome) => outcome.url === page(3))?.error).toMatch(/error page/);
  });

  it('rejects a bad retry option with a ConfigError naming the field', () => {
    expect(() =>
      createCollectionCoordinator<Item>({
        connection: redis.url,
        name: freshName(),
        llm: siteModel(),
        schema: Item,
        instruction: 'x',
        urls: ['https://site.test/'],
        retry: { attempts: 0 },
      }),
    ).toThrow(/Option `retry.attempts` must be a positive integer, got 0/);
  });
});

describe('per-host politeness across workers', () => {
  it('perHost { maxConcurrent: 1, delayMs }: two workers never read two pages of one host at once, and starts on a host are delayMs apart', async () => {
    const hosts = ['site.test', 'other.test'];
    const pages = { ...listing({ pages: 4, perPage: 1 }), ...listing({ pages: 4, perPage: 1, host: 'other.test', firstId: 101 }) };
    const delayMs = 150;
    const { summary, workerEvents } = await runCollection({
      pages,
      model: () => siteModel({ latencyMs: 40 }),
      workers: 2,
      coordinator: {
        urls: hosts.flatMap((host) => [1, 2, 3, 4].map((page) => `https://${host}/list?page=${page}`)),
        checkEvery: 100,
        perHost: { maxConcurrent: 1, delayMs },
      },
    });
    expect(summary).toMatchObject({ reason: 'done', pagesDone: 8, records: 8 });
    const hostOf = (url: string): string => new URL(url).host;
    const active = new Map<string, number>();
    let most = 0;
    for (const event of workerEvents) {
      const host = hostOf(event.url);
      if (event.type === 'page-start') active.set(host, (active.get(host) ?? 0) + 1);
      if (event.type === 'page-end') active.set(host, (active.get(host) ?? 0) - 1);
      most = Math.max(most, active.get(host) ?? 0);
    }
    expect(most).toBe(1);
    for (const host of hosts) {
      const starts = workerEvents.filter((event) => event.type === 'page-start' && hostOf(event.url) === host).map((event) => event.timestamp);
      expect(starts).toHaveLength(4);
      // The slots are taken delayMs apart by Redis's clock; the events come a moment after, a moment that varies
      // under load. Without the delay, starts on a host are one page apart (about 45 ms here), well under this bound.
      for (let index = 1; index < starts.length; index++)
        expect((starts[index] as number) - (starts[index - 1] as number)).toBeGreaterThanOrEqual(delayMs - 50);
    }
    // Both workers read pages, and the two hosts were read at the same time.
    expect(new Set(workerEvents.map((event) => event.worker)).size).toBe(2);
  });
});

describe('records completed from their own pages (details)', () => {
  const Listed = z.object({ id: z.number().int(), name: z.string(), price: z.number(), page: z.string() });
  type Listed = z.output<typeof Listed>;
  const listUrl = (page: number): string => `https://site.test/list?page=${page}`;
  const ownUrl = (id: number): string => `https://site.test/item/${id}`;

  /** Listings that show no price, only each record's own page; the own pages show the price, but /item/3's does not. */
  function site(): Record<string, FakePage> {
    return {
      [listUrl(1)]: {
        title: 'List page 1',
        content: ['Listed 1: Widget 1 at /item/1', 'Listed 2: Widget 2 at /item/2', 'Listed 3: Widget 3 at /item/3', link('Page 2', listUrl(2))],
      },
      // Record 1 is listed again, with the same own page.
      [listUrl(2)]: { title: 'List page 2', content: ['Listed 1: Widget 1 at /item/1', 'Listed 4: Widget 4 at /item/4'] },
      [ownUrl(1)]: { title: 'Widget 1', content: ['Item 1: Widget 1, price 10'] },
      [ownUrl(2)]: { title: 'Widget 2', content: ['Item 2: Widget 2, price 20'] },
      [ownUrl(3)]: { title: 'Widget 3', content: ['Item 3: Widget 3, no price given'] },
      [ownUrl(4)]: { title: 'Widget 4', content: ['Item 4: Widget 4, price 40'] },
    };
  }

  /** Reads listings ("Listed N: Widget N at /item/N", no price) and own pages ("Item N: Widget N, price P"). */
  function detailModel(): ScriptedLLM {
    return new ScriptedLLM({
      respond: (request) => {
        const text = request.lastUserText;
        switch (request.output?.name) {
          case 'collect_survey':
            return {
              object: {
                page_error: '',
                blocked_by: '',
                next_pages: [...text.matchAll(/<a[^>]*>Page (\d+) \/>/g)].map((match) => `/list?page=${match[1] as string}`),
                load_more_index: null,
                infinite_scroll: false,
              },
            };
          case 'collect_extract': {
            const listed = [...text.matchAll(/Listed (\d+): (Widget \d+) at (\S+)/g)].map((match) => ({
              id: Number(match[1]),
              name: match[2],
              page: match[3],
            }));
            const full = [...text.matchAll(/Item (\d+): (Widget \d+)(?:, price (\d+))?/g)].map((match) => ({
              id: Number(match[1]),
              name: match[2],
              ...(match[3] === undefined ? {} : { price: Number(match[3]) }),
            }));
            return { object: { records: [...listed, ...full] } };
          }
          case 'collect_check':
            return { object: { decision: 'continue', reason: 'fine', instruction: '' } };
          default:
            return { fail: 'status', status: 400, message: `unexpected call ${request.output?.name ?? ''}` };
        }
      },
    });
  }

  /** Runs (or resumes) the collection `name` with `workers` workers; `onPage` sees each committed page. */
  async function collectDetails(options: {
    name: string;
    workers: number;
    details?: CollectionCoordinatorOptions<Listed>['details'];
    urlPolicy?: CollectionCoordinatorOptions<Listed>['urlPolicy'];
    /** A URL whose loading fails in every worker's browser. */
    failOn?: string;
    onPage?: (event: CollectorEventMap<Listed>['collect-page'], coordinator: CollectionCoordinator<Listed>) => void;
  }) {
    const coordinator = createCollectionCoordinator<Listed>({
      connection: redis.url,
      name: options.name,
      llm: detailModel(),
      schema: Listed,
      instruction: 'every widget: id, name, price, own page',
      key: (item) => String(item.id),
      details: options.details ?? true,
      urlPolicy: options.urlPolicy,
      start: listUrl(1),
      checkEvery: 100,
      modelRetry: fastRetry,
      retry: { attempts: 1 },
      pollInterval: 20,
    });
    const rejectEvents: RejectedRecord[] = [];
    coordinator.on('collect-reject', ({ reject }) => void rejectEvents.push(reject));
    coordinator.on('collect-page', (event) => options.onPage?.(event, coordinator));
    const browsers: FakeBrowserDriver[] = [];
    const workers: CollectionWorker[] = [];
    try {
      const kept: CollectedRecord<Listed>[] = [];
      const reading = (async () => {
        for await (const record of coordinator.records()) kept.push(record);
      })();
      for (let index = 0; index < options.workers; index++) {
        const browser = new FakeBrowserDriver({ pages: site() });
        const goto = browser.goto.bind(browser);
        browser.goto = (url, callOptions) => (url === options.failOn ? Promise.reject(new Error('the server closed the connection')) : goto(url, callOptions));
        browsers.push(browser);
        workers.push(await createCollectionWorker({ connection: redis.url, name: options.name, llm: detailModel(), browser, schema: Listed }));
      }
      const summary = await coordinator.run();
      await reading;
      return { summary, kept, rejectEvents, browsers };
    } finally {
      await Promise.all(workers.map((worker) => worker.close()));
      await coordinator.close();
    }
  }

  async function storedRejects(name: string): Promise<RejectedRecord[]> {
    const rejects: RejectedRecord[] = [];
    for await (const reject of readCollectionRejects({ connection: redis.url, name })) rejects.push(reject);
    return rejects;
  }

  it('two workers complete the listed records from their own pages, each own page read once; one whose own page lacks the field is rejected with the reason', async () => {
    const name = freshName();
    const { summary, kept, rejectEvents, browsers } = await collectDetails({ name, workers: 2 });
    expect(summary).toMatchObject({ reason: 'done', records: 3, rejected: 1, detailPages: 4, duplicates: 1, pagesFailed: 0, pagesDone: 6 });
    expect(kept.map((record) => [record.data.id, record.data.price, record.source]).sort((a, b) => (a[0] as number) - (b[0] as number))).toEqual([
      [1, 10, listUrl(1)],
      [2, 20, listUrl(1)],
      [4, 40, listUrl(2)],
    ]);
    expect(kept.every((record) => /\/item\/\d$/.test(record.data.page))).toBe(true);
    const rejects = await storedRejects(name);
    expect(rejects).toHaveLength(1);
    expect(rejects[0]).toMatchObject({ data: { id: 3, name: 'Widget 3' }, source: listUrl(1), detail: ownUrl(3) });
    expect(rejects[0]?.reason).toMatch(/price/);
    expect(rejectEvents).toEqual(rejects);
    const gotos = loaded(browsers);
    for (const id of [1, 2, 3, 4]) expect(gotos.filter((url) => url === ownUrl(id))).toHaveLength(1);
    expect(gotos.filter((url) => url === listUrl(1))).toHaveLength(1);
    // Both workers took pages: the own pages were shared out.
    expect(browsers.every((browser) => browser.calls.some((call) => call.method === 'goto'))).toBe(true);
  });

  it('details.url names the own page; one the URL policy denies is rejected with why and never loaded, one that fails is rejected with its error', async () => {
    const name = freshName();
    // Record 2's own page is denied; record 4's fails to load (one attempt: failed at once).
    const own = (id: number): string => (id === 2 ? '/private/2' : `/item/${id}`);
    const { summary, kept, browsers, rejectEvents } = await collectDetails({
      name,
      workers: 1,
      details: { url: (record) => own((record as { id: number }).id) },
      urlPolicy: { deny: ['https://site.test/private/2'] },
      failOn: ownUrl(4),
    });
    expect(kept.map((record) => record.data.id)).toEqual([1]);
    expect(summary).toMatchObject({ reason: 'done', records: 1, rejected: 3, invalid: 3, detailPages: 2, pagesFailed: 1 });
    const rejects = await storedRejects(name);
    expect(rejects.map((reject) => (reject.data as Listed).id).sort()).toEqual([2, 3, 4]);
    const reasonOf = (id: number): string | undefined => rejects.find((reject) => (reject.data as Listed).id === id)?.reason;
    expect(reasonOf(2)).toMatch(/price.*its own page https:\/\/site\.test\/private\/2 may not be loaded/s);
    expect(reasonOf(3)).toMatch(/price/);
    expect(reasonOf(4)).toMatch(/^its own page failed after 1 attempt\(s\): .*closed the connection/);
    expect(rejects.find((reject) => (reject.data as Listed).id === 4)).toMatchObject({ source: listUrl(2), detail: ownUrl(4) });
    expect(rejectEvents).toEqual(rejects);
    expect(loaded(browsers)).not.toContain('https://site.test/private/2');
  });

  it('resumed after a cancel right after the listing page: the own pages queued then are read by the next coordinator, once', async () => {
    const name = freshName();
    const first = await collectDetails({
      name,
      workers: 1,
      onPage: (event, coordinator) => {
        if (event.url === listUrl(1)) coordinator.cancel('stop here');
      },
    });
    expect(first.summary.reason).toBe('cancelled');
    // One worker: at most the own page it had taken when the run was cancelled was read then.
    expect(first.summary.detailPages).toBeLessThanOrEqual(1);
    const second = await collectDetails({ name, workers: 1 });
    expect(second.summary).toMatchObject({ reason: 'done', records: 3, rejected: 1, duplicates: 1 });
    expect(await storedIds(name)).toEqual([1, 2, 4]);
    const gotos = loaded([...first.browsers, ...second.browsers]);
    for (const id of [1, 2, 3, 4]) expect(gotos.filter((url) => url === ownUrl(id))).toHaveLength(1);
    expect(await storedRejects(name)).toHaveLength(1);
  });
});
