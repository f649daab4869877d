// Memory per concurrent page: N drivers each loading and reading pages of a local site in a loop, one
// Chromium per page (`launch()`) against one shared Chromium (`pool()`). Reads /proc (Linux only); writes nothing.
//
//   npx tsx bench/pool-memory.ts [--driver playwright|puppeteer] [--runs 3] [--pages 12] [--concurrency 1,4,8]
//                                [--modes launch,pool] [--args "--switch …"] [--site <folder of .html pages>]
//
// `--args` adds Chromium switches to every browser of the run (to try a memory switch on both modes).
// Per run: the peak, over samples every 200 ms, of VmRSS and of RssAnon summed over every Chromium
// process the run started (RSS counts a page of shared memory in each process that maps it;
// RssAnon counts only a process's own anonymous memory, which is what a crowded host runs out of),
// plus the Node process's peak V8 heap; each divided by the concurrency. The table gives the median of the runs.

import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { BrowserDriver } from '../src/browser/types';
import { PageStateReader } from '../src/dom/page-state-reader';
import { PlaywrightDriver } from '../src/playwright/index';
import { PuppeteerDriver } from '../src/puppeteer/index';
import { serve } from './serve';

const { values } = parseArgs({
  options: {
    driver: { type: 'string', default: 'playwright' },
    runs: { type: 'string', default: '3' },
    pages: { type: 'string', default: '12' },
    concurrency: { type: 'string', default: '1,4,8' },
    modes: { type: 'string', default: 'launch,pool' },
    args: { type: 'string', default: '' },
    site: { type: 'string' },
  },
});
const runs = Number(values.runs);
const pagesPerDriver = Number(values.pages);
const concurrencies = values.concurrency.split(',').map(Number);
const modes = values.modes.split(',') as ('launch' | 'pool')[];
const extraArgs = values.args.split(/\s+/).filter(Boolean);

// The pages: `--site`, else the corpus of saved real pages beside the repository (../shared/corpus/readability, as
// bench/run.ts reads it), else the bench's small site.
const corpus = resolve(import.meta.dirname, '../../shared/corpus/readability');
const siteDir = (() => {
  if (values.site) return resolve(values.site);
  try {
    if (readdirSync(corpus).some((name) => name.endsWith('.html'))) return corpus;
  } catch {
    // no corpus here
  }
  return resolve(import.meta.dirname, 'site');
})();
const pageNames = readdirSync(siteDir)
  .filter((name) => name.endsWith('.html'))
  .sort();

// Only 127.0.0.1 resolves: a saved page's images and scripts on other hosts fail at once, in both modes alike.
const launchArgs = ['--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1', ...extraArgs];
const settle = { maxWaitMs: 1500 };

