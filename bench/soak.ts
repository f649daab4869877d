// The load and soak benchmark: 20 tasks at once, each in its own Chromium; 100 launches ended
// normally, by cancel() or by SIGKILL of the browser, with a count of the Chromium processes and temporary
// folders they leave behind; 1000 steps of one task on the FakeBrowserDriver, with its heap and
// request size. Called by bench/run.ts (`npm run bench -- --only soak` runs only this); `npx tsx
// bench/soak.ts` runs it alone. Linux only: it finds the browsers it started in /proc. It fails
// (a non-zero exit) on a leaked process or folder, a wrong answer or a run that hangs.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { Executor, type ExecutionResult } from '../src/index';
import type { ChatMessage } from '../src/llm/types';
import { MessageManager } from '../src/messages/message-manager';
import { findChromium } from '../src/playwright/find-chromium';
import { PlaywrightDriver } from '../src/playwright/index';
import { FakeBrowserDriver, ScriptedLLM, scriptedActions, scriptedPlan, type FakePage, type ScriptedRequest } from '../src/testing/index';
import { serve } from './serve';

const repoRoot = resolve(import.meta.dirname, '..');
const siteDir = resolve(import.meta.dirname, 'site');
/** The prefix of plannav's temporary Chromium profiles (src/chromium/profile.ts). */
const profilePrefix = 'plannav-chromium-';
/** The Executor's default token budget, which the long task keeps. */
const defaultMaxInputTokens = 128_000;
/** No task here should come near this; one that does counts as hung rather than holding the bench. */
const taskTimeoutMs = 180_000;
/** How long the processes of a killed or closed browser get to exit before they count as leaked. */
const exitGraceMs = 10_000;

/** What each part does; the defaults are the issue's figures. */
export interface SoakSettings {
  /** Tasks run at once, each with its own PlaywrightDriver. @defaultValue 20 */
  readonly parallelTasks?: number | undefined;
  /** Launch, run and end cycles (normal end, cancel, kill in turn). @defaultValue 100 */
  readonly cycles?: number | undefined;
  /** Cycles running at the same time. @defaultValue 4 */
  readonly cycleConcurrency?: number | undefined;
  /** Navigator steps of the long task. @defaultValue 1000 */
  readonly longTaskSteps?: number | undefined;
  /** The long task's planningInterval. @defaultValue 10 */
  readonly longTaskPlanningInterval?: number | undefined;
}

/** Median, p90 and max, nearest rank. */
export interface SoakStat {
  readonly median: number;
  readonly p90: number;
  readonly max: number;
  readonly samples: number;
}

/** A Chromium process the bench started (found by its profile folder or by the bench's environment tag). */
interface BenchProcess {
  readonly pid: number;
  readonly ppid: number;
  readonly args: readonly string[];
  readonly rssKb: number;
  /** Resident anonymous memory: close to the process's proportional share (PSS), which RSS overstates by the shared binary. */
  readonly anonKb: number;
}

/** The highest memory figures a sampler saw. */
interface MemoryPeak {
  readonly nodeRssMb: number;
  readonly nodeHeapMb: number;
  /** The sum of RssAnon over the bench's Chromium processes: what they hold of their own. */
  readonly chromiumAnonMb: number;
  /** The sum of VmRSS over them, which counts the pages they share (the binary, fonts) once per process. */
  readonly chromiumRssMb: number;
  readonly chromiumProcesses: number;
  /** Node's RSS and Chromium's RssAnon at the same sample. */
  readonly totalMb: number;
}

type CycleEnd = 'normal' | 'cancel' | 'kill';
/** The site tasks' planningInterval: the Planner plans first, and checks the Navigator's done after its four steps (go, click, type and click, done). */
const sitePlanningInterval = 5;
/** Where in the task a cancel or kill lands: inside the Navigator's model call of step 2, as step 2's first action starts, or as step 3 starts (its page read). */
type CyclePoint = 'model-call' | 'action' | 'step-start';

/** One launch, run and end. */
interface CycleRow {
  readonly cycle: number;
  readonly end: CycleEnd;
  readonly point: CyclePoint | undefined;
  readonly status: string;
  readonly errorCode: string | undefined;
  readonly answerCorrect: boolean;
  readonly launchMs: number;
  /** From the cancel or kill to execute() resolving. */
  readonly endAfterTriggerMs: number | undefined;
  readonly closeMs: number;
  readonly closeError: string | undefined;
  readonly hung: boolean;
}

/**
 * What was left behind, after `exitGraceMs` at most. Every entry of the bench's temporary folder
 * is a leaked folder once every driver is closed: plannav's profiles, the folders Chromium keeps its
 * singleton socket in (`org.chromium.Chromium.*`, which a killed browser cannot remove), anything else.
 */
interface Leftovers {
  readonly processes: readonly { readonly pid: number; readonly command: string }[];
  readonly profileFolders: readonly string[];
  readonly socketFolders: readonly string[];
  readonly otherEntries: readonly string[];
  /** All of the entries above. */
  readonly folders: number;
}

