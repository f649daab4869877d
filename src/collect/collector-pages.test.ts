// The Collector's page lifecycle (issue 20): transient failures retried with backoff, failed and
// abandoned pages kept and queued again (on resume, by a progress check), every way a listing
// paginates (rel="next", a pager run by script), records completed from their own pages, and a
// listing's plan learnt once per template. In memory: FakeBrowserDriver and ScriptedLLM.

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { BrowserDriver, NavigationResponse } from '../browser/types';
import { FakeBrowserDriver, type FakeElement, type FakePage, ScriptedLLM, type ScriptedRequest, type ScriptedResponse } from '../testing/index';
import { Collector } from './collector';
import type { CollectorEventMap } from './events';
import { memoryCollectionStore, type PageOutcome, type RejectedRecord } from './store';

const Item = z.object({ id: z.number().int(), name: z.string(), price: z.number() });
type Item = z.output<typeof Item>;

/** The model's own retries: none, at once. */
const fastRetry = { retries: 0, minTimeout: 1, maxTimeout: 1 };
/** Page retries with short waits. */
const quickPages = { minDelayMs: 1, maxDelayMs: 5, factor: 2 };

const errorPage: FakePage = { title: 'Error', content: ['500 Internal Server Error'] };

/** A link to another page of the listing; the fake state shows its text, not its href. */
function link(text: string, href: string): FakeElement {
  return { tag: 'a', text, href, attributes: { href } };
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, index) => from + index);
}

function itemLines(first: number, count: number): string[] {
  return range(first, first + count - 1).map((id) => `Item ${id}: Widget ${id}, price ${id}0`);
}

const pageUrl = (page: number, host = 'site.test'): string => `https://${host}/list?page=${page}`;

/** A listing of `pages` pages of `perPage` items each at https://site.test/list?page=N, linked by "Page N+1". */
function listing(options: { pages: number; perPage: number; host?: string; broken?: readonly number[]; firstId?: number }): Record<string, FakePage> {
  const host = options.host ?? 'site.test';
  const pages: Record<string, FakePage> = {};
  for (let page = 1; page <= options.pages; page++) {
    const url = pageUrl(page, host);
    if (options.broken?.includes(page)) {
      pages[url] = errorPage;
      continue;
    }
    const first = (page - 1) * options.perPage + (options.firstId ?? 1);
    const next = page < options.pages ? [link(`Page ${page + 1}`, pageUrl(page + 1, host))] : [];
    pages[url] = { title: `List page ${page}`, content: [...itemLines(first, options.perPage), ...next] };
  }
  return pages;
}

/**
 * The scripted model: reads what it is shown, like a model would. The survey names "Page N" links
 * by href, a "Next" link or button by index, and numbered links ("2") by index.
 */
function siteModel(options: { check?: (request: ScriptedRequest) => ScriptedResponse } = {}): ScriptedLLM {
  return new ScriptedLLM({
    respond: (request) => {
      const text = request.lastUserText;
      switch (request.output?.name) {
        case 'collect_survey': {
          const hrefs = [...text.matchAll(/<a[^>]*>Page (\d+) \/>/g)].map((match) => `/list?page=${match[1] as string}`);
          const next = /\[(\d+)\]<(?:a|button)[^>]*>Next \/>/.exec(text);
          const numbered = [...text.matchAll(/\[(\d+)\]<a[^>]*>\d+ \/>/g)].map((match) => Number(match[1]));
          return {
            object: {
              page_error: text.includes('500 Internal Server Error') ? '500 Internal Server Error' : '',
              blocked_by: '',
              next_index: next ? Number(next[1]) : null,
              page_indices: numbered,
              next_pages: hrefs,
              page_select_index: null,
              load_more_index: null,
              infinite_scroll: false,
              listing_indices: [],
            },
          };
        }
        case 'collect_extract': {
          const full = [...text.matchAll(/Item (\d+): (Widget \d+), price (\d+)/g)].map((match) => ({
            id: Number(match[1]),
            name: match[2],
            price: Number(match[3]),
          }));
          // A listing that shows no price, only the record's own page: "Listed 1: Widget 1 at /item/1".
          const listed = [...text.matchAll(/Listed (\d+): (Widget \d+) at (\S+)/g)].map((match) => ({
            id: Number(match[1]),
            name: match[2],
            page: match[3],
          }));
          return { object: { records: [...full, ...listed] } };
        }
        case 'collect_details': {
          // Records' own pages under [Page N] headings: "Item 1: Widget 1, price 10" on each.
          const pages = text.split(/^(?=\[Page \d+\])/m).flatMap((section) => {
            const number = Number(/^\[Page (\d+)\]/.exec(section)?.[1] ?? 0);
            return [...section.matchAll(/Item (\d+): (Widget \d+), price (\d+)/g)].map((match) => ({
              page: number,
              record: { id: Number(match[1]), name: match[2], price: Number(match[3]) },
            }));
          });
          return { object: { pages: pages.filter((entry) => entry.page > 0) } };
        }
        case 'collect_check':
          return options.check?.(request) ?? { object: { decision: 'continue', reason: 'fine', instruction: '', retry_given_up: false } };
        default:
          return { fail: 'status', status: 400, message: `unexpected call ${request.output?.name ?? ''}` };
      }
    },
  });
}

