// Turns a run's typed events (an Executor's or a HistoryReplay's) into the run page's events: one
// card per step with its plan or thoughts, its actions and results, and its screenshot.

import type { ExecutorEventName, ExecutorListener, RunHistory } from '../index';
import type { PageEventMap } from './messages';

/** What the cards listen to: an Executor or a HistoryReplay. */
export interface RunEventSource {
  on<K extends ExecutorEventName>(name: K, listener: ExecutorListener<K>): unknown;
  off<K extends ExecutorEventName>(name: K, listener: ExecutorListener<K>): unknown;
  readonly history: RunHistory;
}

/** Where the cards go. */
export interface CardSink {
  publish<K extends keyof PageEventMap>(type: K, data: PageEventMap[K]): void;
  /** A step or an action ended: the page may look different now. */
  pageChanged(): void;
  paused(paused: boolean): void;
}

/** Parameters as the page shows them: JSON on one line when short, else indented; never more than a screenful. */
export function formatParams(params: unknown): string {
  let text: string;
  try {
    const line = JSON.stringify(params) ?? '';
    text = line.length <= 100 ? line : (JSON.stringify(params, null, 2) ?? '');
  } catch {
    text = String(params);
  }
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}

/** The screenshot of the last step of a history, as a `data:` URL, with the page it shows. */
export function lastStepView(history: RunHistory): { screenshot?: string; url?: string; title?: string } {
  const step = history.steps.at(-1);
  if (!step) return {};
  const bytes = step.screenshot ? history.screenshots.get(step.screenshot.part) : undefined;
  const mediaType = step.screenshot?.mediaType === 'image/png' ? 'image/png' : 'image/jpeg';
  return {
    screenshot: bytes ? `data:${mediaType};base64,${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}` : undefined,
    url: step.browser?.url,
    title: step.browser?.title,
  };
}

/**
 * Listens to one run's events and publishes cards. `detach()` stops listening (a new run, a
 * closed session); the ids of cards go on across runs of a session, so a follow-up's cards are new ones.
 */
export class StepCards {
  private cardId = 0;
  private current: number | undefined;
  private taskIndex = 0;
  private detachers: (() => void)[] = [];

  constructor(private readonly sink: CardSink) {}

  /** Starts listening to `source`, replacing any previous one. */
  attach(source: RunEventSource): void {
    this.detach();
    const listen = <K extends ExecutorEventName>(name: K, listener: ExecutorListener<K>): void => {
      source.on(name, listener);
      this.detachers.push(() => source.off(name, listener));
    };
    listen('task-start', ({ taskIndex }) => {
      this.taskIndex = taskIndex;
    });
    listen('task-pause', () => this.sink.paused(true));
    listen('task-resume', () => this.sink.paused(false));
    listen('step-start', ({ actor, step }) => {
      this.current = ++this.cardId;
      this.sink.publish('card-start', { cardId: this.current, actor, step, taskIndex: this.taskIndex });
    });
    listen('plan-end', ({ plan }) => {
      if (this.current === undefined) return;
      const { observation, challenges, nextSteps, reasoning, done, finalAnswer } = plan;
      this.sink.publish('plan', { cardId: this.current, observation, challenges, nextSteps, reasoning, done, finalAnswer });
    });
    listen('navigator-output', ({ evaluationPreviousGoal, memory, nextGoal }) => {
      if (this.current === undefined) return;
      this.sink.publish('thoughts', { cardId: this.current, evaluation: evaluationPreviousGoal, memory, nextGoal });
    });
    listen('action-start', ({ action, params, actionIndex }) => {
      if (this.current === undefined) return;
      this.sink.publish('action', { cardId: this.current, actionIndex, name: action, params: formatParams(params), status: 'running', detail: '' });
    });
    listen('action-end', ({ action, params, actionIndex, result, error }) => {
      if (this.current === undefined) return;
      const detail = error ? error.message : (result ?? '');
      this.sink.publish('action', { cardId: this.current, actionIndex, name: action, params: formatParams(params), status: error ? 'failed' : 'ok', detail });
      this.sink.pageChanged();
    });
    listen('replay-step', ({ report }) => {
      if (this.current === undefined) return;
      const detail = [report.reason, ...(report.differences ?? [])].filter(Boolean).join('; ');
      this.sink.publish('action', { cardId: this.current, actionIndex: report.actionIndex, name: report.action, params: '', status: report.status, detail });
      this.sink.pageChanged();
    });
    listen('step-end', ({ durationMs, usage, error }) => {
      if (this.current === undefined) return;
      // The step is in the history before its step-end is sent, with its screenshot.
      const view = lastStepView(source.history);
      this.sink.publish('card-end', {
        cardId: this.current,
        durationMs,
        tokens: usage.totalTokens,
        error: error?.message,
        screenshot: view.screenshot,
        url: view.url,
        title: view.title,
      });
      this.current = undefined;
      this.sink.pageChanged();
    });
    listen('human-question', ({ questionId, question, timeoutMs }) => this.sink.publish('question', { questionId, question, timeoutMs }));
    listen('human-answer', ({ questionId, timedOut }) => this.sink.publish('question-end', { questionId, timedOut }));
    listen('url-blocked', ({ url, reason }) => this.sink.publish('notice', { level: 'warning', message: `Blocked ${url}: ${reason}` }));
    listen('warning', ({ message }) => this.sink.publish('notice', { level: 'warning', message }));
  }

  /** Stops listening. */
  detach(): void {
    for (const detach of this.detachers) detach();
    this.detachers = [];
    this.current = undefined;
  }
}
