// `npm run bench -- --only collect`: the collection (issue 20) on the collect corpus (test/fixtures/collect-corpus: ten
// listing styles, sponsored cards, duplicates, a cookie wall, transient and permanent faults), beside a Crawlee
// PlaywrightCrawler with the corpus's hand-written selectors on the same site in the same run (the anchor). Recall,
// precision and duplicates against the truth, pages per minute from the site's own log, prompt characters per record and
// model calls of the stand-in model, memory per concurrent page; for 1, 4 and 8 concurrent pages (a Chromium each), 8 over
// one `PlaywrightDriver.pool`, and two BullMQ workers (without detail pages); and the text floor, Crawlee's pages as the
// Collector's markdown, per record.
// Writes the table between the collect markers of bench/README.md.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { Collector, type CollectionSummary } from '../src/index';
import { PlaywrightDriver } from '../src/playwright/index';
import { ensureRedis } from '../scripts/ensure-deps.mjs';
import { startCollectCorpus, type CollectCorpus } from '../test/fixtures/collect-corpus/index';
import { corpusModel, type ModelLedger } from '../test/helpers/collect-corpus-model';
import { startRedis } from '../test/helpers/redis-server';
import { generateSite } from '../test/fixtures/collect-corpus/generate';
import { crawlWithCrawlee, type PageText } from './collect-crawlee';
import { cardCompleteIds, CorpusRecordSchema, scoreRecords, servedPages, type RecordScore, type ServedPages } from './collect-score';

const repoRoot = resolve(import.meta.dirname, '..');
const instruction = 'every listing (not sponsored ones): id, title, seller, price, location, link';
const MB = 1024 * 1024;
const SEED = 1;
const HANG_MS = 8000;
/** Well above the corpus's hang (8 s), so that a hanging page fails by the dropped connection, not by our deadline. */
const PAGE_TIMEOUT_MS = 30_000;

/** Settings of {@link runCollectBench}. */
export interface CollectBenchSettings {
  /** The corpus's scale: 1 is 2,397 records (2,366 reachable) on 163 listing pages. @defaultValue 1 */
  readonly scale?: number | undefined;
  /** Concurrent pages of the Collector on one machine. @defaultValue [1, 4, 8] */
  readonly concurrency?: readonly number[] | undefined;
  /** BullMQ worker processes (0: no BullMQ row). @defaultValue 2 */
  readonly workers?: number | undefined;
  /** Crawlee's concurrent pages. @defaultValue 4 */
  readonly crawleeConcurrency?: number | undefined;
  /** Concurrent pages of the Collector over one `PlaywrightDriver.pool` (one Chromium, a context per page). @defaultValue [8] */
  readonly pool?: readonly number[] | undefined;
  /** Runs the Crawlee row. @defaultValue true */
  readonly crawlee?: boolean | undefined;
  /** Writes the table into bench/README.md (false for a trial run). @defaultValue true */
  readonly writeReadme?: boolean | undefined;
}

interface Memory {
  readonly rssMb: number;
  readonly anonMb: number;
}

interface Row {
  readonly setting: string;
  /** Set when the row could not be measured: why. */
  readonly notRun?: string | undefined;
  readonly seconds?: number | undefined;
  readonly served?: ServedPages | undefined;
  readonly score?: RecordScore | undefined;
  /** Σ prompt characters of every model call / records right. */
  readonly charsPerRecord?: number | undefined;
  /** The text floor (Crawlee's row): the text of every page state it read, as the Collector's converter makes it. */
  readonly pageText?: PageText | undefined;
  readonly calls?: Readonly<Record<string, number>> | undefined;
  /** Peak memory / concurrent pages. */
  readonly memoryPerPage?: Memory | undefined;
  /** The crawl reads no detail page (BullMQ): its recall is also given over the records whose card is complete. */
  readonly withoutDetails?: boolean | undefined;
  /** What else the row needs said (how the crawl ended, its failures). */
  readonly note?: string | undefined;
}

const round = (value: number, digits = 1): number => Math.round(value * 10 ** digits) / 10 ** digits;

/** The process ids under `root` (children, their children, …), from /proc. */
function descendants(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command may hold spaces and parentheses: the fields after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), Number(fields[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const parent = queue.shift() as number;
    for (const [pid, ppid] of parents) {
      if (ppid !== parent || found.includes(pid)) continue;
      found.push(pid);
      queue.push(pid);
    }
  }
  return found;
}

