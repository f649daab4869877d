// Downloads in real headless Chromium with both drivers (issue 24, contract section C): tasks whose
// scripted model clicks download links of every kind. Each download is a `download` event with its
// name, size, type and a path inside the folder the app chose, is in the history, and is told to the
// model in its next request; evil names are made safe, an oversized file and a file on a denied
// host are reported and not saved.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Executor, type ExecutorEventMap, type ExecutorOptions } from '../../src/index';
import { ScriptedLLM, scriptedActions, scriptedPlan, type ScriptedRequest } from '../../src/testing/index';
import { files, blobFile, startFileSite, type FileSite } from '../helpers/state-files';
import { libraries, type StateDriver } from '../helpers/state-drivers';
import { conversationText } from '../helpers/loop';

/** The `download` event of contract section C (not yet in ExecutorEventMap when this was written). */
interface DownloadEvent {
  readonly url: string;
  readonly suggestedFilename: string;
  readonly path?: string;
  readonly bytes?: number;
  readonly mimeType?: string;
  readonly status: 'saved' | 'blocked' | 'too-large' | 'failed';
  readonly reason?: string;
  readonly step: number;
}

let site: FileSite;
let scratch: string;

beforeAll(async () => {
  site = await startFileSite();
  scratch = mkdtempSync(join(tmpdir(), 'plannav-downloads-test-'));
});

afterAll(async () => {
  await site?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true, maxRetries: 10 });
});

/** The index of the element line holding `label` in a state text. */
function indexOfLabel(state: string, label: string): number {
  const line = state.split('\n').find((item) => /^\s*\*?\[\d+\]</.test(item) && item.includes(label));
  if (!line) throw new Error(`no element line holds ${JSON.stringify(label)} in:\n${state}`);
  return Number(/\[(\d+)\]/.exec(line)![1]);
}

interface Run {
  readonly downloads: DownloadEvent[];
  readonly blocked: ExecutorEventMap['url-blocked'][];
  /** The Navigator's request after the step that clicked. */
  readonly next: ScriptedRequest | undefined;
  readonly executor: Executor;
}

/** Runs a task whose Navigator clicks `labels` on the downloads page in one step, then ends. */
async function clickDownloads(driver: StateDriver, labels: readonly string[], options: Partial<ExecutorOptions> = {}): Promise<Run> {
  await driver.goto(site.url('/downloads.html'));
  let navigatorStep = 0;
  const llm = new ScriptedLLM({
    respond: (request) => {
      if (request.agent === 'planner') return scriptedPlan({ nextSteps: 'Download the documents' });
      navigatorStep++;
      if (navigatorStep === 1) return scriptedActions(labels.map((label) => ({ click_element: { index: indexOfLabel(request.lastUserText, label) } })));
      return scriptedActions([{ done: { text: 'Downloaded', success: true } }]);
    },
  });
  const executor = new Executor({
    task: 'Download my documents',
    llm,
    browser: driver,
    sensitiveActions: false,
    maxSteps: 3,
    planningInterval: 10,
    ...options,
  });
  const downloads: DownloadEvent[] = [];
  executor.on('download', (event: DownloadEvent) => downloads.push(event));
  const blocked: ExecutorEventMap['url-blocked'][] = [];
  executor.on('url-blocked', (event) => blocked.push(event));
  await executor.execute();
  const next = llm.requests.filter((request) => request.agent === 'navigator')[1];
  return { downloads, blocked, next, executor };
}

/** The saved download of `suggested` name: checked to be a file directly in `dir` with `body`. */
function expectSaved(run: Run, dir: string, suggested: string, body: Buffer | string, mimeType: string): DownloadEvent {
  const event = run.downloads.find((item) => item.suggestedFilename === suggested && item.status === 'saved');
  expect(event, `a saved download of ${JSON.stringify(suggested)} in ${JSON.stringify(run.downloads)}`).toBeDefined();
  expect(dirname(event!.path!)).toBe(dir);
  expect(readFileSync(event!.path!)).toEqual(Buffer.from(body));
  expect(event!.bytes).toBe(Buffer.byteLength(body));
  expect(event!.mimeType).toBe(mimeType);
  expect(event!.step).toBe(1);
  return event!;
}

/** A name safe to save: one path segment, no `..`, no control characters, at most 255 bytes. */
function expectSafeName(name: string): void {
  expect(name).not.toMatch(/[/\\]/);
  const codes = Array.from({ length: name.length }, (_, at) => name.charCodeAt(at));
  expect(codes.filter((code) => code < 0x20 || code === 0x7f)).toEqual([]);
  expect(name.startsWith('.')).toBe(false);
  expect(name).not.toContain('..');
  expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
  expect(name.length).toBeGreaterThan(0);
}

