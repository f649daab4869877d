// Builds one StepRecord while the step runs, so a step that fails or is cancelled half way still
// leaves a complete record of what happened up to that point.

import type { PageState } from '../browser/page-state';
import type { DownloadReport } from '../browser/types';
import type { PlanInfo } from '../events';
import { addUsage, emptyUsage, type TokenUsage } from '../llm/usage';
import { toErrorInfo } from './error-info';
import type { ActionRecord, ModelCallRecord, ModelFallbackRecord, StepRecord } from './types';

/** Collects a step's facts as they happen. */
export class StepRecorder {
  private readonly startedAt = Date.now();
  private browser: StepRecord['browser'];
  private modelOutput: unknown;
  private plan: PlanInfo | undefined;
  private readonly actions: ActionRecord[] = [];
  private usage: TokenUsage = emptyUsage;
  private readonly fallbacks: ModelFallbackRecord[] = [];
  private readonly modelCalls: ModelCallRecord[] = [];
  /** Downloads (issue 24): those that ended during the step. */
  private readonly downloads: DownloadReport[] = [];
  /** The base64 JPEG of the state the step read, when one was taken. */
  private screenshotData: string | undefined;

  constructor(
    private readonly taskId: string,
    private readonly taskIndex: number,
    private readonly step: number,
    private readonly actor: 'planner' | 'navigator' | 'validator',
  ) {}

  setState(state: PageState | undefined): void {
    if (!state) return;
    this.browser = {
      url: state.url,
      title: state.title,
      tabs: state.tabs.length,
      tabList: state.tabs.map(({ id, url, title }) => ({ id, url, title })),
      activeTabId: state.activeTabId,
    };
    this.screenshotData = state.screenshot;
  }

  /** The screenshot of the state the step read (base64 JPEG), when one was taken. */
  get screenshot(): string | undefined {
    return this.screenshotData;
  }

  /** Adds one model call, as its `model-call-end` event reported it. */
  addModelCall(record: ModelCallRecord): void {
    this.modelCalls.push(record);
  }

  setModelOutput(output: unknown): void {
    this.modelOutput = output;
  }

  /** Adds one model call's usage (every call counts, including retries and repairs). */
  addUsage(usage: TokenUsage): void {
    this.usage = addUsage(this.usage, usage);
  }

  /** Notes that a model call moved to the fallback model. */
  addFallback(record: ModelFallbackRecord): void {
    this.fallbacks.push(record);
  }

  setPlan(plan: PlanInfo): void {
    this.plan = plan;
  }

  addAction(record: ActionRecord): void {
    this.actions.push(record);
  }

  /** Adds the downloads that ended during the step. */
  addDownloads(downloads: readonly DownloadReport[]): void {
    this.downloads.push(...downloads);
  }

  /** The usage recorded so far. */
  get tokenUsage(): TokenUsage {
    return this.usage;
  }

  /** The finished record; `error` when the step failed; `screenshot` names its screenshot's part. */
  finish(error?: unknown, screenshot?: StepRecord['screenshot']): StepRecord {
    const endedAt = Date.now();
    return {
      taskId: this.taskId,
      taskIndex: this.taskIndex,
      step: this.step,
      actor: this.actor,
      startedAt: this.startedAt,
      endedAt,
      durationMs: endedAt - this.startedAt,
      browser: this.browser,
      modelOutput: this.modelOutput,
      plan: this.plan,
      actions: [...this.actions],
      error: error === undefined ? undefined : toErrorInfo(error),
      usage: this.usage,
      modelCalls: [...this.modelCalls],
      ...(this.fallbacks.length > 0 ? { fallbacks: [...this.fallbacks] } : {}),
      ...(screenshot ? { screenshot } : {}),
      ...(this.downloads.length > 0 ? { downloads: [...this.downloads] } : {}),
    };
  }
}