const baseOptions = {
  instruction: 'every item: id, name, price',
  schema: Item,
  key: (item: Item) => String(item.id),
  modelRetry: fastRetry,
};

function gotos(browser: FakeBrowserDriver): unknown[] {
  return browser.calls.filter((call) => call.method === 'goto').map((call) => call.args[0]);
}

function outcomeOf(pages: readonly PageOutcome[], url: string): PageOutcome | undefined {
  return pages.find((page) => page.url === url);
}

/** Records every event of these names, in order. */
function recordEvents<K extends keyof CollectorEventMap>(collector: Collector<Item>, name: K): CollectorEventMap<Item>[K][] {
  const seen: CollectorEventMap<Item>[K][] = [];
  collector.on(name, (event) => void seen.push(event));
  return seen;
}

/** Everything an async iterator yields until it ends. */
async function drain<T>(iterator: AsyncIterableIterator<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of iterator) all.push(item);
  return all;
}

describe('Collector retries', () => {
  it('a page that fails twice for a transient reason, then loads, ends done after 3 attempts; its failures count towards nothing', async () => {
    const pages = listing({ pages: 4, perPage: 2 });
    const good = pages[pageUrl(2)] as FakePage;
    const browser = new FakeBrowserDriver({ pages });
    const collector = new Collector({
      ...baseOptions,
      llm: siteModel(),
      browser,
      start: pageUrl(1),
      // One failed page would abandon the batch: the retries must not count.
      maxFailures: 1,
      retry: { attempts: 3, ...quickPages },
      store: memoryCollectionStore<Item>(),
    });
    // Page 2 shows a server error on its first two loads.
    collector.on('collect-page-start', ({ url, attempt }) => {
      if (url === pageUrl(2)) browser.setPage(url, (attempt ?? 1) < 3 ? errorPage : good);
    });
    const retries = recordEvents(collector, 'collect-retry');
    const failures = recordEvents(collector, 'collect-failure');
    const summary = await collector.run();
    expect(retries.map((event) => [event.url, event.attempt])).toEqual([
      [pageUrl(2), 1],
      [pageUrl(2), 2],
    ]);
    expect(retries[0]?.error.message).toContain('500 Internal Server Error');
    expect(failures).toEqual([]);
    expect(summary).toMatchObject({ reason: 'done', pagesDone: 4, pagesFailed: 0, pagesAbandoned: 0, batchesAbandoned: 0, retries: 2, records: 8 });
    expect(outcomeOf(collector.history.pages, pageUrl(2))).toMatchObject({ status: 'done', attempts: 3, records: 2 });
    expect(gotos(browser)).toEqual([pageUrl(1), pageUrl(2), pageUrl(2), pageUrl(2), pageUrl(3), pageUrl(4)]);
  });

  it('with retry.attempts 1 a transient failure fails the page at once', async () => {
    const browser = new FakeBrowserDriver({ pages: listing({ pages: 3, perPage: 2, broken: [2] }) });
    const collector = new Collector({ ...baseOptions, llm: siteModel(), browser, start: pageUrl(1), retry: { attempts: 1 } });
    const retries = recordEvents(collector, 'collect-retry');
    const failures = recordEvents(collector, 'collect-failure');
    const summary = await collector.run();
    expect(retries).toEqual([]);
    expect(failures.map((event) => [event.url, event.attempts, event.consecutiveFailures])).toEqual([[pageUrl(2), 1, 1]]);
    expect(summary).toMatchObject({ pagesDone: 1, pagesFailed: 1, retries: 0 });
    expect(outcomeOf(collector.history.pages, pageUrl(2))).toMatchObject({
      status: 'failed',
      attempts: 1,
      error: expect.stringContaining('500 Internal Server Error'),
    });
    expect(gotos(browser).filter((url) => url === pageUrl(2))).toHaveLength(1);
  });

  it('waits minDelayMs, then factor times longer each retry, at most maxDelayMs; a page failing every attempt is failed once, counted once', async () => {
    for (const [retry, delays] of [
      [{ attempts: 4, minDelayMs: 4, factor: 3, maxDelayMs: 1000 }, [4, 12, 36]],
      [{ attempts: 4, minDelayMs: 4, factor: 3, maxDelayMs: 20 }, [4, 12, 20]],
      [{ attempts: 3, minDelayMs: 2, factor: 1, maxDelayMs: 20 }, [2, 2]],
    ] as const) {
      const browser = new FakeBrowserDriver({ pages: listing({ pages: 3, perPage: 1, broken: [2] }) });
      const store = memoryCollectionStore<Item>();
      const collector = new Collector({ ...baseOptions, llm: siteModel(), browser, start: pageUrl(1), retry, store });
      const retries = recordEvents(collector, 'collect-retry');
      const failures = recordEvents(collector, 'collect-failure');
      const summary = await collector.run();
      expect(
        retries.map((event) => event.delayMs),
        JSON.stringify(retry),
      ).toEqual(delays);
      expect(retries.map((event) => event.attempt)).toEqual(range(1, retry.attempts - 1));
      expect(failures.map((event) => [event.attempts, event.consecutiveFailures])).toEqual([[retry.attempts, 1]]);
      expect(summary).toMatchObject({ pagesFailed: 1, retries: retry.attempts - 1 });
      const outcome = outcomeOf(collector.history.pages, pageUrl(2));
      expect(outcome).toMatchObject({ status: 'failed', attempts: retry.attempts, error: expect.stringContaining('500 Internal Server Error') });
      const checkpoint = await store.load();
      expect(checkpoint?.failed).toEqual([expect.objectContaining({ url: pageUrl(2), attempts: retry.attempts, lastError: expect.stringContaining('500') })]);
      expect(checkpoint?.batches[`start:${pageUrl(1)}`]?.failures).toBe(1);
    }
  });

  it('a 429 answer waits at least its Retry-After, and a 404 is not retried', async () => {
    const browser = new FakeBrowserDriver({ pages: listing({ pages: 3, perPage: 1 }) });
    const answers = new Map<string, NavigationResponse[]>([
      [pageUrl(2), [{ status: 429, headers: { 'retry-after': '0.03' } }]],
      [pageUrl(3), [{ status: 404, headers: {} }]],
    ]);
    const fakeGoto = browser.goto.bind(browser);
    (browser as { goto: BrowserDriver['goto'] }).goto = async (url, options) => {
      await fakeGoto(url, options);
      return answers.get(url)?.shift();
    };
    const collector = new Collector({
      ...baseOptions,
      llm: siteModel(),
      browser,
      start: pageUrl(1),
      retry: { attempts: 3, minDelayMs: 1, factor: 2, maxDelayMs: 1000 },
    });
    const retries = recordEvents(collector, 'collect-retry');
    const summary = await collector.run();
    expect(retries.map((event) => [event.url, event.delayMs])).toEqual([[pageUrl(2), 30]]);
    expect(retries[0]?.error.message).toContain('HTTP 429');
    expect(outcomeOf(collector.history.pages, pageUrl(2))).toMatchObject({ status: 'done', attempts: 2 });
    expect(outcomeOf(collector.history.pages, pageUrl(3))).toMatchObject({ status: 'failed', attempts: 1, error: expect.stringContaining('HTTP 404') });
    expect(summary).toMatchObject({ pagesDone: 2, pagesFailed: 1, retries: 1 });
  });
});

