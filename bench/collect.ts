// `npm run bench -- --only collect`: the collection (issue 14) on the local job board
// (examples/collect-site) with the scripted model, which answers at once: pages per minute, our own
// time per page (a page's time less its model calls' time), for 1, 4 and 8 concurrent pages on one
// machine (one PlaywrightDriver, so one Chromium, per concurrent page) and for one vs two BullMQ
// workers (child processes, each with its own Chromium) on a redis-server the bench starts; memory
// per concurrent page. Medians over `runs` runs. Writes the table between the collect markers of
// bench/README.md.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Collector, type CollectionSummary, type CollectorEventMap } from '../src/index';
import { createCollectionCoordinator } from '../src/bullmq/index';
import { PlaywrightDriver } from '../src/playwright/index';
import { startCollectSite, type CollectSite } from '../examples/collect-site/server';
import { collectSiteModel, Job } from '../examples/collect-site/scripted-model';
import { startWorkerProcesses, stopWorkerProcesses } from '../examples/collect';
import { ensureRedis } from '../scripts/ensure-deps.mjs';
import { startRedis } from '../test/helpers/redis-server';

const repoRoot = resolve(import.meta.dirname, '..');
const instruction = 'every job posting: id, title, company, salary, link';
const modelRetry = { retries: 0, minTimeout: 1, maxTimeout: 1 };
const MB = 1024 * 1024;

/** Settings of {@link runCollectBench}. */
export interface CollectBenchSettings {
  /** Postings on the site, 20 a page. @defaultValue 960 (48 pages) */
  readonly postings?: number | undefined;
  /** Timed runs per setting; the figure is their median. @defaultValue 3 */
  readonly runs?: number | undefined;
  /** Concurrent pages on one machine. @defaultValue [1, 4, 8] */
  readonly concurrency?: readonly number[] | undefined;
  /** BullMQ worker processes. @defaultValue [1, 2] */
  readonly workers?: readonly number[] | undefined;
}

/** One timed run. */
interface RunFigures {
  readonly wallMs: number;
  readonly pages: number;
  readonly records: number;
  readonly pagesPerMinute: number;
  /** Σ page time (load, read, survey, extraction, the model calls in it) / pages. */
  readonly pageMs: number;
  /** Σ model call time / pages. */
  readonly modelMs: number;
  /** pageMs − modelMs: our own time per page. */
  readonly ownMs: number;
  /** Peak over the run, sampled every 200 ms (one machine only). */
  readonly peak?: { readonly browserRssMb: number; readonly browserAnonMb: number; readonly heapMb: number; readonly processes: number } | undefined;
}

interface Row {
  readonly setting: string;
  readonly concurrent: number;
  readonly runs: readonly RunFigures[];
  readonly median: Omit<RunFigures, 'peak'> & { readonly memoryPerPageMb?: number; readonly anonPerPageMb?: number };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};
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
function browserMemory(): { rssMb: number; anonMb: number; processes: number } {
  let rss = 0;
  let anon = 0;
  let processes = 0;
  for (const pid of descendants(process.pid)) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      if (!/^Name:\s*(chrom|headless)/im.test(status)) continue;
      rss += Number(/^VmRSS:\s*(\d+)/m.exec(status)?.[1] ?? 0);
      anon += Number(/^RssAnon:\s*(\d+)/m.exec(status)?.[1] ?? 0);
      processes++;
    } catch {
      // Gone meanwhile.
    }
  }
  return { rssMb: rss / 1024, anonMb: anon / 1024, processes };
}

/** Counts page and model time from a collection's events. */
function timeCounter() {
  let pageMs = 0;
  let modelMs = 0;
  return {
    page: (event: CollectorEventMap<Job>['collect-page']): void => {
      pageMs += event.durationMs;
    },
    model: (event: CollectorEventMap<Job>['collect-model-call']): void => {
      if (event.role !== 'planner') modelMs += event.durationMs;
    },
    figures(summary: CollectionSummary, wallMs: number): Omit<RunFigures, 'peak'> {
      const pages = summary.pagesDone + summary.pagesFailed;
      return {
        wallMs: round(wallMs, 0),
        pages,
        records: summary.records,
        pagesPerMinute: round((pages * 60_000) / wallMs, 0),
        pageMs: round(pageMs / pages),
        modelMs: round(modelMs / pages, 2),
        ownMs: round((pageMs - modelMs) / pages),
      };
    },
  };
}

