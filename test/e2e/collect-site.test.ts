// The collection site of issue 14 (examples/collect-site): its three listings, its faults and its
// cookie wall over plain HTTP; then, in headless Chromium, that "Load more" and the infinite scroll
// really add every posting, and that the wall's "Accept" lets a browser through.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCollectSite, type CollectSite, type CollectSiteOptions } from '../../examples/collect-site/server';
import { PlaywrightDriver } from '../../src/playwright/index';

const sites: CollectSite[] = [];
afterEach(async () => {
  await Promise.all(sites.splice(0).map((site) => site.close()));
});

async function start(options: CollectSiteOptions = {}): Promise<CollectSite> {
  const site = await startCollectSite(options);
  sites.push(site);
  return site;
}

const get = (site: CollectSite, path: string, init: RequestInit = {}): Promise<Response> => fetch(new URL(path, site.url), { redirect: 'manual', ...init });

async function html(site: CollectSite, path: string, init?: RequestInit): Promise<string> {
  const response = await get(site, path, init);
  expect(response.status, path).toBe(200);
  return response.text();
}

/** The posting ids of a page or batch, in order. */
const idsOf = (text: string): string[] => [...text.matchAll(/data-job-id="([^"]+)"/g)].map((match) => match[1] ?? '');
const nextLink = (text: string): string | undefined => /<a rel="next" href="([^"]+)"/.exec(text)?.[1];
const ids = (items: readonly { readonly id: string }[]): string[] => items.map((item) => item.id);

/** Follows "Next" from `/jobs?page=1` to the end (at most 100 pages); the ids in order, and the status of each page. */
async function walkNumbered(site: CollectSite): Promise<{ ids: string[]; statuses: Record<string, number> }> {
  const seen: string[] = [];
  const statuses: Record<string, number> = {};
  let path: string | undefined = '/jobs?page=1';
  for (let step = 0; path && step < 100; step++) {
    const response = await get(site, path);
    statuses[path] = response.status;
    if (response.status !== 200) {
      // A crawler skips a broken page by its number: the next one after it.
      const number: number = Number(new URL(path, site.url).searchParams.get('page'));
      path = number < site.pages.length ? `/jobs?page=${number + 1}` : undefined;
      continue;
    }
    const text = await response.text();
    seen.push(...idsOf(text));
    path = nextLink(text);
  }
  return { ids: seen, statuses };
}

