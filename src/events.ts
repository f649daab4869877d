// The typed events an Executor emits, as one map from event name to payload. Payloads are
// structured data for UIs and logs, never preformatted strings; there is no bare 'error' event.

import type { DownloadReport } from './browser/types';
import type { TokenUsage } from './llm/usage';

/** Who an event is about. @public */
export type Actor = 'planner' | 'navigator' | 'validator' | 'system' | 'user';

/**
 * How a task ended: `ok` when the Planner finished it; `failed`; `cancelled` by `cancel()`, a
 * signal or `close()`; `timed-out` when it ran past `execute({ timeout })`; `max-steps` at the cap.
 * @public
 */
export type TaskStatus = 'ok' | 'failed' | 'cancelled' | 'timed-out' | 'max-steps';

/** An error as events and history carry it: plain data. @public */
export interface ErrorInfo {
  /** The error's class name, such as `ChatModelRateLimitError`. */
  readonly name: string;
  /**
   * The error's `PlannavErrorCode`; `UNEXPECTED_ERROR` for a TypeError and its kin (a driver,
   * model client or action answered a value of the wrong shape, or a bug), `UNKNOWN` for any other
   * error plannav did not raise.
   */
  readonly code: string;
  /** The error's message, for people. */
  readonly message: string;
  /** Whether doing the same thing again may succeed. */
  readonly retryable: boolean;
}

/** Fields every event carries. @public */
export interface EventBase {
  /** The id of the task the event belongs to, as in `ExecutionResult.taskId`. */
  readonly taskId: string;
  /** The Navigator step the event belongs to (0 before the first). */
  readonly step: number;
  /** Who the event is about: an agent, the Executor itself (`system`), or the caller (`user`). */
  readonly actor: Actor;
  /** Milliseconds since the epoch. */
  readonly timestamp: number;
}

/** The Planner's decision, as events and history carry it. @public */
export interface PlanInfo {
  /** The Planner's view of the current situation. */
  readonly observation: string;
  /** Obstacles or risks the Planner sees; empty when there are none. */
  readonly challenges: string;
  /** Whether the Planner judges the whole task complete; when true, the task ends. */
  readonly done: boolean;
  /** The next two or three high-level steps for the Navigator; empty when done. */
  readonly nextSteps: string;
  /** The answer for the user when `done` is true; empty otherwise. */
  readonly finalAnswer: string;
  /** Why the Planner decided what it did. */
  readonly reasoning: string;
  /** Whether the task needs a browser; when false, the Planner answers at once and the task ends. */
  readonly webTask: boolean;
}

/**
 * Every event an Executor emits, by name.
 * @public
 */
