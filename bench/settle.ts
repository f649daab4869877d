// The settle benchmark: how long each PlaywrightDriver action waits for the page to settle, on the
// readability corpus (JavaScript off) and on script-heavy fixtures. It measures and asserts nothing.
//
// The driver is attached to a context made by playwright-core, so it cannot know whether page
// JavaScript is off. Called by bench/run.ts; `tsx bench/settle.ts` runs it alone.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { findChromium } from '../src/playwright/find-chromium';
import { PlaywrightDriver } from '../src/playwright/index';
import { serve } from './serve';

const repoRoot = resolve(import.meta.dirname, '..');
const viewport = { width: 1280, height: 1100 };
/** The driver's default settle bound, which these runs keep (what a user gets). */
const settleBoundMs = 5000;

/** Median, p90 and max, nearest rank. */
export interface SettleStat {
  readonly median: number;
  readonly p90: number;
  readonly max: number;
  readonly samples: number;
}

/** One timed action of one page. */
interface ActionTime {
  readonly page: string;
  readonly action: string;
  readonly ms: number;
}

/** A fixture page and the actions run on it, in order; each is timed with the settle wait it ends with. */
interface FixtureScenario {
  readonly file: string;
  readonly description: string;
  readonly actions: readonly { readonly name: string; readonly run: (driver: PlaywrightDriver) => Promise<unknown> }[];
  /** What the page shows after the actions, to see that they did what they should; none for a page left blocked. */
  readonly outcome?: (page: Page) => Promise<string>;
}

/** What the benchmark found, as written to bench/settle-results.json. */
export interface SettleBenchResult {
  readonly corpus: { readonly pages: number; readonly gotoMs: SettleStat; readonly actionMs: SettleStat; readonly byAction: Record<string, SettleStat> };
  readonly fixtures: {
    readonly file: string;
    readonly description: string;
    readonly gotoMs: number;
    readonly actionMs: SettleStat;
    /** Each action's time, in order. */
    readonly eachMs: readonly number[];
    readonly outcome: string;
  }[];
  readonly times: { readonly corpus: readonly ActionTime[]; readonly fixtures: readonly ActionTime[] };
}

const scenarios: readonly FixtureScenario[] = [
  {
    file: 'infinite.html',
    description: 'a feed its script builds; each scroll to the end appends 10 posts',
    actions: [1, 2, 3].map((count) => ({ name: `scroll ${count}`, run: (driver: PlaywrightDriver) => driver.scroll({ toPercent: 100 }) })),
    outcome: async (page) => `${await page.locator('.item').count()} posts (10 at load)`,
  },
  {
    file: 'spa.html',
    description: 'a keyed re-render of the whole list on each click (Tab to the button, then Enter)',
    actions: [
      { name: 'Tab', run: (driver) => driver.press('Tab') },
      ...[1, 2, 3].map((count) => ({ name: `Enter ${count}`, run: (driver: PlaywrightDriver) => driver.press('Enter') })),
    ],
    outcome: async (page) => `${await page.locator('li').count()} items (2 at load)`,
  },
  {
    file: 'busy.html',
    description: 'the click starts a script that blocks the page for 10 s: the wait ends at the bound',
    actions: [
      { name: 'Tab', run: (driver) => driver.press('Tab') },
      { name: 'Enter', run: (driver) => driver.press('Enter') },
    ],
  },
];

function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(fraction * sorted.length)));
  return sorted[rank - 1] as number;
}

const round = (value: number): number => Math.round(value * 10) / 10;

function stat(values: readonly number[]): SettleStat {
  return { median: round(percentile(values, 0.5)), p90: round(percentile(values, 0.9)), max: round(Math.max(0, ...values)), samples: values.length };
}

async function timed(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await call();
  return performance.now() - started;
}

/** A context of our own on the served folder (every other request aborted), its page, and a driver attached to it. */
async function attachedContext(
  browser: Browser,
  origin: string,
  javaScriptEnabled: boolean,
): Promise<{ context: BrowserContext; page: Page; driver: PlaywrightDriver }> {
  const context = await browser.newContext({ viewport, javaScriptEnabled });
  await context.route('**/*', (route) => (route.request().url().startsWith(`${origin}/`) ? route.continue() : route.abort()));
  const page = await context.newPage();
  const driver = await PlaywrightDriver.attach(page, { defaultTimeout: 60_000 });
  return { context, page, driver };
}