describe('Collector failed and abandoned pages', () => {
  it('a resumed run reads a failed page again and it ends done; with resume.retryFailed false it does not', async () => {
    for (const retryFailed of [true, false]) {
      const store = memoryCollectionStore<Item>();
      const first = await new Collector({
        ...baseOptions,
        llm: siteModel(),
        browser: new FakeBrowserDriver({ pages: listing({ pages: 4, perPage: 2, broken: [2] }) }),
        start: pageUrl(1),
        retry: { attempts: 2, ...quickPages },
        store,
      }).run();
      expect(first).toMatchObject({ reason: 'done', pagesDone: 1, pagesFailed: 1, retries: 1 });
      expect(store.pages.map((page) => [page.url, page.status, page.attempts])).toEqual([
        [pageUrl(1), 'done', 1],
        [pageUrl(2), 'failed', 2],
      ]);
      expect((await store.load())?.failed?.map((page) => page.url)).toEqual([pageUrl(2)]);

      // The site works again.
      const browser = new FakeBrowserDriver({ pages: listing({ pages: 4, perPage: 2 }) });
      const resumed = new Collector({ ...baseOptions, llm: siteModel(), browser, start: pageUrl(1), store, resume: { retryFailed } });
      const second = await resumed.run();
      if (retryFailed) {
        expect(gotos(browser)).toEqual([pageUrl(2), pageUrl(3), pageUrl(4)]);
        expect(second).toMatchObject({ reason: 'done', pagesDone: 4, pagesFailed: 0, records: 8 });
        expect(outcomeOf(resumed.history.pages, pageUrl(2))).toMatchObject({ status: 'done', attempts: 1, records: 2 });
        expect((await store.load())?.failed).toEqual([]);
      } else {
        expect(gotos(browser)).toEqual([]);
        expect(second).toMatchObject({ reason: 'done', pagesDone: 1, pagesFailed: 1, records: 2 });
        expect((await store.load())?.failed?.map((page) => page.url)).toEqual([pageUrl(2)]);
      }
    }
  });

  /** Page 1 of site.test links pages 2-8 at once; `broken` of them show a server error. */
  function numberedSite(broken: readonly number[]): Record<string, FakePage> {
    const pages = { ...listing({ pages: 8, perPage: 1, broken }), ...listing({ pages: 2, perPage: 1, host: 'other.test', firstId: 101 }) };
    pages[pageUrl(1)] = { title: 'List page 1', content: [...itemLines(1, 1), ...range(2, 8).map((page) => link(`Page ${page}`, pageUrl(page)))] };
    return pages;
  }

  it('pages of a batch given up are abandoned, in the outcomes and the checkpoint; a resumed run reads them unless retryAbandoned is false', async () => {
    for (const retryAbandoned of [true, false]) {
      const store = memoryCollectionStore<Item>();
      const collector = new Collector({
        ...baseOptions,
        llm: siteModel(),
        browser: new FakeBrowserDriver({ pages: numberedSite([2, 3, 4]) }),
        start: pageUrl(1),
        maxFailures: 3,
        retry: { attempts: 1 },
        store,
      });
      const first = await collector.run();
      expect(first).toMatchObject({ pagesDone: 1, pagesFailed: 3, pagesAbandoned: 4, batchesAbandoned: 1 });
      const statuses = collector.history.pages.map((page) => [page.url, page.status, page.attempts]);
      expect(statuses).toEqual(
        expect.arrayContaining([[pageUrl(2), 'failed', 1], [pageUrl(4), 'failed', 1], ...range(5, 8).map((page) => [pageUrl(page), 'abandoned', 0])]),
      );
      expect(store.pages.filter((page) => page.status === 'abandoned').map((page) => page.url)).toEqual(range(5, 8).map((page) => pageUrl(page)));
      const checkpoint = await store.load();
      expect(checkpoint?.version).toBe(2);
      expect(checkpoint?.abandoned?.map((page) => page.url)).toEqual(range(5, 8).map((page) => pageUrl(page)));
      expect(checkpoint?.failed?.map((page) => page.url)).toEqual(range(2, 4).map((page) => pageUrl(page)));

      // The site works again; failed pages are read again either way (retryFailed defaults to true).
      const browser = new FakeBrowserDriver({ pages: numberedSite([]) });
      const second = await new Collector({ ...baseOptions, llm: siteModel(), browser, start: pageUrl(1), store, resume: { retryAbandoned } }).run();
      if (retryAbandoned) {
        expect(gotos(browser)).toEqual(range(2, 8).map((page) => pageUrl(page)));
        expect(second).toMatchObject({ reason: 'done', pagesDone: 8, pagesFailed: 0, pagesAbandoned: 0, batchesAbandoned: 0, records: 8 });
        expect((await store.load())?.abandoned).toEqual([]);
      } else {
        expect(gotos(browser)).toEqual(range(2, 4).map((page) => pageUrl(page)));
        expect(second).toMatchObject({ reason: 'done', pagesDone: 4, pagesFailed: 0, pagesAbandoned: 4, records: 4 });
        expect((await store.load())?.abandoned?.map((page) => page.url)).toEqual(range(5, 8).map((page) => pageUrl(page)));
      }
    }
  });

  it('a progress check that answers retry_given_up queues the failed and abandoned pages again in the same run', async () => {
    const browser = new FakeBrowserDriver({ pages: numberedSite([2, 3, 4]) });
    const fixed = numberedSite([]);
    const checkTexts: string[] = [];
    const llm = siteModel({
      check: (request) => {
        checkTexts.push(request.lastUserText);
        const givenUp = request.lastUserText.includes('3 failed page(s), 4 abandoned page(s)');
        // The server recovered by the time the check runs.
        if (givenUp) for (const page of [2, 3, 4]) browser.setPage(pageUrl(page), fixed[pageUrl(page)] as FakePage);
        return { object: { decision: 'continue', reason: givenUp ? 'the errors look temporary' : 'fine', instruction: '', retry_given_up: givenUp } };
      },
    });
    const collector = new Collector({
      ...baseOptions,
      llm,
      browser,
      start: [pageUrl(1), pageUrl(1, 'other.test')],
      maxFailures: 3,
      checkEvery: 5,
      retry: { attempts: 1 },
    });
    const checks = recordEvents(collector, 'collect-check');
    const failures = recordEvents(collector, 'collect-failure');
    const summary = await collector.run();
    expect(failures.map((event) => event.url)).toEqual(range(2, 4).map((page) => pageUrl(page)));
    expect(failures[2]).toMatchObject({ abandoned: true, dropped: 4 });
    // The check saw what was given up, and queued all of it again.
    expect(checkTexts[0]).toContain('3 failed page(s), 4 abandoned page(s)');
    expect(checks[0]).toMatchObject({ retried: 7, reason: 'the errors look temporary' });
    expect(summary).toMatchObject({ reason: 'done', pagesDone: 10, pagesFailed: 0, pagesAbandoned: 0, batchesAbandoned: 0, records: 10 });
    expect(collector.history.pages).toHaveLength(10);
    expect(collector.history.pages.every((page) => page.status === 'done')).toBe(true);
    expect(gotos(browser).filter((url) => url === pageUrl(2))).toHaveLength(2);
    expect(gotos(browser)).toContain(pageUrl(8));
  });
});

