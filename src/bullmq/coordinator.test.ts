// The BullMQ coordinator against a real redis-server (test/helpers/redis-server.ts) with in-process
// workers over fake browsers and a scripted model: what reaches the summary, the budget, the checks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startRedis, type RedisServer } from '../../test/helpers/redis-server';
import type { CollectionSummary, CollectorEventMap } from '../collect/events';
import { FakeBrowserDriver, type FakeElement, type FakePage, ScriptedLLM, type ScriptedRequest, type ScriptedResponse } from '../testing/index';
import { createCollectionCoordinator, type CollectionCoordinatorOptions } from './coordinator';
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

/** The scripted model reads what it is shown; `check` answers the progress checks. */
function siteModel(options: { check?: (request: ScriptedRequest) => ScriptedResponse; latencyMs?: number } = {}): ScriptedLLM {
  return new ScriptedLLM({
    latencyMs: options.latencyMs,
    respond: (request) => {
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
          return { object: { records: [...text.matchAll(/Item (\d+): (Widget \d+)/g)].map((match) => ({ id: Number(match[1]), name: match[2] })) } };
        case 'collect_check':
          return options.check?.(request) ?? { object: { decision: 'continue', reason: 'fine', instruction: '' } };
        default:
          return { fail: 'status', status: 400, message: `unexpected call ${request.output?.name ?? ''}` };
      }
    },
  });
}

let redis: RedisServer;
let collections = 0;

beforeAll(async () => {
  redis = await startRedis();
}, 20_000);

afterAll(async () => {
  await redis?.stop();
});

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
  pages: Record<string, FakePage>;
  model?: () => ScriptedLLM;
  planner?: ScriptedLLM;
  workers?: number;
  coordinator: Omit<CollectionCoordinatorOptions<Item>, 'connection' | 'name' | 'llm' | 'schema' | 'instruction'> & { instruction?: string };
  onWorker?: (worker: CollectionWorker, model: ScriptedLLM) => void;
}): Promise<Run & { models: ScriptedLLM[]; name: string }> {
  const name = `unit-${++collections}`;
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
  for (const event of ['collect-start', 'collect-page', 'collect-failure', 'collect-check', 'collect-model-call', 'collect-end'] as const)
    coordinator.on(event, (payload) => void (events[event] ??= []).push(payload));
  const models: ScriptedLLM[] = [];
  const workers: CollectionWorker[] = [];
  try {
    const records: Item[] = [];
    const reading = (async () => {
      for await (const record of coordinator.records()) records.push(record.data);
    })();
    for (let index = 0; index < (options.workers ?? 1); index++) {
      const model = options.model?.() ?? siteModel();
      models.push(model);
      const worker = await createCollectionWorker({
        connection: redis.url,
        name,
        llm: model,
        browser: new FakeBrowserDriver({ pages: options.pages }),
        schema: Item,
      });
      options.onWorker?.(worker, model);
      workers.push(worker);
    }
    const summary = await coordinator.run();
    await reading;
    return { summary, events, records, models, name };
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
    expect(records.map((item) => item.id).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
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
});
