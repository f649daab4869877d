// What shortening link URLs (src/dom/links.ts) saves in the viewport view of the 130 corpus pages,
// and a check that it loses no element line. `npx tsx bench/links.ts`, or from bench/run.ts; not part of `npm test`.
//
// Three views per page, from the same frames (the ones PageStateReader hands the serializer) and
// a fresh ElementIndexer each:
//   today      hrefs cut at 80 characters, as the page script sent them until the page rewrite;
//   uncapped   hrefs whole (up to 2,000 characters), not shortened: the new page contract alone;
//   shortened  hrefs whole, then shortened by links.ts: what the model reads.
// Where the frames still carry a cut href (page code or validation that caps it), the whole one
// is read from the page's DOM; how many could not be found is printed with the table.
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { defaultIncludeAttributes, PageStateReader } from '../src/dom/page-state-reader';
import { ElementIndexer, type FrameSnapshotInput } from '../src/dom/serialize';
import type { SnapshotItem } from '../src/dom/types';
import { PlaywrightDriver } from '../src/playwright/index';
import { serve } from './serve';

const repoRoot = resolve(import.meta.dirname, '..');
const corpusDir = resolve(repoRoot, '../shared/corpus/readability');
/** The old page script's cap on an href (`hrefOf` before the page rewrite). */
const oldHrefCap = 80;
/** The longest href of the new page contract. */
const longestHref = 2000;

/** One corpus page's viewport frames, with every href whole where it could be read. */
export interface LinkPage {
  readonly page: string;
  readonly frames: readonly FrameSnapshotInput[];
  /** Hrefs that arrived cut (ending in `…`): read whole from the page, or not found there. */
  readonly filled: number;
  readonly unresolved: number;
}

/** Per page: tokens of each view, element lines of the views compared. */
export interface LinkRow {
  readonly page: string;
  readonly today: number;
  readonly uncapped: number;
  readonly shortened: number;
  readonly links: number;
  /** Whether the shortened view has the same element lines, with the same indices in the same order, as today's. */
  readonly sameElementLines: boolean;
}

interface Stat {
  readonly median: number;
  readonly p90: number;
  readonly max: number;
}

/** Nearest rank, as bench/run.ts computes it. */
function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil(fraction * sorted.length))) - 1] as number;
}

function stat(values: readonly number[]): Stat {
  return { median: percentile(values, 0.5), p90: percentile(values, 0.9), max: Math.max(0, ...values) };
}

/** A cut href as the frames may carry it: its text before the `…`. */
function cutPrefix(href: string): string | undefined {
  return href.endsWith('…') ? href.slice(0, -1) : undefined;
}

/**
 * Every href in a frame's document, in document order, in the form the page contract sends:
 * `#fragment` for the document itself, a path for its origin, absolute otherwise. Evaluated by
 * Playwright, so it does not depend on plannav's page runtime.
 */
function documentHrefs(limit: number): string[] {
  const here = location.href.split('#')[0] ?? '';
  const hrefs: string[] = [];
  for (const element of document.querySelectorAll('[href]')) {
    const raw = element.getAttribute('href') ?? '';
    if (/^\s*javascript:/i.test(raw)) continue;
    const resolved = (element as HTMLAnchorElement).href;
    const absolute = typeof resolved === 'string' && resolved ? resolved : raw;
    const relative =
      here && absolute.startsWith(`${here}#`)
        ? absolute.slice(here.length)
        : location.origin !== 'null' && absolute.startsWith(`${location.origin}/`)
          ? absolute.slice(location.origin.length)
          : absolute;
    hrefs.push(relative.replace(/\s+/g, ' ').trim().slice(0, limit));
  }
  return hrefs;
}

/** The frames with each cut href replaced by the first not yet used href of its document that starts the same way. */
async function wholeHrefs(
  driver: PlaywrightDriver,
  frames: readonly FrameSnapshotInput[],
): Promise<{ frames: FrameSnapshotInput[]; filled: number; unresolved: number }> {
  let filled = 0;
  let unresolved = 0;
  const result: FrameSnapshotInput[] = [];
  for (const [position, { frameId, snapshot }] of frames.entries()) {
    const cut = snapshot.items.some((item) => item.kind === 'element' && item.attributes.href !== undefined && cutPrefix(item.attributes.href) !== undefined);
    if (!cut) {
      result.push({ frameId, snapshot });
      continue;
    }
    const frame = position === 0 ? driver.page.mainFrame() : driver.page.frames().find((candidate) => candidate.url() === snapshot.url);
    const available = frame ? await frame.evaluate(documentHrefs, longestHref) : [];
    let from = 0;
    const items = snapshot.items.map((item): SnapshotItem => {
      const prefix = item.kind === 'element' && item.attributes.href !== undefined ? cutPrefix(item.attributes.href) : undefined;
      if (item.kind !== 'element' || prefix === undefined) return item;
      // Document order: the next match after the previous one, else any match.
      let found = available.findIndex((href, index) => index >= from && href.length > prefix.length && href.startsWith(prefix));
      if (found < 0) found = available.findIndex((href) => href.length > prefix.length && href.startsWith(prefix));
      if (found < 0) {
        unresolved++;
        return item;
      }
      from = found + 1;
      filled++;
      return { ...item, attributes: { ...item.attributes, href: available[found] as string } };
    });
    result.push({ frameId, snapshot: { ...snapshot, items } });
  }
  return { frames: result, filled, unresolved };
}

