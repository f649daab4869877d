// The anchor of the collect bench: a classic Crawlee PlaywrightCrawler with the hand-written selectors of the
// collect corpus (test/fixtures/collect-corpus/selectors.ts). A dev dependency of the bench only, never of src/.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Configuration, log, NonRetryableError, PlaywrightCrawler, type PlaywrightCrawlingContext } from '@crawlee/playwright';
import { chromium, type Page, type Response } from 'playwright';
import { htmlToMarkdown } from '../src/actions/markdown';
import { readCards } from '../test/fixtures/collect-corpus/browser-walk';
import { DETAIL_SELECTORS, STYLE_SELECTORS, type StyleSelectors } from '../test/fixtures/collect-corpus/selectors';
import type { CorpusRecord, CorpusStyle } from '../test/fixtures/collect-corpus/types';

/** A record as the crawler read it: any field may be missing or wrong; the bench scores it against the truth. */
export type CrawledRecord = Partial<Record<keyof CorpusRecord, string>>;

/** What one crawl gave. */
export interface CrawleeRun {
  /** Every record pushed, in order (a record pushed twice is here twice). */
  readonly records: readonly CrawledRecord[];
  /** Crawlee's own request counts: finished, failed after all retries, and retries. */
  readonly requestsFinished: number;
  readonly requestsFailed: number;
  readonly retries: number;
  /** The highest number of requests Crawlee's autoscaled pool ran at once. */
  readonly peakConcurrency: number;
  /**
   * The text floor: every page state the crawler read (each listing page and batch once, in its state when read,
   * after its pager walk or scrolls; each detail page), its HTML (`page.content()`) as the Collector's converter
   * makes it markdown with links kept (`htmlToMarkdown(html, { includeLinks: true })`). Counted only for requests
   * that succeeded (a failed attempt's pages are read again by its retry).
   */
  readonly pageText: PageText;
}

/** Σ characters of the pages' text, and the page states it comes from. */
export interface PageText {
  readonly pages: number;
  /** `htmlToMarkdown(page.content(), { includeLinks: true })`. */
  readonly chars: number;
}

/** Settings of {@link crawlWithCrawlee}. */
export interface CrawleeSettings {
  /**
   * Concurrent requests (pages): Crawlee's autoscaled pool is held at this number (its minimum and maximum), since on a
   * shared machine its CPU gauge keeps it near 1. @defaultValue 4
   */
  readonly concurrency?: number | undefined;
  /** Called every 200 ms with the pool's concurrency at that moment (for the memory sampler). */
  readonly onSample?: ((concurrency: number) => void) | undefined;
}

/** The flags every headless Chromium of the project runs with. */
const CHROMIUM_FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];

/**
 * The links a hand-written crawler enqueues on an `href`-paged listing, besides Next: every link of the pager, as
 * Crawlee's own examples do (`enqueueLinks({ selector: '.pagination a' })`), so that a page broken for good does not
 * cut off the pages after it when the numbers still reach them.
 */
const PAGER_LINKS: Partial<Record<CorpusStyle, string>> = {
  numbered: 'nav.pagination a',
  'category-tree': 'nav.pager a',
};

interface ListingData {
  readonly style: CorpusStyle;
}
interface DetailData {
  readonly style: CorpusStyle;
  readonly card: CrawledRecord;
}

interface DetailFields {
  readonly sponsored: boolean;
  readonly price: string | undefined;
  readonly location: string | undefined;
}

const READ_DETAIL = `function (s) {
  function text(css) { var element = document.querySelector(css); var value = element ? (element.textContent || '').replace(/\\s+/g, ' ').trim() : ''; return value || undefined; }
  return { sponsored: document.querySelector(s.sponsored) !== null, price: text(s.price), location: text(s.location) };
}`;

/** Fails the request (Crawlee retries it) unless the page answered 2xx; a 404 or 410 is not retried. */
function checkResponse({ response, request }: PlaywrightCrawlingContext): void {
  const status = response?.status() ?? 0;
  if (status >= 200 && status < 300) return;
  if (status === 404 || status === 410) throw new NonRetryableError(`HTTP ${status} at ${request.url}`);
  throw new Error(`HTTP ${status} at ${request.url}`);
}

/** The response of the next navigation of the page's main frame. */
function navigation(page: Page): Promise<Response> {
  return page.waitForResponse((response) => response.request().isNavigationRequest() && response.frame() === page.mainFrame());
}