/** Every process below this one whose command is Chromium's: the browsers of the run and their helpers. */
function chromiumProcesses(): number[] {
  const parents = new Map<number, number>();
  const names = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces and parentheses, so split after its last ')'.
      const close = stat.lastIndexOf(')');
      names.set(Number(entry), stat.slice(stat.indexOf('(') + 1, close));
      parents.set(Number(entry), Number(stat.slice(close + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const below = (pid: number): boolean => {
    for (let current = parents.get(pid); current !== undefined && current > 1; current = parents.get(current)) if (current === process.pid) return true;
    return false;
  };
  return [...parents.keys()].filter((pid) => below(pid) && /chrom/i.test(names.get(pid) ?? ''));
}

/** VmRSS and RssAnon of a process, in bytes (0 when it is gone). */
function memoryOf(pid: number): { rss: number; anon: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    return { rss: field('VmRSS'), anon: field('RssAnon') };
  } catch {
    return { rss: 0, anon: 0 };
  }
}

interface Sample {
  readonly rss: number;
  readonly anon: number;
  readonly heap: number;
  readonly processes: number;
}

function sample(): Sample {
  const pids = chromiumProcesses();
  let rss = 0;
  let anon = 0;
  for (const pid of pids) {
    const memory = memoryOf(pid);
    rss += memory.rss;
    anon += memory.anon;
  }
  return { rss, anon, heap: process.memoryUsage().heapUsed, processes: pids.length };
}

/** Opens `count` drivers as the mode says; `close` closes them (and the pool). */
async function openDrivers(mode: 'launch' | 'pool', count: number): Promise<{ drivers: BrowserDriver[]; close(): Promise<void> }> {
  const options = { args: launchArgs, settle };
  if (mode === 'launch') {
    const launch = (): Promise<BrowserDriver> => (values.driver === 'puppeteer' ? PuppeteerDriver.launch(options) : PlaywrightDriver.launch(options));
    const drivers = await Promise.all(Array.from({ length: count }, launch));
    return {
      drivers,
      close: async () => {
        await Promise.all(drivers.map((driver) => driver.close()));
      },
    };
  }
  const pool = values.driver === 'puppeteer' ? PuppeteerDriver.pool({ ...options, size: count }) : PlaywrightDriver.pool({ ...options, size: count });
  const drivers: BrowserDriver[] = await Promise.all(Array.from({ length: count }, () => pool.create()));
  return { drivers, close: () => pool.close() };
}

/** One run: `concurrency` drivers each load and read `pagesPerDriver` pages; returns the peaks per page. */
async function run(origin: string, mode: 'launch' | 'pool', concurrency: number): Promise<Sample & { seconds: number }> {
  global.gc?.();
  const peak = { rss: 0, anon: 0, heap: 0, processes: 0 };
  const take = (): void => {
    const now = sample();
    peak.rss = Math.max(peak.rss, now.rss);
    peak.anon = Math.max(peak.anon, now.anon);
    peak.heap = Math.max(peak.heap, now.heap);
    peak.processes = Math.max(peak.processes, now.processes);
  };
  const timer = setInterval(take, 200);
  const started = Date.now();
  const opened = await openDrivers(mode, concurrency);
  const drivers = opened.drivers;
  try {
    await Promise.all(
      drivers.map(async (driver, slot) => {
        const reader = new PageStateReader(driver, { viewportExpansion: 0, includeAttributes: [], maxTextLength: 100 });
        for (let index = 0; index < pagesPerDriver; index++) {
          const name = pageNames[(slot * pagesPerDriver + index) % pageNames.length] as string;
          await driver.goto(`${origin}/${name}`, { timeout: 20_000 }).catch(() => undefined);
          await reader.capture({ screenshot: false }).catch(() => undefined);
          take();
        }
      }),
    );
  } finally {
    clearInterval(timer);
    await opened.close();
  }
  const per = (bytes: number): number => bytes / concurrency;
  return { rss: per(peak.rss), anon: per(peak.anon), heap: per(peak.heap), processes: peak.processes, seconds: (Date.now() - started) / 1000 };
}

const median = (numbers: readonly number[]): number => {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};
const mb = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);

const { server, origin } = await serve(siteDir);
const rows: string[] = [];
try {
  for (const concurrency of concurrencies) {
    const byMode = new Map<string, (Sample & { seconds: number })[]>();
    for (let attempt = 0; attempt < runs; attempt++) {
      // Alternate the modes, so that a slow moment of the host does not fall on one mode only.
      for (const mode of attempt % 2 ? [...modes].reverse() : modes) {
        const result = await run(origin, mode, concurrency);
        byMode.set(mode, [...(byMode.get(mode) ?? []), result]);
        console.error(
          `${mode} × ${concurrency}: RSS ${mb(result.rss)} MB, RssAnon ${mb(result.anon)} MB per page, ${result.processes} processes, ${result.seconds.toFixed(1)} s`,
        );
      }
    }
    for (const mode of modes) {
      const results = byMode.get(mode) ?? [];
      const pick = (key: 'rss' | 'anon' | 'heap' | 'processes' | 'seconds'): number => median(results.map((result) => result[key]));
      const chromium = mode === 'pool' ? `${values.driver === 'puppeteer' ? 'PuppeteerDriver' : 'PlaywrightDriver'}.pool()` : 'launch() per page';
      rows.push(
        `| ${concurrency} | ${chromium} | ${mb(pick('rss'))} | ${mb(pick('anon'))} | ${mb(pick('heap'))} | ${mb(pick('anon') + pick('heap'))} | ${pick('processes')} | ${pick('seconds').toFixed(1)} |`,
      );
    }
  }
} finally {
  server.close();
}

const command = `npx tsx bench/pool-memory.ts${process.argv.slice(2).length ? ` ${process.argv.slice(2).join(' ')}` : ''}`;
console.log(`Memory per concurrent page, ${values.driver}, ${pagesPerDriver} pages per driver from ${siteDir}, median of ${runs} runs (MB):\n`);
console.log('| pages at once | browsers | peak RSS / page | peak RssAnon / page | Node heap / page | RssAnon + heap / page | Chromium processes | seconds |');
console.log('|---:|---|---:|---:|---:|---:|---:|---:|');
for (const row of rows) console.log(row);
console.log(`\n\`${command}\`${extraArgs.length ? ` (extra switches: ${extraArgs.join(' ')})` : ''}`);