/** The frames with every href cut as the old page script cut it. */
function withOldCap(frames: readonly FrameSnapshotInput[]): FrameSnapshotInput[] {
  return frames.map(({ frameId, snapshot }) => ({
    frameId,
    snapshot: {
      ...snapshot,
      items: snapshot.items.map((item): SnapshotItem => {
        const href = item.kind === 'element' ? item.attributes.href : undefined;
        if (item.kind !== 'element' || href === undefined || href.length <= oldHrefCap) return item;
        return { ...item, attributes: { ...item.attributes, href: `${href.slice(0, oldHrefCap)}…` } };
      }),
    },
  }));
}

/**
 * Loads each corpus page as bench/run.ts does (JavaScript off, outside requests aborted, 1280×1100)
 * and keeps the frames of its viewport snapshot, hrefs whole.
 */
export async function collectLinkPages(pageLimit = Number(process.env.BENCH_LIMIT ?? Number.POSITIVE_INFINITY)): Promise<LinkPage[]> {
  const files = readdirSync(corpusDir)
    .filter((file) => file.endsWith('.html'))
    .sort()
    .slice(0, pageLimit);
  const { server, origin } = await serve(corpusDir);
  const driver = await PlaywrightDriver.launch({
    viewport: { width: 1280, height: 1100 },
    contextOptions: { javaScriptEnabled: false },
    settle: { maxWaitMs: 3000 },
  });
  await driver.context.route('**/*', (route) => (route.request().url().startsWith(`${origin}/`) ? route.continue() : route.abort()));
  // The frames PageStateReader hands the serializer, taken at the one stable seam between them.
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the indexer as `this`
  const serialize = ElementIndexer.prototype.serialize;
  let captured: readonly FrameSnapshotInput[] = [];
  ElementIndexer.prototype.serialize = function (this: ElementIndexer, frames) {
    captured = frames;
    return serialize.call(this, frames);
  };
  const pages: LinkPage[] = [];
  try {
    for (const file of files) {
      try {
        await driver.goto(`${origin}/${encodeURIComponent(file)}`, { timeout: 60_000 });
        const reader = new PageStateReader(driver, { viewportExpansion: 0, includeAttributes: defaultIncludeAttributes, maxTextLength: 100 });
        await reader.capture({ screenshot: false });
        const whole = await wholeHrefs(driver, captured);
        pages.push({ page: file.replace(/\.html$/, ''), ...whole });
      } catch (error) {
        console.error(`bench/links: ${file} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  } finally {
    ElementIndexer.prototype.serialize = serialize;
    await driver.close();
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
  return pages;
}

/** Element lines of a view: index and tag, in order (text and attributes left out). */
function elementLines(text: string): string[] {
  return text.split('\n').flatMap((line) => /^\t*\*?(\[\d+\]<[a-z][a-z0-9-]*)/.exec(line)?.[1] ?? []);
}

/** The three views of one page, measured. */
export function measureLinkPage(page: LinkPage): LinkRow {
  const today = new ElementIndexer({ links: 'full' }).serialize(withOldCap(page.frames)).text;
  const uncapped = new ElementIndexer({ links: 'full' }).serialize(page.frames).text;
  const shortened = new ElementIndexer().serialize(page.frames).text;
  const before = elementLines(today);
  const after = elementLines(shortened);
  const links = page.frames.reduce(
    (sum, { snapshot }) => sum + snapshot.items.filter((item) => item.kind === 'element' && item.attributes.href !== undefined).length,
    0,
  );
  return {
    page: page.page,
    today: countTokens(today),
    uncapped: countTokens(uncapped),
    shortened: countTokens(shortened),
    links,
    sameElementLines: before.length === after.length && before.every((line, position) => line === after[position]),
  };
}

/** The summary table, in markdown. */
export function linksTable(pages: readonly LinkPage[], rows: readonly LinkRow[]): string {
  const today = stat(rows.map((row) => row.today));
  const line = (label: string, values: readonly number[]): string => {
    const figures = stat(values);
    return `| ${label} | ${figures.median} / ${figures.p90} / ${figures.max} | ${(figures.median / Math.max(1, today.median)).toFixed(3)} |`;
  };
  // Pages without links are left out of the per-page ratio: nothing there to shorten.
  const perPage = rows.filter((row) => row.links > 0).map((row) => row.shortened / row.today);
  const lost = rows.filter((row) => !row.sameElementLines).length;
  const filled = pages.reduce((sum, page) => sum + page.filled, 0);
  const unresolved = pages.reduce((sum, page) => sum + page.unresolved, 0);
  return [
    `### Link URLs in the viewport view (${rows.length} corpus pages, JavaScript off)`,
    '',
    "| view | tokens (median / p90 / max) | median / today's median |",
    '|---|---|---|',
    line(
      'today: hrefs cut at 80 characters (the old page rule)',
      rows.map((row) => row.today),
    ),
    line(
      'uncapped hrefs, not shortened',
      rows.map((row) => row.uncapped),
    ),
    line(
      'uncapped hrefs, shortened (links.ts)',
      rows.map((row) => row.shortened),
    ),
    '',
    `Per page with links (${perPage.length}), shortened / today: median ${percentile(perPage, 0.5).toFixed(3)}, best ${Math.min(...perPage).toFixed(3)}, worst ${Math.max(...perPage).toFixed(3)}. ` +
      `Links per page: median ${percentile(
        rows.map((row) => row.links),
        0.5,
      )}. ` +
      `Pages whose element lines differ from today's (count, indices, order or tag): ${lost} of ${rows.length}. ` +
      `Hrefs that reached the serializer cut, read whole from the page: ${filled}; not found there (measured cut): ${unresolved}.`,
  ].join('\n');
}

/** Collects the corpus pages and returns the table; bench/run.ts prints it after its own. */
export async function linksSection(): Promise<string> {
  const pages = await collectLinkPages();
  return linksTable(pages, pages.map(measureLinkPage));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) console.log(await linksSection());