export interface ExecutorEventMap {
  /** A task (or follow-up task) started; `taskIndex` is 0 for the first task, 1 for the first follow-up, and so on. */
  'task-start': EventBase & { readonly task: string; readonly taskIndex: number };
  /** A task ended, however it ended. */
  'task-end': EventBase & {
    /** How the task ended. */
    readonly status: TaskStatus;
    /** True when the Planner declared the task done and the Navigator did not report failure. */
    readonly success: boolean;
    /** The Planner's final answer, when the task finished. */
    readonly finalAnswer: string | undefined;
    /** Why the task did not finish; `undefined` when it did. */
    readonly error: ErrorInfo | undefined;
    /** Tokens used by the task's model calls. */
    readonly usage: TokenUsage;
    /** How long the task ran, in milliseconds. */
    readonly durationMs: number;
  };
  /** `pause()` took effect. */
  'task-pause': EventBase;
  /** `resume()` took effect. */
  'task-resume': EventBase;
  /** The task was cancelled, by `cancel()` or the caller's signal; `reason` says why, for people. */
  'task-cancel': EventBase & { readonly reason: string };
  /** A Planner or Navigator step started. */
  'step-start': EventBase;
  /** A Planner or Navigator step ended; `error` is set when it failed. */
  'step-end': EventBase & {
    /** How long the step took, in milliseconds. */
    readonly durationMs: number;
    /** Tokens used by the step's model calls, retries and repairs included. */
    readonly usage: TokenUsage;
    /** Why the step failed; `undefined` when it succeeded. */
    readonly error: ErrorInfo | undefined;
    /** Failed steps in a row, this one included; the task ends when it reaches `maxFailures`. */
    readonly consecutiveFailures: number;
  };
  /** The Planner decided. */
  'plan-end': EventBase & { readonly plan: PlanInfo };
  /**
   * The validator (option `validatorLLM`) judged the Planner's final answer: when `valid` is
   * false the task goes on, and the agents read `reason`.
   */
  'validation-end': EventBase & { readonly valid: boolean; readonly reason: string; readonly answer: string };
  /** The Navigator chose its actions for this step. */
  'navigator-output': EventBase & {
    /** The Navigator's judgement of whether its previous goal was reached. */
    readonly evaluationPreviousGoal: string;
    /** What the Navigator notes to remember across steps. */
    readonly memory: string;
    /** What the Navigator means to achieve with this step's actions. */
    readonly nextGoal: string;
    /** The actions it chose, in order, with the parameters it wrote; at most `maxActionsPerStep`. */
    readonly actions: readonly { readonly name: string; readonly params: unknown }[];
  };
  /** An action is about to run; `actionIndex` is its position in the step, from 0. */
  'action-start': EventBase & { readonly action: string; readonly params: unknown; readonly actionIndex: number };
  /** An action ran; `error` says why when it failed (its `message` is what the model reads). */
  'action-end': EventBase & {
    /** The action's name. */
    readonly action: string;
    /** The parameters the model gave the action. */
    readonly params: unknown;
    /** The action's position in the step, from 0. */
    readonly actionIndex: number;
    /** What the action reported to the model, if anything. */
    readonly result: string | undefined;
    /**
     * Why the action failed, `undefined` when it succeeded. `code` is `ACTION_UNKNOWN`,
     * `ACTION_INVALID_PARAMS`, `ACTION_UNAVAILABLE`, `ACTION_ERROR`, `URL_NOT_ALLOWED`, a
     * `BROWSER_ERROR`, or the code of the error the action threw; `message` is what the model reads.
     */
    readonly error: ErrorInfo | undefined;
    /** How long the action ran, in milliseconds. */
    readonly durationMs: number;
  };
  /** A model call is about to be made (`attempt` counts retries from 1). */
  'model-call-start': EventBase & { readonly provider: string; readonly model: string; readonly attempt: number };
  /** A model call ended. */
  'model-call-end': EventBase & {
    /** The client's provider name. */
    readonly provider: string;
    /** The client's model id. */
    readonly model: string;
    /** Which try this was, from 1. */
    readonly attempt: number;
    /** Tokens this call used. */
    readonly usage: TokenUsage;
    /** How long the call took, in milliseconds. */
    readonly durationMs: number;
    /** Why the model stopped, as the client reported it (`length` means the reply was cut off). */
    readonly finishReason: string | undefined;
    /** Why the call failed; `undefined` when it succeeded. */
    readonly error: ErrorInfo | undefined;
  };
  /**
   * The agent's model still failed after its retries (a rate limit, a server error, a timeout) or
   * its reply was cut off, so the call goes on with `fallbackLLM`; `error` says why.
   */
  'model-fallback': EventBase & {
    readonly from: { readonly provider: string; readonly model: string };
    readonly to: { readonly provider: string; readonly model: string };
    readonly error: ErrorInfo;
  };
  /** A transient model failure will be retried after `delayMs` milliseconds; `attempt` is the try that failed, from 1. */
  'model-retry': EventBase & { readonly attempt: number; readonly delayMs: number; readonly error: ErrorInfo };
  /** The agent asked the user a question; answer it with `executor.respond()` (unless a handler was given) within `timeoutMs` milliseconds. */
  'human-question': EventBase & { readonly questionId: string; readonly question: string; readonly timeoutMs: number };
  /** A question was answered, or its wait ran out (`timedOut`, with `answer` undefined). */
  'human-answer': EventBase & { readonly questionId: string; readonly answer: string | undefined; readonly timedOut: boolean };
  /**
   * The URL policy stopped a navigation: one the model asked for, or one the browser was about to
   * make (a redirect hop, a popup, a frame, a prefetch). The model is told and the task goes on,
   * unless `urlPolicy.onBlocked` is `end-task`.
   */
  'url-blocked': EventBase & {
    /** The denied URL. */
    readonly url: string;
    /** Why the policy denied it. */
    readonly reason: string;
    /**
     * What started the navigation: `action` (the model's own request) or the driver's kind;
     * `request` (with `urlPolicy.scope: 'all-requests'`) is any other request, sent once per host and step;
     * `download`, a download the driver cancelled (see the `download` event) whose URL no other kind reported.
     */
    readonly kind: 'action' | 'navigation' | 'redirect' | 'popup' | 'frame' | 'prefetch' | 'request' | 'download';
    /**
     * True when no task was running: the Executor's guard stays on the driver between tasks (see
     * `execute()`), and what it stops then is sent at once, with the id of the task that ran last
     * (`step` 0), once per kind and URL until the next task starts, whose agents are told of it.
     * Absent during a task.
     */
    readonly betweenTasks?: boolean | undefined;
  };
  // Downloads (issue 24).
  /**
   * A download of any tab ended (the driver's `onDownload`): `saved` in the driver's downloads
   * folder (`path`, `bytes`, `mimeType`), `blocked` by the URL policy (also a `url-blocked` event),
   * `too-large` (over the driver's `downloads.maxBytes`, the partial file removed) or `failed`.
   * It is in the step's history record, and the Navigator reads it in its next state. `step` is the
   * step it ended in (0 when it ended between tasks).
   */
  download: EventBase &
    DownloadReport & {
      /** True when no task was running (as for `url-blocked`); absent during a task. */
      readonly betweenTasks?: boolean | undefined;
    };
  /**
   * Text a page wrote, or the model repeated, held an instruction-injection pattern (a fake tag of
   * our prompt, an "ignore previous instructions" phrase, a fake agent output). The text was
   * neutralised or flagged before any model read it or it was stored, and the task goes on unless
   * `injectionGuard.onDetected` is `end-task`; a listener may also call `executor.cancel()`. Sent
   * at most once per step, place and URL for each pattern.
   */
  'injection-detected': EventBase & {
    /** The page the text came from (for `model-output`, the page the model had just read). */
    readonly url: string;
    /**
     * Where the text was going: the state message (elements, title, tabs), the page markdown
     * `extract_content` sends to the extraction model, or the Navigator's or Planner's output as
     * stored in the conversation and the history.
     */
    readonly source: InjectionSource;
    /** What was found, one entry per pattern. */
    readonly findings: readonly InjectionFinding[];
  };
  /**
   * An action that crosses a trust boundary after page content was read (see
   * `ExecutorOptions.sensitiveActions`) was decided: run (`allowed`) or not (`refused`), and by
   * whom. Sent once per decision; an action decided earlier in the task is not asked about again.
   */
  'sensitive-action': EventBase & {
    /** The boundary it crosses. */
    readonly kind: SensitiveActionKind;
    /** The action's name (`click_element`, `go_to_url`, …; `done` for the final answer). */
    readonly action: string;
    /** The URL it loads or sends to, decoded for reading, when it has one. */
    readonly url: string | undefined;
    /** What it would do, in words. */
    readonly description: string;
    /** The mode the option gave this kind. */
    readonly mode: 'allow' | 'confirm' | 'ask-human' | 'refuse';
    /** The decision. */
    readonly decision: 'allowed' | 'refused';
    /**
     * Who decided: the `policy` (mode `allow` or `refuse`), the `planner` (mode `confirm`), a
     * `human` (mode `ask-human`), `scope` when no page content had been read yet, or `evidence`
     * for an answer whose values the page gives only where no person sees them (hidden or
     * illegible text, alt, titles, addresses, encoded text), turned down before anyone is asked.
     */
    readonly decidedBy: 'policy' | 'planner' | 'human' | 'scope' | 'evidence';
    /** Why, in words (the Planner's or the person's reason when one decided). */
    readonly reason: string;
  };
  /** Something the host should know that does not stop the task; `code` is stable, `message` is for people. */
  warning: EventBase & { readonly code: string; readonly message: string };
  /** A replay (`HistoryReplay`) ended one recorded action: how it found the element and how it went. Only replays send it. */
  'replay-step': EventBase & { readonly report: ReplayStepReport };
}

