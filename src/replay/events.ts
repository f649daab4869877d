// The replay's own event map: the frame of each recorded task and step, the actions it runs
// (and, with `onStepFailure: 'ask-model'`, the Navigator's step and model calls), and
// `replay-step` after each recorded action. It has no pause, plan, validation or question: a
// replay asks no one. Listeners are typed as the Executor's (`HistoryReplay.on` takes its names).

import type { ExecutorEventMap, ExecutorEventName } from '../events';

/** Executor events a replay never emits. */
type NotReplayed = 'task-pause' | 'task-resume' | 'task-cancel' | 'plan-end' | 'validation-end' | 'human-question' | 'human-answer';

/** What a replay emits: event name -> payload. */
export type ReplayEventMap = Omit<ExecutorEventMap, NotReplayed>;

/** The name of a replay event. */
export type ReplayEventName = keyof ReplayEventMap;

const notReplayed: ReadonlySet<string> = new Set<NotReplayed>([
  'task-pause',
  'task-resume',
  'task-cancel',
  'plan-end',
  'validation-end',
  'human-question',
  'human-answer',
]);

/** Whether an event the agents emit is one of the replay's. */
export function isReplayEvent(name: ExecutorEventName): name is ReplayEventName {
  return !notReplayed.has(name);
}