describe.each(libraries)('downloads with $name', (library) => {
  let driver: StateDriver;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(scratch, `${library.name}-`));
    driver = await library.launch({ downloads: { dir, maxBytes: 100_000 } });
  });

  afterAll(async () => {
    await driver?.close();
  });

  it('saves an attachment (twice, under unique names), an <a download> and a blob download, and tells the model and the history', async () => {
    const run = await clickDownloads(driver, ['Statement attachment', 'Statement attachment', 'Notes with download attribute', 'Export blob report']);

    const statements = run.downloads.filter((item) => item.suggestedFilename === files.statement.name && item.status === 'saved');
    expect(statements).toHaveLength(2);
    for (const event of statements) {
      expect(event.url).toBe(site.url(files.statement.path));
      expect(readFileSync(event.path!)).toEqual(files.statement.body);
    }
    expect(statements[0]!.path).not.toBe(statements[1]!.path);
    expect(basename(statements[0]!.path!)).toMatch(/^statement-2026-11.*\.csv$/);
    const statement = expectSaved(run, dir, files.statement.name, files.statement.body, 'text/csv');
    const notes = expectSaved(run, dir, files.notes.name, files.notes.body, 'text/plain');
    const blob = expectSaved(run, dir, blobFile.name, blobFile.text, 'text/plain');
    expect(blob.url).toMatch(/^blob:/);
    expect(readdirSync(dir).filter((name) => !name.endsWith('.crdownload')).length).toBeGreaterThanOrEqual(4);

    // The model's next request tells it each file: name, size, type and where it is.
    expect(run.next, 'the Navigator was asked again after the downloads').toBeDefined();
    const told = conversationText(run.next!);
    for (const event of [statement, notes, blob]) {
      expect(told).toContain(basename(event.path!));
      expect(told).toContain(String(event.bytes));
    }
    expect(told).toContain('text/csv');
    expect(told).toContain(dir);

    // The history's record of the step that clicked holds the downloads.
    const step = run.executor.history.steps.find((record) => record.actor === 'navigator' && record.step === 1);
    const recorded = JSON.stringify(step);
    for (const event of [...statements, notes, blob]) expect(recorded).toContain(JSON.stringify(event.path).slice(1, -1));
    await run.executor.close();
  });

  it('catches a download that opens in a new tab', async () => {
    const run = await clickDownloads(driver, ['Statement in a new tab']);
    const event = expectSaved(run, dir, files.tab.name, files.tab.body, 'text/csv');
    expect(event.url).toBe(site.url(files.tab.path));
    expect(conversationText(run.next!)).toContain(basename(event.path!));
    await run.executor.close();
  });

  it('saves files with evil suggested names under safe names inside the folder', async () => {
    const run = await clickDownloads(driver, ['Evil traversal name', 'Evil control name', 'Evil long name']);
    for (const file of [files.traversal, files.control, files.long]) {
      const event = run.downloads.find((item) => item.url === site.url(file.path));
      expect(event, `the download of ${file.path}`).toBeDefined();
      expect(event!.status).toBe('saved');
      expect(dirname(event!.path!)).toBe(dir);
      expectSafeName(basename(event!.path!));
      expect(readFileSync(event!.path!)).toEqual(file.body);
    }
    // Nothing was written outside the folder.
    expect(existsSync(join(dir, '..', '..', 'etc', 'passwd'))).toBe(false);
    expect(readdirSync(scratch).every((name) => statSync(join(scratch, name)).isDirectory())).toBe(true);
    await run.executor.close();
  });

  it('reports a file over downloads.maxBytes as too-large and keeps nothing of it', async () => {
    const before = readdirSync(dir).sort();
    const run = await clickDownloads(driver, ['Big file']);
    const event = run.downloads.find((item) => item.url === site.url(files.big.path));
    expect(event, JSON.stringify(run.downloads)).toBeDefined();
    expect(event!.status).toBe('too-large');
    expect(event!.reason).toMatch(/100000|100 000|100,000|100 ?KB|97\.7 ?KiB|max/i);
    expect(event!.path).toBeUndefined();
    expect(readdirSync(dir).sort()).toEqual(before);
    expect(conversationText(run.next!)).toMatch(/big\.bin[\s\S]*(too large|too-large|exceeds|over)/i);
    await run.executor.close();
  });

  it('blocks a download whose URL the URL policy denies, reports it as blocked and saves nothing', async () => {
    const before = readdirSync(dir).sort();
    const deniedUrl = site.url(files.denied.path);
    // A URL entry of the policy: this one file only; the page itself stays allowed.
    const run = await clickDownloads(driver, ['Denied same-site file'], { urlPolicy: { deny: [deniedUrl] } });
    const event = run.downloads.find((item) => item.url === deniedUrl);
    expect(event, JSON.stringify(run.downloads)).toBeDefined();
    expect(event!.status).toBe('blocked');
    expect(event!.path).toBeUndefined();
    expect(event!.reason).toBeTruthy();
    expect(run.downloads.filter((item) => item.status === 'saved')).toEqual([]);
    expect(run.blocked.map((item) => item.url)).toContain(deniedUrl);
    expect(readdirSync(dir).sort()).toEqual(before);
    expect(conversationText(run.next!)).toMatch(/denied\.csv[\s\S]*block|block[\s\S]*denied\.csv/i);
    await run.executor.close();
  });

  it('saves nothing from a denied host: the link is stopped before the server is asked', async () => {
    const before = readdirSync(dir).sort();
    const deniedUrl = `${site.denied.origin}/files/denied`;
    const run = await clickDownloads(driver, ['Denied host file'], { urlPolicy: { deny: ['127.0.0.2'] } });
    expect(run.blocked.map((item) => item.url)).toContain(deniedUrl);
    expect(run.downloads.filter((item) => item.status === 'saved')).toEqual([]);
    // When the driver reports it as a download at all, it is a blocked one.
    for (const event of run.downloads) expect(event.status).toBe('blocked');
    expect(site.denied.received).not.toContain('/files/denied');
    expect(readdirSync(dir).sort()).toEqual(before);
    await run.executor.close();
  });
});
