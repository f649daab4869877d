// loadHistory of a path that holds no readable history: a typed HistoryFormatError naming the
// path and what to do, never a bare Node ENOENT or SyntaxError.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HistoryFormatError } from '../../src/errors';
import { loadHistory } from '../../src/node/history-files';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'plannav-load-'));
  dirs.push(dir);
  return dir;
}

async function failure(path: string): Promise<HistoryFormatError> {
  const error: unknown = await loadHistory(path).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(HistoryFormatError.isInstance(error), `expected a HistoryFormatError, got ${String(error)}`).toBe(true);
  return error as HistoryFormatError;
}

describe('loadHistory of a path without a readable history', () => {
  it('names a missing file and says what to check', async () => {
    const path = join(await folder(), 'runs', 'checkout.json');
    const error = await failure(path);
    expect(error.message).toBe(
      `There is no history at ${path} (ENOENT). Check the path: give the .json file saveHistory wrote, or the journal (its .jsonl file or its folder) recordRun wrote.`,
    );
    expect((error.cause as { code?: string }).code).toBe('ENOENT');
  });

  it('names a folder that holds no journal', async () => {
    const dir = await folder();
    const error = await failure(dir);
    expect(error.message).toBe(
      `${dir} is a folder without a journal.jsonl, so it holds no history (ENOENT). Give the .json file saveHistory wrote, or the folder recordRun wrote its journal to.`,
    );
  });

  it('names a path through a file as if it were a folder', async () => {
    const dir = await folder();
    await writeFile(join(dir, 'notes.txt'), 'x');
    const path = join(dir, 'notes.txt', 'run.json');
    const error = await failure(path);
    expect(error.message).toMatch(/^The history at .*run\.json cannot be read: a part of its path is a file, not a folder \(ENOTDIR\)\. Check the path\.$/);
  });

  it('names a file that is not JSON, and an empty one, with what it should be', async () => {
    const dir = await folder();
    await mkdir(join(dir, 'runs'));
    const text = join(dir, 'runs', 'notes.json');
    await writeFile(text, 'Checkout run, Tuesday');
    const error = await failure(text);
    expect(error.message).toMatch(
      new RegExp(
        `^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not JSON \\(.+\\), so not a history: give the \\.json file saveHistory wrote\\. A file cut short \\(a full disk, a copy that stopped\\) reads so too\\.$`,
      ),
    );
    const empty = join(dir, 'runs', 'empty.json');
    await writeFile(empty, '');
    expect((await failure(empty)).message).toMatch(/is not JSON \(.+\), so not a history/);
  });
});
