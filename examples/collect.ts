// The collection demo: the Collector over a local job board (examples/collect-site, served by this
// script on 127.0.0.1) with a scripted model. Run it with `npm run collect-demo`; it needs Chromium,
// no network and no API key.
//
// `npm run collect-demo` collects on this machine: one headless Chromium (`--concurrency N`: N of
// them, N pages at a time) and the records in a file store (JSON Lines) in a temporary folder.
// `npm run collect-demo -- --workers redis://127.0.0.1:6379` runs the same collection through
// BullMQ on that Redis: a coordinator in this process and two workers in child processes (this
// file again, with `--worker`), each with its own Chromium; the records go to a JSON Lines file
// as the coordinator commits them. The site has a cookie wall on the first visit and one broken
// page (page 7 answers 500), so a failure shows in the progress lines.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { appendFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Collector, type CollectionSummary, type CollectorEventMap } from 'plannav';
import { fileCollectionStore } from 'plannav/node';
import { PlaywrightDriver } from 'plannav/playwright';
import { startCollectSite, type CollectSiteOptions } from './collect-site/server';
import { collectSiteModel, Job } from './collect-site/scripted-model';

const thisFile = fileURLToPath(import.meta.url);
const repoRoot = resolve(thisFile, '../..');
const instruction = 'every job posting: id, title, company, salary, link';
/** The scripted model answers at once and never fails for a transient reason: no retry waits. */
const modelRetry = { retries: 0, minTimeout: 1, maxTimeout: 1 };

/** Options of {@link runCollectDemo}. */
export interface CollectDemoOptions {
  /** A Redis URL: the run goes through BullMQ, a coordinator here and `workerCount` workers. @defaultValue one machine, no Redis */
  readonly workers?: string | undefined;
  /** How many BullMQ worker processes, with `workers`. @defaultValue 2 */
  readonly workerCount?: number | undefined;
  /** Pages at a time on one machine, each in its own Chromium. @defaultValue 1 */
  readonly concurrency?: number | undefined;
  /** The site. @defaultValue a cookie wall and page 7 broken, 240 postings over 12 pages */
  readonly site?: CollectSiteOptions | undefined;
  /** Where each line goes. @defaultValue console.log */
  readonly log?: ((line: string) => void) | undefined;
}

/** What a demo run leaves behind. */
export interface CollectDemoRun {
  readonly summary: CollectionSummary;
  /** The JSON Lines file of the records, one `{ data, source, collectedAt }` a line. */
  readonly recordsFile: string;
  /** The records, in the order they were kept. */
  readonly records: readonly Job[];
  /** The ids of the postings a visitor can reach (those of every page that is not broken), from the site. */
  readonly reachableIds: readonly string[];
  /** Every page request the site served, by path (as `CollectSite.hits()` counts them). */
  readonly hits: Readonly<Record<string, number>>;
}

/** The running counts behind a progress line. */
class Progress {
  /** Since the run started (`collect-start`). */
  private started = Date.now();
  private done = 0;
  private failed = 0;
  private records = 0;
  /** Pages known: the start page, every page enqueued since, less those dropped with an abandoned batch. */
  private known = 1;

  constructor(private readonly log: (line: string) => void) {}

  start(): void {
    this.started = Date.now();
  }

  page(event: CollectorEventMap<Job>['collect-page']): void {
    this.done++;
    this.records += event.records;
    this.known += event.enqueued;
    this.print(event.url);
  }

  failure(event: CollectorEventMap<Job>['collect-failure']): void {
    this.failed++;
    this.known -= event.dropped;
    this.print(`${event.url} failed: ${event.error.message}`);
  }

  private print(what: string): void {
    const seconds = (Date.now() - this.started) / 1000;
    const perMinute = (count: number): string => String(Math.round((count * 60) / Math.max(seconds, 0.001)));
    const finished = this.done + this.failed;
    this.log(
      `[${seconds.toFixed(1).padStart(5)} s] ${finished} of ${this.known} pages done, ${this.records} records, ` +
        `${perMinute(finished)} pages/min, ${perMinute(this.records)} records/min, ${this.failed} failed  ${what}`,
    );
  }
}

