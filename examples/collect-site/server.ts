// The collection site's web server (issue 14): node:http on 127.0.0.1 and a free port, a job board
// listed four ways, with broken, slow and empty pages and a cookie wall on demand. Loopback only.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jobPostings, type JobPosting } from './jobs';
import { layOut, type ListingPage } from './listing';
import {
  batchFragment,
  detailPage,
  homePage,
  infiniteScrollPage,
  loadMorePage,
  nextLinkListingPage,
  notFoundPage,
  numberedListingPage,
  serverErrorPage,
  type ListingFrame,
} from './pages';

export type { JobPosting } from './jobs';
export type { ListingPage, PageFault } from './listing';

/**
 * Options of {@link startCollectSite}. A page number means the same page in every variant: page N of
 * `/jobs?page=N` and `/next?page=N`, and the N-th batch of `/more` and `/scroll` (batch 1 comes with the page itself).
 */
export interface CollectSiteOptions {
  /** The port on 127.0.0.1. @defaultValue a free one */
  readonly port?: number | undefined;
  /** Deals the postings' titles, companies, salaries and locations; the same seed gives the same site. @defaultValue 1 */
  readonly seed?: number | undefined;
  /** How many postings the site lists. @defaultValue 240 */
  readonly count?: number | undefined;
  /** Postings per page (and per batch). @defaultValue 20 */
  readonly pageSize?: number | undefined;
  /**
   * Pages that answer 500, every time; their postings are never served.
   * @defaultValue []
   * @example `{ brokenPages: [4] }`
   */
  readonly brokenPages?: readonly number[] | undefined;
  /**
   * A run of consecutive broken pages, added to `brokenPages`: for the failure budget of a collection.
   * @example `{ brokenRun: { start: 5, length: 3 } }` breaks pages 5, 6 and 7
   */
  readonly brokenRun?: { readonly start: number; readonly length: number } | undefined;
  /** Pages that answer only after `slowDelayMs`, for a page timeout. @defaultValue [] */
  readonly slowPages?: readonly number[] | undefined;
  /** How long a slow page takes. @defaultValue 5000 */
  readonly slowDelayMs?: number | undefined;
  /**
   * Pages with no postings (a normal page that says "No jobs on this page"); each is inserted where
   * it is numbered, so the listing has one page more per empty page and every posting is still on it.
   * @defaultValue []
   */
  readonly emptyPages?: readonly number[] | undefined;
  /**
   * Hides every page behind a cookie wall until "Accept" is pressed: a form that POSTs to `/consent`,
   * which sets the cookie `collect_consent=yes` and sends the visitor back where they were. Until then
   * no posting is in any page or batch (a batch answers 403).
   * @defaultValue false
   */
  readonly cookieWall?: boolean | undefined;
}

/** A running collection site. */
export interface CollectSite {
  /**
   * The home page, such as `http://127.0.0.1:41234/`; the listings are `/jobs` (numbered pages),
   * `/next` (only "Next page" links), `/more` and `/scroll`.
   */
  readonly url: string;
  /** Every posting, in listing order: the whole truth, broken pages' postings included. */
  readonly items: readonly JobPosting[];
  /** The listing's pages in order, each with its postings and faults. */
  readonly pages: readonly ListingPage[];
  /** The postings a visitor can get: those of every page that is not broken. */
  readonly reachableItems: readonly JobPosting[];
  /** The absolute URL of page `page` of `/jobs`. */
  pageUrl(page: number): string;
  /**
   * Requests so far by path and query as sent (`/jobs?page=2`, `/more/items?page=3`; `/jobs` and
   * `/jobs?page=1` count apart), failed and slow ones included; other methods than GET are prefixed
   * (`POST /consent`). A fresh copy each call.
   */
  hits(): Record<string, number>;
  /**
   * The most requests the server was answering at the same time so far (from the request's arrival
   * to the end of its answer), for politeness checks: 1 means the site never saw two at once.
   */
  maxInFlight(): number;
  /** Stops the server, drops open connections and cancels slow answers; calling it again does nothing. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const consentCookie = 'collect_consent';

function checkCount(name: string, value: number, minimum: number): number {
  if (!Number.isInteger(value) || value < minimum) throw new Error(`Option \`${name}\` must be an integer of at least ${minimum}, got ${value}.`);
  return value;
}

/** Broken pages, the run included. */
function brokenPagesOf(options: CollectSiteOptions): number[] {
  const broken = [...(options.brokenPages ?? [])];
  if (options.brokenRun) {
    const start = checkCount('brokenRun.start', options.brokenRun.start, 1);
    const length = checkCount('brokenRun.length', options.brokenRun.length, 1);
    for (let page = start; page < start + length; page++) broken.push(page);
  }
  return broken;
}

/** Reads a small form body; anything longer than the consent form is cut off. */
async function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of request) {
    body += String(chunk);
    if (body.length > 4096) break;
  }
  return new URLSearchParams(body);
}

/** A local path to send the visitor back to after the cookie wall; anything else (another site) becomes `/`. */
const localPath = (value: string | null): string => (value && value.startsWith('/') && !value.startsWith('//') ? value : '/');

/** The page number of `?page=`, 1 when absent; undefined when it is not one of the listing's pages. */
function pageNumber(query: URLSearchParams, last: number): number | undefined {
  const raw = query.get('page');
  if (raw === null) return 1;
  const number = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  return number >= 1 && number <= last ? number : undefined;
}