describe('Collector pagination', () => {
  it('follows a rel="next" link (an <a> or a <link>) the survey does not name', async () => {
    for (const tag of ['a', 'link', undefined] as const) {
      const pages: Record<string, FakePage> = {};
      for (let page = 1; page <= 3; page++) {
        const href = pageUrl(page + 1);
        const next: FakeElement[] =
          page === 3
            ? []
            : tag === undefined
              ? [{ tag: 'a', text: '»', href, attributes: { href } }]
              : [{ tag, text: tag === 'a' ? '»' : '', href, attributes: { rel: 'next', href } }];
        pages[pageUrl(page)] = { title: `List page ${page}`, content: [...itemLines(page, 1), ...next] };
      }
      const browser = new FakeBrowserDriver({ pages });
      const llm = siteModel();
      const summary = await new Collector({ ...baseOptions, llm, browser, start: pageUrl(1) }).run();
      if (tag === undefined) {
        // Without rel="next" (and the survey naming nothing) the listing ends on page 1: the rel is what was followed.
        expect(summary, 'no rel').toMatchObject({ pagesDone: 1, records: 1 });
        continue;
      }
      expect(summary, tag).toMatchObject({ reason: 'done', pagesDone: 3, records: 3 });
      expect(gotos(browser), tag).toEqual(range(1, 3).map((page) => pageUrl(page)));
      // The survey named nothing.
      for (const request of llm.requests.filter((request) => request.output?.name === 'collect_survey')) {
        expect(request.lastUserText).not.toContain('Page 2');
      }
    }
  });

  const scriptListUrl = 'https://site.test/list';

  /** A listing of `pages` pages of 2 items at one address, whose "Next" button replaces the list by script (no href, no new address). */
  function scriptPagerBrowser(pages: number): FakeBrowserDriver {
    const contentOf = (page: number): (FakeElement | string)[] => [
      ...itemLines((page - 1) * 2 + 1, 2),
      ...(page < pages ? [{ tag: 'button', text: 'Next', onClick: (driver: FakeBrowserDriver) => driver.updateContent(contentOf(page + 1)) }] : []),
    ];
    return new FakeBrowserDriver({ pages: { [scriptListUrl]: { title: 'List', content: contentOf(1) } } });
  }

  it('reads the pages a script "Next" button shows in place, crediting their records to them, not to page 1', async () => {
    const browser = scriptPagerBrowser(3);
    const store = memoryCollectionStore<Item>();
    const collector = new Collector({ ...baseOptions, llm: siteModel(), browser, start: scriptListUrl, store });
    const summary = await collector.run();
    expect(summary).toMatchObject({ reason: 'done', pagesDone: 3, records: 6 });
    expect(store.committed.map((record) => [record.data.id, record.source])).toEqual([
      [1, scriptListUrl],
      [2, scriptListUrl],
      [3, `${scriptListUrl}#plannav-step=1`],
      [4, `${scriptListUrl}#plannav-step=1`],
      [5, `${scriptListUrl}#plannav-step=2`],
      [6, `${scriptListUrl}#plannav-step=2`],
    ]);
    // Loaded once; each later page is the tab after a click.
    expect(gotos(browser)).toEqual([scriptListUrl]);
    expect(browser.calls.filter((call) => call.method === 'click')).toHaveLength(2);
    expect(outcomeOf(collector.history.pages, `${scriptListUrl}#plannav-step=2`)).toMatchObject({
      status: 'done',
      records: 2,
      way: { from: scriptListUrl, steps: [expect.objectContaining({ action: 'click' }), expect.objectContaining({ action: 'click' })] },
    });
  });

  it('checkpoints a page reached by a script button with the way there, and a resumed run gets back to it: the load and two clicks', async () => {
    const store = memoryCollectionStore<Item>();
    const firstBrowser = scriptPagerBrowser(3);
    const first = await new Collector({ ...baseOptions, llm: siteModel(), browser: firstBrowser, start: scriptListUrl, store, maxPages: 2 }).run();
    expect(first).toMatchObject({ reason: 'max-pages', pagesDone: 2, records: 4, pagesQueued: 1 });
    const checkpoint = await store.load();
    const nextStep = { action: 'click', control: expect.objectContaining({ tag: 'button', text: 'Next' }) };
    expect(checkpoint?.queue).toEqual([
      expect.objectContaining({ url: `${scriptListUrl}#plannav-step=2`, way: { from: scriptListUrl, steps: [nextStep, nextStep] } }),
    ]);

    const browser = scriptPagerBrowser(3);
    const resumed = new Collector({ ...baseOptions, llm: siteModel(), browser, start: scriptListUrl, store });
    const second = await resumed.run();
    expect(second).toMatchObject({ reason: 'done', pagesDone: 3, records: 6 });
    expect(browser.calls.map((call) => call.method).filter((method) => method === 'goto' || method === 'click')).toEqual(['goto', 'click', 'click']);
    expect(gotos(browser)).toEqual([scriptListUrl]);
    expect(store.committed.slice(4).map((record) => [record.data.id, record.source])).toEqual([
      [5, `${scriptListUrl}#plannav-step=2`],
      [6, `${scriptListUrl}#plannav-step=2`],
    ]);
  });
});

