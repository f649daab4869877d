// What a person sees while a task runs: a line per Planner decision and per action with its
// result, and on a terminal a spinner with the elapsed time of the model call in flight. Colour
// and cursor codes only when the stream is a terminal and NO_COLOR is not set.

import type { Writable } from 'node:stream';
import type { ExecutorEvent } from '../index';

/** The styles the command uses. */
export type Style = 'bold' | 'green' | 'red' | 'yellow' | 'cyan' | 'dim';

const codes: Readonly<Record<Style, [number, number]>> = {
  bold: [1, 22],
  green: [32, 39],
  red: [31, 39],
  yellow: [33, 39],
  cyan: [36, 39],
  dim: [2, 22],
};

/** A painter: ANSI styles when `colour`, the text as it is otherwise. */
export function painter(colour: boolean): (style: Style, text: string) => string {
  return (style, text) => (colour ? `\u001b[${codes[style][0]}m${text}\u001b[${codes[style][1]}m` : text);
}

/** `text` on one line, at most `max` characters. */
export function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** An action's parameters, short: `{"index":3}`. */
function shortParams(params: unknown): string {
  if (params === undefined || (typeof params === 'object' && params !== null && Object.keys(params).length === 0)) return '';
  return ` ${oneLine(JSON.stringify(params), 100)}`;
}

const indent = ' '.repeat(10);

/** A file size a person reads: `512 bytes`, `20 KB`, `3.4 MB`. */
function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * The line (or lines) a person reads for an event, or `undefined` for an event that gets none
 * (model calls show in the spinner; questions are asked by the terminal prompt).
 */
export function describeEvent(event: ExecutorEvent, paint: (style: Style, text: string) => string): string | undefined {
  switch (event.type) {
    case 'task-start':
      return `${paint('bold', event.taskIndex === 0 ? 'Task:' : 'Follow-up task:')} ${oneLine(event.task, 400)}`;
    case 'plan-end': {
      const plan = event.plan;
      if (plan.done) return `${paint('cyan', 'plan'.padEnd(10))}${paint('bold', 'done:')} ${oneLine(plan.finalAnswer, 400)}`;
      return `${paint('cyan', 'plan'.padEnd(10))}${oneLine(plan.nextSteps || plan.observation, 300)}`;
    }
    case 'navigator-output':
      return `${paint('cyan', `step ${event.step}`.padEnd(10))}${oneLine(event.nextGoal || event.evaluationPreviousGoal || '-', 300)}`;
    case 'action-end':
      return event.error
        ? `${indent}${paint('red', '✗')} ${event.action}${shortParams(event.params)} ${paint('red', `error: ${oneLine(event.error.message)}`)}`
        : `${indent}${paint('green', '✓')} ${event.action}${shortParams(event.params)}${event.result ? paint('dim', ` → ${oneLine(event.result)}`) : ''}`;
    case 'validation-end':
      return `${paint('cyan', 'validator'.padEnd(10))}${event.valid ? 'accepted the answer' : `sent it back: ${oneLine(event.reason)}`}`;
    case 'step-end':
      // A cancelled step is said once, by task-cancel.
      return event.error && event.error.code !== 'REQUEST_CANCELLED'
        ? `${indent}${paint('red', `step failed (${event.consecutiveFailures} in a row): ${oneLine(event.error.message)}`)}`
        : undefined;
    case 'download': {
      // A blocked download has its `url-blocked` line.
      if (event.status === 'blocked') return undefined;
      const name = oneLine(event.suggestedFilename || event.url, 100);
      if (event.status !== 'saved') return `${indent}${paint('yellow', `download of ${name} ${event.status}: ${oneLine(event.reason ?? '', 200)}`)}`;
      const details = [event.bytes === undefined ? '' : size(event.bytes), event.mimeType ?? ''].filter(Boolean).join(', ');
      return `${indent}${paint('green', '↓')} downloaded ${name}${details ? ` (${details})` : ''} to ${event.path ?? '?'}`;
    }
    case 'url-blocked':
      return `${indent}${paint('yellow', `blocked ${event.kind} ${oneLine(event.url, 100)}: ${oneLine(event.reason, 120)}`)}`;
    case 'sensitive-action':
      return event.decision === 'refused' || event.decidedBy === 'human'
        ? `${indent}${paint('yellow', `${event.kind} ${event.decision} by ${event.decidedBy}: ${oneLine(event.reason, 120)}`)}`
        : undefined;
    case 'model-retry':
      return `${indent}${paint('yellow', `model call ${event.attempt} failed, retrying in ${Math.round(event.delayMs)} ms: ${oneLine(event.error.message, 120)}`)}`;
    case 'model-fallback':
      return `${indent}${paint('yellow', `falling back to ${event.to.provider}:${event.to.model}: ${oneLine(event.error.message, 120)}`)}`;
    case 'injection-detected':
      return `${indent}${paint('yellow', `instruction-like text flagged on ${oneLine(event.url, 100)} (${event.findings.map((finding) => finding.pattern).join(', ')})`)}`;
    case 'warning':
      return `${paint('yellow', 'warning'.padEnd(10))}${oneLine(event.message, 300)}`;
    case 'task-pause':
      return `${paint('yellow', 'paused'.padEnd(10))}press r to resume`;
    case 'task-resume':
      return paint('yellow', 'resumed');
    case 'task-cancel':
      return `${paint('yellow', 'cancelled'.padEnd(10))}${oneLine(event.reason)}`;
    case 'human-answer':
      return event.timedOut ? `${indent}${paint('yellow', 'no answer in time; the agent goes on without one')}` : undefined;
    case 'replay-step': {
      const report = event.report;
      const mark = report.status === 'failed' ? paint('red', '✗') : report.status === 'skipped' ? paint('yellow', '-') : paint('green', '✓');
      return `${indent}${mark} ${report.action} ${report.status}${report.reason ? `: ${oneLine(report.reason, 200)}` : ''}`;
    }
    default:
      return undefined;
  }
}

const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** A one-line spinner on a terminal stream: `⠋ navigator thinking 2.4 s`; lines printed meanwhile go above it. */
export class Spinner {
  private label: string | undefined;
  private startedAt = 0;
  private frame = 0;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly stream: Writable,
    private readonly enabled: boolean,
  ) {}

  /** Shows the spinner with `label`, timed from now. */
  start(label: string): void {
    if (!this.enabled) return;
    this.label = label;
    this.startedAt = Date.now();
    this.draw();
    this.timer ??= setInterval(() => this.draw(), 100);
    this.timer.unref?.();
  }

  /** Hides the spinner. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.label !== undefined) this.clear();
    this.label = undefined;
  }

  /** Runs `write` with the spinner line cleared, then draws it again. */
  around(write: () => void): void {
    if (this.label === undefined) return write();
    this.clear();
    write();
    this.draw();
  }

  private clear(): void {
    this.stream.write('\r\u001b[2K');
  }

  private draw(): void {
    if (this.label === undefined) return;
    this.frame = (this.frame + 1) % frames.length;
    const seconds = ((Date.now() - this.startedAt) / 1000).toFixed(1);
    this.stream.write(`\r\u001b[2K\u001b[36m${frames[this.frame]}\u001b[39m ${this.label} \u001b[2m${seconds} s\u001b[22m`);
  }
}