/** Starts the collection site on 127.0.0.1 and a free port. */
export async function startCollectSite(options: CollectSiteOptions = {}): Promise<CollectSite> {
  const count = checkCount('count', options.count ?? 240, 1);
  const pageSize = checkCount('pageSize', options.pageSize ?? 20, 1);
  const seed = options.seed ?? 1;
  if (!Number.isInteger(seed)) throw new Error(`Option \`seed\` must be an integer, got ${seed}.`);
  const slowDelayMs = options.slowDelayMs ?? 5000;
  if (!Number.isFinite(slowDelayMs) || slowDelayMs < 0)
    throw new Error(`Option \`slowDelayMs\` must be a number of milliseconds of at least 0, got ${slowDelayMs}.`);
  const plan = { pageSize, brokenPages: brokenPagesOf(options), slowPages: options.slowPages ?? [], emptyPages: options.emptyPages ?? [] };
  // The pages are checked before the server listens, with a placeholder origin, so a bad option leaves no server behind.
  layOut(jobPostings(count, seed, 'http://127.0.0.1/'), plan);

  const hits = new Map<string, number>();
  let inFlight = 0;
  let maxInFlight = 0;
  const slowAnswers = new Set<NodeJS.Timeout>();
  let items: JobPosting[] = [];
  let pages: ListingPage[] = [];

  const respond = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://site');
    const method = request.method ?? 'GET';
    const key = `${method === 'GET' ? '' : `${method} `}${url.pathname}${url.search}`;
    hits.set(key, (hits.get(key) ?? 0) + 1);
    const send = (status: number, body: string, headers: Record<string, string> = {}): void => {
      response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers }).end(body);
    };

    if (method === 'POST' && url.pathname === '/consent') {
      const returnTo = localPath((await readForm(request)).get('return'));
      // Post/redirect/get: the browser lands back on the page the wall covered, now with the cookie.
      response.writeHead(303, { location: returnTo, 'set-cookie': `${consentCookie}=yes; Path=/; SameSite=Lax; HttpOnly` }).end();
      return;
    }
    if (method !== 'GET') return send(405, notFoundPage());

    const consented = !options.cookieWall || new RegExp(`(?:^|;\\s*)${consentCookie}=yes(?:;|$)`).test(request.headers.cookie ?? '');
    const wall = consented ? undefined : { returnTo: `${url.pathname}${url.search}` };
    const listing: ListingFrame = { totalPages: pages.length, totalItems: items.length, wall };
    const [, section, rest, extra] = url.pathname.split('/');

    if (url.pathname === '/') return send(200, homePage(wall));
    if (section === 'job' && rest && extra === undefined) {
      const job = items.find((candidate) => candidate.id === rest);
      return job ? send(200, detailPage(job, wall)) : send(404, notFoundPage());
    }
    const variant = section === 'jobs' || section === 'next' || section === 'more' || section === 'scroll' ? section : undefined;
    const paged = variant === 'jobs' || variant === 'next';
    const isBatch = !paged && rest === 'items' && extra === undefined;
    if (!variant || !(rest === undefined || isBatch)) return send(404, notFoundPage());
    // `/more` and `/scroll` always start at the first batch; `/jobs`, `/next` and the batches take `?page=`.
    const number = paged || isBatch ? pageNumber(url.searchParams, pages.length) : 1;
    const page = number === undefined ? undefined : pages[number - 1];
    if (!page) return send(404, notFoundPage());

    const answer = (): void => {
      // A broken page fails before anything is rendered, cookie wall or not.
      if (page.faults.includes('broken')) return send(500, isBatch ? 'Server error' : serverErrorPage());
      if (isBatch && wall) return send(403, 'Accept the cookies first.', { 'content-type': 'text/plain; charset=utf-8' });
      if (isBatch) {
        const headers: Record<string, string> = page.number < pages.length ? { 'x-next-page': String(page.number + 1) } : {};
        return send(200, batchFragment(page), headers);
      }
      if (variant === 'jobs') return send(200, numberedListingPage(page, listing));
      if (variant === 'next') return send(200, nextLinkListingPage(page, listing));
      return send(200, variant === 'more' ? loadMorePage(page, listing) : infiniteScrollPage(page, listing));
    };
    if (!page.faults.includes('slow')) return answer();
    const timer = setTimeout(() => {
      slowAnswers.delete(timer);
      if (!response.destroyed) answer();
    }, slowDelayMs);
    slowAnswers.add(timer);
    // A client that gives up (a page timeout) closes the connection: nothing is left to answer.
    response.once('close', () => {
      clearTimeout(timer);
      slowAnswers.delete(timer);
    });
  };

  const server = createServer((request, response) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    // 'close' comes once per response, answered or dropped.
    response.once('close', () => inFlight--);
    respond(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(`Server error: ${error instanceof Error ? error.message : String(error)}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  items = jobPostings(count, seed, origin);
  pages = layOut(items, plan);
  const brokenIds = new Set(pages.filter((page) => page.faults.includes('broken')).flatMap((page) => page.items.map((item) => item.id)));

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      for (const timer of slowAnswers) clearTimeout(timer);
      slowAnswers.clear();
      server.closeAllConnections();
      server.close(() => resolve());
    });
    return closing;
  };
  return {
    url: `${origin}/`,
    items,
    pages,
    reachableItems: items.filter((item) => !brokenIds.has(item.id)),
    pageUrl: (page) => `${origin}/jobs?page=${page}`,
    hits: () => Object.fromEntries(hits),
    maxInFlight: () => maxInFlight,
    close,
    [Symbol.asyncDispose]: close,
  };
}