/**
 * How a replay did one recorded action: `exact` (the recorded element found by its stable
 * attributes, or an action on no element), `healed` (found by a scored match, or done by the model
 * with `onStepFailure: 'ask-model'`), `failed` (`reason` says why) or `skipped`.
 * @public
 */
export interface ReplayStepReport {
  /** The id of the recorded task the action belongs to. */
  readonly taskId: string;
  /** The recorded Navigator step. */
  readonly step: number;
  /** The action's position in its recorded step, from 0. */
  readonly actionIndex: number;
  /** The action's name. */
  readonly action: string;
  /** How it went. */
  readonly status: 'exact' | 'healed' | 'failed' | 'skipped';
  /** Why it failed or was skipped; for a step the model healed, why the recorded way failed. */
  readonly reason?: string | undefined;
  /** For a scored match: its score, from 0 to 1. */
  readonly score?: number | undefined;
  /** What differed from the recording, in words: the element (for a scored match), and the page's title after the step. */
  readonly differences?: readonly string[] | undefined;
  /** Who healed it: the fingerprint match, or the model (`ask-model`). */
  readonly healedBy?: 'match' | 'model' | undefined;
  /** The index the element had on the replayed page, for an action on an element that was found. */
  readonly index?: number | undefined;
  /** How long it took, in milliseconds. */
  readonly durationMs: number;
}