describe('Collector pagination by script', () => {
  const pathUrl = (page: number): string => `https://site.test/list/${page}`;

  /** Pages /list/1-3 whose "Next" button loads the next one by script (a new address, no href). */
  function scriptNavigationBrowser(): FakeBrowserDriver {
    const pages: Record<string, FakePage> = {};
    for (let page = 1; page <= 3; page++) {
      const next: FakeElement[] = page < 3 ? [{ tag: 'button', text: 'Next', onClick: (driver) => driver.goto(pathUrl(page + 1)) }] : [];
      pages[pathUrl(page)] = { title: `List page ${page}`, content: [...itemLines((page - 1) * 2 + 1, 2), ...next] };
    }
    return new FakeBrowserDriver({ pages });
  }

  it('a script "Next" button that changes the address: its pages are known by their address and a resumed run gets back to them', async () => {
    const whole = scriptNavigationBrowser();
    const wholeStore = memoryCollectionStore<Item>();
    const wholeSummary = await new Collector({ ...baseOptions, llm: siteModel(), browser: whole, start: pathUrl(1), store: wholeStore }).run();
    expect(wholeSummary).toMatchObject({ reason: 'done', pagesDone: 3, records: 6 });
    expect(wholeStore.committed.map((record) => record.source)).toEqual([1, 1, 2, 2, 3, 3].map((page) => pathUrl(page)));

    const store = memoryCollectionStore<Item>();
    const first = await new Collector({ ...baseOptions, llm: siteModel(), browser: scriptNavigationBrowser(), start: pathUrl(1), store, maxPages: 2 }).run();
    expect(first).toMatchObject({ reason: 'max-pages', pagesDone: 2, pagesQueued: 1 });
    expect((await store.load())?.queue.map((page) => page.url)).toEqual([pathUrl(3)]);
    const browser = scriptNavigationBrowser();
    const second = await new Collector({ ...baseOptions, llm: siteModel(), browser, start: pathUrl(1), store }).run();
    expect(second).toMatchObject({ reason: 'done', pagesDone: 3, records: 6 });
    expect(store.committed.slice(4).map((record) => [record.data.id, record.source])).toEqual([
      [5, pathUrl(3)],
      [6, pathUrl(3)],
    ]);
    // Its address is where it was: the tab ends there, whether loaded at once or by the way.
    expect(gotos(browser).at(-1)).toBe(pathUrl(3));
  });

  it('checkpoints a page whose script button changed the address by that address: a resumed run loads it, without the clicks', async () => {
    // Issue 20: a page reached by clicking is checkpointed as "its URL when the click changed it, else the way there".
    const store = memoryCollectionStore<Item>();
    await new Collector({ ...baseOptions, llm: siteModel(), browser: scriptNavigationBrowser(), start: pathUrl(1), store, maxPages: 2 }).run();
    const browser = scriptNavigationBrowser();
    const second = await new Collector({ ...baseOptions, llm: siteModel(), browser, start: pathUrl(1), store }).run();
    expect(second).toMatchObject({ reason: 'done', pagesDone: 3, records: 6 });
    expect(browser.calls.filter((call) => call.method === 'goto' || call.method === 'click')).toEqual([{ method: 'goto', args: [pathUrl(3)] }]);
  });

  it('a pager <select>: each other option is a page, reached by choosing it, its records credited to it', async () => {
    const shopUrl = 'https://site.test/shop';
    const contentOf = (page: number): (FakeElement | string)[] => [
      ...itemLines((page - 1) * 2 + 1, 2),
      { tag: 'select', attributes: { name: 'page' }, options: ['1', '2', '3'] },
    ];
    const browser = new FakeBrowserDriver({ pages: { [shopUrl]: { title: 'Shop', content: contentOf(1) } } });
    // The page's onchange handler: choosing a page shows its records.
    const fakeSelect = browser.selectOption.bind(browser);
    (browser as { selectOption: typeof browser.selectOption }).selectOption = async (ref, label, options) => {
      const chosen = await fakeSelect(ref, label, options);
      browser.updateContent(contentOf(Number(label)));
      return chosen;
    };
    const base = siteModel();
    const llm = new ScriptedLLM({
      respond: async (request) => {
        const answer = (await base.generate(request)).object as Record<string, unknown>;
        if (request.output?.name !== 'collect_survey') return { object: answer };
        const select = /\[(\d+)\]<select/.exec(request.lastUserText);
        return { object: { ...answer, page_select_index: select ? Number(select[1]) : null } };
      },
    });
    const store = memoryCollectionStore<Item>();
    const collector = new Collector({ ...baseOptions, llm, browser, start: shopUrl, store });
    const summary = await collector.run();
    expect(summary).toMatchObject({ reason: 'done', pagesDone: 3, records: 6, duplicates: 0 });
    expect(store.committed.map((record) => [record.data.id, record.source])).toEqual([
      [1, shopUrl],
      [2, shopUrl],
      [3, `${shopUrl}#plannav-way=select:2`],
      [4, `${shopUrl}#plannav-way=select:2`],
      [5, `${shopUrl}#plannav-way=select:3`],
      [6, `${shopUrl}#plannav-way=select:3`],
    ]);
    expect(browser.calls.filter((call) => call.method === 'selectOption').map((call) => call.args[1])).toEqual(['2', '3']);
    expect(outcomeOf(collector.history.pages, `${shopUrl}#plannav-way=select:3`)?.way).toEqual({
      from: shopUrl,
      steps: [{ action: 'select', control: expect.objectContaining({ tag: 'select' }), option: '3' }],
    });
  });
});