/** RSS and RssAnon (kB → MB) summed over this process's Chromium descendants. */
function browserMemory(): Memory {
  let rss = 0;
  let anon = 0;
  for (const pid of descendants(process.pid)) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      if (!/^Name:\s*(chrom|headless)/im.test(status)) continue;
      rss += Number(/^VmRSS:\s*(\d+)/m.exec(status)?.[1] ?? 0);
      anon += Number(/^RssAnon:\s*(\d+)/m.exec(status)?.[1] ?? 0);
    } catch {
      // Gone meanwhile.
    }
  }
  return { rssMb: rss / 1024, anonMb: anon / 1024 };
}

/** Peak Chromium memory plus this process's heap, sampled every 200 ms until `stop()`. */
function memorySampler(): { stop(): Memory } {
  let rssMb = 0;
  let anonMb = 0;
  const sample = (): void => {
    const memory = browserMemory();
    const heapMb = process.memoryUsage().heapUsed / MB;
    rssMb = Math.max(rssMb, memory.rssMb + heapMb);
    anonMb = Math.max(anonMb, memory.anonMb + heapMb);
  };
  const timer = setInterval(sample, 200);
  return {
    stop() {
      clearInterval(timer);
      return { rssMb, anonMb };
    },
  };
}

/** Sums ledgers (the in-process one and the workers'). */
function sumLedgers(ledgers: readonly { calls: Record<string, number>; promptChars: Record<string, number> }[]): {
  calls: Record<string, number>;
  chars: number;
} {
  const calls: Record<string, number> = {};
  let chars = 0;
  for (const ledger of ledgers) {
    for (const [name, count] of Object.entries(ledger.calls)) calls[name] = (calls[name] ?? 0) + count;
    for (const count of Object.values(ledger.promptChars)) chars += count;
  }
  return { calls, chars };
}

const plainLedger = (ledger: ModelLedger): { calls: Record<string, number>; promptChars: Record<string, number> } => ({
  calls: Object.fromEntries(ledger.calls),
  promptChars: Object.fromEntries(ledger.promptChars),
});

/** Runs `crawl` on a corpus whose faults play again from the start; returns its wall time and the requests it made. */
async function onFreshFaults<T>(corpus: CollectCorpus, crawl: () => Promise<T>): Promise<{ value: T; seconds: number; served: ServedPages }> {
  corpus.resetFaults();
  const before = corpus.requests().length;
  const started = performance.now();
  const value = await crawl();
  const seconds = (performance.now() - started) / 1000;
  return { value, seconds, served: servedPages(corpus.requests().slice(before)) };
}

function summaryNote(summary: CollectionSummary): string {
  const count = (value: number | undefined, what: string): string[] => (value === undefined ? [] : [`${value} ${what}`]);
  return [
    `ended ${summary.reason}${summary.message === undefined ? '' : ` (${summary.message})`}; ${summary.pagesDone} pages done, ${summary.pagesFailed} failed`,
    ...count(summary.retries, 'retries'),
    ...count(summary.detailPages, 'detail pages'),
    ...count(summary.rejected, 'rejected'),
    `${summary.invalid} invalid (schema), ${summary.duplicates} duplicates dropped by key`,
  ].join(', ');
}

/** The reachable records whose listing card has every field (see {@link cardCompleteIds}). */
type CardComplete = ReadonlySet<string>;

async function crawleeRow(corpus: CollectCorpus, concurrency: number, complete: CardComplete): Promise<Row> {
  const memory = memorySampler();
  const { value: run, seconds, served } = await onFreshFaults(corpus, () => crawlWithCrawlee(corpus.startUrls, { concurrency })).finally(() => memory.stop());
  const peak = memory.stop();
  return {
    setting: `Crawlee PlaywrightCrawler, hand-written selectors, ${concurrency} concurrent pages (one Chromium)`,
    seconds,
    served,
    score: scoreRecords(run.records, corpus.truth, complete),
    pageText: run.pageText,
    memoryPerPage: { rssMb: peak.rssMb / concurrency, anonMb: peak.anonMb / concurrency },
    note: `${run.requestsFinished} requests done, ${run.requestsFailed} failed after its retries, ${run.retries} retries; page text: ${run.pageText.pages} page states read (each page and detail page once; a listing whose pager replaces the page, by a button, the drop-down or the form, once per state; one grown by "Load more" or scrolling once, at its end), ${run.pageText.chars} characters of markdown with links`,
  };
}

