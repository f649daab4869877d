// The record of a run: every Planner and Navigator step with its model output, actions, results,
// errors, browser URL, timings and token usage. Plain JSON with a version, for saving and replay;
// screenshots ride beside it as binary parts, never inside the JSON.

import type { DownloadReport } from '../browser/types';
import type { ErrorInfo, PlanInfo, TaskStatus } from '../events';
import type { TokenUsage } from '../llm/usage';

/** The version of the history format this release writes. @public */
export const historySchemaVersion = 2;

/** A box in CSS pixels of the element's document (scroll offset included). @public */
export interface FingerprintBox {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** One ancestor of a fingerprinted element, nearest first. @public */
export interface FingerprintAncestor {
  /** Lower-case tag name. */
  readonly tagName: string;
  /** Its ARIA role (explicit or implicit), when it has one. */
  readonly role?: string | undefined;
  /** Its accessible name or, for a landmark or section, its heading; empty when it has none. */
  readonly name?: string | undefined;
  /** Its `id`, when it has one. */
  readonly id?: string | undefined;
}

/**
 * What identifies an element an action acted on, captured just before the action ran: what
 * replay needs to find it again on a page that changed since.
 * @public
 */
export interface ElementFingerprint {
  /** Lower-case tag name. */
  readonly tagName: string;
  /** The ARIA role, explicit (`role=`) or implicit (`button` for `<button>`); `undefined` when it has none. */
  readonly role: string | undefined;
  /** The accessible name (label, aria-label, text content, …), whitespace collapsed. */
  readonly name: string;
  /** The element's visible text, whitespace collapsed and capped. */
  readonly text: string;
  /**
   * The attributes that identify it, when present: `id`, `name`, `type`, `href`, `placeholder`,
   * `aria-label`, `title`, `alt`, `role`, `for`, `value` of buttons, and test ids
   * (`data-testid`, `data-test`, `data-test-id`, `data-qa`, `data-cy`).
   */
  readonly attributes: Readonly<Record<string, string>>;
  /** An absolute XPath in its document, such as `/html/body/main/form/button[2]`. */
  readonly xpath: string;
  /** A short CSS selector that was unique in its document when recorded. */
  readonly cssPath: string;
  /** Up to five ancestors, nearest first. */
  readonly ancestors: readonly FingerprintAncestor[];
  /** Its box, when it had one. */
  readonly box: FingerprintBox | undefined;
  /**
   * The record it belongs to (a product card, a table row, a list item) and what names that
   * record: its label, heading, link or first cell. `scope: 'page'` when it sits in no record and
   * the heading of its page or section says what the page is about. Replay never takes an element
   * of another record for it.
   */
  readonly record?: FingerprintRecord | undefined;
  /** Whether it was disabled when read. */
  readonly disabled?: boolean | undefined;
  /** Whether a checkbox or radio button was checked when read (before the action). */
  readonly checked?: boolean | undefined;
  /** The URL of the frame's document. */
  readonly frameUrl: string;
}

/** The record an element belongs to, as {@link ElementFingerprint} gives it. @public */
export interface FingerprintRecord {
  /** What names it: a product's name, a row's first cell. */
  readonly name: string;
  /** Where that name came from. */
  readonly from: 'label' | 'heading' | 'link' | 'cell';
  /** `item`: one of many (a card, a row); `page`: the page or section the element sits in. */
  readonly scope: 'item' | 'page';
}

/** A tab of a step's browser. @public */
export interface TabRecord {
  readonly id: string;
  readonly url: string;
  readonly title: string;
}

/** One model call of a step, retries, repairs and fallbacks each their own. @public */
export interface ModelCallRecord {
  /** The agent that made the call; an action's own call (`extract_content`) counts as the Navigator's. */
  readonly actor: 'planner' | 'navigator' | 'validator';
  /** The client's provider name. */
  readonly provider: string;
  /** The client's model id. */
  readonly model: string;
  /** Which try this was, from 1. */
  readonly attempt: number;
  /** Tokens of this call, with its cost when the model has a price. */
  readonly usage: TokenUsage;
  /** How long the call took, in milliseconds. */
  readonly durationMs: number;
  /** Why the call failed; `undefined` when it succeeded. */
  readonly error: ErrorInfo | undefined;
}

/** A screenshot of a step: a binary part of the history, kept out of the JSON. @public */
export interface ScreenshotRef {
  /** The part's name, a key of `RunHistory.screenshots` and its file name beside a saved history. */
  readonly part: string;
  /** Its media type. */
  readonly mediaType: 'image/jpeg' | 'image/png';
}

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
  /**
   * The element acted on as it was just before the action ran, for replay; `undefined` for an
   * action on no element, or when the page could not be read.
   */
  readonly fingerprint?: ElementFingerprint | undefined;
  /** When the action started, in milliseconds since the epoch. */
  readonly startedAt: number;
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
  readonly browser: StepBrowser | undefined;
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
  /** Each model call of the step, in order. */
  readonly modelCalls: readonly ModelCallRecord[];
  /** The model calls that moved to `fallbackLLM` in this step; absent when none did. */
  readonly fallbacks?: readonly ModelFallbackRecord[] | undefined;
  /** The screenshot of the page the step read, with `recordScreenshots` or vision on. */
  readonly screenshot?: ScreenshotRef | undefined;
  // Downloads (issue 24).
  /** The downloads that ended during the step (as the `download` events told them); absent when none did. */
  readonly downloads?: readonly DownloadReport[] | undefined;
}

/** The browser as a step found it. @public */
export interface StepBrowser {
  /** The active tab's URL. */
  readonly url: string;
  /** The active tab's title. */
  readonly title: string;
  /** How many tabs were open. */
  readonly tabs: number;
  /** The open tabs; empty in histories migrated from version 1, which kept only their number. */
  readonly tabList: readonly TabRecord[];
  /** The id of the active tab; `''` in histories migrated from version 1. */
  readonly activeTabId: string;
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
  /** Why the task did not finish; `undefined` until it ends, and when it finished. */
  readonly error?: ErrorInfo | undefined;
  /** The `done` action's structured result, when the task finished with one. */
  readonly data?: unknown;
}

/**
 * The history of a session: its tasks and every step. Everything but `screenshots` is plain JSON;
 * `saveHistory` (from `plannav/node`) writes the screenshots as files beside it.
 * @public
 */
export interface RunHistory {
  /** The version of this format; {@link parseHistory} reads older ones, migrated. */
  readonly schemaVersion: 2;
  /** Every task of the session, follow-ups included, in the order they were added. */
  readonly tasks: readonly TaskRecord[];
  /** Every Planner and Navigator step of every task, in the order they ran. */
  readonly steps: readonly StepRecord[];
  /**
   * The steps' screenshots (JPEG or PNG bytes) by part name, as `StepRecord.screenshot` names them.
   * A `Map`, so `JSON.stringify` leaves the bytes out (it writes `{}`).
   */
  readonly screenshots: ReadonlyMap<string, Uint8Array>;
}
