// `npm run bench`: how fast and how big the page snapshot is, on the 130 real pages of
// ../shared/corpus/readability and on the test fixtures, with Playwright's aria snapshot as a reference;
// on the corpus also extract_content's page side (page script, markdown) and the page-change probe.
// Writes bench/results.json and the tables in bench/README.md, then runs the settle, links,
// injection-guard and load-and-soak parts (bench/injection.ts, bench/soak.ts). `npm run bench -- --only soak` runs only
// the soak, `--only injection` only the injection guard, `--only collect` only the collection part
// (bench/collect.ts). Not part of `npm test`.
//
// Per page: one run right after the navigation or in a new mode ("first"), one warm-up, then five
// timed runs whose median is the page's figure; the summary is the median / p90 / max over pages.
// Times are measured in Node around the whole call (for a snapshot: frames, evaluate, serialization).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { PageState } from '../src/browser/page-state';
import { htmlToMarkdown } from '../src/actions/markdown';
import { describePageChange, type PageBaseline } from '../src/dom/page-changes';
import { callRuntime, pageRuntime } from '../src/dom/page-runtime';
import { defaultIncludeAttributes, PageStateReader } from '../src/dom/page-state-reader';
import { ElementIndexer } from '../src/dom/serialize';
import { validateFrameSnapshot } from '../src/dom/validate-snapshot';
import { portable } from '../src/playwright/page-function';
import { installExpression, runInstalled } from './legacy/install';
import { legacySnapshot } from './legacy/snapshot-script';
import { PlaywrightDriver } from '../src/playwright/index';
import { runSettleBench } from './settle';
import { runSoakBench } from './soak';
import { runInjectionBench } from './injection';
import { runCollectBench } from './collect';
import { linksSection } from './links';
import { serve } from './serve';

const repoRoot = resolve(import.meta.dirname, '..');
const corpusDir = resolve(repoRoot, '../shared/corpus/readability');
const fixturesDir = resolve(repoRoot, 'test/fixtures');
const warmRuns = 5;
const pageLimit = Number(process.env.BENCH_LIMIT ?? Number.POSITIVE_INFINITY);
/** The bounds extract_content gives its page script (maxHtmlChars and maxNodes in extract-content.ts). */
const extractHtmlOptions = { maxChars: 3_000_000, maxNodes: 300_000 };
const callOptions = { timeout: 60_000 };
const legacyScriptId = 'plannav.dom-snapshot@3';

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

interface SnapshotRow {
  ms: number;
  firstMs: number;
  chars: number;
  tokens: number;
  indexed: number;
}

/** extract_content's page side on one page: the top frame's page script, then its HTML as markdown. */
interface ExtractContentRow {
  /** the runtime's `extractHtml` in the top frame: warm median, and the first run (which installs the script). */
  scriptMs: number;
  firstScriptMs: number;
  /** `htmlToMarkdown` on the script's HTML, links dropped (the action's default): warm median. */
  markdownMs: number;
  /** The HTML file as served. */
  rawHtmlChars: number;
  rawHtmlTokens: number;
  /** The page script's cleaned HTML. */
  htmlChars: number;
  truncated: boolean;
  markdownChars: number;
  markdownTokens: number;
  /** The markdown with `include_links: true`. */
  markdownWithLinksTokens: number;
}

/** The page-change probe on one unchanged page, right after a viewport snapshot. */
interface PageChangeRow {
  /** `describePageChange` (tabs, then the probe in each frame with indexed elements): warm median, and the first run. */
  ms: number;
  firstMs: number;
  frames: number;
  /** What the probe reported; null when it saw no change, as it should on an unchanged page. */
  change: string | null;
}

/** The top frame's viewport snapshot alone (evaluate, validation, serialization), by the old script and by the runtime. */
interface PathRow {
  legacyMs: number;
  runtimeMs: number;
  /** The old view: the old script's output, links as it sent them (made relative and cut at 80 characters). */
  legacyTokens: number;
  legacyIndexed: number;
}

interface PageRow {
  page: string;
  /** The same top-frame snapshot by the pre-runtime script and by the runtime, in the same run. */
  paths: PathRow;
  viewport: SnapshotRow;
  fullPage: SnapshotRow;
  ariaSnapshot: SnapshotRow;
  /** Corpus pages only. */
  extractContent?: ExtractContentRow;
  /** Corpus pages only. */
  pageChange?: PageChangeRow;
}

type SnapshotMode = 'viewport' | 'fullPage' | 'ariaSnapshot';

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