async function collectorRow(corpus: CollectCorpus, concurrency: number, complete: CardComplete, pooled = false): Promise<{ row: Row; chromium: string }> {
  // A Chromium per concurrent page, or one Chromium with a browser context per concurrent page.
  const pool = pooled ? PlaywrightDriver.pool({ size: concurrency, headless: true }) : undefined;
  const drivers = pool === undefined ? await Promise.all(Array.from({ length: concurrency }, () => PlaywrightDriver.launch({ headless: true }))) : [];
  const chromium = drivers[0]?.context.browser()?.version() ?? 'unknown';
  try {
    const { llm, ledger } = corpusModel(corpus.truth, corpus.url);
    const collector = new Collector({
      llm,
      browsers: pool ?? drivers,
      concurrency,
      start: corpus.startUrls.map((start) => start.url),
      instruction,
      schema: CorpusRecordSchema,
      key: (record) => record.link,
      details: true,
      pageTimeout: PAGE_TIMEOUT_MS,
    });
    const records: Partial<Record<string, string>>[] = [];
    const memory = memorySampler();
    const {
      value: summary,
      seconds,
      served,
    } = await onFreshFaults(corpus, async () => {
      for await (const record of collector.records()) records.push(record.data);
      return collector.run();
    }).finally(() => memory.stop());
    const peak = memory.stop();
    const score = scoreRecords(records, corpus.truth, complete);
    const { calls, chars } = sumLedgers([plainLedger(ledger)]);
    const pages = `${concurrency} concurrent page${concurrency === 1 ? '' : 's'}`;
    return {
      chromium,
      row: {
        setting:
          pool === undefined
            ? `Collector, ${pages} (${concurrency} PlaywrightDriver${concurrency === 1 ? '' : 's'})`
            : `Collector, ${pages}, \`PlaywrightDriver.pool({ size: ${concurrency} })\` (one Chromium, a context per page)`,
        seconds,
        served,
        score,
        charsPerRecord: chars / Math.max(1, score.right),
        calls,
        memoryPerPage: { rssMb: peak.rssMb / concurrency, anonMb: peak.anonMb / concurrency },
        note: summaryNote(summary),
      },
    };
  } finally {
    await Promise.all(drivers.map((browser) => browser.close()));
    await pool?.close();
  }
}

interface WorkerProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  /** The worker's model ledger, printed as it closes. */
  ledger: { calls: Record<string, number>; promptChars: Record<string, number> } | undefined;
}

/** Starts `count` bench/collect-worker.ts processes and waits until each says `ready`. */
async function startWorkers(count: number, args: readonly string[]): Promise<WorkerProcess[]> {
  const workers: WorkerProcess[] = [];
  const ready = Array.from({ length: count }, (_, index) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'bench/collect-worker.ts'), ...args], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    const worker: WorkerProcess = { child, exited, ledger: undefined };
    workers.push(worker);
    return new Promise<void>((resolveReady, fail) => {
      const timer = setTimeout(() => fail(new Error(`worker ${index + 1} was not ready within 60 s`)), 60_000);
      void exited.then(() => fail(new Error(`worker ${index + 1} exited before it was ready (${child.exitCode ?? child.signalCode})`)));
      createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
        if (line === 'ready') {
          clearTimeout(timer);
          resolveReady();
        } else if (line.startsWith('ledger ')) worker.ledger = JSON.parse(line.slice('ledger '.length)) as WorkerProcess['ledger'];
      });
    });
  });
  try {
    await Promise.all(ready);
  } catch (error) {
    await stopWorkers(workers);
    throw error;
  }
  return workers;
}

/** Asks each worker to close (SIGTERM; it prints its ledger), and kills one that has not exited within 15 s. */
async function stopWorkers(workers: readonly WorkerProcess[]): Promise<void> {
  await Promise.all(
    workers.map(async ({ child, exited }) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }),
  );
}