describe('Collector detail pages', () => {
  const Listed = z.object({ id: z.number().int(), name: z.string(), price: z.number(), page: z.string() });
  type Listed = z.output<typeof Listed>;

  it('completes a record from its own page, rejects one whose own page shows nothing with the reason, and reads each own page once', async () => {
    const pages: Record<string, FakePage> = {
      [pageUrl(1)]: { title: 'List page 1', content: ['Listed 1: Widget 1 at /item/1', 'Listed 2: Widget 2 at /item/2', link('Page 2', pageUrl(2))] },
      // Record 1 is listed again, with the same own page.
      [pageUrl(2)]: { title: 'List page 2', content: ['Listed 1: Widget 1 at /item/1', 'Listed 3: Widget 3 at /item/3'] },
      'https://site.test/item/1': { title: 'Widget 1', content: ['Item 1: Widget 1, price 10'] },
      // /item/2 is not there: the fake's "404 - page not found".
      'https://site.test/item/3': { title: 'Widget 3', content: ['Item 3: Widget 3, price 30'] },
    };
    const browser = new FakeBrowserDriver({ pages });
    const store = memoryCollectionStore<Listed>();
    const collector = new Collector({
      llm: siteModel(),
      browser,
      start: pageUrl(1),
      instruction: 'every widget: id, name, price, own page',
      schema: Listed,
      key: (item) => String(item.id),
      details: true,
      store,
      modelRetry: fastRetry,
    });
    const rejectEvents: RejectedRecord[] = [];
    collector.on('collect-reject', ({ reject }) => void rejectEvents.push(reject));
    const rejects = collector.rejects();
    const records = collector.records();
    const summary = await collector.run();
    const kept = await drain(records);
    const rejected = await drain(rejects);

    expect(kept.map((record) => [record.data, record.source])).toEqual([
      // The own page as the listing wrote it, or made absolute.
      [{ id: 1, name: 'Widget 1', price: 10, page: expect.stringMatching(/^(https:\/\/site\.test)?\/item\/1$/) }, pageUrl(1)],
      [{ id: 3, name: 'Widget 3', price: 30, page: expect.stringMatching(/^(https:\/\/site\.test)?\/item\/3$/) }, pageUrl(2)],
    ]);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toMatchObject({
      data: { id: 2, name: 'Widget 2', page: expect.stringMatching(/\/item\/2$/) },
      source: pageUrl(1),
      detail: 'https://site.test/item/2',
    });
    expect(rejected[0]?.reason).toMatch(/price/);
    expect(rejectEvents).toEqual(rejected);
    expect(store.rejects).toEqual(rejected);
    expect(summary).toMatchObject({ reason: 'done', records: 2, rejected: 1, detailPages: 3, duplicates: 1, pagesFailed: 0 });
    expect(gotos(browser).filter((url) => url === 'https://site.test/item/1')).toHaveLength(1);
  });
});