/** Runs `call` once as the first run, once to warm up, then `warmRuns` times; returns the times and the last result. */
async function timeRuns<T>(call: () => T | Promise<T>): Promise<{ firstMs: number; ms: number; last: T }> {
  let started = performance.now();
  let last = await call();
  const firstMs = performance.now() - started;
  await call();
  const times: number[] = [];
  for (let run = 0; run < warmRuns; run++) {
    started = performance.now();
    last = await call();
    times.push(performance.now() - started);
  }
  return { firstMs, ms: median(times), last };
}

/** Interactive roles in an aria snapshot: the reference's counterpart of indexed elements. */
const ariaInteractive =
  /^\s*- (link|button|textbox|checkbox|radio|combobox|searchbox|slider|spinbutton|switch|tab|menuitem|menuitemcheckbox|menuitemradio|option|treeitem)\b/;

async function measurePage(driver: PlaywrightDriver, url: string, name: string, rawHtml: string | undefined): Promise<PageRow> {
  await driver.goto(url, { timeout: 60_000 });
  const row: Partial<PageRow> = { page: name };
  for (const [mode, expansion] of [
    ['viewport', 0],
    ['fullPage', -1],
  ] as const) {
    const reader = new PageStateReader(driver, { viewportExpansion: expansion, includeAttributes: defaultIncludeAttributes, maxTextLength: 100 });
    // The first snapshot of a document in this mode (the script compiles, the weak map is new).
    const { firstMs, ms, last: state } = await timeRuns(() => reader.capture({ screenshot: false }));
    row[mode] = { ms, firstMs, chars: state.elementsText.length, tokens: countTokens(state.elementsText), indexed: state.elements.size };
    // The probe compares with the snapshot the model saw, which is a viewport one by default.
    if (mode === 'viewport' && rawHtml !== undefined) row.pageChange = await measurePageChange(driver, state);
  }
  row.paths = await measurePaths(driver);
  const body = driver.page.locator('body');
  const { firstMs, ms, last: aria } = await timeRuns(() => body.ariaSnapshot({ timeout: 60_000 }));
  const indexed = aria.split('\n').filter((line) => ariaInteractive.test(line)).length;
  row.ariaSnapshot = { ms, firstMs, chars: aria.length, tokens: countTokens(aria), indexed };
  if (rawHtml !== undefined) row.extractContent = await measureExtractContent(driver, rawHtml);
  return row as PageRow;
}

/** The old snapshot path (one self-contained function, installed by id) and the runtime's, both on the top frame, as the driver ran them. */
async function measurePaths(driver: PlaywrightDriver): Promise<PathRow> {
  const options = { viewportExpansion: 0, includeAttributes: defaultIncludeAttributes, maxTextLength: 100 };
  const frame = driver.page.mainFrame();
  const [top] = await driver.frames(callOptions);
  if (!top) throw new Error('the page has no top frame');
  await frame.evaluate(installExpression(legacyScriptId, legacySnapshot));
  const legacy = await timeRuns(async () => {
    const json = await frame.evaluate(portable(runInstalled), { id: legacyScriptId, arg: options });
    const snapshot = validateFrameSnapshot((JSON.parse(json ?? 'null') as { value: unknown }).value, options);
    return new ElementIndexer({ links: 'full' }).serialize([{ frameId: top.id, snapshot }]);
  });
  const runtime = await timeRuns(async () => {
    const snapshot = validateFrameSnapshot(await callRuntime(driver, top.id, 'snapshot', options, callOptions), options);
    return new ElementIndexer().serialize([{ frameId: top.id, snapshot }]);
  });
  return { legacyMs: legacy.ms, runtimeMs: runtime.ms, legacyTokens: countTokens(legacy.last.text), legacyIndexed: legacy.last.elements.size };
}

/** The probe as the Navigator runs it after an action of a multi-action step, here on a page no action changed. */
async function measurePageChange(driver: PlaywrightDriver, state: PageState): Promise<PageChangeRow> {
  const baseline: PageBaseline = { url: state.url, tabId: state.activeTabId, tabIds: state.tabs.map((tab) => tab.id) };
  const frameIds = [...new Set([...state.elements.values()].map((element) => element.frameId))];
  const { firstMs, ms, last } = await timeRuns(() => describePageChange(driver, baseline, frameIds, callOptions));
  return { ms, firstMs, frames: frameIds.length, change: last.change ?? null };
}