/** What the soak found, as written to bench/soak-results.json. */
export interface SoakResult {
  readonly command: string;
  readonly generatedAt: string;
  readonly machine: {
    readonly cpus: number;
    readonly cpuModel: string;
    readonly node: string;
    readonly chromium: string;
    readonly chromiumPath: string;
    readonly loadAverageAtStart: readonly number[];
  };
  readonly durationSeconds: number;
  readonly parallel: {
    readonly tasks: number;
    readonly launchWallMs: number;
    readonly runWallMs: number;
    readonly closeWallMs: number;
    readonly wallMs: number;
    readonly navigatorStepMs: SoakStat;
    readonly taskMs: SoakStat;
    readonly correctAnswers: number;
    readonly statuses: Record<string, number>;
    readonly launchErrors: readonly string[];
    readonly peak: MemoryPeak;
    readonly leftovers: Leftovers;
  };
  readonly cycles: {
    readonly runs: number;
    readonly concurrency: number;
    readonly wallMs: number;
    readonly byEnd: Record<
      CycleEnd,
      { readonly runs: number; readonly statuses: Record<string, number>; readonly endAfterTriggerMs: SoakStat; readonly closeMs: SoakStat }
    >;
    readonly launchMs: SoakStat;
    readonly correctNormalEnds: number;
    readonly closeErrors: number;
    readonly hung: number;
    readonly processesBefore: number;
    readonly leftovers: Leftovers;
    readonly rows: readonly CycleRow[];
  };
  readonly longTask: {
    readonly steps: number;
    readonly planningInterval: number;
    readonly status: string;
    readonly wallMs: number;
    readonly navigatorStepMs: SoakStat;
    readonly firstHundredStepMs: SoakStat;
    readonly lastHundredStepMs: SoakStat;
    /** Heap used after a full collection: before the task, then after the given Navigator steps. */
    readonly heapMbAtStep: Record<string, number>;
    /** The task's history (every step's record, which the Executor keeps whole) as JSON: what the heap grows by. */
    readonly historyJsonKb: number;
    readonly modelCalls: number;
    /** The largest request: plannav's own estimate (the one its budget uses) and the o200k count of its text. */
    readonly maxRequest: {
      readonly estimatedTokens: number;
      readonly o200kTokens: number;
      readonly chars: number;
      readonly messages: number;
      readonly atCall: number;
    };
    readonly estimatedTokensAtStep: Record<string, number>;
    readonly maxInputTokens: number;
  };
  readonly problems: readonly string[];
}

function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(fraction * sorted.length)));
  return sorted[rank - 1] as number;
}

const round = (value: number, digits = 1): number => Math.round(value * 10 ** digits) / 10 ** digits;

function stat(values: readonly number[], digits = 1): SoakStat {
  return {
    median: round(percentile(values, 0.5), digits),
    p90: round(percentile(values, 0.9), digits),
    max: round(percentile(values, 1), digits),
    samples: values.length,
  };
}

function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

let gc: (() => void) | undefined;

/** A full garbage collection, for heap figures that show what is kept rather than what is not yet collected. */
function collectGarbage(): void {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}

// ---------------------------------------------------------------------------------------------
// The browsers the bench started

/**
 * The bench's Chromium processes. Every Chromium process names its profile folder
 * (`--user-data-dir`), which lies in the bench's own temporary folder; the crash handlers do not,
 * but inherit the environment tag the bench sets. Both survive a killed parent, unlike the
 * parent-child link.
 */
