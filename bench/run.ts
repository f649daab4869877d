// `npm run bench`: how fast and how big the page snapshot is, on the 130 real pages of
// ../shared/corpus/readability and on the test fixtures, with Playwright's aria snapshot as a reference.
// Writes bench/results.json and the table in bench/README.md. Not part of `npm test`.
//
// Per page: one snapshot right after the navigation ("first"), one warm-up, then five timed
// snapshots whose median is the page's figure; the summary is the median / p90 / max over pages.
// Times are measured in Node around the whole capture (frames, evaluate, serialization).
import { readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus } from 'node:os';
import { basename, extname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { defaultIncludeAttributes, PageStateReader } from '../src/dom/page-state-reader';
import { PlaywrightDriver } from '../src/playwright/index';
import { readdirSync } from 'node:fs';

const repoRoot = resolve(import.meta.dirname, '..');
const corpusDir = resolve(repoRoot, '../shared/corpus/readability');
const fixturesDir = resolve(repoRoot, 'test/fixtures');
const warmRuns = 5;
const pageLimit = Number(process.env.BENCH_LIMIT ?? Number.POSITIVE_INFINITY);

interface Stat {
  median: number;
  p90: number;
  max: number;
}

interface ModeFigures {
  snapshotMs: Stat;
  firstSnapshotMs: Stat;
  chars: Stat;
  tokens: Stat;
  indexed: Stat;
}

interface PageRow {
  page: string;
  viewport: { ms: number; firstMs: number; chars: number; tokens: number; indexed: number };
  fullPage: { ms: number; firstMs: number; chars: number; tokens: number; indexed: number };
  ariaSnapshot: { ms: number; firstMs: number; chars: number; tokens: number; indexed: number };
}

function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  // Nearest rank: the smallest value with at least `fraction` of the values at or below it.
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(fraction * sorted.length)));
  return sorted[rank - 1] as number;
}

const round = (value: number, digits = 1): number => Math.round(value * 10 ** digits) / 10 ** digits;

function stat(values: readonly number[], digits = 1): Stat {
  return { median: round(percentile(values, 0.5), digits), p90: round(percentile(values, 0.9), digits), max: round(Math.max(0, ...values), digits) };
}

function median(values: readonly number[]): number {
  return percentile(values, 0.5);
}

/** Interactive roles in an aria snapshot: the reference's counterpart of indexed elements. */
const ariaInteractive = /^\s*- (link|button|textbox|checkbox|radio|combobox|searchbox|slider|spinbutton|switch|tab|menuitem|menuitemcheckbox|menuitemradio|option|treeitem)\b/;