describe('Collector detail pages in one call', () => {
  const Listed = z.object({ id: z.number().int(), name: z.string(), price: z.number(), page: z.string() });
  type Listed = z.output<typeof Listed>;
  const listing = (ids: readonly number[]): Record<string, FakePage> => {
    const pages: Record<string, FakePage> = { [pageUrl(1)]: { title: 'List page 1', content: ids.map((id) => `Listed ${id}: Widget ${id} at /item/${id}`) } };
    for (const id of ids) pages[`https://site.test/item/${id}`] = { title: `Widget ${id}`, content: [`Item ${id}: Widget ${id}, price ${id * 10}`] };
    return pages;
  };

  async function collect(pages: Record<string, FakePage>, details: true | { perCall: number }) {
    const llm = siteModel();
    const collector = new Collector({
      llm,
      browser: new FakeBrowserDriver({ pages }),
      start: pageUrl(1),
      instruction: 'every widget: id, name, price, own page',
      schema: Listed,
      key: (item) => String(item.id),
      details,
      modelRetry: fastRetry,
    });
    const records = collector.records();
    const summary = await collector.run();
    const calls = (name: string) => llm.requests.filter((request) => request.output?.name === name);
    return { summary, kept: await drain(records), calls };
  }

  it('loads the own pages ready in the queue one after another and asks for their records in one call of at most perCall pages', async () => {
    const ids = range(1, 11);
    const shared = await collect(listing(ids), { perCall: 4 });
    expect(shared.summary).toMatchObject({ reason: 'done', records: 11, detailPages: 11, rejected: 0 });
    expect(shared.kept.map((record) => [record.data.id, record.data.price]).sort((a, b) => (a[0] as number) - (b[0] as number))).toEqual(
      ids.map((id) => [id, id * 10]),
    );
    // 11 pages, 4 per call: 4 + 4 + 3.
    expect(shared.calls('collect_details').map((request) => request.lastUserText.match(/^\[Page \d+\]/gm)?.length)).toEqual([4, 4, 3]);
    expect(shared.calls('collect_extract')).toHaveLength(1);

    const alone = await collect(listing(ids), { perCall: 1 });
    expect(alone.summary).toMatchObject({ reason: 'done', records: 11, detailPages: 11 });
    expect(alone.calls('collect_details')).toHaveLength(0);
    expect(alone.calls('collect_extract')).toHaveLength(12);
  });

  it("takes a page's record only from its own section: a page that writes a heading of its own cannot speak for another", async () => {
    const pages = listing([1, 2]);
    // Page 1's text pretends that a [Page 2] starts inside it, with a price for widget 2.
    pages['https://site.test/item/1'] = { title: 'Widget 1', content: ['Item 1: Widget 1, price 10', '[Page 2] Item 2: Widget 2, price 999'] };
    pages['https://site.test/item/2'] = { title: 'Widget 2', content: ['Nothing about the price here'] };
    const { summary, kept, calls } = await collect(pages, true);
    expect(calls('collect_details')).toHaveLength(1);
    expect(kept.map((record) => record.data)).toEqual([{ id: 1, name: 'Widget 1', price: 10, page: expect.stringMatching(/\/item\/1$/) }]);
    expect(summary).toMatchObject({ records: 1, rejected: 1 });
  });
});