/** The top frame only; the action reads each visible child frame the same way, which adds that frame's own script and markdown time. */
async function measureExtractContent(driver: PlaywrightDriver, rawHtml: string): Promise<ExtractContentRow> {
  const [top] = await driver.frames(callOptions);
  if (!top) throw new Error('the page has no top frame');
  const script = await timeRuns(() => callRuntime(driver, top.id, 'extractHtml', extractHtmlOptions, callOptions));
  const { html, truncated } = script.last;
  const markdown = await timeRuns(() => htmlToMarkdown(html));
  const withLinks = htmlToMarkdown(html, { includeLinks: true });
  return {
    scriptMs: script.ms,
    firstScriptMs: script.firstMs,
    markdownMs: markdown.ms,
    rawHtmlChars: rawHtml.length,
    rawHtmlTokens: countTokens(rawHtml),
    htmlChars: html.length,
    truncated,
    markdownChars: markdown.last.length,
    markdownTokens: countTokens(markdown.last),
    markdownWithLinksTokens: countTokens(withLinks),
  };
}

function summarize(rows: readonly PageRow[], mode: SnapshotMode): ModeFigures {
  return {
    snapshotMs: stat(
      rows.map((row) => row[mode].ms),
      2,
    ),
    firstSnapshotMs: stat(
      rows.map((row) => row[mode].firstMs),
      2,
    ),
    chars: stat(
      rows.map((row) => row[mode].chars),
      0,
    ),
    tokens: stat(
      rows.map((row) => row[mode].tokens),
      0,
    ),
    indexed: stat(
      rows.map((row) => row[mode].indexed),
      0,
    ),
  };
}

/** Summary of the corpus-only measures, over the pages that have them. */
function summarizeContent(rows: readonly PageRow[]) {
  const extract = rows.flatMap((row) => (row.extractContent ? [row.extractContent] : []));
  const probes = rows.flatMap((row) => (row.pageChange ? [row.pageChange] : []));
  return {
    extractContent: {
      pages: extract.length,
      scriptMs: stat(
        extract.map((item) => item.scriptMs),
        2,
      ),
      firstScriptMs: stat(
        extract.map((item) => item.firstScriptMs),
        2,
      ),
      markdownMs: stat(
        extract.map((item) => item.markdownMs),
        2,
      ),
      // The page side of one extract_content call on a one-frame page: the script, then the markdown.
      pageSideMs: stat(
        extract.map((item) => item.scriptMs + item.markdownMs),
        2,
      ),
      rawHtmlChars: stat(
        extract.map((item) => item.rawHtmlChars),
        0,
      ),
      rawHtmlTokens: stat(
        extract.map((item) => item.rawHtmlTokens),
        0,
      ),
      htmlChars: stat(
        extract.map((item) => item.htmlChars),
        0,
      ),
      markdownChars: stat(
        extract.map((item) => item.markdownChars),
        0,
      ),
      markdownTokens: stat(
        extract.map((item) => item.markdownTokens),
        0,
      ),
      markdownWithLinksTokens: stat(
        extract.map((item) => item.markdownWithLinksTokens),
        0,
      ),
      markdownToRawTokensPercent: stat(
        extract.map((item) => (100 * item.markdownTokens) / Math.max(1, item.rawHtmlTokens)),
        1,
      ),
      truncatedPages: extract.filter((item) => item.truncated).length,
    },
    pageChange: {
      pages: probes.length,
      ms: stat(
        probes.map((item) => item.ms),
        2,
      ),
      firstMs: stat(
        probes.map((item) => item.firstMs),
        2,
      ),
      // Each is a false alarm: nothing changed the page between the snapshot and the probe.
      changeReportedPages: probes.filter((item) => item.change !== null).length,
    },
  };
}

