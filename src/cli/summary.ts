// The end of a run in words and in JSON: status, answer, steps, model calls, tokens, cost when
// prices are known, duration and the files written. Pure formatting, no I/O.

import type { TaskStatus } from '../index';

/** What a summary tells, from a task's result or a replay's. */
export interface RunSummary {
  readonly status: TaskStatus | 'ok' | 'failed' | 'cancelled' | 'timed-out';
  readonly success: boolean;
  readonly finalAnswer: string | undefined;
  readonly data?: unknown;
  /** Why it did not succeed, for people. */
  readonly error?: string | undefined;
  readonly steps: number;
  readonly modelCalls: number;
  readonly usage: {
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly totalTokens: number;
    readonly costUsd?: number | undefined;
  };
  readonly durationMs: number;
  readonly files: { readonly history?: string | undefined; readonly gif?: string | undefined; readonly report?: string | undefined };
}

/** `1234567` as `1,234,567`. */
function count(value: number): string {
  return value.toLocaleString('en-US');
}

/** Milliseconds for people: `850 ms`, `12.3 s`, `2 min 5 s`. */
export function formatDuration(durationMs: number): string {
  if (durationMs < 1000) return `${Math.round(durationMs)} ms`;
  if (durationMs < 60_000) return `${(durationMs / 1000).toFixed(1)} s`;
  const minutes = Math.floor(durationMs / 60_000);
  return `${minutes} min ${Math.round((durationMs - minutes * 60_000) / 1000)} s`;
}

/** The summary block: one `label  value` line each, labels padded to one column. */
export function formatSummary(summary: RunSummary, paint: (style: 'bold' | 'green' | 'red' | 'dim', text: string) => string = (_style, text) => text): string {
  const good = summary.status === 'ok' && summary.success;
  const status = `${summary.status}${summary.status === 'ok' ? (summary.success ? ' (success)' : ' (not successful)') : ''}`;
  const usage = summary.usage;
  const rows: [string, string][] = [
    ['status', paint(good ? 'green' : 'red', status)],
    ['answer', summary.finalAnswer ?? '-'],
  ];
  if (summary.data !== undefined) rows.push(['data', JSON.stringify(summary.data)]);
  if (summary.error) rows.push(['error', summary.error]);
  rows.push(
    ['steps', String(summary.steps)],
    ['model calls', String(summary.modelCalls)],
    ['tokens', `${count(usage.totalTokens)} (${count(usage.inputTokens)} in, ${count(usage.outputTokens)} out)`],
  );
  if (usage.costUsd !== undefined) rows.push(['cost', `$${usage.costUsd.toFixed(4)}`]);
  rows.push(['duration', formatDuration(summary.durationMs)]);
  if (summary.files.history) rows.push(['history', summary.files.history]);
  if (summary.files.gif) rows.push(['gif', summary.files.gif]);
  if (summary.files.report) rows.push(['report', summary.files.report]);
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  return rows.map(([label, value]) => `${paint('bold', label.padEnd(width))}${value}`).join('\n');
}

/** The last NDJSON line of `--json`: `{"type":"summary", …}`. */
export function summaryRecord(summary: RunSummary): Record<string, unknown> {
  return {
    type: 'summary',
    status: summary.status,
    success: summary.success,
    finalAnswer: summary.finalAnswer ?? null,
    ...(summary.data !== undefined ? { data: summary.data } : {}),
    ...(summary.error ? { error: summary.error } : {}),
    steps: summary.steps,
    modelCalls: summary.modelCalls,
    usage: summary.usage,
    durationMs: summary.durationMs,
    files: { history: summary.files.history ?? null, gif: summary.files.gif ?? null, report: summary.files.report ?? null },
  };
}