/** The summary, as printed at the end. */
function summaryLines(summary: CollectionSummary, recordsFile: string): string[] {
  return [
    '',
    `Ended: ${summary.reason}${summary.message ? ` (${summary.message})` : ''} after ${(summary.durationMs / 1000).toFixed(1)} s`,
    `Pages: ${summary.pagesDone} done, ${summary.pagesFailed} failed, ${summary.pagesEmpty} empty, ${summary.pagesAbandoned} abandoned, ${summary.pagesQueued} still queued`,
    `Records: ${summary.records} kept, ${summary.duplicates} duplicates dropped, ${summary.invalid} invalid`,
    `Model calls: ${summary.usage.calls}, ${summary.usage.totalTokens} tokens`,
    `Records file: ${recordsFile}`,
  ];
}

/** Collects the local job board, printing a progress line per finished or failed page, then the summary. */
export async function runCollectDemo(options: CollectDemoOptions = {}): Promise<CollectDemoRun> {
  const log = options.log ?? ((line: string) => console.log(line));
  const site = await startCollectSite(options.site ?? { cookieWall: true, brokenPages: [7] });
  try {
    const folder = await mkdtemp(join(tmpdir(), 'plannav-collect-demo-'));
    const progress = new Progress(log);
    const records: Job[] = [];
    let summary: CollectionSummary;
    let recordsFile: string;
    if (options.workers === undefined) {
      const concurrency = options.concurrency ?? 1;
      log(`Collecting ${site.pageUrl(1)} on this machine: ${concurrency} page(s) at a time, the scripted model.`);
      const store = fileCollectionStore<Job>(folder);
      recordsFile = store.recordsPath;
      const browsers = await Promise.all(Array.from({ length: concurrency }, () => PlaywrightDriver.launch({ headless: true })));
      try {
        const collector = new Collector<Job>({
          llm: collectSiteModel(),
          browsers,
          concurrency,
          start: site.pageUrl(1),
          instruction,
          schema: Job,
          key: (job) => job.id,
          store,
          modelRetry,
          urlPolicy: { allow: [new URL(site.url).host] },
        });
        collector.on('collect-start', () => progress.start());
        collector.on('collect-page', (event) => progress.page(event));
        collector.on('collect-failure', (event) => progress.failure(event));
        collector.on('collect-record', ({ record }) => void records.push(record.data));
        summary = await collector.run();
      } finally {
        await Promise.all(browsers.map((browser) => browser.close()));
      }
    } else {
      const workerCount = options.workerCount ?? 2;
      // Its own name per run: the keys of a collection stay in Redis after it ends.
      const name = `collect-demo-${Date.now().toString(36)}`;
      log(`Collecting ${site.pageUrl(1)} through BullMQ on ${options.workers}: a coordinator here, ${workerCount} worker processes.`);
      const workers = await startWorkerProcesses(options.workers, name, workerCount, log);
      recordsFile = join(folder, 'records.jsonl');
      // BullMQ and ioredis are loaded only in this mode.
      const { createCollectionCoordinator } = await import('plannav/bullmq');
      const coordinator = createCollectionCoordinator<Job>({
        connection: options.workers,
        name,
        llm: collectSiteModel(),
        start: site.pageUrl(1),
        instruction,
        schema: Job,
        key: (job) => job.id,
        modelRetry,
        urlPolicy: { allow: [new URL(site.url).host] },
        pollInterval: 50,
      });
      try {
        coordinator.on('collect-start', () => progress.start());
        coordinator.on('collect-page', (event) => progress.page(event));
        coordinator.on('collect-failure', (event) => progress.failure(event));
        const writing = (async () => {
          for await (const record of coordinator.records()) {
            records.push(record.data);
            await appendFile(recordsFile, `${JSON.stringify(record)}\n`);
          }
        })();
        summary = await coordinator.run();
        await writing;
      } finally {
        await coordinator.close();
        await stopWorkerProcesses(workers);
      }
    }
    for (const line of summaryLines(summary, recordsFile)) log(line);
    return { summary, recordsFile, records, reachableIds: site.reachableItems.map((item) => item.id), hits: site.hits() };
  } finally {
    await site.close();
  }
}

