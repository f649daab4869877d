// The record of a run: every Planner and Navigator step with its model output, actions, results,
// errors, browser URL, timings and token usage. Plain JSON with a version, for saving and replay.

import type { ErrorInfo, PlanInfo, TaskStatus } from '../events';
import type { TokenUsage } from '../llm/usage';

/** One action as it ran. @public */
export interface ActionRecord {
  /** The action's name, as the model wrote it. */
  readonly name: string;
  /** The parameters the model gave the action, as it wrote them. */
  readonly params: unknown;
  /** What the action reported to the model. */
  readonly result: string | undefined;
  /** Why the action failed, as the `action-end` event carries it (`message` is what the model read); `undefined` when it succeeded. */
  readonly error: ErrorInfo | undefined;
  /** Whether the result stays in the conversation for the rest of the session, not just the next step. */
  readonly includeInMemory: boolean;
  /** Whether the action proposed that the task is done (only `done` does). */
  readonly isDone: boolean;
  /** With `isDone`: whether the task succeeded; `undefined` when the action did not say. */
  readonly success: boolean | undefined;
  /** Structured data the action returned (the `done` action's result object). */
  readonly data?: unknown;
  /** The index and tag of the element acted on, when the action named one. */
  readonly element?: { readonly index: number; readonly tagName: string; readonly selector?: string | undefined } | undefined;
  /** How long the action ran, in milliseconds. */
  readonly durationMs: number;
}

/** A model call that moved to the fallback model. @public */
export interface ModelFallbackRecord {
  /** The agent's own model, as `provider:model`. */
  readonly from: string;
  /** The fallback model, as `provider:model`. */
  readonly to: string;
  /** Why the call moved. */
  readonly error: ErrorInfo;
}

/** One Planner, Navigator or validator step, as history keeps it. @public */
export interface StepRecord {
  /** The id of the task the step belongs to. */
  readonly taskId: string;
  /** 0 for the first task of the session, 1 for the first follow-up, … */
  readonly taskIndex: number;
  /** The Navigator step number; a Planner step carries the number of the Navigator steps before it. */
  readonly step: number;
  /** Which agent took the step. */
  readonly actor: 'planner' | 'navigator' | 'validator';
  /** When the step started, in milliseconds since the epoch. */
  readonly startedAt: number;
  /** When the step ended, in milliseconds since the epoch. */
  readonly endedAt: number;
  /** How long the step took, in milliseconds. */
  readonly durationMs: number;
  /**
   * The active tab's URL and title and the number of open tabs, when the step's state was captured;
   * `undefined` when none was captured (the task's first Planner step, or a step that failed before it read the page).
   */
  readonly browser: { readonly url: string; readonly title: string; readonly tabs: number } | undefined;
  /** The validated model output. */
  readonly modelOutput: unknown;
  /** The Planner's decision, for Planner steps. */
  readonly plan: PlanInfo | undefined;
  /** The actions the step ran, in order; empty for Planner steps. */
  readonly actions: readonly ActionRecord[];
  /** Why the step failed, if it did. */
  readonly error: ErrorInfo | undefined;
  /** Tokens used by the step's model calls, retries and repairs included. */
  readonly usage: TokenUsage;
  /** The model calls that moved to `fallbackLLM` in this step; absent when none did. */
  readonly fallbacks?: readonly ModelFallbackRecord[] | undefined;
}

/** One task of a session and how it ended. @public */
export interface TaskRecord {
  /** The task's id, as its events, steps and result carry it. */
  readonly taskId: string;
  /** The task, in plain words, as it was given. */
  readonly task: string;
  /** When the task started, in milliseconds since the epoch; 0 until it runs. */
  readonly startedAt: number;
  /** When the task ended, in milliseconds since the epoch; `undefined` until it ends. */
  readonly endedAt: number | undefined;
  /** How the task ended; `undefined` until it ends. */
  readonly status: TaskStatus | undefined;
  /** The Planner's final answer; `undefined` until the task ends, and when it did not finish. */
  readonly finalAnswer: string | undefined;
}

/** The history of a session: its tasks and every step, as JSON. @public */
export interface RunHistory {
  /** The version of this format. */
  readonly version: 1;
  /** Every task of the session, follow-ups included, in the order they were added. */
  readonly tasks: readonly TaskRecord[];
  /** Every Planner and Navigator step of every task, in the order they ran. */
  readonly steps: readonly StepRecord[];
}
