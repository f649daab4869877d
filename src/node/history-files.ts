// A history on disk: one JSON file, and its screenshots as files in a folder beside it, written
// atomically; read back with validation, migrations and the journal format of recordRun().

import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { HistoryFormatError } from '../errors';
import { historyFileError, historyNotJsonError } from '../history/file-errors';
import { parseHistory } from '../history/schema';
import type { RunHistory } from '../history/types';
import { readJournal } from './journal';

/**
 * The folder that holds the screenshots of the history file at `path`: its path without the
 * extension, plus `.screenshots` (`runs/checkout.json` → `runs/checkout.screenshots/`).
 * @public
 */
export function screenshotFolder(path: string): string {
  const extension = extname(path);
  return `${extension ? path.slice(0, -extension.length) : path}.screenshots`;
}

/** Writes `data` to `path` through a temporary file in the same folder and a rename, so a reader never sees half a file. */
export async function writeAtomically(path: string, data: string | Uint8Array): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomUUID()}.tmp`);
  try {
    await writeFile(temporary, data);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * The history as `parseHistory` reads it (validated, every field of its format checked), with its
 * screenshots: a history built or edited by hand is checked before its texts reach a file name, a
 * path or markup. Throws `HistoryFormatError` naming the field at fault.
 */
export function checkedHistory(history: RunHistory): RunHistory {
  const { schemaVersion, tasks, steps, screenshots } = (typeof history === 'object' && history !== null ? history : {}) as Partial<RunHistory>;
  return parseHistory({ schemaVersion, tasks, steps }, screenshots);
}

/**
 * Options of {@link saveHistory}.
 * @public
 */
export interface SaveHistoryOptions {
  /**
   * A Playwright trace of the run (the file `PlaywrightDriver`'s `saveTrace()` returns), copied
   * beside the history as `trace.zip`, where {@link createRunReport} links it.
   */
  readonly trace?: string | undefined;
}

/** The name of a run's Playwright trace beside its history (and report). */
export const traceFileName = 'trace.zip';

/**
 * Saves a history: the JSON at `path`, and each screenshot as a file of the folder
 * {@link screenshotFolder} names. Both are written atomically, the screenshots first, so the JSON
 * never names a file that is not there; screenshots of an earlier save that this history no
 * longer names are removed. Creates the folders it needs.
 * @throws `HistoryFormatError` naming the field at fault when `history` is not a valid history
 * (a screenshot part that is not a plain file name, a step number that is not a number), before
 * anything is written; also when it names a screenshot it holds no bytes for. The file-system
 * error when `options.trace` cannot be copied.
 * @example
 * ```ts
 * const result = await executor.execute();
 * await saveHistory('runs/checkout.json', result.history);
 * const again = await loadHistory('runs/checkout.json');
 * ```
 * @public
 */
export async function saveHistory(path: string, history: RunHistory, options: SaveHistoryOptions = {}): Promise<void> {
  // Part names become file names: only a valid history (plain file names, see the schema) is written.
  const checked = checkedHistory(history);
  await mkdir(dirname(path), { recursive: true });
  const { screenshots, ...json } = checked;
  const named = new Set(checked.steps.flatMap((step) => (step.screenshot ? [step.screenshot.part] : [])));
  const folder = screenshotFolder(path);
  if (named.size > 0) {
    await mkdir(folder, { recursive: true });
    for (const part of named) {
      const bytes = screenshots.get(part);
      if (!bytes) throw new HistoryFormatError(`The history names the screenshot ${part} but holds no bytes for it.`, { field: 'screenshots' });
      await writeAtomically(join(folder, part), bytes);
    }
  }
  // Issue 24: the run's Playwright trace beside it, there once the history is.
  if (options.trace !== undefined) {
    const target = join(dirname(resolve(path)), traceFileName);
    if (resolve(options.trace) !== target) await writeAtomically(target, await readFile(options.trace));
  }
  await writeAtomically(path, `${JSON.stringify(json, null, 2)}\n`);
  const stale = (await readdir(folder).catch(() => [])).filter((name) => /\.(?:jpe?g|png)$/.test(name) && !named.has(name));
  await Promise.all(stale.map((name) => rm(join(folder, name), { force: true })));
}

/**
 * Reads a history saved by {@link saveHistory}, or the journal {@link recordRun} writes (a
 * `.jsonl` file, or the folder that holds `journal.jsonl`), with its screenshots. Older versions
 * are migrated to the current one.
 * @throws `HistoryFormatError`: `HISTORY_VERSION` when a newer plannav wrote it,
 * `HISTORY_INVALID` naming the field at fault (`field`), the JSON's syntax error, a missing
 * screenshot file, or a path that holds no readable history (missing, a folder without a
 * journal, no permission: the file-system error is its `cause`).
 * @public
 */
export async function loadHistory(path: string): Promise<RunHistory> {
  const isFolder = await stat(path).then(
    (stats) => stats.isDirectory(),
    (error: unknown) => {
      throw historyFileError(path, error);
    },
  );
  const file = isFolder ? join(path, 'journal.jsonl') : path;
  const text = await readFile(file, 'utf8').catch((error: unknown) => {
    throw historyFileError(file, error, { folder: isFolder ? path : undefined });
  });
  let json: unknown;
  if (extname(file) === '.jsonl') {
    json = readJournal(text, file);
  } else {
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw historyNotJsonError(file, error);
    }
  }
  const history = parseHistory(json);
  const folder = screenshotFolder(file);
  const screenshots = new Map<string, Uint8Array>();
  for (const [index, step] of history.steps.entries()) {
    const part = step.screenshot?.part;
    if (!part || screenshots.has(part)) continue;
    try {
      screenshots.set(part, new Uint8Array(await readFile(join(folder, part))));
    } catch (error) {
      throw new HistoryFormatError(`The screenshot ${join(folder, part)} of steps[${index}] cannot be read: ${(error as Error).message}.`, {
        field: `steps[${index}].screenshot.part`,
        cause: error,
      });
    }
  }
  return { ...history, screenshots };
}
