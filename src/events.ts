// The typed events an Executor emits, as one map from event name to payload. Payloads are
// structured data for UIs and logs, never preformatted strings; there is no bare 'error' event.

import type { TokenUsage } from './llm/usage';

/** Who an event is about. @public */
export type Actor = 'planner' | 'navigator' | 'system' | 'user';

/** How a task ended. @public */
export type TaskStatus = 'ok' | 'failed' | 'cancelled' | 'max-steps';

/** An error as events and history carry it: plain data. @public */
export interface ErrorInfo {
  readonly name: string;
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
}

/** Fields every event carries. @public */
export interface EventBase {
  readonly taskId: string;
  /** The Navigator step the event belongs to (0 before the first). */
  readonly step: number;
  readonly actor: Actor;
  /** Milliseconds since the epoch. */
  readonly timestamp: number;
}

/** The Planner's decision, as events and history carry it. @public */
export interface PlanInfo {
  readonly observation: string;
  readonly challenges: string;
  readonly done: boolean;
  readonly nextSteps: string;
  readonly finalAnswer: string;
  readonly reasoning: string;
  readonly webTask: boolean;
}

/**
 * Every event an Executor emits, by name.
 * @public
 */
export interface ExecutorEventMap {
  /** A task (or follow-up task) started. */
  'task-start': EventBase & { readonly task: string; readonly taskIndex: number };
  /** A task ended, however it ended. */
  'task-end': EventBase & {
    readonly status: TaskStatus;
    readonly success: boolean;
    readonly finalAnswer: string | undefined;
    readonly error: ErrorInfo | undefined;
    readonly usage: TokenUsage;
    readonly durationMs: number;
  };
  /** `pause()` took effect. */
  'task-pause': EventBase;
  /** `resume()` took effect. */
  'task-resume': EventBase;
  /** The task was cancelled, by `cancel()` or the caller's signal. */
  'task-cancel': EventBase & { readonly reason: string };
  /** A Planner or Navigator step started. */
  'step-start': EventBase;
  /** A Planner or Navigator step ended; `error` is set when it failed. */
  'step-end': EventBase & {
    readonly durationMs: number;
    readonly usage: TokenUsage;
    readonly error: ErrorInfo | undefined;
    readonly consecutiveFailures: number;
  };
  /** The Planner decided. */
  'plan-end': EventBase & { readonly plan: PlanInfo };
  /** The Navigator chose its actions for this step. */
  'navigator-output': EventBase & {
    readonly evaluationPreviousGoal: string;
    readonly memory: string;
    readonly nextGoal: string;
    readonly actions: readonly { readonly name: string; readonly params: unknown }[];
  };
  /** An action is about to run. */
  'action-start': EventBase & { readonly action: string; readonly params: unknown; readonly actionIndex: number };
  /** An action ran; `error` is the message the model will read when it failed. */
  'action-end': EventBase & {
    readonly action: string;
    readonly params: unknown;
    readonly actionIndex: number;
    readonly result: string | undefined;
    readonly error: string | undefined;
    readonly durationMs: number;
  };
  /** A model call is about to be made (`attempt` counts retries from 1). */
  'model-call-start': EventBase & { readonly provider: string; readonly model: string; readonly attempt: number };
  /** A model call ended. */
  'model-call-end': EventBase & {
    readonly provider: string;
    readonly model: string;
    readonly attempt: number;
    readonly usage: TokenUsage;
    readonly durationMs: number;
    readonly finishReason: string | undefined;
    readonly error: ErrorInfo | undefined;
  };
  /** A transient model failure will be retried after `delayMs`. */
  'model-retry': EventBase & { readonly attempt: number; readonly delayMs: number; readonly error: ErrorInfo };
  /** The agent asked the user a question; answer it with `executor.respond()` (unless a handler was given). */
  'human-question': EventBase & { readonly questionId: string; readonly question: string; readonly timeoutMs: number };
  /** A question was answered, or its wait ran out. */
  'human-answer': EventBase & { readonly questionId: string; readonly answer: string | undefined; readonly timedOut: boolean };
  /** Something the host should know that does not stop the task. */
  'warning': EventBase & { readonly code: string; readonly message: string };
}

/** The name of an Executor event. @public */
export type ExecutorEventName = keyof ExecutorEventMap;

/** Any Executor event, tagged with its name, as the async iterator yields them. @public */
export type ExecutorEvent = { [K in ExecutorEventName]: { readonly type: K } & ExecutorEventMap[K] }[ExecutorEventName];
