// The downloads an Executor's driver reports (its optional `onDownload`): each a `download` event, a
// blocked one a `url-blocked` event too, and at the end of the Navigator step they happened in, a line
// of its history record and a result the Navigator reads next. It never touches a file itself.

import type { ActionResult } from '../actions/types';
import type { EventPayload } from '../agents/agent-context';
import type { BrowserDriver, DownloadReport } from '../browser/types';
import type { Actor, ExecutorEventName } from '../events';
import type { StepRecorder } from '../history/step-recorder';

/** What the downloads need from the Executor that owns them. */
export interface ExecutorDownloadsHost {
  /** The driver as the user gave it (its `onDownload` and `waitForDownloads`). */
  readonly browser: BrowserDriver;
  emit<K extends ExecutorEventName>(name: K, actor: Actor, payload: EventPayload<K> & { readonly taskId?: string; readonly betweenTasks?: boolean }): void;
  /** The running task's step; undefined while no task runs. */
  currentStep(): number | undefined;
  /** The id of the last task that ran, or '' before any. */
  lastTaskId(): string;
}

/** How many downloads wait for the next step at most: a page that downloads in a loop must not fill the memory. */
const maxPending = 50;

/** One per Executor, for its whole life. */
export class ExecutorDownloads {
  /** Downloads that ended since the last step's end. */
  private pending: DownloadReport[] = [];
  /** URLs a `url-blocked` event named in the current step (`step url`), so a blocked download does not repeat it. */
  private readonly blockedUrls = new Set<string>();
  private readonly stopListening: () => void;

  constructor(private readonly host: ExecutorDownloadsHost) {
    this.stopListening = host.browser.onDownload?.((download) => this.ended(download)) ?? (() => undefined);
  }

  /** A `url-blocked` event went out (the driver's guard stopped the URL as a navigation or a request). */
  noteBlocked(url: string, step: number): void {
    if (this.blockedUrls.size > 1000) this.blockedUrls.clear();
    this.blockedUrls.add(`${step} ${url}`);
  }

  /**
   * At the end of a Navigator step: waits (within `waitMs`) for the downloads still running, then
   * puts what ended into the step's record and tells the Navigator, in a result it keeps in memory.
   */
  async afterStep(recorder: StepRecorder, results: { actionResults: ActionResult[] }, waitMs: number, signal: AbortSignal): Promise<void> {
    if (this.host.browser.waitForDownloads) {
      await this.host.browser.waitForDownloads({ timeout: waitMs, signal }).catch(() => undefined);
    }
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
    const step = this.host.currentStep();
    // Between tasks: the last task's id, step 0 (the Executor's own emit fills the step).
    const between = step === undefined ? { taskId: this.host.lastTaskId(), betweenTasks: true } : {};
    this.host.emit('download', 'system', { ...download, ...between });
    if (download.status === 'blocked' && !this.blockedUrls.has(`${step ?? 0} ${download.url}`)) {
      this.host.emit('url-blocked', 'system', { url: download.url, reason: download.reason ?? 'the URL policy does not allow it', kind: 'download', ...between });
    }
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
