// The BullMQ coordinator against a real redis-server (test/helpers/redis-server.ts) with in-process
// workers over fake browsers and a scripted model: what reaches the summary, the budget, the checks.
import { Queue, Worker, type ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startRedis, type RedisServer } from '../../test/helpers/redis-server';
import type { CollectionSummary, CollectorEventMap } from '../collect/events';
import type { CollectedRecord } from '../collect/store';
import { emptyUsage } from '../llm/usage';
import { FakeBrowserDriver, type FakeElement, type FakePage, ScriptedLLM, type ScriptedRequest, type ScriptedResponse } from '../testing/index';
import { createCollectionCoordinator, type CollectionCoordinator, type CollectionCoordinatorOptions } from './coordinator';
import { keysOf, pageJobId, queueName, queuePrefix, redisOptions, type PageJobResult } from './protocol';
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
 * survey text `hold` gives a promise for is answered only once that promise resolves.
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
          await options.hold?.(text);
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

/** The coordinator and the workers' browsers of a collection being run, for event listeners. */
interface Running {
  readonly coordinator: CollectionCoordinator<Item>;
  readonly browsers: readonly FakeBrowserDriver[];
}

interface Run {
  readonly summary: CollectionSummary;
  readonly events: { readonly [K in keyof CollectorEventMap<Item>]?: CollectorEventMap<Item>[K][] };
  readonly records: Item[];
}

/**
 * Runs one collection (a fresh name) with `workers` in-process workers, each over its own fake
 * browser of `pages` and its own `model`; the coordinator's planner is `planner`.
 */
async function runCollection(options: {
  name?: string;
  pages: Record<string, FakePage>;
  model?: () => ScriptedLLM;
  planner?: ScriptedLLM;
  workers?: number;
  coordinator: Omit<CollectionCoordinatorOptions<Item>, 'connection' | 'name' | 'llm' | 'schema' | 'instruction'> & { instruction?: string };
  onEvent?: { readonly [K in keyof CollectorEventMap<Item>]?: (event: CollectorEventMap<Item>[K], run: Running) => void };
}): Promise<Run & { models: ScriptedLLM[]; browsers: FakeBrowserDriver[]; name: string }> {
  const name = options.name ?? freshName();
  const coordinator = createCollectionCoordinator<Item>({
    connection: redis.url,
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
  try {
    const records: Item[] = [];
    const reading = (async () => {
      for await (const record of coordinator.records()) records.push(record.data);
    })();
    for (let index = 0; index < (options.workers ?? 1); index++) {
      const model = options.model?.() ?? siteModel();
      const browser = new FakeBrowserDriver({ pages: options.pages });
      models.push(model);
      browsers.push(browser);
      workers.push(await createCollectionWorker({ connection: redis.url, name, llm: model, browser, schema: Item }));
    }
    const summary = await coordinator.run();
    await reading;
    return { summary, events, records, models, browsers, name };
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
    expect(byRole('navigator')).toBe(3);
    // Each call waited 5 ms for its answer: the workers' model time reaches the coordinator.
    for (const call of calls) expect(call.durationMs).toBeGreaterThan(0);
    expect(calls.every((call) => call.provider === 'scripted' && call.error === undefined)).toBe(true);
    expect(summary.usage.calls).toBe(calls.length);
  });

  it('gives up a batch after maxFailures failed pages in a row: its waiting pages are dropped, a page already taken ends, other batches go on', async () => {
    const pages = { ...listing({ pages: 6, perPage: 3, broken: [2, 3] }), ...listing({ pages: 2, perPage: 3, host: 'other.test', firstId: 101 }) };
    const abandoned = gate();
    const { summary, events, records } = await runCollection({
      pages,
      // Page 4 is in the worker's hands when its batch is given up; pages 5 and 6 wait behind it.
      model: () => siteModel({ hold: (text) => (text.includes('Item 10:') ? abandoned.promise : undefined) }),
      coordinator: {
        urls: [...[1, 2, 3, 4, 5, 6].map((page) => `https://site.test/list?page=${page}`), 'https://other.test/list?page=1'],
        maxFailures: 2,
        checkEvery: 100,
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
    const surveys = models.flatMap((model) => model.requests).filter((request) => request.output?.name === 'collect_survey');
    const instructionOf = (page: number): string | undefined => {
      const survey = surveys.find((request) => request.lastUserText.includes(`Item ${2 * page - 1}:`));
      return /The crawler collects: (.*)/.exec(survey?.lastUserText ?? '')?.[1];
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
