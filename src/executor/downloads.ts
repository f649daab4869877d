// The downloads an Executor's driver reports (its optional `onDownload`): each a `download` event, and
// at the end of the Navigator step they happened in, a line of its history record and a result the
// Navigator reads next. It never touches a file itself.

import type { ActionResult } from '../actions/types';
import type { EventPayload } from '../agents/agent-context';
import type { BrowserDriver, DownloadReport } from '../browser/types';
import type { Actor, ExecutorEventName } from '../events';
import type { StepRecorder } from '../history/step-recorder';

/** Sends an event as the Executor does (its task id and step filled in). */
export type EmitEvent = <K extends ExecutorEventName>(name: K, actor: Actor, payload: EventPayload<K>) => void;

/** How many downloads wait for the next step at most: a page that downloads in a loop must not fill the memory. */
const maxPending = 50;

/**
 * One per Executor, for its whole life. A blocked download's `url-blocked` event comes from the
 * driver's report to the URL guard (kind `download`), unless the guard stopped its URL already.
 */
export class ExecutorDownloads {
  /** Downloads that ended since the last step's end. */
  private pending: DownloadReport[] = [];
  private readonly stopListening: () => void;

  /** `browser` is the driver as the user gave it; `taskRunning` says whether a task runs now. */
  constructor(
    private readonly browser: BrowserDriver,
    private readonly emit: EmitEvent,
    private readonly taskRunning: () => boolean,
  ) {
    this.stopListening = browser.onDownload?.((download) => this.ended(download)) ?? (() => undefined);
  }

  /**
   * At the end of a Navigator step: waits (within `waitMs`) for the downloads still running, then
   * puts what ended into the step's record and tells the Navigator, in a result it keeps in memory.
   */
  async afterStep(recorder: StepRecorder, results: { actionResults: ActionResult[] }, waitMs: number, signal: AbortSignal): Promise<void> {
    if (this.browser.waitForDownloads) await this.browser.waitForDownloads({ timeout: waitMs, signal }).catch(() => undefined);
    const ended = this.pending.splice(0);
    if (ended.length === 0) return;
    recorder.addDownloads(ended);
    results.actionResults = [...results.actionResults, { extractedContent: describeDownloads(ended), includeInMemory: true }];
  }

  /** At the Executor's close: no more events. */
  close(): void {
    this.stopListening();
    this.pending = [];
  }

  private ended(download: DownloadReport): void {
    const running = this.taskRunning();
    this.emit('download', 'system', running ? download : { ...download, betweenTasks: true });
    if (this.pending.length < maxPending) this.pending.push(download);
  }
}

/**
 * The downloads as the Navigator reads them: for each file its name, type, size and path, or why it
 * was not saved. The names come from pages: the result is read inside the untrusted boundary.
 */
export function describeDownloads(downloads: readonly DownloadReport[]): string {
  const lines = downloads.map((download) => {
    const name = JSON.stringify(download.suggestedFilename || download.url);
    if (download.status === 'saved') {
      return `- ${name} from ${download.url}: saved as ${download.path ?? '(unknown path)'} (${download.mimeType ?? 'unknown type'}, ${download.bytes ?? 0} bytes)`;
    }
    const why = download.reason ? `: ${download.reason}` : '';
    if (download.status === 'blocked') return `- ${name} from ${download.url}: blocked by the URL policy, not saved${why}`;
    if (download.status === 'too-large') return `- ${name} from ${download.url}: too large, not saved${why}`;
    return `- ${name} from ${download.url}: failed, not saved${why}`;
  });
  const pdf = downloads.some((download) => download.status === 'saved' && download.mimeType === 'application/pdf')
    ? '\nRead a downloaded PDF with extract_content, giving its path as `file`.'
    : '';
  return `Downloads that ended:\n${lines.join('\n')}${pdf}`;
}