/** Serves a folder on 127.0.0.1; `<iframe src="javascript:…">` is removed (with JavaScript off Chromium waits ~30 s on each). */
async function serve(dir: string): Promise<{ server: Server; origin: string }> {
  const server = createServer(async (request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://bench').pathname);
    const file = join(dir, path);
    if (!file.startsWith(dir)) return void response.writeHead(403).end();
    try {
      const body = await readFile(file);
      if (extname(file) === '.html') {
        const html = body.toString('utf8').replace(/<iframe\b[^>]*\bsrc\s*=\s*["']?\s*javascript:[^>]*>/gi, '<iframe>');
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
      } else {
        response.writeHead(200).end(body);
      }
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function measurePage(driver: PlaywrightDriver, url: string, name: string): Promise<PageRow> {
  await driver.goto(url, { timeout: 60_000 });
  const row: Partial<PageRow> = { page: name };
  for (const [mode, expansion] of [['viewport', 0], ['fullPage', -1]] as const) {
    const reader = new PageStateReader(driver, { viewportExpansion: expansion, includeAttributes: defaultIncludeAttributes, maxTextLength: 100 });
    // The first snapshot of a document in this mode (the script compiles, the weak map is new).
    let started = performance.now();
    let state = await reader.capture({ screenshot: false });
    const firstMs = performance.now() - started;
    await reader.capture({ screenshot: false });
    const times: number[] = [];
    for (let run = 0; run < warmRuns; run++) {
      started = performance.now();
      state = await reader.capture({ screenshot: false });
      times.push(performance.now() - started);
    }
    row[mode] = { ms: median(times), firstMs, chars: state.elementsText.length, tokens: countTokens(state.elementsText), indexed: state.elements.size };
  }
  const body = driver.page.locator('body');
  let started = performance.now();
  let aria = await body.ariaSnapshot({ timeout: 60_000 });
  const firstMs = performance.now() - started;
  await body.ariaSnapshot({ timeout: 60_000 });
  const times: number[] = [];
  for (let run = 0; run < warmRuns; run++) {
    started = performance.now();
    aria = await body.ariaSnapshot({ timeout: 60_000 });
    times.push(performance.now() - started);
  }
  const indexed = aria.split('\n').filter((line) => ariaInteractive.test(line)).length;
  row.ariaSnapshot = { ms: median(times), firstMs, chars: aria.length, tokens: countTokens(aria), indexed };
  return row as PageRow;
}

function summarize(rows: readonly PageRow[], mode: keyof Omit<PageRow, 'page'>): ModeFigures {
  return {
    snapshotMs: stat(rows.map((row) => row[mode].ms), 2),
    firstSnapshotMs: stat(rows.map((row) => row[mode].firstMs), 2),
    chars: stat(rows.map((row) => row[mode].chars), 0),
    tokens: stat(rows.map((row) => row[mode].tokens), 0),
    indexed: stat(rows.map((row) => row[mode].indexed), 0),
  };
}

async function measureSet(dir: string, files: readonly string[], javaScriptEnabled: boolean): Promise<PageRow[]> {
  const { server, origin } = await serve(dir);
  const driver = await PlaywrightDriver.launch({ viewport: { width: 1280, height: 1100 }, contextOptions: { javaScriptEnabled }, settle: { maxWaitMs: 3000 } });
  // Only the local server is reachable: every outside request is aborted.
  await driver.context.route('**/*', (route) => (route.request().url().startsWith(`${origin}/`) ? route.continue() : route.abort()));
  const rows: PageRow[] = [];
  try {
    for (const [position, file] of files.entries()) {
      try {
        rows.push(await measurePage(driver, `${origin}/${encodeURIComponent(file)}`, basename(file, '.html')));
      } catch (error) {
        console.error(`bench: ${file} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      if ((position + 1) % 10 === 0) console.log(`bench: ${position + 1}/${files.length} pages of ${basename(dir)}`);
    }
  } finally {
    await driver.close();
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
  return rows;
}

function table(title: string, figures: Record<string, ModeFigures>): string {
  const lines = [
    `### ${title}`,
    '',
    '| mode | snapshot ms (median / p90 / max) | first snapshot ms (median / p90 / max) | tokens (median / p90 / max) | chars (median) | indexed (median / p90 / max) |',
    '|---|---|---|---|---|---|',
  ];
  for (const [mode, value] of Object.entries(figures)) {
    const triple = (item: Stat): string => `${item.median} / ${item.p90} / ${item.max}`;
    lines.push(`| ${mode} | ${triple(value.snapshotMs)} | ${triple(value.firstSnapshotMs)} | ${triple(value.tokens)} | ${value.chars.median} | ${triple(value.indexed)} |`);
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  let corpus: string[];
  try {
    corpus = readdirSync(corpusDir).filter((file) => file.endsWith('.html')).sort().slice(0, pageLimit);
  } catch {
    console.error(`bench: the corpus is missing at ${corpusDir} (expected ../shared/corpus/readability beside the repository).`);
    process.exitCode = 1;
    return;
  }
  const fixtures = readdirSync(fixturesDir).filter((file) => file.endsWith('.html') && file !== 'frame-inner.html').sort();
  const started = Date.now();
  const corpusRows = await measureSet(corpusDir, corpus, false);
  const fixtureRows = await measureSet(fixturesDir, fixtures, true);
  const modes = (rows: PageRow[]): Record<'viewport' | 'fullPage' | 'ariaSnapshot', ModeFigures> => ({
    viewport: summarize(rows, 'viewport'),
    fullPage: summarize(rows, 'fullPage'),
    ariaSnapshot: summarize(rows, 'ariaSnapshot'),
  });
  const summary = { readability: modes(corpusRows), fixtures: modes(fixtureRows) };
  const chromiumVersion = await (async () => {
    const driver = await PlaywrightDriver.launch();
    try {
      return driver.context.browser()?.version() ?? 'unknown';
    } finally {
      await driver.close();
    }
  })();
  const results = {
    command: 'npm run bench',
    generatedAt: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', node: process.version, chromium: chromiumVersion },
    settings: {
      viewport: { width: 1280, height: 1100 },
      corpus: '../shared/corpus/readability (page JavaScript off, outside requests aborted, served on 127.0.0.1)',
      fixtures: 'test/fixtures (page JavaScript on)',
      warmRuns,
      statistic: 'per page: median of the warm runs; summary: median / p90 / max over pages (nearest rank)',
      tokenizer: 'o200k_base (gpt-tokenizer)',
      maxTextLength: 100,
      durationSeconds: Math.round((Date.now() - started) / 1000),
      pages: { readability: corpusRows.length, fixtures: fixtureRows.length },
    },
    summary,
    pages: { readability: corpusRows, fixtures: fixtureRows },
  };
  writeFileSync(join(repoRoot, 'bench/results.json'), `${JSON.stringify(results, (key, value: unknown) => (typeof value === 'number' && !Number.isInteger(value) ? round(value, 2) : value), 2)}\n`);
  const readmePath = join(repoRoot, 'bench/README.md');
  const readme = readFileSync(readmePath, 'utf8');
  const generated = [
    '<!-- results:start -->',
    `Measured ${results.generatedAt.slice(0, 10)} on ${results.machine.cpus} cores (${results.machine.cpuModel}), Node ${results.machine.node}, Chromium ${chromiumVersion}.`,
    '',
    table(`Readability corpus (${corpusRows.length} pages, JavaScript off)`, summary.readability),
    '',
    table(`Test fixtures (${fixtureRows.length} pages, JavaScript on)`, summary.fixtures),
    '<!-- results:end -->',
  ].join('\n');
  writeFileSync(readmePath, readme.replace(/<!-- results:start -->[\s\S]*<!-- results:end -->/, generated));
  console.log(generated);
}

await main();
