import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError } from '../errors';
import {
  FakeBrowserDriver,
  type FakeElement,
  type FakePage,
  ScriptedLLM,
  type ScriptedRequest,
  type ScriptedResponse,
  scriptedActions,
} from '../testing/index';
import { Collector, collect } from './collector';
import type { CollectorEventMap } from './events';
import { memoryCollectionStore } from './store';

const Item = z.object({ id: z.number().int(), name: z.string(), price: z.number() });
type Item = z.output<typeof Item>;

const fastRetry = { retries: 0, minTimeout: 1, maxTimeout: 1 };

/** A link to another page of the listing; the fake state shows its text, not its href. */
function link(text: string, href: string): FakeElement {
  return { tag: 'a', text, href, attributes: { href } };
}

/** A listing of `pages` pages of `perPage` items each at https://site.test/list?page=N, linked by "Next". */
function listing(options: {
  pages: number;
  perPage: number;
  host?: string;
  broken?: readonly number[];
  overlap?: boolean;
  firstId?: number;
}): Record<string, FakePage> {
  const host = options.host ?? 'site.test';
  const pages: Record<string, FakePage> = {};
  for (let page = 1; page <= options.pages; page++) {
    const url = `https://${host}/list?page=${page}`;
    if (options.broken?.includes(page)) {
      pages[url] = { title: 'Error', content: ['500 Internal Server Error'] };
      continue;
    }
    const first = (page - 1) * options.perPage + (options.firstId ?? 1);
    const items = Array.from({ length: options.perPage }, (_, offset) => `Item ${first + offset}: Widget ${first + offset}, price ${first + offset}0`);
    // With overlap, each page repeats the last item of the previous one (a listing that shifted).
    if (options.overlap && page > 1) items.unshift(`Item ${first - 1}: Widget ${first - 1}, price ${first - 1}0`);
    const next = page < options.pages ? [link(`Page ${page + 1}`, `https://${host}/list?page=${page + 1}`)] : [];
    pages[url] = { title: `List page ${page}`, content: [...items, ...next] };
  }
  return pages;
}

/** The scripted model: reads what it is shown, like a model would. */
function siteModel(options: { check?: (request: ScriptedRequest) => ScriptedResponse; latencyMs?: number; acceptIndex?: boolean } = {}): ScriptedLLM {
  return new ScriptedLLM({
    latencyMs: options.latencyMs,
    respond: (request) => {
      const text = request.lastUserText;
      switch (request.output?.name) {
        case 'collect_survey': {
          // Relative hrefs, as a page writes them: the collector resolves them against the page.
          const hrefs = [...text.matchAll(/<a[^>]*>Page (\d+) \/>/g)].map((match) => `/list?page=${match[1] as string}`);
          const loadMore = /\[(\d+)\]<button[^>]*>Load more/.exec(text);
          return {
            object: {
              page_error: text.includes('500 Internal Server Error') ? '500 Internal Server Error' : '',
              blocked_by: text.includes('Accept cookies') ? 'accept the cookie banner' : '',
              blocked_by_index:
                options.acceptIndex && /\[(\d+)\]<button[^>]*>Accept cookies/.exec(text)
                  ? Number(/\[(\d+)\]<button[^>]*>Accept cookies/.exec(text)?.[1])
                  : null,
              next_pages: hrefs,
              load_more_index: loadMore ? Number(loadMore[1]) : null,
              infinite_scroll: false,
            },
          };
        }
        case 'collect_extract': {
          if (text.includes('Accept cookies')) return { object: { records: [] } };
          const records = [...text.matchAll(/Item (\d+): (Widget \d+), price (\d+)/g)].map((match) => ({
            id: Number(match[1]),
            name: match[2],
            price: match[3] === '130' ? 'not a number' : Number(match[3]),
          }));
          return { object: { records } };
        }
        case 'collect_check':
          return options.check?.(request) ?? { object: { decision: 'continue', reason: 'fine', instruction: '' } };
        case 'navigator_output': {
          const index = /\[(\d+)\]<button[^>]*>Accept cookies/.exec(text);
          return index ? scriptedActions([{ click_element: { index: Number(index[1]) } }]) : scriptedActions([{ done: { text: 'ready', success: true } }]);
        }
        default:
          return { fail: 'status', status: 400, message: `unexpected call ${request.output?.name ?? ''}` };
      }
    },
  });
}