function benchProcesses(tempRoot: string, tag: string): BenchProcess[] {
  const found: BenchProcess[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter(Boolean);
      if (!/chrom/i.test(args[0] ?? '')) continue;
      const ours = args.some((arg) => arg.includes(tempRoot)) || readFileSync(`/proc/${name}/environ`, 'utf8').split('\0').includes(tag);
      if (!ours) continue;
      const status = readFileSync(`/proc/${name}/status`, 'utf8');
      const field = (label: string): number => Number(new RegExp(`^${label}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
      found.push({ pid: Number(name), ppid: field('PPid'), args, rssKb: field('VmRSS'), anonKb: field('RssAnon') });
    } catch {
      // The process ended while it was read, or is not ours to read.
    }
  }
  return found;
}

/** The browser process (not a renderer, zygote or helper) launched with `--plannav-bench-run=<runId>`. */
function browserProcess(tempRoot: string, tag: string, runId: string): BenchProcess | undefined {
  return benchProcesses(tempRoot, tag).find(
    (item) => item.args.includes(`--plannav-bench-run=${runId}`) && !item.args.some((arg) => arg.startsWith('--type=')),
  );
}

/** Waits up to `exitGraceMs` for the bench's processes to end, then lists what is left in its temporary folder. */
async function leftovers(tempRoot: string, tag: string): Promise<Leftovers> {
  const deadline = Date.now() + exitGraceMs;
  let processes = benchProcesses(tempRoot, tag);
  while (processes.length > 0 && Date.now() < deadline) {
    await sleep(250);
    processes = benchProcesses(tempRoot, tag);
  }
  const entries = existsSync(tempRoot) ? readdirSync(tempRoot) : [];
  const socketFolder = (entry: string): boolean => /^\.?org\.chromium\.Chromium\./.test(entry);
  return {
    processes: processes.map((item) => ({
      pid: item.pid,
      command: `${item.args[0] ?? ''} ${item.args.find((arg) => arg.startsWith('--type=')) ?? ''}`.trim(),
    })),
    profileFolders: entries.filter((entry) => entry.startsWith(profilePrefix)),
    socketFolders: entries.filter(socketFolder),
    otherEntries: entries.filter((entry) => !entry.startsWith(profilePrefix) && !socketFolder(entry)),
    folders: entries.length,
  };
}

/** Ends what is left of the bench's browsers (by process id) and empties its temporary folder, once counted. */
function clearLeftovers(tempRoot: string, tag: string): void {
  for (const item of benchProcesses(tempRoot, tag)) {
    try {
      process.kill(item.pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
  for (const entry of existsSync(tempRoot) ? readdirSync(tempRoot) : []) rmSync(join(tempRoot, entry), { recursive: true, force: true, maxRetries: 3 });
}

/** Samples the memory of Node and of the bench's Chromium processes, and keeps the peaks. */
class MemorySampler {
  private timer: ReturnType<typeof setInterval> | undefined;
  private peak = { nodeRssMb: 0, nodeHeapMb: 0, chromiumAnonMb: 0, chromiumRssMb: 0, chromiumProcesses: 0, totalMb: 0 };

  constructor(
    private readonly tempRoot: string,
    private readonly tag: string,
  ) {}

  start(intervalMs = 500): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
  }

  stop(): MemoryPeak {
    clearInterval(this.timer);
    this.sample();
    const rounded = Object.fromEntries(Object.entries(this.peak).map(([key, value]) => [key, round(value, 0)]));
    return rounded as unknown as MemoryPeak;
  }

  private sample(): void {
    const memory = process.memoryUsage();
    const processes = benchProcesses(this.tempRoot, this.tag);
    const chromiumRssMb = processes.reduce((sum, item) => sum + item.rssKb, 0) / 1024;
    const chromiumAnonMb = processes.reduce((sum, item) => sum + item.anonKb, 0) / 1024;
    const nodeRssMb = memory.rss / 2 ** 20;
    this.peak = {
      nodeRssMb: Math.max(this.peak.nodeRssMb, nodeRssMb),
      nodeHeapMb: Math.max(this.peak.nodeHeapMb, memory.heapUsed / 2 ** 20),
      chromiumAnonMb: Math.max(this.peak.chromiumAnonMb, chromiumAnonMb),
      chromiumRssMb: Math.max(this.peak.chromiumRssMb, chromiumRssMb),
      chromiumProcesses: Math.max(this.peak.chromiumProcesses, processes.length),
      totalMb: Math.max(this.peak.totalMb, nodeRssMb + chromiumAnonMb),
    };
  }
}

// ---------------------------------------------------------------------------------------------
// The support site and the model that uses it

interface SiteOrder {
  readonly status: string;
  readonly city: string;
}

/** The orders the site's order page shows, by number (the page reads the same file). */
function siteOrders(): Record<string, SiteOrder> {
  return JSON.parse(readFileSync(join(siteDir, 'orders.json'), 'utf8')) as Record<string, SiteOrder>;
}

/** What the order page writes for an order; the answer a task must give. */
const orderAnswer = (number: string, order: SiteOrder): string => `Order ${number}: ${order.status}, ${order.city}.`;

const siteTask = (origin: string, number: string): string =>
  `Open the Northwind support site at ${origin}/index.html, look up order ${number} and report its status and city exactly as the site gives them.`;

/** An indexed element line of the state text: `[12]<a href="lookup.html">Order lookup />`. */
interface ElementLine {
  readonly index: number;
  readonly tag: string;
  readonly attributes: string;
  readonly text: string;
}

function elementLines(state: string): ElementLine[] {
  const elements: ElementLine[] = [];
  for (const line of state.split('\n')) {
    const match = /^\s*\*?\[(\d+)\]<(\w+)((?: [\w-]+(?:="(?:[^"\\]|\\.)*")?)*)>(.*?) ?\/>/.exec(line);
    if (match) elements.push({ index: Number(match[1]), tag: match[2] ?? '', attributes: match[3] ?? '', text: (match[4] ?? '').trim() });
  }
  return elements;
}

/** The task as the conversation carries it (the last `<user_request>`). */
function taskText(request: ScriptedRequest): string {
  const text = request.messages
    .map((message) =>
      typeof message.content === 'string' ? message.content : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n'),
    )
    .join('\n');
  return [...text.matchAll(/<user_request>([\s\S]*?)<\/user_request>/g)].at(-1)?.[1] ?? '';
}

const orderResult = /Order \d{4}: [^.\n]+\./;

/**
 * The stand-in for a model on the support site: it reads the task and the page state it is sent
 * and decides from what the page shows (go to the site, click "Order lookup", type the number and
 * click "Look up", then report). `onNavigatorCall` sees each Navigator call, numbered from 1.
 */
function siteModel(onNavigatorCall?: (call: number) => void): ScriptedLLM {
  let navigatorCalls = 0;
  return new ScriptedLLM({
    respond: (request) => {
      const state = request.lastUserText;
      const found = orderResult.exec(state)?.[0];
      if (request.agent === 'planner') {
        return found
          ? scriptedPlan({ done: true, finalAnswer: found })
          : scriptedPlan({ nextSteps: 'Look the order up on the support site and read its status.' });
      }
      onNavigatorCall?.(++navigatorCalls);
      if (found) return scriptedActions([{ done: { text: found, success: true } }], { nextGoal: 'Report the status' });
      const elements = elementLines(state);
      const field = elements.find((element) => element.tag === 'input' && element.attributes.includes('name="order"'));
      const submit = elements.find((element) => element.tag === 'button' && element.text.includes('Look up'));
      if (field && submit) {
        const number = /order (\d{4})/.exec(taskText(request))?.[1] ?? '';
        return scriptedActions([{ input_text: { index: field.index, text: number } }, { click_element: { index: submit.index } }], {
          nextGoal: 'Look the order up',
        });
      }
      const lookup = elements.find((element) => element.tag === 'a' && element.text === 'Order lookup');
      if (lookup) return scriptedActions([{ click_element: { index: lookup.index } }], { nextGoal: 'Open the order lookup' });
      const url = /at (http:\/\/\S+?\/index\.html)/.exec(taskText(request))?.[1] ?? '';
      return scriptedActions([{ go_to_url: { url } }], { nextGoal: 'Open the support site' });
    },
  });
}

/** The Navigator steps' times of one Executor, measured in Node from step-start to step-end. */
function timeNavigatorSteps(executor: Executor, into: number[]): void {
  let started = 0;
  executor.on('step-start', (event) => {
    if (event.actor === 'navigator') started = performance.now();
  });
  executor.on('step-end', (event) => {
    if (event.actor === 'navigator') into.push(performance.now() - started);
  });
}

/** execute() with a bound of the bench's own, so a task that never ends is counted instead of holding the bench. */
async function executeBounded(executor: Executor): Promise<ExecutionResult | 'hung'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<'hung'>((done) => (timer = setTimeout(() => done('hung'), taskTimeoutMs + 30_000)));
  try {
    return await Promise.race([executor.execute({ timeout: taskTimeoutMs }), bound]);
  } finally {
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------------------------
// 1. Tasks at once

async function parallelTasks(origin: string, count: number, tempRoot: string, tag: string): Promise<SoakResult['parallel']> {
  const orders = Object.entries(siteOrders());
  const sampler = new MemorySampler(tempRoot, tag);
  sampler.start();
  const started = performance.now();
  const launched = await Promise.allSettled(Array.from({ length: count }, () => PlaywrightDriver.launch()));
  const drivers = launched.flatMap((item) => (item.status === 'fulfilled' ? [item.value] : []));
  const launchWallMs = performance.now() - started;
  const stepMs: number[] = [];
  const taskMs: number[] = [];
  const runStarted = performance.now();
  const outcomes = await Promise.all(
    drivers.map(async (driver, index) => {
      const [number, order] = orders[index % orders.length] as [string, SiteOrder];
      const executor = new Executor({ task: siteTask(origin, number), llm: siteModel(), browser: driver, planningInterval: sitePlanningInterval });
      timeNavigatorSteps(executor, stepMs);
      const taskStarted = performance.now();
      const result = await executeBounded(executor);
      taskMs.push(performance.now() - taskStarted);
      if (result === 'hung') return { status: 'hung', correct: false };
      return { status: result.status, correct: result.status === 'ok' && result.finalAnswer === orderAnswer(number, order) };
    }),
  );
  const runWallMs = performance.now() - runStarted;
  const closeStarted = performance.now();
  await Promise.all(drivers.map((driver) => driver.close().catch(() => undefined)));
  const closeWallMs = performance.now() - closeStarted;
  const wallMs = performance.now() - started;
  const peak = sampler.stop();
  const launchErrors = launched.flatMap((item) =>
    item.status === 'rejected' ? [item.reason instanceof Error ? item.reason.message : String(item.reason)] : [],
  );
  const all = [...outcomes, ...launchErrors.map(() => ({ status: 'launch failed', correct: false }))];
  return {
    tasks: count,
    launchWallMs: round(launchWallMs, 0),
    runWallMs: round(runWallMs, 0),
    closeWallMs: round(closeWallMs, 0),
    wallMs: round(wallMs, 0),
    navigatorStepMs: stat(stepMs),
    taskMs: stat(taskMs, 0),
    correctAnswers: all.filter((item) => item.correct).length,
    statuses: countBy(all.map((item) => item.status)),
    launchErrors,
    peak,
    leftovers: await leftovers(tempRoot, tag),
  };
}

// ---------------------------------------------------------------------------------------------
// 2. Launch, run, then end normally, by cancel() or by SIGKILL of the browser

const cycleEnds: readonly CycleEnd[] = ['normal', 'cancel', 'kill'];
const cyclePoints: readonly CyclePoint[] = ['model-call', 'action', 'step-start'];

async function cycle(index: number, origin: string, tempRoot: string, tag: string): Promise<CycleRow> {
  const end = cycleEnds[index % cycleEnds.length] as CycleEnd;
  const point = end === 'normal' ? undefined : (cyclePoints[Math.floor(index / cycleEnds.length) % cyclePoints.length] as CyclePoint);
  const orders = Object.entries(siteOrders());
  const [number, order] = orders[index % orders.length] as [string, SiteOrder];
  const runId = `${tag}-${index}`;
  const launchStarted = performance.now();
  // The extra switch only marks the browser process, so that this cycle can find and kill its own.
  const driver = await PlaywrightDriver.launch({ args: [`--plannav-bench-run=${runId}`] });
  const launchMs = performance.now() - launchStarted;
  const browser = browserProcess(tempRoot, tag, runId);
  let triggeredAt: number | undefined;
  let executor: Executor | undefined;
  const trigger = (): void => {
    if (triggeredAt !== undefined || end === 'normal') return;
    triggeredAt = performance.now();
    if (end === 'cancel') executor?.cancel('Cancelled by the soak bench.');
    else if (browser) process.kill(browser.pid, 'SIGKILL');
  };
  const llm = siteModel((call) => {
    if (point === 'model-call' && call === 2) trigger();
  });
  executor = new Executor({ task: siteTask(origin, number), llm, browser: driver, planningInterval: sitePlanningInterval });
  executor.on('action-start', (event) => {
    if (point === 'action' && event.step === 2) trigger();
  });
  executor.on('step-start', (event) => {
    if (point === 'step-start' && event.actor === 'navigator' && event.step === 3) trigger();
  });
  const result = await executeBounded(executor);
  const endedAt = performance.now();
  const closeStarted = performance.now();
  let closeError: string | undefined;
  await driver.close().catch((error: unknown) => void (closeError = error instanceof Error ? `${error.name}: ${error.message}` : String(error)));
  const closeMs = performance.now() - closeStarted;
  const hung = result === 'hung';
  return {
    cycle: index,
    end,
    point,
    status: hung ? 'hung' : result.status,
    errorCode: hung ? undefined : result.error?.code,
    answerCorrect: !hung && result.status === 'ok' && result.finalAnswer === orderAnswer(number, order),
    launchMs: round(launchMs, 0),
    endAfterTriggerMs: triggeredAt === undefined ? undefined : round(endedAt - triggeredAt, 0),
    closeMs: round(closeMs, 0),
    closeError: browser || end !== 'kill' ? closeError : `${closeError ?? ''} (the browser process was not found, so it was not killed)`.trim(),
    hung,
  };
}

async function cycles(origin: string, runs: number, concurrency: number, tempRoot: string, tag: string): Promise<SoakResult['cycles']> {
  const processesBefore = benchProcesses(tempRoot, tag).length;
  const rows: CycleRow[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < runs) {
      const index = next++;
      try {
        rows.push(await cycle(index, origin, tempRoot, tag));
      } catch (error) {
        const end = cycleEnds[index % cycleEnds.length] as CycleEnd;
        const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        rows.push({
          cycle: index,
          end,
          point: undefined,
          status: 'launch failed',
          errorCode: undefined,
          answerCorrect: false,
          launchMs: 0,
          endAfterTriggerMs: undefined,
          closeMs: 0,
          closeError: message,
          hung: false,
        });
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const wallMs = performance.now() - started;
  rows.sort((a, b) => a.cycle - b.cycle);
  const byEnd = Object.fromEntries(
    cycleEnds.map((end) => {
      const mine = rows.filter((row) => row.end === end);
      return [
        end,
        {
          runs: mine.length,
          statuses: countBy(mine.map((row) => (row.errorCode ? `${row.status} (${row.errorCode})` : row.status))),
          endAfterTriggerMs: stat(
            mine.flatMap((row) => (row.endAfterTriggerMs === undefined ? [] : [row.endAfterTriggerMs])),
            0,
          ),
          closeMs: stat(
            mine.map((row) => row.closeMs),
            0,
          ),
        },
      ];
    }),
  ) as SoakResult['cycles']['byEnd'];
  return {
    runs,
    concurrency,
    wallMs: round(wallMs, 0),
    byEnd,
    launchMs: stat(
      rows.filter((row) => row.status !== 'launch failed').map((row) => row.launchMs),
      0,
    ),
    correctNormalEnds: rows.filter((row) => row.end === 'normal' && row.answerCorrect).length,
    closeErrors: rows.filter((row) => row.closeError !== undefined).length,
    hung: rows.filter((row) => row.hung).length,
    processesBefore,
    leftovers: await leftovers(tempRoot, tag),
    rows,
  };
}

// ---------------------------------------------------------------------------------------------
// 3. One long task on the FakeBrowserDriver

const longSite = 'https://catalogue.test';

/** A page per step: a few lines of text and links to the pages before and after it. */
function longPages(count: number): Record<string, FakePage> {
  const pages: Record<string, FakePage> = {};
  for (let page = 1; page <= count; page++) {
    pages[`${longSite}/page/${page}`] = {
      title: `Catalogue page ${page}`,
      content: [
        { tag: 'a', text: 'Catalogue home', href: `${longSite}/page/1` },
        `Catalogue page ${page} of ${count}`,
        `Item ${page}: a stoneware mug, 350 ml, dishwasher safe, in ${['blue', 'red', 'green', 'white'][page % 4]}.`,
        { tag: 'button', text: `Add item ${page} to the list` },
        `Price: $${(8 + (page % 17) * 0.75).toFixed(2)}. Ships in ${1 + (page % 5)} days.`,
        { tag: 'a', text: 'Previous page', href: `${longSite}/page/${Math.max(1, page - 1)}` },
        { tag: 'a', text: 'Next page', href: `${longSite}/page/${Math.min(count, page + 1)}` },
      ],
    };
  }
  return pages;
}

async function longTask(steps: number, planningInterval: number): Promise<SoakResult['longTask']> {
  const browser = new FakeBrowserDriver({ pages: longPages(steps + 1), startUrl: `${longSite}/page/1` });
  const budget = new MessageManager({ maxInputTokens: defaultMaxInputTokens });
  const estimate = (messages: readonly ChatMessage[]): number => messages.reduce((sum, message) => sum + budget.estimateTokens(message), 0);
  const textOf = (messages: readonly ChatMessage[]): string =>
    messages
      .map((message) =>
        typeof message.content === 'string' ? message.content : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n'),
      )
      .join('\n');
  let navigatorCalls = 0;
  let modelCalls = 0;
  let largest = { estimatedTokens: 0, text: '', messages: 0, atCall: 0 };
  const estimatedTokensAtStep: Record<string, number> = {};
  const checkpoints = new Set([1, 100, 500, steps]);
  const llm = new ScriptedLLM({
    respond: (request) => {
      modelCalls++;
      const tokens = estimate(request.messages);
      if (tokens > largest.estimatedTokens)
        largest = { estimatedTokens: tokens, text: textOf(request.messages), messages: request.messages.length, atCall: modelCalls };
      // The client keeps every request for tests; the bench keeps none, so the heap shows plannav's own.
      llm.requests.length = 0;
      if (request.agent === 'planner') {
        return navigatorCalls >= steps
          ? scriptedPlan({ done: true, finalAnswer: `Read ${steps} pages.` })
          : scriptedPlan({ nextSteps: 'Go on to the next page.' });
      }
      navigatorCalls++;
      if (checkpoints.has(navigatorCalls)) estimatedTokensAtStep[navigatorCalls] = tokens;
      if (navigatorCalls >= steps) return scriptedActions([{ done: { text: `Read ${steps} pages.`, success: true } }]);
      const next = elementLines(request.lastUserText).find((element) => element.text === 'Next page');
      // What a model writes around its actions, at about a model's length: it is what fills the conversation.
      return scriptedActions([{ click_element: { index: next?.index ?? 0 } }], {
        evaluation: `Success: page ${navigatorCalls} of the catalogue is open and lists item ${navigatorCalls}.`,
        memory: `Read pages 1 to ${navigatorCalls} of ${steps}; each lists one mug with its colour, price and shipping time. Nothing to report yet: go on page by page until the last one.`,
        nextGoal: `Open page ${navigatorCalls + 1} with the Next page link.`,
      });
    },
  });
  const executor = new Executor({
    task: `Read every page of the catalogue at ${longSite}/page/1, one after the other.`,
    llm,
    browser,
    maxSteps: steps,
    planningInterval,
  });
  const stepMs: number[] = [];
  timeNavigatorSteps(executor, stepMs);
  const heapMbAtStep: Record<string, number> = {};
  const heapNow = (): number => {
    collectGarbage();
    return round(process.memoryUsage().heapUsed / 2 ** 20, 1);
  };
  executor.on('step-end', (event) => {
    // The fake driver logs every call for tests; cleared for the same reason as the requests.
    browser.calls.length = 0;
    if (event.actor === 'navigator' && checkpoints.has(event.step)) heapMbAtStep[event.step] = heapNow();
  });
  heapMbAtStep[0] = heapNow();
  const started = performance.now();
  const result = await executor.execute();
  const wallMs = performance.now() - started;
  await executor.close();
  await browser.close();
  return {
    steps,
    planningInterval,
    status: `${result.status}${result.error ? ` (${result.error.code})` : ''}, ${result.steps} steps`,
    wallMs: round(wallMs, 0),
    navigatorStepMs: stat(stepMs, 2),
    firstHundredStepMs: stat(stepMs.slice(0, 100), 2),
    lastHundredStepMs: stat(stepMs.slice(-100), 2),
    heapMbAtStep,
    historyJsonKb: round(JSON.stringify(result.history).length / 1024, 0),
    modelCalls,
    maxRequest: {
      estimatedTokens: largest.estimatedTokens,
      o200kTokens: countTokens(largest.text),
      chars: largest.text.length,
      messages: largest.messages,
      atCall: largest.atCall,
    },
    estimatedTokensAtStep,
    maxInputTokens: defaultMaxInputTokens,
  };
}

// ---------------------------------------------------------------------------------------------
// The whole soak

function leftoversLine(label: string, found: Leftovers): string {
  // A few names say what they are; soak-results.json has them all.
  const listed = (count: number, noun: string, names: readonly string[]): string =>
    count === 0 ? `0 ${noun}` : `${count} ${noun} (${names.slice(0, 3).join(', ')}${names.length > 3 ? ', …' : ''})`;
  const processes = listed(
    found.processes.length,
    'Chromium processes',
    found.processes.map((item) => `${item.pid} ${item.command}`),
  );
  const folders = [
    listed(found.profileFolders.length, 'profile folders', found.profileFolders),
    listed(found.socketFolders.length, 'Chromium socket folders', found.socketFolders),
    ...(found.otherEntries.length > 0 ? [listed(found.otherEntries.length, 'other entries', found.otherEntries)] : []),
  ];
  return `${label}: ${processes}; ${found.folders} folders in the temporary folder: ${folders.join(', ')}.`;
}

/** The close() errors of the cycles, by how the cycle ended and where, with the first message of each kind. */
function closeErrorsLine(rows: readonly CycleRow[]): string {
  const failed = rows.filter((row) => row.closeError !== undefined);
  if (failed.length === 0) return '0 close() errors.';
  const kinds = new Map<string, { count: number; example: string }>();
  for (const row of failed) {
    const key = `${row.end}${row.point ? ` at ${row.point}` : ''}`;
    const kind = kinds.get(key) ?? { count: 0, example: row.closeError ?? '' };
    kind.count++;
    kinds.set(key, kind);
  }
  const listed = [...kinds].map(([key, kind]) => `${kind.count} after ${key} (\`${kind.example}\`)`);
  return `${failed.length} close() errors: ${listed.join('; ')}.`;
}

/** The "Load and soak" figures of bench/README.md, between its soak markers. */
export function soakSection(result: SoakResult): string {
  const { machine, parallel, cycles: cycleFigures, longTask: long } = result;
  const triple = (item: SoakStat): string => `${item.median} / ${item.p90} / ${item.max}`;
  const statuses = (counts: Record<string, number>): string =>
    Object.entries(counts)
      .map(([status, count]) => `${count} ${status}`)
      .join(', ');
  const lines = [
    '<!-- soak:start -->',
    `Measured ${result.generatedAt.slice(0, 10)} with \`${result.command}\` on ${machine.cpus} cores (${machine.cpuModel}, shared; load average ${machine.loadAverageAtStart.join(' / ')} at the start), Node ${machine.node}, Chromium ${machine.chromium} (${machine.chromiumPath}); the soak took ${result.durationSeconds} s.`,
    '',
    `### ${parallel.tasks} tasks at once, each with its own PlaywrightDriver`,
    '',
    '| measure | figure |',
    '|---|---|',
    `| wall time, first launch to last close | ${round(parallel.wallMs / 1000, 1)} s |`,
    `| launching the ${parallel.tasks} browsers / running the tasks / closing | ${round(parallel.launchWallMs / 1000, 1)} s / ${round(parallel.runWallMs / 1000, 1)} s / ${round(parallel.closeWallMs / 1000, 1)} s |`,
    `| Navigator step ms (median / p90 / max) | ${triple(parallel.navigatorStepMs)} (${parallel.navigatorStepMs.samples} steps) |`,
    `| task ms, execute() (median / p90 / max) | ${triple(parallel.taskMs)} |`,
    `| answers correct | ${parallel.correctAnswers} of ${parallel.tasks} (${statuses(parallel.statuses)}) |`,
    `| peak Node RSS / heap used | ${parallel.peak.nodeRssMb} MB / ${parallel.peak.nodeHeapMb} MB |`,
    `| peak Chromium memory, RssAnon summed over its processes (RSS sum) | ${parallel.peak.chromiumAnonMb} MB (${parallel.peak.chromiumRssMb} MB) in ${parallel.peak.chromiumProcesses} processes |`,
    `| peak Node RSS + Chromium RssAnon | ${parallel.peak.totalMb} MB |`,
    '',
    leftoversLine('Left behind', parallel.leftovers),
    '',
    `### ${cycleFigures.runs} launches ended normally, by cancel() or by SIGKILL of the browser (${cycleFigures.concurrency} at a time)`,
    '',
    '| end | runs | how the tasks ended | end after the cancel or kill, ms (median / p90 / max) | close() ms (median / p90 / max) |',
    '|---|---|---|---|---|',
    ...cycleEnds.map((end) => {
      const row = cycleFigures.byEnd[end];
      const afterTrigger = end === 'normal' ? '–' : triple(row.endAfterTriggerMs);
      return `| ${end} | ${row.runs} | ${statuses(row.statuses)} | ${afterTrigger} | ${triple(row.closeMs)} |`;
    }),
    '',
    `Wall time ${round(cycleFigures.wallMs / 1000, 1)} s; launch ms ${triple(cycleFigures.launchMs)}; ${cycleFigures.correctNormalEnds} of ${cycleFigures.byEnd.normal.runs} normal ends answered correctly; ${cycleFigures.hung} runs hung; ${closeErrorsLine(cycleFigures.rows)}`,
    '',
    `**Leaked: ${cycleFigures.leftovers.processes.length} Chromium processes, ${cycleFigures.leftovers.folders} temporary folders** (${cycleFigures.processesBefore} of the bench's processes were running before the cycles). ${leftoversLine('In detail', cycleFigures.leftovers)}`,
    '',
    `### ${long.steps} Navigator steps of one task on the FakeBrowserDriver (planningInterval ${long.planningInterval})`,
    '',
    '| measure | figure |',
    '|---|---|',
    `| how it ended | ${long.status}, ${long.modelCalls} model calls, ${round(long.wallMs / 1000, 1)} s |`,
    `| Navigator step ms (median / p90 / max) | ${triple(long.navigatorStepMs)} |`,
    `| steps 1–100 / last 100, median ms | ${long.firstHundredStepMs.median} / ${long.lastHundredStepMs.median} |`,
    `| heap used after a full GC, MB: before / step 1 / 100 / 500 / ${long.steps} | ${[0, 1, 100, 500, long.steps].map((step) => long.heapMbAtStep[step] ?? '–').join(' / ')} |`,
    `| the task's history at the end, as JSON | ${long.historyJsonKb} kB |`,
    `| Navigator request, estimated tokens: step 1 / 100 / 500 / ${long.steps} | ${[1, 100, 500, long.steps].map((step) => long.estimatedTokensAtStep[step] ?? '–').join(' / ')} |`,
    `| largest request: estimated tokens / o200k tokens / characters / messages | ${long.maxRequest.estimatedTokens} / ${long.maxRequest.o200kTokens} / ${long.maxRequest.chars} / ${long.maxRequest.messages} (call ${long.maxRequest.atCall}) |`,
    `| maxInputTokens (the default) | ${long.maxInputTokens} |`,
    '',
    result.problems.length === 0 ? 'No problems.' : `**Problems:** ${result.problems.join(' ')}`,
    '<!-- soak:end -->',
  ];
  return lines.join('\n');
}

/**
 * Runs the three parts, writes bench/soak-results.json and the "Load and soak" figures in
 * bench/README.md, prints them, and returns them; `problems` lists what should fail the bench.
 */
export async function runSoakBench(settings: SoakSettings = {}, command = 'npm run bench -- --only soak'): Promise<SoakResult> {
  if (!existsSync('/proc/self/cmdline')) throw new Error('The soak bench finds the browsers it started in /proc: it runs on Linux only.');
  const started = Date.now();
  const loadAverageAtStart = loadavg().map((value) => round(value, 1));
  // Its own temporary folder and environment tag: other runs on the machine (tests, other benches)
  // make plannav profiles and Chromiums too, and must not count as this run's leaks.
  const tempRoot = mkdtempSync(join(tmpdir(), 'plannav-bench-soak-'));
  const tag = `PLANNAV_BENCH_SOAK=${process.pid}-${Date.now().toString(36)}`;
  const [tagName, tagValue] = tag.split('=') as [string, string];
  const savedTmpdir = process.env.TMPDIR;
  process.env.TMPDIR = tempRoot;
  process.env[tagName] = tagValue;
  const { server, origin } = await serve(siteDir);
  let result: SoakResult;
  try {
    const chromium = await (async () => {
      const driver = await PlaywrightDriver.launch();
      try {
        return driver.context.browser()?.version() ?? 'unknown';
      } finally {
        await driver.close();
      }
    })();
    console.log(`\nsoak: ${settings.parallelTasks ?? 20} tasks at once…`);
    const parallel = await parallelTasks(origin, settings.parallelTasks ?? 20, tempRoot, tag);
    // Each part is counted on its own: what one left must not count again for the next.
    clearLeftovers(tempRoot, tag);
    console.log(`soak: ${settings.cycles ?? 100} launches with normal ends, cancels and kills…`);
    const cycleFigures = await cycles(origin, settings.cycles ?? 100, settings.cycleConcurrency ?? 4, tempRoot, tag);
    console.log(`soak: ${settings.longTaskSteps ?? 1000} steps on the FakeBrowserDriver…`);
    const long = await longTask(settings.longTaskSteps ?? 1000, settings.longTaskPlanningInterval ?? 10);
    const problems: string[] = [];
    const leaked = (label: string, found: Leftovers): void => {
      if (found.processes.length > 0) problems.push(`${label} left ${found.processes.length} Chromium processes running.`);
      if (found.folders > 0) {
        problems.push(
          `${label} left ${found.folders} folders in the temporary folder (${found.profileFolders.length} profiles, ${found.socketFolders.length} Chromium socket folders, ${found.otherEntries.length} other).`,
        );
      }
    };
    leaked(`The ${parallel.tasks} tasks at once`, parallel.leftovers);
    leaked(`The ${cycleFigures.runs} launches`, cycleFigures.leftovers);
    if (parallel.correctAnswers !== parallel.tasks) problems.push(`Only ${parallel.correctAnswers} of the ${parallel.tasks} tasks at once answered correctly.`);
    if (cycleFigures.correctNormalEnds !== cycleFigures.byEnd.normal.runs)
      problems.push(`Only ${cycleFigures.correctNormalEnds} of ${cycleFigures.byEnd.normal.runs} normal ends answered correctly.`);
    if (cycleFigures.hung > 0) problems.push(`${cycleFigures.hung} launches hung (execute() did not end).`);
    if (!long.status.startsWith('ok')) problems.push(`The long task ended ${long.status}.`);
    result = {
      command,
      generatedAt: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model ?? 'unknown',
        node: process.version,
        chromium,
        chromiumPath: findChromium() ?? "Playwright's own",
        loadAverageAtStart,
      },
      durationSeconds: Math.round((Date.now() - started) / 1000),
      parallel,
      cycles: cycleFigures,
      longTask: long,
      problems,
    };
  } finally {
    await new Promise((done) => server.close(done));
    if (savedTmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmpdir;
    delete process.env[tagName];
    // Counted already: what is left is the bench's own, so it goes.
    clearLeftovers(tempRoot, tag);
    rmSync(tempRoot, { recursive: true, force: true, maxRetries: 3 });
  }
  writeFileSync(join(repoRoot, 'bench/soak-results.json'), `${JSON.stringify(result, null, 2)}\n`);
  const generated = soakSection(result);
  const readmePath = join(repoRoot, 'bench/README.md');
  const readme = readFileSync(readmePath, 'utf8');
  writeFileSync(readmePath, readme.replace(/<!-- soak:start -->[\s\S]*<!-- soak:end -->/, generated));
  console.log(generated);
  return result;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const result = await runSoakBench({}, 'npx tsx bench/soak.ts');
  if (result.problems.length > 0) process.exitCode = 1;
}
