// Writes a run's files into one folder: history.json (with its screenshots folder), run.gif and
// report.html. A GIF or report that cannot be made is a warning; the history is always written.

import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { BrowserDriver, RunHistory } from '../index';
import { createRunGif, createRunReport, saveHistory } from '../node/index';

/** What {@link saveRunFiles} wrote. */
export interface RunFiles {
  /** The history JSON; its screenshots are in the folder beside it that `screenshotFolder` names. */
  readonly historyFile: string;
  /** The run as an animated GIF; absent when it could not be made (see `warnings`). */
  readonly gifFile?: string | undefined;
  /** The run as a self-contained HTML page; absent when it could not be made (see `warnings`). */
  readonly reportFile?: string | undefined;
  /** Why a GIF or report is missing, for people. */
  readonly warnings: readonly string[];
  /** The browser's storage state (`--save-storage-state`), when it was saved. */
  readonly storageStateFile?: string | undefined;
}

/** The first line of what was thrown. */
function reason(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

/**
 * Writes `history` and the GIF and report made from it into `outDir` (created if needed).
 * `history: false` leaves an existing history file alone (`plannav report`).
 * @throws what saving the history throws (a `HistoryFormatError`, a file-system error).
 */
export async function saveRunFiles(history: RunHistory, outDir: string, options: { readonly history?: boolean } = {}): Promise<RunFiles> {
  const folder = resolve(outDir);
  await mkdir(folder, { recursive: true });
  const historyFile = join(folder, 'history.json');
  if (options.history !== false) await saveHistory(historyFile, history);
  const warnings: string[] = [];
  let gifFile: string | undefined;
  let reportFile: string | undefined;
  try {
    gifFile = (await createRunGif(history, join(folder, 'run.gif'))).path;
  } catch (error) {
    warnings.push(`No GIF: ${reason(error)}`);
  }
  try {
    reportFile = (await createRunReport(history, join(folder, 'report.html'))).path;
  } catch (error) {
    warnings.push(`No report: ${reason(error)}`);
  }
  return { historyFile, gifFile, reportFile, warnings };
}

/**
 * Staying logged in (issue 24): writes the browser's storage state to `path` (mode 0600) beside a
 * run's files; a driver without `storageState()`, or a failure, is a warning. Values are never printed.
 */
export async function withStorageState(files: RunFiles, browser: BrowserDriver, path: string | undefined): Promise<RunFiles> {
  if (!path) return files;
  const file = resolve(path);
  if (!browser.storageState) return { ...files, warnings: [...files.warnings, 'No storage state: the browser driver cannot save one.'] };
  try {
    await browser.storageState({ path: file });
    return { ...files, storageStateFile: file };
  } catch (error) {
    return { ...files, warnings: [...files.warnings, `No storage state: ${reason(error)}`] };
  }
}