/** The in-page pagers: the whole listing is walked in the request's page; an error fails the request, and Crawlee's retry walks it again from its start. */
async function walkInPage(page: Page, selectors: StyleSelectors, read: (page: Page) => Promise<void>): Promise<CrawledRecord[]> {
  const { next } = selectors;
  const records: CrawledRecord[] = [];
  const maxSteps = 400;
  switch (next.kind) {
    case 'href':
      await read(page);
      return readCards(page, selectors);
    case 'click-replace':
      for (let step = 0; ; step++) {
        await read(page);
        records.push(...(await readCards(page, selectors)));
        if (step > maxSteps) throw new Error('too many steps');
        const button = await page.$(next.selector);
        if (button === null) return records;
        const before = await page.$eval(next.list, (element) => element.innerHTML);
        await button.click();
        await page.waitForFunction(
          ({ list, error, html }) => document.querySelector(list)?.innerHTML !== html || (document.querySelector(error)?.textContent ?? '') !== '',
          { list: next.list, error: next.error, html: before },
        );
        const failed = await page.$eval(next.error, (element) => element.textContent ?? '');
        if (failed !== '') throw new Error(`load failed: ${failed}`);
      }
    case 'click-append':
      for (let step = 0; ; step++) {
        if (step > maxSteps) throw new Error('too many steps');
        const count = await page.$$eval(`${next.list} > *`, (elements) => elements.length);
        const button = await page.$(next.selector);
        if (button === null) break;
        await button.click();
        await page.waitForFunction(
          ({ list, count: before, error, button: selector }) =>
            document.querySelectorAll(`${list} > *`).length > before ||
            document.querySelector(selector) === null ||
            (document.querySelector(error)?.textContent ?? '') !== '',
          { list: next.list, count, error: next.error, button: next.selector },
        );
        const failed = await page.$eval(next.error, (element) => element.textContent ?? '');
        if (failed !== '') throw new Error(`load failed: ${failed}`);
      }
      await read(page);
      return readCards(page, selectors);
    case 'scroll':
      for (let step = 0; ; step++) {
        if (step > maxSteps) throw new Error('too many steps');
        const endText = await page.$eval(next.end, (element) => element.textContent ?? '');
        if (next.endText.test(endText)) break;
        if ((await page.$(next.retry)) !== null) throw new Error('scroll load failed');
        const count = await page.$$eval(`${next.list} > *`, (elements) => elements.length);
        await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
        await page.mouse.wheel(0, 400);
        await page.waitForFunction(
          ({ list, count: before, end, retry }) =>
            document.querySelectorAll(`${list} > *`).length > before ||
            document.querySelector(retry) !== null ||
            /reached the end/.test(document.querySelector(end)?.textContent ?? ''),
          { list: next.list, count, end: next.end, retry: next.retry },
        );
      }
      await read(page);
      return readCards(page, selectors);
    case 'select': {
      const values = await page.$$eval(`${next.selector} option`, (options) => options.map((option) => (option as HTMLOptionElement).value));
      for (const [index, value] of values.entries()) {
        if (index > 0) {
          const [response] = await Promise.all([navigation(page), page.waitForEvent('load'), page.selectOption(next.selector, value)]);
          if (!response.ok()) throw new Error(`HTTP ${response.status()} at ${page.url()}`);
        }
        await read(page);
        records.push(...(await readCards(page, selectors)));
      }
      return records;
    }
    case 'submit':
      for (let step = 0; ; step++) {
        await read(page);
        records.push(...(await readCards(page, selectors)));
        if (step > maxSteps) throw new Error('too many steps');
        const button = await page.$(next.selector);
        if (button === null) return records;
        const [response] = await Promise.all([navigation(page), page.waitForEvent('load'), button.click()]);
        if (!response.ok()) throw new Error(`HTTP ${response.status()} after submit`);
      }
  }
}

/**
 * Crawls the corpus from `startUrls` with Crawlee's PlaywrightCrawler (its default retries: 3 more attempts of a
 * failed request) over the system Chromium, in a temporary storage folder that is removed afterwards.
 */