function ids(records: readonly { data: Item }[]): number[] {
  return records.map((record) => record.data.id);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, index) => from + index);
}

describe('Collector', () => {
  it('collects every record of a paginated listing once, in order, streamed and tagged', async () => {
    const browser = new FakeBrowserDriver({ pages: listing({ pages: 4, perPage: 3 }) });
    const collector = collect({
      llm: siteModel(),
      browser,
      start: 'https://site.test/list?page=1',
      instruction: 'every item: id, name, price',
      schema: Item,
      key: (item) => String(item.id),
      modelRetry: fastRetry,
    });
    const streamed: { data: Item; source: string; collectedAt: string }[] = [];
    for await (const record of collector.records()) streamed.push(record);
    const summary = await collector.run();
    expect(ids(streamed)).toEqual(range(1, 12));
    expect(streamed[3]?.source).toBe('https://site.test/list?page=2');
    expect(Number.isNaN(Date.parse(streamed[0]?.collectedAt ?? ''))).toBe(false);
    expect(summary).toMatchObject({ reason: 'done', pagesDone: 4, pagesFailed: 0, records: 12, duplicates: 0, pagesQueued: 0 });
    expect(summary.usage.inputTokens).toBeGreaterThan(0);
    // Each page loaded once.
    expect(browser.calls.filter((call) => call.method === 'goto').map((call) => call.args[0])).toEqual(
      range(1, 4).map((page) => `https://site.test/list?page=${page}`),
    );
  });

  it('drops duplicates by key and invalid records, counting both', async () => {
    const browser = new FakeBrowserDriver({ pages: listing({ pages: 5, perPage: 3, overlap: true }) });
    const store = memoryCollectionStore<Item>();
    const summary = await new Collector({
      llm: siteModel(),
      browser,
      start: 'https://site.test/list?page=1',
      instruction: 'every item',
      schema: Item,
      key: (item) => String(item.id),
      store,
      modelRetry: fastRetry,
    }).run();
    // Item 13 has a price that is not a number: dropped, and counted.
    expect(ids(store.committed)).toEqual(range(1, 15).filter((id) => id !== 13));
    expect(summary).toMatchObject({ duplicates: 4, invalid: 1, records: 14 });
  });

  it('abandons a batch after maxFailures broken pages in a row, and goes on with the other sources', async () => {
    const pages = { ...listing({ pages: 8, perPage: 2, broken: [3, 4, 5] }), ...listing({ pages: 2, perPage: 2, host: 'other.test', firstId: 101 }) };
    // Page 2 links pages 3-8 at once (numbered pagination), so the broken ones are queued together.
    pages['https://site.test/list?page=2'] = {
      title: 'List page 2',
      content: [
        'Item 3: Widget 3, price 30',
        'Item 4: Widget 4, price 40',
        ...range(3, 8).map((page) => link(`Page ${page}`, `https://site.test/list?page=${page}`)),
      ],
    };
    const browser = new FakeBrowserDriver({ pages });
    const failures: CollectorEventMap['collect-failure'][] = [];
    const collector = new Collector({
      llm: siteModel(),
      browser,
      start: ['https://site.test/list?page=1', 'https://other.test/list?page=1'],
      instruction: 'every item',
      schema: Item,
      key: (item) => `${item.id}`,
      maxFailures: 3,
      // One attempt each: the budget counts pages that failed all their attempts (retries are tested below).
      retry: { attempts: 1 },
      modelRetry: fastRetry,
    });
    collector.on('collect-failure', (event) => void failures.push(event));
    const summary = await collector.run();
    expect(failures.map((failure) => [failure.url, failure.consecutiveFailures, failure.abandoned])).toEqual([
      ['https://site.test/list?page=3', 1, false],
      ['https://site.test/list?page=4', 2, false],
      ['https://site.test/list?page=5', 3, true],
    ]);
    expect(failures[2]?.dropped).toBe(3);
    expect(summary).toMatchObject({ reason: 'done', pagesFailed: 3, pagesAbandoned: 3, batchesAbandoned: 1, records: 8 });
    const visited = browser.calls.filter((call) => call.method === 'goto').map((call) => call.args[0]);
    expect(visited).toContain('https://other.test/list?page=2');
    expect(visited).not.toContain('https://site.test/list?page=6');
  });

  it('ends when a progress check says stop, with its reason, in the events and the history', async () => {
    const llm = siteModel({ check: () => ({ object: { decision: 'stop', reason: 'enough widgets', instruction: '' } }) });
    const checks: CollectorEventMap['collect-check'][] = [];
    const collector = new Collector({
      llm,
      browser: new FakeBrowserDriver({ pages: listing({ pages: 10, perPage: 1 }) }),
      start: 'https://site.test/list?page=1',
      instruction: 'every item',
      schema: Item,
      checkEvery: 3,
      modelRetry: fastRetry,
    });
    collector.on('collect-check', (event) => void checks.push(event));
    const summary = await collector.run();
    expect(summary).toMatchObject({ reason: 'stopped', message: 'enough widgets', pagesDone: 3, records: 3 });
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ decision: 'stop', pages: 3, reason: 'enough widgets' });
    expect(collector.history.checks).toEqual([expect.objectContaining({ decision: 'stop' })]);
    // The check saw the progress summary.
    expect(llm.requests.find((request) => request.output?.name === 'collect_check')?.lastUserText).toContain('Records kept: 3');
  });

  it('an adjust decision changes the instruction the next pages are read with', async () => {
    const llm = siteModel({ check: () => ({ object: { decision: 'adjust', reason: 'be precise', instruction: 'only widgets, with exact prices' } }) });
    await new Collector({
      llm,
      browser: new FakeBrowserDriver({ pages: listing({ pages: 3, perPage: 1 }) }),
      start: 'https://site.test/list?page=1',
      instruction: 'every item',
      schema: Item,
      checkEvery: 2,
      modelRetry: fastRetry,
    }).run();
    const extractions = llm.requests.filter((request) => request.output?.name === 'collect_extract').map((request) => request.lastUserText);
    expect(extractions[2]).toContain('only widgets, with exact prices');
    expect(extractions[1]).not.toContain('only widgets');
  });

  it('resumes from a store: finished pages are not read again and the output equals an uninterrupted run', async () => {
    const options = {
      start: 'https://site.test/list?page=1',
      instruction: 'every item',
      schema: Item,
      key: (item: Item) => String(item.id),
      modelRetry: fastRetry,
    };
    const whole = memoryCollectionStore<Item>();
    await new Collector({ ...options, llm: siteModel(), browser: new FakeBrowserDriver({ pages: listing({ pages: 6, perPage: 2 }) }), store: whole }).run();

    const store = memoryCollectionStore<Item>();
    const first = await new Collector({
      ...options,
      llm: siteModel(),
      browser: new FakeBrowserDriver({ pages: listing({ pages: 6, perPage: 2 }) }),
      store,
      maxPages: 2,
    }).run();
    expect(first).toMatchObject({ reason: 'max-pages', pagesDone: 2, pagesQueued: 1 });
    const browser = new FakeBrowserDriver({ pages: listing({ pages: 6, perPage: 2 }) });
    const resumed = new Collector({ ...options, llm: siteModel(), browser, store });
    const starts: boolean[] = [];
    resumed.on('collect-start', (event) => void starts.push(event.resumed));
    const second = await resumed.run();
    expect(starts).toEqual([true]);
    expect(second).toMatchObject({ reason: 'done', pagesDone: 6, records: 12 });
    expect(browser.calls.filter((call) => call.method === 'goto').map((call) => call.args[0])).toEqual(
      range(3, 6).map((page) => `https://site.test/list?page=${page}`),
    );
    const strip = (records: readonly { data: Item; source: string; key: string }[]) => records.map(({ data, source, key }) => ({ data, source, key }));
    expect(strip(store.committed)).toEqual(strip(whole.committed));
  });

  it('reads pages concurrently over two browsers, within the per-host limit', async () => {
    const pages = {
      ...listing({ pages: 3, perPage: 1, host: 'a.test' }),
      ...listing({ pages: 3, perPage: 1, host: 'b.test', firstId: 101 }),
      ...listing({ pages: 3, perPage: 1, host: 'c.test', firstId: 201 }),
    };
    const browsers = [new FakeBrowserDriver({ pages, latencyMs: 5 }), new FakeBrowserDriver({ pages, latencyMs: 5 })];
    let active = 0;
    let most = 0;
    const activeByHost = new Map<string, number>();
    let mostPerHost = 0;
    const collector = new Collector({
      llm: siteModel({ latencyMs: 5 }),
      browsers,
      concurrency: 2,
      perHost: { maxConcurrent: 1 },
      start: ['https://a.test/list?page=1', 'https://b.test/list?page=1', 'https://c.test/list?page=1'],
      instruction: 'every item',
      schema: Item,
      modelRetry: fastRetry,
    });
    collector.on('collect-page-start', ({ url }) => {
      const host = new URL(url).host;
      active++;
      most = Math.max(most, active);
      activeByHost.set(host, (activeByHost.get(host) ?? 0) + 1);
      mostPerHost = Math.max(mostPerHost, activeByHost.get(host) ?? 0);
    });
    const end = ({ url }: { url: string }) => {
      active--;
      const host = new URL(url).host;
      activeByHost.set(host, (activeByHost.get(host) ?? 1) - 1);
    };
    collector.on('collect-page', end).on('collect-failure', end);
    const summary = await collector.run();
    expect(summary).toMatchObject({ reason: 'done', pagesDone: 9, records: 9 });
    expect(most).toBe(2);
    expect(mostPerHost).toBe(1);
    for (const browser of browsers) expect(browser.calls.some((call) => call.method === 'goto')).toBe(true);
  });

  it('waits delayMs between two pages of one host', async () => {
    const starts: number[] = [];
    const collector = new Collector({
      llm: siteModel(),
      browser: new FakeBrowserDriver({ pages: listing({ pages: 3, perPage: 1 }) }),
      perHost: { delayMs: 60 },
      start: 'https://site.test/list?page=1',
      instruction: 'every item',
      schema: Item,
      modelRetry: fastRetry,
    });
    collector.on('collect-page-start', (event) => void starts.push(event.timestamp));
    await collector.run();
    expect(starts).toHaveLength(3);
    for (let index = 1; index < starts.length; index++) expect((starts[index] as number) - (starts[index - 1] as number)).toBeGreaterThanOrEqual(55);
  });

  it('cancel ends the run at once as cancelled, and the page in flight is left for a resumed run', async () => {
    const store = memoryCollectionStore<Item>();
    const llm = new ScriptedLLM({
      respond: (request) =>
        request.output?.name === 'collect_extract' && request.lastUserText.includes('page 2')
          ? { fail: 'hang' }
          : siteModel()
              .generate(request)
              .then((result) => ({ object: result.object })),
    });
    const collector = new Collector({
      llm,
      browser: new FakeBrowserDriver({ pages: listing({ pages: 3, perPage: 2 }) }),
      start: 'https://site.test/list?page=1',
      instruction: 'every item',
      schema: Item,
      store,
      modelRetry: fastRetry,
    });
    collector.on('collect-page-start', ({ url }) => {
      if (url.endsWith('page=2')) setTimeout(() => collector.cancel('enough'), 20);
    });
    const summary = await collector.run();
    expect(summary).toMatchObject({ reason: 'cancelled', message: 'enough', pagesDone: 1, records: 2, pagesQueued: 1 });
    const checkpoint = await store.load();
    expect(checkpoint?.queue.map((page) => page.url)).toEqual(['https://site.test/list?page=2']);
  });

  it('a cookie wall gets a short Navigator task before the records are read', async () => {
    const browser = new FakeBrowserDriver({ pages: {} });
    const items = ['Item 1: Widget 1, price 10', 'Item 2: Widget 2, price 20'];
    browser.setPage('https://site.test/list?page=1', {
      title: 'List page 1',
      content: [{ tag: 'button', text: 'Accept cookies', onClick: (driver) => driver.updateContent(items) }, ...items],
    });
    const pagesSeen: CollectorEventMap['collect-page'][] = [];
    const collector = new Collector({
      llm: siteModel(),
      browser,
      start: 'https://site.test/list?page=1',
      instruction: 'every item',
      schema: Item,
      modelRetry: fastRetry,
    });
    collector.on('collect-page', (event) => void pagesSeen.push(event));
    const summary = await collector.run();
    expect(summary).toMatchObject({ reason: 'done', records: 2 });
    expect(pagesSeen[0]?.interaction).toBe('accept the cookie banner');
    expect(browser.calls.some((call) => call.method === 'click')).toBe(true);
  });

  it('clicks the one button the survey names for a cookie wall, with no Navigator call; the Navigator only when the click was not enough', async () => {
    const items = ['Item 1: Widget 1, price 10', 'Item 2: Widget 2, price 20'];
    const run = async (accepts: boolean) => {
      const browser = new FakeBrowserDriver({ pages: {} });
      // A button that does nothing the first time (a wall that needs two clicks, or another step) when `accepts` is false.
      let clicks = 0;
      browser.setPage('https://site.test/list?page=1', {
        title: 'List page 1',
        content: [
          { tag: 'button', text: 'Accept cookies', onClick: (driver) => (accepts || ++clicks > 1 ? driver.updateContent(items) : undefined) },
          ...items,
        ],
      });
      const llm = siteModel({ acceptIndex: true });
      const summary = await new Collector({
        llm,
        browser,
        start: 'https://site.test/list?page=1',
        instruction: 'every item',
        schema: Item,
        modelRetry: fastRetry,
      }).run();
      return {
        summary,
        navigatorCalls: llm.requestsOf('navigator').length,
        surveys: llm.requests.filter((request) => request.output?.name === 'collect_survey').length,
      };
    };
    const direct = await run(true);
    expect(direct.summary).toMatchObject({ reason: 'done', records: 2 });
    expect(direct).toMatchObject({ navigatorCalls: 0, surveys: 2 });
    const stubborn = await run(false);
    expect(stubborn.summary).toMatchObject({ reason: 'done', records: 2 });
    expect(stubborn.navigatorCalls).toBeGreaterThan(0);
  });

  /** Collects the items of the fake browser's https://site.test/feed, with up to `maxLoadMore` rounds. */
  async function collectFeed(browser: FakeBrowserDriver, llm: ReturnType<typeof siteModel>, maxLoadMore?: number) {
    const store = memoryCollectionStore<Item>();
    const summary = await new Collector({
      llm,
      browser,
      start: 'https://site.test/feed',
      instruction: 'every item',
      schema: Item,
      key: (item) => String(item.id),
      store,
      modelRetry: fastRetry,
      ...(maxLoadMore === undefined ? {} : { maxLoadMore }),
    }).run();
    return { summary, store };
  }

  it('clicks "load more" and keeps only the records that are new', async () => {
    const browser = new FakeBrowserDriver({ pages: {} });
    const batch = (from: number) => range(from, from + 1).map((id) => `Item ${id}: Widget ${id}, price ${id}0`);
    let shown = batch(1);
    const loadMore = {
      tag: 'button',
      text: 'Load more',
      onClick: (driver: FakeBrowserDriver) => {
        shown = [...shown, ...batch(shown.length + 1)];
        driver.updateContent(shown.length < 6 ? [...shown, loadMore] : shown);
      },
    };
    browser.setPage('https://site.test/feed', { title: 'Feed', content: [...shown, loadMore] });
    const { summary, store } = await collectFeed(browser, siteModel());
    expect(ids(store.committed)).toEqual(range(1, 6));
    expect(summary).toMatchObject({ records: 6, duplicates: 0, pagesDone: 1 });
  });

  it('after each "load more" sends the extraction model only what the page added: every record read about once, each collected once', async () => {
    const browser = new FakeBrowserDriver({ pages: {} });
    const item = (id: number): string => `Item ${id}: Widget ${id}, price ${id}1`;
    const batch = (from: number) => range(from, from + 19).map(item);
    let shown = batch(1);
    const footer = 'Showing the newest postings first';
    const loadMore = {
      tag: 'button',
      text: 'Load more',
      onClick: (driver: FakeBrowserDriver) => {
        shown = [...shown, ...batch(shown.length + 1)];
        driver.updateContent(shown.length < 240 ? [...shown, loadMore, footer] : [...shown, footer]);
      },
    };
    browser.setPage('https://site.test/feed', { title: 'Feed', content: [...shown, loadMore, footer] });
    const llm = siteModel();
    const { summary, store } = await collectFeed(browser, llm, 20);
    expect(ids(store.committed)).toEqual(range(1, 240));
    expect(summary).toMatchObject({ records: 240, duplicates: 0, invalid: 0, pagesDone: 1 });
    const prompts = llm.requests.filter((request) => request.output?.name === 'collect_extract').map((request) => request.lastUserText);
    expect(prompts).toHaveLength(12);
    // Reading the grown page whole each time would show 20 + 40 + … + 240 records: 1560.
    const recordsShown = prompts.reduce((sum, prompt) => sum + [...prompt.matchAll(/Item \d+:/g)].length, 0);
    expect(recordsShown).toBeLessThan(240 * 1.5);
    expect(prompts[1]).toContain(item(21));
    expect(prompts[1]).toContain(item(40));
    expect(prompts[1]).not.toContain(item(1));
  });

  it('reads the page whole again when a "load more" re-renders the list in another order, or replaces it: every record once', async () => {
    for (const render of ['reordered', 'replaced'] as const) {
      const browser = new FakeBrowserDriver({ pages: {} });
      const item = (id: number): string => `Item ${id}: Widget ${id}, price ${id}1`;
      let count = 20;
      // Reordered: every other round lists the records newest first. Replaced: only the latest batch is shown.
      const records = (): string[] => {
        const all = render === 'replaced' ? range(count - 19, count) : range(1, count);
        return (render === 'reordered' && count % 40 === 0 ? all.reverse() : all).map(item);
      };
      const loadMore = {
        tag: 'button',
        text: 'Load more',
        onClick: (driver: FakeBrowserDriver) => {
          count += 20;
          driver.updateContent(count < 100 ? [...records(), loadMore] : records());
        },
      };
      browser.setPage('https://site.test/feed', { title: 'Feed', content: [...records(), loadMore] });
      const llm = siteModel();
      const { summary, store } = await collectFeed(browser, llm);
      expect(
        ids(store.committed).sort((a, b) => a - b),
        render,
      ).toEqual(range(1, 100));
      expect(summary, render).toMatchObject({ records: 100, duplicates: 0, pagesDone: 1 });
      const prompts = llm.requests.filter((request) => request.output?.name === 'collect_extract').map((request) => request.lastUserText);
      // Each round's prompt holds the whole list the page shows then.
      const last = prompts.at(-1) ?? '';
      for (const id of render === 'replaced' ? range(81, 100) : range(1, 100)) expect(last, `${render}: item ${id}`).toContain(item(id));
    }
  });

  it('checks its options: a ConfigError naming the field', () => {
    const base = { llm: siteModel(), browser: new FakeBrowserDriver(), start: 'https://site.test/', instruction: 'x', schema: Item };
    const fieldOf = (make: () => unknown) => {
      try {
        make();
      } catch (error) {
        expect(ConfigError.isInstance(error)).toBe(true);
        return (error as ConfigError).field;
      }
      return undefined;
    };
    expect(fieldOf(() => new Collector({ ...base, checkEvery: 0 }))).toBe('checkEvery');
    expect(fieldOf(() => new Collector({ ...base, start: 'not a url' }))).toBe('start');
    expect(fieldOf(() => new Collector({ ...base, browser: undefined }))).toBe('browser');
    expect(fieldOf(() => new Collector({ ...base, urlPolicy: { allow: ['other.test'] } }))).toBe('start');
    expect(fieldOf(() => new Collector({ ...base, maxFailure: 2 } as never))).toBe('maxFailure');
  });

  it('follows next pages the survey names by index to their whole href, and skips an index that is no link of the listing', async () => {
    const pages: Record<string, FakePage> = {};
    for (let page = 1; page <= 4; page++) {
      const next = page < 4 ? [link('Next page', `https://site.test/list?page=${page + 1}`)] : [];
      pages[`https://site.test/list?page=${page}`] = {
        title: `List page ${page}`,
        content: [`Item ${page}: Widget ${page}, price ${page}0`, { tag: 'button', text: 'Help' }, link('Partner site', 'https://other.test/'), ...next],
      };
    }
    const browser = new FakeBrowserDriver({ pages });
    const views: string[] = [];
    const indexOf = (text: string, pattern: RegExp): number[] => [...text.matchAll(pattern)].map((match) => Number(match[1]));
    const llm = new ScriptedLLM({
      respond: (request) => {
        const text = request.lastUserText;
        if (request.output?.name !== 'collect_survey')
          return siteModel()
            .generate(request)
            .then((result) => ({ object: result.object }));
        views.push(text);
        return {
          object: {
            page_error: '',
            blocked_by: '',
            // As a model reads the view: the "Next page" link, and three mistakes (a button, another site, an index not shown).
            next_index: indexOf(text, /\[(\d+)\]<a[^>]*>Next page \/>/g).map(String)[0] ?? null,
            page_indices: [...indexOf(text, /\[(\d+)\]<button>Help/g), ...indexOf(text, /\[(\d+)\]<a[^>]*>Partner site/g), 999],
            next_pages: [],
            load_more_index: null,
            infinite_scroll: false,
          },
        };
      },
    });
    const warnings: string[] = [];
    const collector = new Collector({
      llm,
      browser,
      start: 'https://site.test/list?page=1',
      instruction: 'every item',
      schema: Item,
      modelRetry: fastRetry,
    });
    collector.on('collect-warning', (event) => void warnings.push(`${event.code}: ${event.message}`));
    const summary = await collector.run();
    expect(summary).toMatchObject({ reason: 'done', pagesDone: 4, records: 4 });
    expect(browser.calls.filter((call) => call.method === 'goto').map((call) => call.args[0])).toEqual(
      range(1, 4).map((page) => `https://site.test/list?page=${page}`),
    );
    // The view the model read has no href for the link it named: only the index led there.
    expect(views[0]).toMatch(/\[\d+\]<a>Next page \/>/);
    expect(views[0]).not.toContain('list?page=2');
    // Surveyed: page 1 (a template not seen) and page 4 (its next link is gone); pages 2 and 3 reuse page 1's plan.
    expect(warnings.filter((warning) => warning.startsWith('NEXT_PAGE_SKIPPED'))).toHaveLength(6);
    expect(warnings.slice(0, 3)).toEqual([
      expect.stringMatching(/^NEXT_PAGE_SKIPPED: .*\[\d+\] as a page of the listing, which is not a link to a web page\.$/),
      expect.stringMatching(/which is a link to another site, other\.test\.$/),
      expect.stringMatching(/\[999\] as a page of the listing, which is not an element of the page\.$/),
    ]);
  });

  it('reads 8 pages at a time without piling up abort listeners on the run signal', async () => {
    const pages = listing({ pages: 32, perPage: 1 });
    // Page 1 links every other page at once, so 8 are read at the same time.
    pages['https://site.test/list?page=1'] = {
      title: 'List page 1',
      content: ['Item 1: Widget 1, price 10', ...range(2, 32).map((page) => link(`Page ${page}`, `https://site.test/list?page=${page}`))],
    };
    const browsers = range(1, 8).map(() => new FakeBrowserDriver({ pages, latencyMs: 2 }));
    const collector = new Collector({
      llm: siteModel({ latencyMs: 2 }),
      browsers,
      concurrency: 8,
      perHost: { delayMs: 1 },
      checkEvery: 4,
      start: 'https://site.test/list?page=1',
      instruction: 'every item',
      schema: Item,
      modelRetry: fastRetry,
    });
    // The run's own signal, which every page and wait of the run is linked to.
    const runSignal = (collector as unknown as { control: { signal: AbortSignal } }).control.signal;
    let most = 0;
    collector.on('collect-page-start', () => void (most = Math.max(most, getEventListeners(runSignal, 'abort').length)));
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => {
      if (warning.name === 'MaxListenersExceededWarning') warnings.push(warning.message);
    };
    process.on('warning', onWarning);
    try {
      const summary = await collector.run();
      // Item 13's price is not a number: dropped.
      expect(summary).toMatchObject({ reason: 'done', pagesDone: 32, records: 31 });
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
    expect(most).toBeLessThanOrEqual(2);
    expect(getEventListeners(runSignal, 'abort')).toHaveLength(0);
  });
});