/** Corpus pages, JavaScript off: the load, then three scrolls, a key press and a bare settle wait, each timed. */
async function measureCorpus(browser: Browser, dir: string, files: readonly string[]): Promise<{ goto: ActionTime[]; actions: ActionTime[] }> {
  const { server, origin } = await serve(dir);
  const { context, driver } = await attachedContext(browser, origin, false);
  const goto: ActionTime[] = [];
  const actions: ActionTime[] = [];
  try {
    for (const [position, file] of files.entries()) {
      const page = basename(file, '.html');
      try {
        goto.push({ page, action: 'goto', ms: await timed(() => driver.goto(`${origin}/${encodeURIComponent(file)}`)) });
        for (let scroll = 0; scroll < 3; scroll++) actions.push({ page, action: 'scroll', ms: await timed(() => driver.scroll({ deltaY: 600 })) });
        actions.push({ page, action: 'press Tab', ms: await timed(() => driver.press('Tab')) });
        actions.push({ page, action: 'waitForSettled', ms: await timed(() => driver.waitForSettled()) });
      } catch (error) {
        console.error(`bench settle: ${file} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      if ((position + 1) % 20 === 0) console.log(`bench settle: ${position + 1}/${files.length} corpus pages`);
    }
  } finally {
    await driver.close();
    await context.close();
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
  return { goto, actions };
}

/** Fixture pages, JavaScript on, each in a context of its own (the busy page stays blocked after its click). */
async function measureFixtures(browser: Browser, dir: string): Promise<{ rows: SettleBenchResult['fixtures'][number][]; times: ActionTime[] }> {
  const rows: SettleBenchResult['fixtures'][number][] = [];
  const times: ActionTime[] = [];
  const { server, origin } = await serve(dir);
  try {
    for (const scenario of scenarios) {
      const { context, page, driver } = await attachedContext(browser, origin, true);
      try {
        const gotoMs = await timed(() => driver.goto(`${origin}/${scenario.file}`));
        const actionTimes: number[] = [];
        for (const action of scenario.actions) {
          const ms = await timed(() => action.run(driver));
          actionTimes.push(ms);
          times.push({ page: scenario.file, action: action.name, ms });
        }
        const outcome = scenario.outcome ? await scenario.outcome(page) : '(page blocked)';
        rows.push({
          file: scenario.file,
          description: scenario.description,
          gotoMs: round(gotoMs),
          actionMs: stat(actionTimes),
          eachMs: actionTimes.map(round),
          outcome,
        });
      } finally {
        await driver.close();
        await context.close();
      }
    }
  } finally {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
  return { rows, times };
}

/**
 * Runs the settle benchmark; writes bench/settle-results.json and the settle section of
 * bench/README.md, and returns the figures.
 */
export async function runSettleBench(options: {
  readonly corpusDir: string;
  readonly corpusFiles: readonly string[];
  readonly fixturesDir: string;
}): Promise<SettleBenchResult> {
  const browser = await chromium.launch({ executablePath: findChromium(), args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  try {
    const corpus = await measureCorpus(browser, options.corpusDir, options.corpusFiles);
    const fixtures = await measureFixtures(browser, options.fixturesDir);
    const byAction: Record<string, SettleStat> = {};
    for (const action of new Set(corpus.actions.map((item) => item.action))) {
      byAction[action] = stat(corpus.actions.filter((item) => item.action === action).map((item) => item.ms));
    }
    const result: SettleBenchResult = {
      corpus: { pages: corpus.goto.length, gotoMs: stat(corpus.goto.map((item) => item.ms)), actionMs: stat(corpus.actions.map((item) => item.ms)), byAction },
      fixtures: fixtures.rows,
      times: { corpus: [...corpus.goto, ...corpus.actions], fixtures: fixtures.times },
    };
    writeResults(result, browser.version());
    return result;
  } finally {
    await browser.close();
  }
}

/** The markdown of the results, as it goes between the settle markers of bench/README.md. */
function settleSection(result: SettleBenchResult, chromiumVersion: string): string {
  const triple = (item: SettleStat): string => `${item.median} / ${item.p90} / ${item.max}`;
  return [
    '<!-- settle:start -->',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, Chromium ${chromiumVersion}; settle bound ${settleBoundMs} ms (the default).`,
    '',
    `### Readability corpus (${result.corpus.pages} pages, JavaScript off, driver attached)`,
    '',
    '| what is timed | ms (median / p90 / max) | samples |',
    '|---|---|---|',
    `| goto (load and settle) | ${triple(result.corpus.gotoMs)} | ${result.corpus.gotoMs.samples} |`,
    `| every action below | ${triple(result.corpus.actionMs)} | ${result.corpus.actionMs.samples} |`,
    ...Object.entries(result.corpus.byAction).map(([action, item]) => `| ${action} | ${triple(item)} | ${item.samples} |`),
    '',
    '### Script-heavy fixtures (JavaScript on, driver attached)',
    '',
    '| page | what its actions do | goto ms | action ms (median / p90 / max) | each action, ms | after the actions |',
    '|---|---|---|---|---|---|',
    ...result.fixtures.map(
      (row) => `| ${row.file} | ${row.description} | ${row.gotoMs} | ${triple(row.actionMs)} | ${row.eachMs.join(', ')} | ${row.outcome} |`,
    ),
    '<!-- settle:end -->',
  ].join('\n');
}

function writeResults(result: SettleBenchResult, chromiumVersion: string): void {
  writeFileSync(
    join(repoRoot, 'bench/settle-results.json'),
    `${JSON.stringify({ generatedAt: new Date().toISOString(), chromium: chromiumVersion, settleBoundMs, ...result }, (key, value: unknown) => (typeof value === 'number' && !Number.isInteger(value) ? round(value) : value), 2)}\n`,
  );
  const readmePath = join(repoRoot, 'bench/README.md');
  const readme = readFileSync(readmePath, 'utf8');
  const section = settleSection(result, chromiumVersion);
  if (/<!-- settle:start -->[\s\S]*<!-- settle:end -->/.test(readme))
    writeFileSync(readmePath, readme.replace(/<!-- settle:start -->[\s\S]*<!-- settle:end -->/, section));
  else
    console.error(
      'bench settle: bench/README.md has no <!-- settle:start --> … <!-- settle:end --> section; the results are in bench/settle-results.json only.',
    );
  console.log(section);
}

// `tsx bench/settle.ts` runs this benchmark alone; BENCH_LIMIT caps the corpus pages, as for bench/run.ts.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const corpusDir = resolve(repoRoot, '../shared/corpus/readability');
  const limit = Number(process.env.BENCH_LIMIT ?? Number.POSITIVE_INFINITY);
  const corpusFiles = readdirSync(corpusDir)
    .filter((file) => file.endsWith('.html'))
    .sort()
    .slice(0, limit);
  await runSettleBench({ corpusDir, corpusFiles, fixturesDir: resolve(repoRoot, 'test/fixtures') });
}