function checkComplete(site: CollectSite, summary: CollectionSummary, setting: string): void {
  if (summary.reason !== 'done' || summary.records !== site.reachableItems.length || summary.duplicates !== 0 || summary.pagesFailed !== 0)
    throw new Error(
      `bench collect: ${setting} ended ${summary.reason} with ${summary.records} of ${site.reachableItems.length} records (${summary.message ?? ''}).`,
    );
}

/** `runs` collections of the site with `concurrency` pages at a time over as many drivers. */
async function oneMachine(site: CollectSite, concurrency: number, runs: number): Promise<Row> {
  const browsers = await Promise.all(Array.from({ length: concurrency }, () => PlaywrightDriver.launch({ headless: true })));
  const figures: RunFigures[] = [];
  try {
    for (let run = 0; run < runs; run++) {
      const counter = timeCounter();
      const collector = new Collector<Job>({
        llm: collectSiteModel(),
        browsers,
        concurrency,
        start: site.pageUrl(1),
        instruction,
        schema: Job,
        key: (job) => job.id,
        modelRetry,
      });
      collector.on('collect-page', counter.page);
      collector.on('collect-model-call', counter.model);
      const peak = { browserRssMb: 0, browserAnonMb: 0, heapMb: 0, processes: 0 };
      const sample = (): void => {
        const memory = browserMemory();
        peak.browserRssMb = Math.max(peak.browserRssMb, memory.rssMb);
        peak.browserAnonMb = Math.max(peak.browserAnonMb, memory.anonMb);
        peak.processes = Math.max(peak.processes, memory.processes);
        peak.heapMb = Math.max(peak.heapMb, process.memoryUsage().heapUsed / MB);
      };
      const sampler = setInterval(sample, 200);
      const started = performance.now();
      const summary = await collector.run().finally(() => clearInterval(sampler));
      const wallMs = performance.now() - started;
      checkComplete(site, summary, `concurrency ${concurrency}`);
      figures.push({
        ...counter.figures(summary, wallMs),
        peak: {
          browserRssMb: round(peak.browserRssMb, 0),
          browserAnonMb: round(peak.browserAnonMb, 0),
          heapMb: round(peak.heapMb, 0),
          processes: peak.processes,
        },
      });
      console.log(`bench collect: concurrency ${concurrency}, run ${run + 1}: ${JSON.stringify(figures.at(-1))}`);
    }
  } finally {
    await Promise.all(browsers.map((browser) => browser.close()));
  }
  const peaks = figures.map((item) => item.peak as NonNullable<RunFigures['peak']>);
  return {
    setting: `one machine, ${concurrency} concurrent page${concurrency === 1 ? '' : 's'} (${concurrency} PlaywrightDriver${concurrency === 1 ? '' : 's'})`,
    concurrent: concurrency,
    runs: figures,
    median: {
      ...medianOf(figures),
      memoryPerPageMb: round(median(peaks.map((peak) => peak.browserRssMb + peak.heapMb)) / concurrency, 0),
      anonPerPageMb: round(median(peaks.map((peak) => peak.browserAnonMb + peak.heapMb)) / concurrency, 0),
    },
  };
}

function medianOf(figures: readonly RunFigures[]): Omit<RunFigures, 'peak'> {
  const of = (pick: (item: RunFigures) => number, digits = 1): number => round(median(figures.map(pick)), digits);
  return {
    wallMs: of((item) => item.wallMs, 0),
    pages: of((item) => item.pages, 0),
    records: of((item) => item.records, 0),
    pagesPerMinute: of((item) => item.pagesPerMinute, 0),
    pageMs: of((item) => item.pageMs),
    modelMs: of((item) => item.modelMs, 2),
    ownMs: of((item) => item.ownMs),
  };
}