export async function crawlWithCrawlee(
  startUrls: readonly { readonly style: CorpusStyle; readonly url: string }[],
  settings: CrawleeSettings = {},
): Promise<CrawleeRun> {
  const storage = mkdtempSync(join(tmpdir(), 'plannav-bench-crawlee-'));
  process.env.CRAWLEE_STORAGE_DIR = storage;
  log.setLevel(log.LEVELS.OFF);
  const records: CrawledRecord[] = [];
  const pageText = { pages: 0, chars: 0 };
  let peakConcurrency = 0;
  const crawler = new PlaywrightCrawler(
    {
      launchContext: { launcher: chromium, launchOptions: { headless: true, executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS } },
      minConcurrency: settings.concurrency ?? 4,
      maxConcurrency: settings.concurrency ?? 4,
      async requestHandler(context) {
        const { page, request, enqueueLinks } = context;
        // The text of the page states this attempt read, counted when it succeeds.
        const texts: number[] = [];
        const read = async (state: Page): Promise<void> => {
          texts.push(htmlToMarkdown(await state.content(), { includeLinks: true }).length);
        };
        const counted = (): void => {
          for (const chars of texts) {
            pageText.pages++;
            pageText.chars += chars;
          }
        };
        checkResponse(context);
        if (request.label === 'DETAIL') {
          await read(page);
          const { card } = request.userData as DetailData;
          // Sent as source text: a bundler's helpers (esbuild's `__name`) must not leak into the page.
          const detail = await page.evaluate<DetailFields>(`(${READ_DETAIL})(${JSON.stringify(DETAIL_SELECTORS)})`);
          counted();
          if (detail.sponsored) return;
          const record: CrawledRecord = { ...card };
          if (record.price === undefined && detail.price !== undefined) record.price = detail.price;
          if (record.location === undefined && detail.location !== undefined) record.location = detail.location;
          records.push(record);
          return;
        }
        const { style } = request.userData as ListingData;
        const selectors = STYLE_SELECTORS[style];
        if (selectors.consentAccept !== undefined && (await page.$(selectors.consentAccept)) !== null) {
          await Promise.all([page.waitForEvent('load'), page.click(selectors.consentAccept)]);
        }
        if (selectors.categoryLinks !== undefined) {
          const categories = await page.$$eval(selectors.categoryLinks, (anchors) => anchors.map((anchor) => (anchor as HTMLAnchorElement).href));
          if (categories.length > 0) {
            await read(page);
            await enqueueLinks({ urls: categories, label: 'LISTING', userData: { style } });
            counted();
            return;
          }
        }
        const cards = await walkInPage(page, selectors, read);
        if (selectors.next.kind === 'href') {
          const nextLinks = await page.$$eval([selectors.next.selector, PAGER_LINKS[style]].filter(Boolean).join(', '), (elements) =>
            elements.map((element) => element.getAttribute('href') ?? ''),
          );
          const urls = nextLinks.filter((href) => href !== '').map((href) => new URL(href, page.url()).href);
          if (urls.length > 0) await enqueueLinks({ urls, label: 'LISTING', userData: { style } });
        }
        const needsDetail = selectors.fields.price === undefined || selectors.fields.location === undefined;
        if (!needsDetail) {
          records.push(...cards);
          counted();
          return;
        }
        const details = cards.filter((card) => card.link !== undefined);
        await crawler.addRequests(details.map((card) => ({ url: card.link as string, label: 'DETAIL', userData: { style, card } })));
        counted();
      },
      failedRequestHandler({ request }, error) {
        console.log(`bench collect: crawlee gave up ${request.url} after ${request.retryCount} retries: ${error.message.split('\n')[0]}`);
      },
    },
    new Configuration({ persistStorage: false, purgeOnStart: true }),
  );
  const sampler = setInterval(() => {
    const concurrency = crawler.autoscaledPool?.currentConcurrency ?? 0;
    peakConcurrency = Math.max(peakConcurrency, concurrency);
    settings.onSample?.(concurrency);
  }, 200);
  try {
    const stats = await crawler.run(startUrls.map(({ style, url }) => ({ url, label: 'LISTING', userData: { style } })));
    return {
      records,
      requestsFinished: stats.requestsFinished,
      requestsFailed: stats.requestsFailed,
      retries: crawler.stats.state.requestsRetries,
      peakConcurrency,
      pageText,
    };
  } finally {
    clearInterval(sampler);
    await crawler.teardown();
    rmSync(storage, { recursive: true, force: true });
  }
}
