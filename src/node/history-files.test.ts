import { access, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HistoryFormatError } from '../errors';
import { parseHistory } from '../history/schema';
import type { RunHistory } from '../history/types';
import { loadHistory, saveHistory, screenshotFolder } from './history-files';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'plannav-history-'));
  dirs.push(dir);
  return dir;
}

/** The version 1 fixture, migrated, with a screenshot on its Navigator step. */
async function historyWithScreenshot(): Promise<RunHistory> {
  const base = parseHistory(JSON.parse(await readFile('test/fixtures/history-migrations/v1.json', 'utf8')));
  const bytes = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 0xff, 0xd9]);
  return {
    ...base,
    steps: base.steps.map((step) => (step.actor === 'navigator' ? { ...step, screenshot: { part: 'step-0002.jpg', mediaType: 'image/jpeg' } } : step)),
    screenshots: new Map([['step-0002.jpg', bytes]]),
  };
}

async function rejection(promise: Promise<unknown>): Promise<HistoryFormatError> {
  const error: unknown = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!HistoryFormatError.isInstance(error)) throw new Error(`expected a HistoryFormatError, got ${String(error)}`);
  return error;
}

describe('saveHistory and loadHistory', () => {
  it('write the JSON and the screenshots as files beside it, and read both back', async () => {
    const dir = await folder();
    const history = await historyWithScreenshot();
    const path = join(dir, 'runs', 'checkout.json');
    await saveHistory(path, history);

    const json = await readFile(path, 'utf8');
    expect(json).not.toContain('screenshots');
    expect(json.length).toBeLessThan(10_000);
    expect(await readdir(screenshotFolder(path))).toEqual(['step-0002.jpg']);
    // No temporary file is left behind.
    expect((await readdir(join(dir, 'runs'))).sort()).toEqual(['checkout.json', 'checkout.screenshots']);

    const loaded = await loadHistory(path);
    expect(loaded.steps).toEqual(history.steps.map((step) => JSON.parse(JSON.stringify(step)) as unknown));
    expect([...loaded.screenshots.keys()]).toEqual(['step-0002.jpg']);
    expect([...(loaded.screenshots.get('step-0002.jpg') ?? [])]).toEqual([...(history.screenshots.get('step-0002.jpg') ?? [])]);
  });

  it('removes screenshots of an earlier save that the new history no longer names', async () => {
    const dir = await folder();
    const path = join(dir, 'run.json');
    await saveHistory(path, await historyWithScreenshot());
    await saveHistory(path, { ...(await historyWithScreenshot()), steps: [], screenshots: new Map() });
    expect(await readdir(screenshotFolder(path))).toEqual([]);
  });

  it('names the field at fault, a syntax error, and a missing screenshot', async () => {
    const dir = await folder();
    const path = join(dir, 'bad.json');
    await writeFile(path, JSON.stringify({ schemaVersion: 2, tasks: [], steps: [{ taskId: 7 }] }));
    const invalid = await rejection(loadHistory(path));
    expect(invalid.field).toBe('steps[0].taskId');

    await writeFile(path, '{"schemaVersion": 2,');
    expect((await rejection(loadHistory(path))).message).toMatch(/is not JSON/);

    const saved = join(dir, 'kept.json');
    await saveHistory(saved, await historyWithScreenshot());
    await rm(join(screenshotFolder(saved), 'step-0002.jpg'));
    expect((await rejection(loadHistory(saved))).field).toBe('steps[1].screenshot.part');
  });

  it('refuses to save a history that names a screenshot it does not hold', async () => {
    const dir = await folder();
    const history = { ...(await historyWithScreenshot()), screenshots: new Map<string, Uint8Array>() };
    expect((await rejection(saveHistory(join(dir, 'run.json'), history))).field).toBe('screenshots');
  });

  it('refuses to save an invalid history, naming the field, before writing anything: no screenshot name leads out of its folder', async () => {
    const dir = await folder();
    const base = await historyWithScreenshot();
    const bytes = base.screenshots.get('step-0002.jpg') ?? new Uint8Array();
    const escaping: RunHistory = {
      ...base,
      steps: base.steps.map((step) => (step.screenshot ? { ...step, screenshot: { ...step.screenshot, part: '../../escaped.jpg' } } : step)),
      screenshots: new Map([['../../escaped.jpg', bytes]]),
    };
    const path = join(dir, 'runs', 'today', 'run.json');
    const error = await rejection(saveHistory(path, escaping));
    expect(error.code).toBe('HISTORY_INVALID');
    expect(error.field).toBe('steps[1].screenshot.part');
    await expect(access(join(dir, 'runs', 'escaped.jpg'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(access(path)).rejects.toMatchObject({ code: 'ENOENT' });

    const wrongType = { ...base, steps: base.steps.map((step) => ({ ...step, taskId: 7 as unknown as string })) };
    expect((await rejection(saveHistory(join(dir, 'other.json'), wrongType))).field).toBe('steps[0].taskId');
  });

  // Issue 24: a run's Playwright trace beside its history.
  it('copies the trace it is given beside the history as trace.zip', async () => {
    const dir = await folder();
    const trace = join(dir, 'elsewhere.zip');
    await writeFile(trace, 'PK trace bytes');
    const path = join(dir, 'runs', 'checkout.json');
    await saveHistory(path, await historyWithScreenshot(), { trace });
    expect(await readFile(join(dir, 'runs', 'trace.zip'), 'utf8')).toBe('PK trace bytes');
    // Already there: left as it is.
    await saveHistory(path, await historyWithScreenshot(), { trace: join(dir, 'runs', 'trace.zip') });
    expect(await readFile(join(dir, 'runs', 'trace.zip'), 'utf8')).toBe('PK trace bytes');
    await expect(saveHistory(path, await historyWithScreenshot(), { trace: join(dir, 'missing.zip') })).rejects.toThrow(/ENOENT/);
  });
});