/** `runs` collections through BullMQ with `workers` worker processes (one Chromium each), started and ready before the clock starts. */
async function bullmq(site: CollectSite, redisUrl: string, workers: number, runs: number): Promise<Row> {
  const figures: RunFigures[] = [];
  for (let run = 0; run < runs; run++) {
    const name = `bench-collect-${workers}-${run}-${Date.now().toString(36)}`;
    const processes = await startWorkerProcesses(redisUrl, name, workers);
    try {
      const counter = timeCounter();
      const coordinator = createCollectionCoordinator<Job>({
        connection: redisUrl,
        name,
        llm: collectSiteModel(),
        start: site.pageUrl(1),
        instruction,
        schema: Job,
        key: (job) => job.id,
        modelRetry,
        pollInterval: 50,
      });
      try {
        coordinator.on('collect-page', counter.page);
        coordinator.on('collect-model-call', counter.model);
        const started = performance.now();
        const summary = await coordinator.run();
        const wallMs = performance.now() - started;
        checkComplete(site, summary, `${workers} BullMQ workers`);
        figures.push(counter.figures(summary, wallMs));
        console.log(`bench collect: ${workers} BullMQ worker(s), run ${run + 1}: ${JSON.stringify(figures.at(-1))}`);
      } finally {
        await coordinator.close();
      }
    } finally {
      await stopWorkerProcesses(processes);
    }
  }
  return {
    setting: `BullMQ, ${workers} worker process${workers === 1 ? '' : 'es'} (1 page at a time each, own Chromium)`,
    concurrent: workers,
    runs: figures,
    median: medianOf(figures),
  };
}

/** The collect table of bench/README.md. */
function section(result: {
  command: string;
  generatedAt: string;
  machine: Record<string, unknown>;
  postings: number;
  runs: number;
  rows: readonly Row[];
}): string {
  const { machine } = result;
  const memory = (row: Row): string => (row.median.memoryPerPageMb === undefined ? '–' : `${row.median.memoryPerPageMb} (${row.median.anonPerPageMb})`);
  return [
    '<!-- collect:start -->',
    `Measured ${result.generatedAt.slice(0, 10)} with \`${result.command}\` on ${String(machine.cpus)} cores (${String(machine.cpuModel)}, shared; load average ${String(machine.loadAverageAtStart)} at the start), ${String(machine.memoryGb)} GB, Node ${String(machine.node)}, Chromium ${String(machine.chromium)}.`,
    `The site: ${result.postings} postings over ${result.postings / 20} numbered pages (no faults, no cookie wall); every run collected all of them once. Medians of ${result.runs} runs.`,
    '',
    '| setting | pages/min | wall s | page ms (in a page, model calls included) | model ms per page | own ms per page | memory per concurrent page, MB: RSS (RssAnon) |',
    '|---|---|---|---|---|---|---|',
    ...result.rows.map(
      (row) =>
        `| ${row.setting} | ${row.median.pagesPerMinute} | ${round(row.median.wallMs / 1000, 1)} | ${row.median.pageMs} | ${row.median.modelMs} | ${row.median.ownMs} | ${memory(row)} |`,
    ),
    '<!-- collect:end -->',
  ].join('\n');
}

/** Runs the collect part, writes its table into bench/README.md and prints it (each run's figures are printed as it ends). */
export async function runCollectBench(settings: CollectBenchSettings = {}, command = 'npm run bench -- --only collect'): Promise<void> {
  const postings = settings.postings ?? 960;
  const runs = settings.runs ?? 3;
  const loadAverageAtStart = loadavg()
    .map((value) => value.toFixed(1))
    .join(' / ');
  const generatedAt = new Date().toISOString();
  if (ensureRedis() !== 0) throw new Error('bench collect: no redis-server (see the message above).');
  const [site, redis] = await Promise.all([startCollectSite({ count: postings }), startRedis()]);
  const rows: Row[] = [];
  let chromium: string;
  try {
    for (const concurrency of settings.concurrency ?? [1, 4, 8]) rows.push(await oneMachine(site, concurrency, runs));
    for (const workers of settings.workers ?? [1, 2]) rows.push(await bullmq(site, redis.url, workers, runs));
    const driver = await PlaywrightDriver.launch();
    try {
      chromium = driver.context.browser()?.version() ?? 'unknown';
    } finally {
      await driver.close();
    }
  } finally {
    await Promise.all([site.close(), redis.stop()]);
  }
  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 1024 ** 3),
    node: process.version,
    chromium,
    loadAverageAtStart,
  };
  const result = { command, generatedAt, machine, postings, runs, rows };
  const generated = section(result);
  const readmePath = join(repoRoot, 'bench/README.md');
  const readme = readFileSync(readmePath, 'utf8');
  if (!readme.includes('<!-- collect:start -->')) throw new Error('bench collect: bench/README.md has no <!-- collect:start --> marker.');
  writeFileSync(readmePath, readme.replace(/<!-- collect:start -->[\s\S]*<!-- collect:end -->/, generated));
  console.log(`\n${generated}`);
}