async function measureSet(dir: string, files: readonly string[], javaScriptEnabled: boolean, contentMeasures: boolean): Promise<PageRow[]> {
  const { server, origin } = await serve(dir);
  const driver = await PlaywrightDriver.launch({ viewport: { width: 1280, height: 1100 }, contextOptions: { javaScriptEnabled }, settle: { maxWaitMs: 3000 } });
  // Only the local server is reachable: every outside request is aborted.
  await driver.context.route('**/*', (route) => (route.request().url().startsWith(`${origin}/`) ? route.continue() : route.abort()));
  const rows: PageRow[] = [];
  try {
    for (const [position, file] of files.entries()) {
      try {
        const rawHtml = contentMeasures ? readFileSync(join(dir, file), 'utf8') : undefined;
        rows.push(await measurePage(driver, `${origin}/${encodeURIComponent(file)}`, basename(file, '.html'), rawHtml));
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

function summarizePaths(rows: readonly PageRow[]) {
  return {
    legacyMs: stat(
      rows.map((row) => row.paths.legacyMs),
      2,
    ),
    runtimeMs: stat(
      rows.map((row) => row.paths.runtimeMs),
      2,
    ),
    /** Per page, runtime time over old time; its median is the slowdown the issue bounds (at most 1.2). */
    runtimeOverLegacy: stat(
      rows.map((row) => row.paths.runtimeMs / Math.max(0.01, row.paths.legacyMs)),
      2,
    ),
    legacyTokens: stat(
      rows.map((row) => row.paths.legacyTokens),
      0,
    ),
    viewportTokens: stat(
      rows.map((row) => row.viewport.tokens),
      0,
    ),
    /** Per page, the new viewport view's tokens over the old view's. */
    tokensOverLegacy: stat(
      rows.map((row) => row.viewport.tokens / Math.max(1, row.paths.legacyTokens)),
      2,
    ),
    legacyIndexed: stat(
      rows.map((row) => row.paths.legacyIndexed),
      0,
    ),
    viewportIndexed: stat(
      rows.map((row) => row.viewport.indexed),
      0,
    ),
  };
}

function pathsTable(title: string, figures: ReturnType<typeof summarizePaths>): string {
  const triple = (item: Stat): string => `${item.median} / ${item.p90} / ${item.max}`;
  return [
    `### ${title}`,
    '',
    '| measure | median / p90 / max |',
    '|---|---|',
    `| old snapshot script, top frame, ms | ${triple(figures.legacyMs)} |`,
    `| page runtime snapshot, top frame, ms | ${triple(figures.runtimeMs)} |`,
    `| runtime / old time, per page | ${triple(figures.runtimeOverLegacy)} |`,
    `| old view tokens (viewport) | ${triple(figures.legacyTokens)} |`,
    `| new view tokens (viewport, all frames) | ${triple(figures.viewportTokens)} |`,
    `| new / old tokens, per page | ${triple(figures.tokensOverLegacy)} |`,
    `| old indexed elements | ${triple(figures.legacyIndexed)} |`,
    `| new indexed elements | ${triple(figures.viewportIndexed)} |`,
  ].join('\n');
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
    lines.push(
      `| ${mode} | ${triple(value.snapshotMs)} | ${triple(value.firstSnapshotMs)} | ${triple(value.tokens)} | ${value.chars.median} | ${triple(value.indexed)} |`,
    );
  }
  return lines.join('\n');
}

function contentTable(title: string, figures: ReturnType<typeof summarizeContent>): string {
  const { extractContent: extract, pageChange } = figures;
  const rows: [string, Stat][] = [
    ['extract_content page script ms (top frame, warm)', extract.scriptMs],
    ['extract_content page script ms, first run in the document', extract.firstScriptMs],
    ['htmlToMarkdown ms', extract.markdownMs],
    ['page side in all ms (script + markdown, warm)', extract.pageSideMs],
    ['raw HTML tokens', extract.rawHtmlTokens],
    ['markdown tokens', extract.markdownTokens],
    ['markdown tokens with include_links', extract.markdownWithLinksTokens],
    ['markdown tokens / raw HTML tokens (%)', extract.markdownToRawTokensPercent],
    ['raw HTML chars', extract.rawHtmlChars],
    ['page script HTML chars', extract.htmlChars],
    ['markdown chars', extract.markdownChars],
    ['page-change probe ms (warm)', pageChange.ms],
    ['page-change probe ms, first run in the document', pageChange.firstMs],
  ];
  return [
    `### ${title}`,
    '',
    '| measure | median | p90 | max |',
    '|---|---|---|---|',
    ...rows.map(([label, item]) => `| ${label} | ${item.median} | ${item.p90} | ${item.max} |`),
    '',
    `The page script cut ${extract.truncatedPages} of ${extract.pages} pages short. ` +
      `The probe reported a change on ${pageChange.changeReportedPages} of ${pageChange.pages} unchanged pages.`,
  ].join('\n');
}

/** The part named by `--only <part>` (or BENCH_ONLY); undefined runs them all. */
function onlyPart(): 'soak' | 'injection' | 'collect' | undefined {
  const flag = process.argv.indexOf('--only');
  const part = flag >= 0 ? process.argv[flag + 1] : process.env.BENCH_ONLY;
  if (part === undefined || part === '') return undefined;
  if (part !== 'soak' && part !== 'injection' && part !== 'collect') {
    throw new Error(
      `bench: --only takes \`soak\` (the load-and-soak part alone), \`injection\` (the injection guard alone) or \`collect\` (the collection alone), got ${JSON.stringify(part)}.`,
    );
  }
  return part;
}

/** The injection guard part; a missed attack string or a flagged benign one makes the bench exit non-zero. */
async function injection(corpus: readonly string[], command: string): Promise<void> {
  const problems = await runInjectionBench({ corpusDir, corpusFiles: corpus, command });
  if (problems.length > 0) {
    console.error(`\nbench: the injection guard failed: ${problems.join(' ')}`);
    process.exitCode = 1;
  }
}

/** The load-and-soak part; a leak, a wrong answer or a hung run makes the bench exit non-zero. */
async function soak(command: string): Promise<void> {
  const result = await runSoakBench({}, command);
  if (result.problems.length > 0) {
    console.error(`\nbench: the soak failed: ${result.problems.join(' ')}`);
    process.exitCode = 1;
  }
}

async function main(): Promise<void> {
  if (onlyPart() === 'soak') return soak('npm run bench -- --only soak');
  if (onlyPart() === 'collect') return runCollectBench({}, 'npm run bench -- --only collect');
  let corpus: string[];
  try {
    corpus = readdirSync(corpusDir)
      .filter((file) => file.endsWith('.html'))
      .sort()
      .slice(0, pageLimit);
  } catch {
    console.error(`bench: the corpus is missing at ${corpusDir} (expected ../shared/corpus/readability beside the repository).`);
    process.exitCode = 1;
    return;
  }
  if (onlyPart() === 'injection') return injection(corpus, 'npm run bench -- --only injection');
  const fixtures = readdirSync(fixturesDir)
    .filter((file) => file.endsWith('.html') && file !== 'frame-inner.html')
    .sort();
  const started = Date.now();
  const corpusRows = await measureSet(corpusDir, corpus, false, true);
  const fixtureRows = await measureSet(fixturesDir, fixtures, true, false);
  const modes = (rows: PageRow[]): Record<SnapshotMode, ModeFigures> => ({
    viewport: summarize(rows, 'viewport'),
    fullPage: summarize(rows, 'fullPage'),
    ariaSnapshot: summarize(rows, 'ariaSnapshot'),
  });
  const summary = {
    readability: modes(corpusRows),
    fixtures: modes(fixtureRows),
    readabilityContent: summarizeContent(corpusRows),
    readabilityPaths: summarizePaths(corpusRows),
    fixturePaths: summarizePaths(fixtureRows),
    runtimeBytes: pageRuntime.installSource.length,
  };
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
      extractContent: 'readability corpus, top frame: extractHtmlScript (maxChars 3000000, maxNodes 300000), then htmlToMarkdown without links',
      pageChange: 'readability corpus: describePageChange on the unchanged page, right after a viewport snapshot, over the frames with indexed elements',
      durationSeconds: Math.round((Date.now() - started) / 1000),
      pages: { readability: corpusRows.length, fixtures: fixtureRows.length },
    },
    summary,
    pages: { readability: corpusRows, fixtures: fixtureRows },
  };
  writeFileSync(
    join(repoRoot, 'bench/results.json'),
    `${JSON.stringify(results, (key, value: unknown) => (typeof value === 'number' && !Number.isInteger(value) ? round(value, 2) : value), 2)}\n`,
  );
  const readmePath = join(repoRoot, 'bench/README.md');
  const readme = readFileSync(readmePath, 'utf8');
  const generated = [
    '<!-- results:start -->',
    `Measured ${results.generatedAt.slice(0, 10)} on ${results.machine.cpus} cores (${results.machine.cpuModel}), Node ${results.machine.node}, Chromium ${chromiumVersion}.`,
    '',
    table(`Readability corpus (${corpusRows.length} pages, JavaScript off)`, summary.readability),
    '',
    table(`Test fixtures (${fixtureRows.length} pages, JavaScript on)`, summary.fixtures),
    '',
    pathsTable(`Old snapshot path and the page runtime, readability corpus (${corpusRows.length} pages)`, summary.readabilityPaths),
    '',
    pathsTable(`Old snapshot path and the page runtime, test fixtures (${fixtureRows.length} pages)`, summary.fixturePaths),
    '',
    `The page runtime injected in every document is ${summary.runtimeBytes} bytes (minified).`,
    '',
    contentTable(
      `extract_content page side and page-change probe, readability corpus (${corpusRows.length} pages, JavaScript off)`,
      summary.readabilityContent,
    ),
    '<!-- results:end -->',
  ].join('\n');
  writeFileSync(readmePath, readme.replace(/<!-- results:start -->[\s\S]*<!-- results:end -->/, generated));
  console.log(generated);
  await runSettleBench({ corpusDir, corpusFiles: corpus, fixturesDir });
  console.log(`\n${await linksSection()}`);
  await injection(corpus, 'npm run bench');
  await soak('npm run bench');
  await runCollectBench({}, 'npm run bench');
}

await main();
