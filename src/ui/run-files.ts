// The files a run leaves for download: its history (JSON and screenshots folder), a GIF and an
// HTML report, in one folder per run. A file that cannot be made is reported, never fatal.

import { join } from 'node:path';
import type { RunHistory } from '../history/types';
import { saveHistory } from '../node/history-files';
import { createRunGif } from '../node/run-gif';
import { createRunReport } from '../node/run-report';

/** What was written, and why a file is missing. */
export interface RunFiles {
  readonly folder: string;
  readonly history: string | undefined;
  readonly gif: string | undefined;
  readonly report: string | undefined;
  readonly problems: readonly string[];
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Writes `history.json` (with its screenshots folder), `run.gif` and `report.html` into `folder`. */
export async function saveRunFiles(history: RunHistory, folder: string): Promise<RunFiles> {
  const problems: string[] = [];
  const attempt = async (what: string, write: () => Promise<string>): Promise<string | undefined> => {
    try {
      return await write();
    } catch (error) {
      problems.push(`The ${what} could not be written: ${message(error)}`);
      return undefined;
    }
  };
  const historyFile = join(folder, 'history.json');
  const saved = await attempt('history', async () => {
    await saveHistory(historyFile, history);
    return historyFile;
  });
  // The GIF needs optional peers (gifenc, @resvg/resvg-js): without them it is simply not offered.
  const gif = await attempt('GIF', async () => (await createRunGif(history, join(folder, 'run.gif'))).path);
  const report = await attempt('report', async () => (await createRunReport(history, join(folder, 'report.html'))).path);
  return { folder, history: saved, gif, report, problems };
}