/**
 * A kind of instruction injection the guard knows: `prompt-tag` (one of our own tags:
 * `<untrusted_content>`, `<user_request>`, `<plan>`, `<secret>`), `role-tag` (`<system>`,
 * `<assistant>`, `<tool_call>`, …), `chat-template` (`<|im_start|>`, `[INST]`, `<<SYS>>`),
 * `override-phrase` ("ignore all previous instructions", in several languages), `task-redirect`
 * ("your new task is", "from now on you must"), `system-claim` ("SYSTEM OVERRIDE:", "Note to AI
 * agents:"), `conceal-from-user` ("do not tell the user"), `fake-agent-output` (JSON shaped like
 * the Navigator's or Planner's output, or a tool call).
 * @public
 */
export type InjectionPatternId =
  'prompt-tag' | 'role-tag' | 'chat-template' | 'override-phrase' | 'task-redirect' | 'system-claim' | 'conceal-from-user' | 'fake-agent-output';

/**
 * A kind of action that crosses a trust boundary:
 * - `new-host`: loading a page (a URL, a tab, a link, a search) on a site the task does not involve;
 * - `url-data`: loading a URL the agent wrote itself (`go_to_url`, `open_tab`) with data in its query
 *   or fragment, on a site the task involves (a page's own links are not asked about);
 * - `cross-origin-form`: submitting a form that sends to a site the task does not involve;
 * - `secret`: typing a secret into a form that sends to another site than the page's own, or
 *   writing one into a URL;
 * - `download`: fetching a file to disk (a link with `download`, a URL of a file type browsers save);
 * - `submit`: sending a form with `POST` on a site the task involves (a purchase, a sign-up);
 * - `answer`: ending the task with the Planner's final answer.
 * @public
 */
export type SensitiveActionKind = 'new-host' | 'url-data' | 'cross-origin-form' | 'secret' | 'download' | 'submit' | 'answer';

/** Where an injection was found: see the `injection-detected` event. @public */
export type InjectionSource = 'state' | 'extraction' | 'model-output';

/** One pattern the injection guard found in a text. @public */
export interface InjectionFinding {
  /** The pattern. */
  readonly pattern: InjectionPatternId;
  /** The first match as written, whitespace collapsed, at most 100 characters. */
  readonly excerpt: string;
  /** How many times the pattern matched. */
  readonly count: number;
}

/** The name of an Executor event. @public */
export type ExecutorEventName = keyof ExecutorEventMap;

/**
 * A listener for one event. It may be async, or return anything: the loop never waits for it and
 * ignores what it returns, except that a returned promise that rejects, like a throw, is reported
 * as a `LISTENER_ERROR` warning while the task goes on. (The return type is `unknown` rather than
 * `void | Promise<void>` so that `(event) => list.push(event)` is a listener too.)
 * @public
 */
export type ExecutorListener<K extends ExecutorEventName> = (event: ExecutorEventMap[K]) => unknown;

/** Any Executor event, tagged with its name, as the async iterator yields them. @public */
export type ExecutorEvent = { [K in ExecutorEventName]: { readonly type: K } & ExecutorEventMap[K] }[ExecutorEventName];
