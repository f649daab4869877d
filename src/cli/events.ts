// The events the command follows: every name of the Executor's event map (a replay emits a subset),
// and the NDJSON form of an event (`{"type": name, ...payload}`) that `--json` prints.

import type { Executor, ExecutorEvent, ExecutorEventMap, ExecutorEventName, HistoryReplay } from '../index';

/** Every event name; typed as a record so that a new event in the map fails to compile here until it is listed. */
const everyEvent: Readonly<Record<ExecutorEventName, true>> = {
  'task-start': true,
  'task-end': true,
  'task-pause': true,
  'task-resume': true,
  'task-cancel': true,
  'step-start': true,
  'step-end': true,
  'plan-end': true,
  'validation-end': true,
  'navigator-output': true,
  'action-start': true,
  'action-end': true,
  'model-call-start': true,
  'model-call-end': true,
  'model-fallback': true,
  'model-retry': true,
  'human-question': true,
  'human-answer': true,
  'url-blocked': true,
  'injection-detected': true,
  'sensitive-action': true,
  warning: true,
  'replay-step': true,
  // Downloads (issue 24).
  download: true,
};

/** The names of every Executor event. */
export const eventNames = Object.keys(everyEvent) as ExecutorEventName[];

/** Calls `listener` with every event of `source`, tagged with its name, in the order they are emitted. */
export function followEvents(source: Executor | HistoryReplay, listener: (event: ExecutorEvent) => void): () => void {
  const listeners = eventNames.map((name) => {
    const forward = (payload: ExecutorEventMap[typeof name]): void => listener({ type: name, ...payload } as ExecutorEvent);
    (source as Executor).on(name, forward);
    return [name, forward] as const;
  });
  return () => {
    for (const [name, forward] of listeners) (source as Executor).off(name, forward);
  };
}

/** One NDJSON line: the value as JSON on one line (JSON escapes every newline inside strings). */
export function ndjsonLine(value: unknown): string {
  return `${JSON.stringify(value, (_key, item: unknown) => (item instanceof Error ? { name: item.name, message: item.message } : item))}\n`;
}
