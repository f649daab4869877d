// The record of a run: every Planner and Navigator step with its model output, actions, results,
// errors, browser URL, timings and token usage. Plain JSON with a version, for saving and replay.

import type { ErrorInfo, PlanInfo, TaskStatus } from '../events';
import type { TokenUsage } from '../llm/usage';

/** One action as it ran (or was skipped). @public */
export interface ActionRecord {
  readonly name: string;
  readonly params: unknown;
  /** What the action reported to the model. */
  readonly result: string | undefined;
  /** The error the model read, when it failed. */
  readonly error: string | undefined;
  readonly includeInMemory: boolean;
  readonly isDone: boolean;
  readonly success: boolean | undefined;
  /** Structured data the action returned (the `done` action's result object). */
  readonly data?: unknown;
  /** The index and tag of the element acted on, when the action named one. */
  readonly element?: { readonly index: number; readonly tagName: string; readonly selector?: string | undefined } | undefined;
  readonly durationMs: number;
}

/** One Planner or Navigator step. @public */
export interface StepRecord {
  readonly taskId: string;
  /** 0 for the first task of the session, 1 for the first follow-up, … */
  readonly taskIndex: number;
  /** The Navigator step number; a Planner step carries the number of the Navigator steps before it. */
  readonly step: number;
  readonly actor: 'planner' | 'navigator';
  readonly startedAt: number;
  readonly endedAt: number;
  readonly durationMs: number;
  /** The browser when the step's state was captured. */
  readonly browser: { readonly url: string; readonly title: string; readonly tabs: number } | undefined;
  /** The validated model output. */
  readonly modelOutput: unknown;
  /** The Planner's decision, for Planner steps. */
  readonly plan: PlanInfo | undefined;
  readonly actions: readonly ActionRecord[];
  /** Why the step failed, if it did. */
  readonly error: ErrorInfo | undefined;
  readonly usage: TokenUsage;
}

/** One task of a session and how it ended. @public */
export interface TaskRecord {
  readonly taskId: string;
  readonly task: string;
  readonly startedAt: number;
  readonly endedAt: number | undefined;
  readonly status: TaskStatus | undefined;
  readonly finalAnswer: string | undefined;
}

/** The history of a session: its tasks and every step, as JSON. @public */
export interface RunHistory {
  /** The version of this format. */
  readonly version: 1;
  readonly tasks: readonly TaskRecord[];
  readonly steps: readonly StepRecord[];
}