/** A BullMQ worker in a child process (this file with `--worker`), ready once it has said so. */
export interface WorkerProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
}

/** Starts `count` worker processes of the collection `name` and waits until each has its browser and is ready (60 s at most). */
export async function startWorkerProcesses(
  connection: string,
  name: string,
  count: number,
  log: (line: string) => void = () => undefined,
): Promise<WorkerProcess[]> {
  const workers: WorkerProcess[] = [];
  try {
    await Promise.all(
      Array.from({ length: count }, (_, index) => {
        const child = spawn(process.execPath, ['--import', 'tsx', thisFile, '--worker', connection, '--name', name], {
          cwd: repoRoot,
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        const exited = new Promise<void>((done) => child.once('exit', () => done()));
        workers.push({ child, exited });
        return new Promise<void>((ready, fail) => {
          const timer = setTimeout(() => fail(new Error(`Worker ${index + 1} was not ready within 60 s.`)), 60_000);
          void exited.then(() => fail(new Error(`Worker ${index + 1} exited before it was ready (${child.exitCode ?? child.signalCode}).`)));
          createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
            if (line !== 'ready') return;
            clearTimeout(timer);
            log(`Worker ${index + 1} ready (pid ${child.pid}).`);
            ready();
          });
        });
      }),
    );
  } catch (error) {
    await stopWorkerProcesses(workers);
    throw error;
  }
  return workers;
}

/** Asks each worker to close (SIGTERM), and kills one that has not exited within 10 s. */
export async function stopWorkerProcesses(workers: readonly WorkerProcess[]): Promise<void> {
  await Promise.all(
    workers.map(async ({ child, exited }) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }),
  );
}

/** The worker process: its own headless Chromium and scripted model; says `ready` on stdout, closes on SIGTERM. */
async function runWorker(connection: string, name: string): Promise<void> {
  const { createCollectionWorker } = await import('plannav/bullmq');
  const browser = await PlaywrightDriver.launch({ headless: true });
  const worker = await createCollectionWorker({ connection, name, llm: collectSiteModel(), browser, schema: Job });
  const stop = async (): Promise<void> => {
    await worker.close();
    await browser.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.stdout.write('ready\n');
}

/** The value after `flag` in the command line. */
function argument(args: readonly string[], flag: string): string | undefined {
  const index = args.indexOf(flag);
  return index >= 0 ? args[index + 1] : undefined;
}

async function main(args: readonly string[]): Promise<void> {
  const workerOf = argument(args, '--worker');
  if (workerOf !== undefined) return runWorker(workerOf, argument(args, '--name') ?? 'collect-demo');
  const workers = argument(args, '--workers');
  if (workers !== undefined) {
    if (!/^rediss?:\/\//.test(workers)) throw new Error(`--workers takes a Redis URL such as redis://127.0.0.1:6379, got ${JSON.stringify(workers)}.`);
    // Only this mode needs Redis: the project's set-up installs redis-server when it is absent (Debian).
    const setUp = spawnSync(process.execPath, [join(repoRoot, 'scripts/ensure-deps.mjs'), '--redis'], { stdio: 'inherit' });
    if (setUp.status !== 0) throw new Error('The set-up for Redis failed (node scripts/ensure-deps.mjs --redis).');
  }
  const concurrency = Number(argument(args, '--concurrency') ?? 1);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error('--concurrency takes a positive integer.');
  const run = await runCollectDemo({ workers, concurrency });
  const missing = new Set(run.reachableIds);
  for (const job of run.records) missing.delete(job.id);
  if (run.summary.reason !== 'done' || missing.size > 0 || run.records.length !== run.reachableIds.length) {
    console.error(`The collection is incomplete: ${missing.size} reachable postings missing, ${run.records.length} records.`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    await main(process.argv.slice(2));
  } catch (error) {
    console.error(`The collection demo could not run: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