async function bullmqRow(corpus: CollectCorpus, scale: number, count: number, complete: CardComplete): Promise<Row> {
  const setting = `BullMQ, ${count} worker processes (1 page at a time each, own Chromium), \`details: true\``;
  if (ensureRedis() !== 0) return { setting, notRun: 'no redis-server (see the message above)' };
  const redis = await startRedis();
  try {
    const { createCollectionCoordinator } = await import('../src/bullmq/index');
    const name = `bench-collect-${Date.now().toString(36)}`;
    const workers = await startWorkers(count, [redis.url, name, corpus.url, String(SEED), String(scale)]);
    let summary: CollectionSummary;
    const records: Partial<Record<string, string>>[] = [];
    const { llm, ledger } = corpusModel(corpus.truth, corpus.url);
    let measured: { seconds: number; served: ServedPages };
    try {
      const coordinator = createCollectionCoordinator({
        connection: redis.url,
        name,
        llm,
        start: corpus.startUrls.map((start) => start.url),
        instruction,
        schema: CorpusRecordSchema,
        key: (record) => record.link,
        // As the Collector's rows: a record whose card lacks a field is completed from its own page, one job per page.
        details: true,
        pageTimeout: PAGE_TIMEOUT_MS,
        pollInterval: 50,
      });
      try {
        const run = await onFreshFaults(corpus, async () => {
          const reading = (async () => {
            for await (const record of coordinator.records()) records.push(record.data);
          })();
          const result = await coordinator.run();
          await reading;
          return result;
        });
        summary = run.value;
        measured = run;
      } finally {
        await coordinator.close();
      }
    } finally {
      await stopWorkers(workers);
    }
    const score = scoreRecords(records, corpus.truth, complete);
    const missingLedgers = workers.filter((worker) => worker.ledger === undefined).length;
    const { calls, chars } = sumLedgers([plainLedger(ledger), ...workers.flatMap((worker) => (worker.ledger === undefined ? [] : [worker.ledger]))]);
    return {
      setting,
      seconds: measured.seconds,
      served: measured.served,
      score,
      charsPerRecord: missingLedgers > 0 ? undefined : chars / Math.max(1, score.right),
      calls: missingLedgers > 0 ? undefined : calls,
      note: `${summaryNote(summary)}${missingLedgers > 0 ? `; ${missingLedgers} worker${missingLedgers === 1 ? '' : 's'} printed no model ledger, so no prompt characters` : ''}`,
    };
  } catch (error) {
    console.log(`bench collect: the BullMQ row failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return { setting, notRun: `failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` };
  } finally {
    await redis.stop();
  }
}

const percent = (value: number): string => `${round(value * 100, 1)}%`;
const CALL_NAMES: readonly [string, string][] = [
  ['collect_survey', 'survey'],
  ['collect_extract', 'extract'],
  ['collect_details', 'detail pages (shared calls)'],
  ['collect_check', 'check'],
  ['navigator_output', 'navigator'],
];

function tableRow(row: Row): string {
  if (row.notRun !== undefined) return `| ${row.setting} | not run: ${row.notRun} | | | | | | | | | |`;
  const { score, served, seconds } = row as Required<Pick<Row, 'score' | 'served' | 'seconds'>>;
  const pages = served.listing + served.detail;
  const calls =
    row.calls === undefined
      ? '–'
      : CALL_NAMES.map(([name, label]) => `${row.calls?.[name] ?? 0} ${label}`)
          .concat(
            Object.entries(row.calls)
              .filter(([name]) => !CALL_NAMES.some(([known]) => known === name))
              .map(([name, count]) => `${count} ${name}`),
          )
          .join(', ');
  const memory = row.memoryPerPage === undefined ? '–' : `${round(row.memoryPerPage.rssMb, 0)} (${round(row.memoryPerPage.anonMb, 0)})`;
  return [
    row.setting,
    `${percent(score.recall)} (${score.right})${
      row.withoutDetails === true
        ? `; over the records whose card is complete: ${percent(score.cardComplete.recall)} (${score.cardComplete.right} of ${score.cardComplete.reachable})`
        : ''
    }`,
    `${percent(score.precision)} (${score.wrong} wrong)`,
    String(score.duplicates),
    String(round((pages * 60) / seconds, 0)),
    `${pages} (${served.listing} + ${served.detail}), ${served.requests} requests`,
    String(round(seconds, 1)),
    row.charsPerRecord === undefined ? '–' : String(round(row.charsPerRecord, 0)),
    row.pageText === undefined ? '–' : String(round(row.pageText.chars / Math.max(1, score.right), 0)),
    calls,
    memory,
  ]
    .join(' | ')
    .replace(/^/, '| ')
    .concat(' |');
}

/** The collect section of bench/README.md. */
function section(result: {
  command: string;
  generatedAt: string;
  machine: Record<string, unknown>;
  scale: number;
  corpus: CollectCorpus;
  rows: readonly Row[];
}): string {
  const { machine, corpus } = result;
  const listingPages = corpus.truth.listingPages.length;
  return [
    '<!-- collect:start -->',
    `Measured ${result.generatedAt.slice(0, 10)} with \`${result.command}\` on ${String(machine.cpus)} cores (${String(machine.cpuModel)}, shared; load average ${String(machine.loadAverageAtStart)} at the start, ${String(machine.loadAverageAtEnd)} at the end), ${String(machine.memoryGb)} GB, Node ${String(machine.node)}, Chromium ${String(machine.chromium)}; the whole part took ${String(machine.minutes)} min.`,
    `The site: the collect corpus at scale ${result.scale}, seed ${SEED}, faults on (played again from the start for each row), hangs of ${HANG_MS / 1000} s: ${corpus.truth.records.length} records on ${listingPages} listing pages and batches, ${corpus.truth.reachable.length} reachable. One run per row.`,
    '',
    "| setting | recall (records right) | precision | duplicates | pages/min | pages served (listing + detail) | wall s | prompt chars per record right | page text per record (a crawler sending each page's text once) | model calls | memory per concurrent page, MB: RSS (RssAnon) |",
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...result.rows.map(tableRow),
    '',
    ...result.rows.map((row) => {
      const missing =
        row.score === undefined
          ? ''
          : Object.entries(row.score.missingByStyle)
              .map(([style, count]) => `${style} ${count}`)
              .join(', ');
      const complete =
        row.score === undefined
          ? ''
          : `; recall over the ${row.score.cardComplete.reachable} reachable records whose listing card is complete: ${percent(row.score.cardComplete.recall)} (${row.score.cardComplete.right})`;
      return `- ${row.setting}: ${row.notRun === undefined ? (row.note ?? '') : `not run: ${row.notRun}`}${complete}${missing === '' ? '' : `; not right: ${missing}`}.`;
    }),
    '<!-- collect:end -->',
  ].join('\n');
}

/** Runs the collect part, writes its table into bench/README.md and prints it. */
export async function runCollectBench(settings: CollectBenchSettings = {}, command = 'npm run bench -- --only collect'): Promise<void> {
  const scale = settings.scale ?? 1;
  const loadAverageAtStart = loadavg()
    .map((value) => value.toFixed(1))
    .join(' / ');
  const generatedAt = new Date().toISOString();
  const started = performance.now();
  const corpus = await startCollectCorpus({ seed: SEED, scale, faults: true, hangMs: HANG_MS });
  const rows: Row[] = [];
  let chromium = 'unknown';
  const report = (row: Row): void => {
    rows.push(row);
    console.log(`bench collect: ${tableRow(row)}`);
  };
  try {
    const complete = cardCompleteIds(generateSite(SEED, scale), corpus.truth);
    if (settings.crawlee ?? true) report(await crawleeRow(corpus, settings.crawleeConcurrency ?? 4, complete));
    for (const concurrency of settings.concurrency ?? [1, 4, 8]) {
      const measured = await collectorRow(corpus, concurrency, complete);
      chromium = measured.chromium;
      report(measured.row);
    }
    for (const concurrency of settings.pool ?? [8]) report((await collectorRow(corpus, concurrency, complete, true)).row);
    const workers = settings.workers ?? 2;
    if (workers > 0) report(await bullmqRow(corpus, scale, workers, complete));
  } finally {
    await corpus.close();
  }
  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 1024 ** 3),
    node: process.version,
    chromium,
    loadAverageAtStart,
    loadAverageAtEnd: loadavg()
      .map((value) => value.toFixed(1))
      .join(' / '),
    minutes: round((performance.now() - started) / 60_000, 1),
  };
  const generated = section({ command, generatedAt, machine, scale, corpus, rows });
  if (settings.writeReadme ?? true) {
    const readmePath = join(repoRoot, 'bench/README.md');
    const readme = readFileSync(readmePath, 'utf8');
    if (!readme.includes('<!-- collect:start -->')) throw new Error('bench collect: bench/README.md has no <!-- collect:start --> marker.');
    writeFileSync(readmePath, readme.replace(/<!-- collect:start -->[\s\S]*<!-- collect:end -->/, generated));
  }
  console.log(`\n${generated}`);
}