describe('Collector listing plans', () => {
  /** Pages 1-5 of a numbered pager: links "1".."5" and "Next"; `empty` pages list no item. */
  function numberedPager(empty: readonly number[] = []): Record<string, FakePage> {
    const pages: Record<string, FakePage> = {};
    for (let page = 1; page <= 5; page++) {
      const pager = range(1, 5).map((other) => link(String(other), pageUrl(other)));
      const next = page < 5 ? [link('Next', pageUrl(page + 1))] : [];
      pages[pageUrl(page)] = {
        title: `List page ${page}`,
        content: [...(empty.includes(page) ? ['No items here'] : itemLines(page * 10, 2)), ...pager, ...next],
      };
    }
    return pages;
  }

  async function runPager(pages: Record<string, FakePage>) {
    const llm = siteModel();
    const store = memoryCollectionStore<Item>();
    const browser = new FakeBrowserDriver({ pages });
    const collector = new Collector({ ...baseOptions, llm, browser, start: pageUrl(1), store });
    const done = recordEvents(collector, 'collect-page');
    const summary = await collector.run();
    const surveyed = llm.requests
      .filter((request) => request.output?.name === 'collect_survey')
      .map((request) => /Page: List page (\d+)/.exec(request.lastUserText)?.[1]);
    return { summary, surveysByPage: done.map((event) => [event.url, event.surveys]), surveyed, store, browser };
  }

  it('surveys a 5-page numbered listing on page 1 and on its last page only, and checkpoints the plan', async () => {
    const { summary, surveysByPage, surveyed, store, browser } = await runPager(numberedPager());
    expect(summary).toMatchObject({ reason: 'done', pagesDone: 5, records: 10 });
    expect(gotos(browser)).toEqual(range(1, 5).map((page) => pageUrl(page)));
    expect(surveyed).toEqual(['1', '5']);
    expect(surveysByPage).toEqual(range(1, 5).map((page) => [pageUrl(page), page === 1 || page === 5 ? 1 : 0]));
    expect(Object.keys((await store.load())?.templates ?? {})).toEqual(['site.test/list?page']);
  });

  it('surveys again a page of a known template that gives no record', async () => {
    const { summary, surveysByPage, surveyed } = await runPager(numberedPager([3]));
    expect(summary).toMatchObject({ reason: 'done', pagesDone: 5, pagesEmpty: 1, records: 8 });
    expect(surveyed).toEqual(['1', '3', '5']);
    expect(surveysByPage).toEqual(range(1, 5).map((page) => [pageUrl(page), page === 2 || page === 4 ? 0 : 1]));
  });
});