describe('the collection site over HTTP', () => {
  it('lists 240 postings over 12 pages by default, the same for the same seed', async () => {
    const site = await start();
    expect(site.items).toHaveLength(240);
    expect(site.pages.map((page) => page.items.length)).toEqual(Array(12).fill(20));
    expect(new Set(ids(site.items)).size).toBe(240);
    expect(site.items[0]).toMatchObject({ id: 'job-0001', detailUrl: `${site.url}job/job-0001` });
    for (const item of site.items) {
      expect(item.title).not.toBe('');
      expect(item.company).not.toBe('');
      expect(item.location).not.toBe('');
      expect(item.salary).toMatch(/^\$\d{2,3},\d{3} - \$\d{2,3},\d{3} a year$/);
    }
    const withoutUrl = (site_: CollectSite) => site_.items.map(({ detailUrl: _detailUrl, ...rest }) => rest);
    expect(withoutUrl(await start())).toEqual(withoutUrl(site));
    expect(withoutUrl(await start({ seed: 2 }))).not.toEqual(withoutUrl(site));
    const small = await start({ count: 45, pageSize: 10 });
    expect(small.pages.map((page) => page.items.length)).toEqual([10, 10, 10, 10, 5]);
    expect(ids(small.items)).toEqual(ids(site.items).slice(0, 45));
  });

  it('/jobs: numbered links and "Next" reach every posting once, in order', async () => {
    const site = await start();
    const first = await html(site, '/jobs');
    expect(first).toContain('Page 1 of 12');
    expect(first).not.toContain('rel="prev"');
    for (const number of [2, 3, 12]) expect(first).toContain(`href="/jobs?page=${number}"`);
    const middle = await html(site, '/jobs?page=6');
    expect(middle).toContain('<a aria-current="page" href="/jobs?page=6">');
    expect(middle).toContain('<a rel="prev" href="/jobs?page=5">Previous</a>');
    expect(middle).toMatch(/page=1">1<\/a> <span>…<\/span> <a href="\/jobs\?page=4">/);
    expect(nextLink(await html(site, '/jobs?page=12'))).toBeUndefined();

    const walked = await walkNumbered(site);
    expect(walked.ids).toEqual(ids(site.items));
    const hits = site.hits();
    // Page 6 and page 12 were also read on their own above; every other page once, by the walk.
    for (let number = 1; number <= 12; number++) expect(hits[`/jobs?page=${number}`], `page ${number}`).toBe(number === 6 || number === 12 ? 2 : 1);
    expect(hits['/jobs']).toBe(1);
  });

  it('/more and /scroll: the first batch with the page, the others from their batch URL', async () => {
    const site = await start();
    const more = await html(site, '/more');
    expect(idsOf(more)).toEqual(ids(site.pages[0]?.items ?? []));
    expect(more).toContain('<button type="button" id="load-more" data-next-page="2">Load more</button>');
    const scroll = await html(site, '/scroll');
    expect(idsOf(scroll)).toEqual(ids(site.pages[0]?.items ?? []));
    expect(scroll).toContain('id="scroll-sentinel" role="status" data-next-page="2"');
    for (const variant of ['more', 'scroll']) {
      const seen = idsOf(variant === 'more' ? more : scroll);
      let next: string | null = '2';
      for (let step = 0; next && step < 100; step++) {
        const response = await get(site, `/${variant}/items?page=${next}`);
        expect(response.status).toBe(200);
        seen.push(...idsOf(await response.text()));
        next = response.headers.get('x-next-page');
      }
      expect(seen, variant).toEqual(ids(site.items));
    }
    for (const path of ['/jobs?page=13', '/jobs?page=0', '/jobs?page=two', '/more/items?page=13', '/jobs/items?page=2', '/job/job-9999', '/nowhere'])
      expect((await get(site, path)).status, path).toBe(404);
    const detail = await html(site, '/job/job-0007');
    const job = site.items[6];
    expect(detail).toContain(`<h1>${job?.title}</h1>`);
    expect(detail).toContain(job?.salary);
  });

  it('broken pages answer 500 in every variant; a broken run is consecutive; the rest of the listing is still there', async () => {
    const site = await start({ brokenPages: [3], brokenRun: { start: 7, length: 3 } });
    expect(site.pages.filter((page) => page.faults.includes('broken')).map((page) => page.number)).toEqual([3, 7, 8, 9]);
    const brokenResponse = await get(site, '/jobs?page=3');
    expect(brokenResponse.status).toBe(500);
    expect(await brokenResponse.text()).toContain('error 500');
    expect((await get(site, '/more/items?page=8')).status).toBe(500);
    expect((await get(site, '/scroll/items?page=9')).status).toBe(500);
    expect((await get(site, '/jobs?page=10')).status).toBe(200);
    expect((await get(site, '/jobs?page=3')).status).toBe(500); // every time

    const walked = await walkNumbered(site);
    expect(walked.ids).toEqual(ids(site.reachableItems));
    expect(site.reachableItems).toHaveLength(240 - 4 * 20);
    expect(Object.entries(walked.statuses).filter(([, status]) => status === 500)).toEqual([
      ['/jobs?page=3', 500],
      ['/jobs?page=7', 500],
      ['/jobs?page=8', 500],
      ['/jobs?page=9', 500],
    ]);
  });

  it('a slow page answers after its delay, so a shorter timeout gives up; close() does not wait for it', async () => {
    const site = await start({ slowPages: [2], slowDelayMs: 600 });
    const started = Date.now();
    expect(idsOf(await html(site, '/jobs?page=2'))).toEqual(ids(site.pages[1]?.items ?? []));
    expect(Date.now() - started).toBeGreaterThanOrEqual(550);
    await expect(get(site, '/more/items?page=2', { signal: AbortSignal.timeout(150) })).rejects.toThrow(/timeout|aborted/i);
    const fast = Date.now();
    await html(site, '/jobs?page=3');
    expect(Date.now() - fast).toBeLessThan(500);

    const slower = await startCollectSite({ slowPages: [1], slowDelayMs: 60_000 });
    const pending = get(slower, '/jobs').catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closing = Date.now();
    await slower.close();
    expect(Date.now() - closing).toBeLessThan(1000);
    expect(await pending).toBeInstanceOf(Error);
  });

  it('empty pages have no postings but keep the pagination; every posting is still on the site', async () => {
    const site = await start({ emptyPages: [4, 13] });
    expect(site.pages).toHaveLength(14);
    expect(site.pages.filter((page) => page.items.length === 0).map((page) => page.number)).toEqual([4, 13]);
    const empty = await html(site, '/jobs?page=4');
    expect(idsOf(empty)).toEqual([]);
    expect(empty).toContain('No jobs on this page.');
    expect(nextLink(empty)).toBe('/jobs?page=5');
    const batch = await get(site, '/more/items?page=13');
    expect(await batch.text()).toBe('');
    expect(batch.headers.get('x-next-page')).toBe('14');
    expect((await walkNumbered(site)).ids).toEqual(ids(site.items));
    expect(site.reachableItems).toEqual(site.items);
  });

  it('refuses fault pages outside the listing, with the range in the message', async () => {
    await expect(startCollectSite({ emptyPages: [20] })).rejects.toThrow('Option `emptyPages` must hold page numbers from 1 to 13');
    await expect(startCollectSite({ brokenPages: [13] })).rejects.toThrow('Option `brokenPages` must hold page numbers from 1 to 12');
    await expect(startCollectSite({ brokenRun: { start: 11, length: 3 } })).rejects.toThrow('from 1 to 12 (the listing');
    await expect(startCollectSite({ count: 0 })).rejects.toThrow('Option `count` must be an integer of at least 1, got 0.');
    await expect(startCollectSite({ slowDelayMs: -1 })).rejects.toThrow('Option `slowDelayMs`');
  });

  it('the cookie wall hides every listing until "Accept" sets the cookie, then sends the visitor back', async () => {
    const site = await start({ cookieWall: true });
    const walled = await html(site, '/jobs?page=2');
    expect(idsOf(walled)).toEqual([]);
    expect(walled).toContain('<div id="cookie-wall" role="dialog"');
    expect(walled).toContain('<input type="hidden" name="return" value="/jobs?page=2">');
    expect(idsOf(await html(site, '/more'))).toEqual([]);
    expect((await get(site, '/scroll/items?page=2')).status).toBe(403);

    const accepted = await get(site, '/consent', { method: 'POST', body: new URLSearchParams({ return: '/jobs?page=2' }) });
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get('location')).toBe('/jobs?page=2');
    const cookie = (accepted.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect(cookie).toBe('collect_consent=yes');
    const open = await html(site, '/jobs?page=2', { headers: { cookie } });
    expect(open).not.toContain('id="cookie-wall"');
    expect(idsOf(open)).toEqual(ids(site.pages[1]?.items ?? []));
    expect((await get(site, '/scroll/items?page=2', { headers: { cookie } })).status).toBe(200);

    const elsewhere = await get(site, '/consent', { method: 'POST', body: new URLSearchParams({ return: '//evil.example/' }) });
    expect(elsewhere.headers.get('location')).toBe('/');
    expect(site.hits()['POST /consent']).toBe(2);
  });
});

describe('the collection site in headless Chromium', () => {
  let browser: PlaywrightDriver;
  beforeAll(async () => {
    browser = await PlaywrightDriver.launch({ headless: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  const shownIds = (): Promise<string[]> => browser.page.locator('li.job').evaluateAll((elements) => elements.map((element) => element.id));

  it('"Load more" and the infinite scroll each add every posting, once and in order', async () => {
    const site = await start({ emptyPages: [5] });
    await browser.goto(`${site.url}more`);
    expect(await shownIds()).toEqual(ids(site.pages[0]?.items ?? []));
    const button = browser.page.getByRole('button', { name: 'Load more' });
    for (let clicks = 0; clicks < 20 && (await button.count()) > 0; clicks++) {
      const before = site.hits()[`/more/items?page=${clicks + 2}`] ?? 0;
      await button.click();
      await expect.poll(() => site.hits()[`/more/items?page=${clicks + 2}`] ?? 0).toBe(before + 1);
      await expect.poll(() => browser.page.locator('#load-status').textContent()).not.toBe('Loading more jobs…');
    }
    expect(await button.count()).toBe(0);
    expect(await browser.page.locator('#load-status').textContent()).toBe("That's all the jobs.");
    expect(await shownIds()).toEqual(ids(site.items));

    await browser.goto(`${site.url}scroll`);
    // One batch is taller than the viewport: nothing more loads until the page is scrolled.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await shownIds()).toEqual(ids(site.pages[0]?.items ?? []));
    expect(site.hits()['/scroll/items?page=2']).toBeUndefined();
    const sentinel = browser.page.locator('#scroll-sentinel');
    for (let scrolls = 0; scrolls < 40 && (await sentinel.textContent()) !== "That's all the jobs."; scrolls++) {
      // The mouse wheel, as a reader scrolls: the page's scroll listener sees real scroll events.
      await browser.page.mouse.wheel(0, 4000);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await sentinel.textContent()).toBe("That's all the jobs.");
    expect(await shownIds()).toEqual(ids(site.items));
    for (let number = 2; number <= site.pages.length; number++) expect(site.hits()[`/scroll/items?page=${number}`], `batch ${number}`).toBe(1);
  }, 60_000);

  it('a broken batch leaves "Load more" in place with a message; the cookie wall lets the browser through after "Accept"', async () => {
    const site = await start({ brokenPages: [2], cookieWall: true });
    await browser.goto(`${site.url}more`);
    expect(await shownIds()).toEqual([]);
    await browser.page.getByRole('button', { name: 'Accept' }).click();
    await expect.poll(() => shownIds()).toEqual(ids(site.pages[0]?.items ?? []));
    expect(new URL(browser.page.url()).pathname).toBe('/more');
    await browser.page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => browser.page.locator('#load-status').textContent()).toMatch(/Could not load more jobs: the server answered 500/);
    expect(await browser.page.getByRole('button', { name: 'Load more' }).count()).toBe(1);
    expect(await shownIds()).toHaveLength(20);
  }, 60_000);
});
