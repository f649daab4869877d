// Replay without a model: each recorded action again, on the page as it is now. An action on an
// element finds it by its fingerprint (exactly by stable attributes, else by a scored match),
// acts, and checks where the browser ended against the recording. A step that cannot be done the
// recorded way stops the replay, is skipped, or is handed to the Navigator for that step only.

import { z } from 'zod';
import { createActionContext } from '../actions/action-context';
import { builtinActions } from '../actions/builtin/index';
import { ActionRegistry, type ActionOutcome } from '../actions/registry';
import type { Action, ActionContext, HumanAnswer } from '../actions/types';
import type { AgentContext, AgentSettings, EventPayload } from '../agents/agent-context';
import { observedExtractionClient } from '../agents/agent-context';
import { redactingClient } from '../agents/secret-guard';
import { bindPageTextRedaction } from '../dom/page-text-redaction';
import { NavigatorAgent } from '../agents/navigator-agent';
import { browserDriverProblem } from '../browser/driver-check';
import type { PageState } from '../browser/page-state';
import type { BlockedNavigation, BrowserDriver, NavigationGuard, ResolvedBrowserDriver } from '../browser/types';
import { resolveDriver } from '../dom/driver-defaults';
import { readFingerprints } from '../dom/fingerprint';
import { defaultIncludeAttributes, PageStateReader } from '../dom/page-state-reader';
import { ConfigError, isFatalError, PlannavError, RequestCancelledError, TimeoutError } from '../errors';
import type { Actor, EventBase, ExecutorEventMap, ExecutorEventName, ExecutorListener, ReplayStepReport } from '../events';
import { toErrorInfo } from '../history/error-info';
import { parseHistory } from '../history/schema';
import { StepRecorder } from '../history/step-recorder';
import { historySchemaVersion, type ActionRecord, type ElementFingerprint, type RunHistory, type StepRecord, type TaskRecord } from '../history/types';
import type { LLMClient } from '../llm/types';
import { addUsage, emptyUsage, type PriceTable, type TokenUsage } from '../llm/usage';
import { MessageManager } from '../messages/message-manager';
import { navigatorSystemPrompt } from '../prompts/navigator-system';
import { SecretStore, type SecretsOption } from '../security/secrets';
import { UrlPolicy, type UrlPolicyOptions } from '../security/url-policy';
import { sleep } from '../util/abort';
import { base64ToBytes } from '../util/base64';
import { withDeadline } from '../util/deadline';
import { describeThrown } from '../util/describe-thrown';
import { EventHub } from '../util/event-hub';
import { matchElement, type MatchCandidate, type ScoredMatch } from './match';

/**
 * Options of {@link HistoryReplay}.
 * @public
 */
export interface ReplayOptions {
  /** The browser to replay in. It runs one replay or task at a time. */
  readonly browser: BrowserDriver;
  /**
   * Values for the recorded fields, so one recording serves many inputs. A key names a field the
   * run filled (its `name`, `id`, `type`, label, placeholder or `aria-label`, any case:
   * `{ email: 'b@example.com' }` where the run typed into an email field), or a `{{key}}`
   * placeholder in any recorded parameter. Every kind of field: a text field, a textarea or an
   * editable element types the value; a `<select>` selects the option with that text; a checkbox
   * is checked for `true`, `yes`, `on`, `1` or `checked` and unchecked for `false`, `no`, `off`,
   * `0` or `unchecked`; a radio group (by its `name`) picks the button whose value or label is the value.
   * A key that names no recorded field and no placeholder is a `ConfigError` naming it and the known keys.
   * @defaultValue none: what the run entered is entered again
   */
  readonly variables?: Readonly<Record<string, string>> | undefined;
  /**
   * What a recorded action that cannot be done the recorded way does: `stop` the replay (the rest
   * is `skipped`), `skip` it and go on, or `ask-model`: hand that one step to the Navigator with
   * `llm` (its calls count in `usage`); the step is `healed` when its actions succeed.
   * @defaultValue 'stop'
   */
  readonly onStepFailure?: 'stop' | 'skip' | 'ask-model' | undefined;
  /**
   * With `ask-model`, what a step the model could not do either (its call failed, its actions
   * failed, or the browser did not get the effect the step was for) does: `stop` the replay, or
   * `skip` it and go on. The step is `failed` either way.
   * @defaultValue 'stop'
   */
  readonly onModelFailure?: 'stop' | 'skip' | undefined;
  /**
   * Milliseconds a recorded element may take to appear and become actionable (attached, visible,
   * stable, enabled), as a Playwright locator waits: the page is read again until then.
   * @defaultValue 5000
   */
  readonly elementTimeoutMs?: number | undefined;
  /** Checks of your own after recorded steps and at the end; see {@link ReplayExpect}. */
  readonly expect?: ReplayExpect | undefined;
  /** The model for `ask-model`, and for recorded actions that need one (`extract_content`); without it those are `skipped`. */
  readonly llm?: LLMClient | undefined;
  /** Milliseconds to wait between two actions, for pages that need a human pace. @defaultValue 0 */
  readonly delayBetweenActions?: number | undefined;
  /** Cancels the replay: it ends `cancelled` at once. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Where the recorded site is now (a staging server, a test server on another port, a path on
   * another host): every recorded URL of the recording's origin (that of its first page) is moved
   * under this URL, its path kept after this one's (`https://host/store/v2` and a recorded
   * `/item/1` give `https://host/store/v2/item/1`); a recorded path that already starts with this
   * URL's path is not prefixed twice. Outcomes are compared against the URLs so moved.
   * @defaultValue the recorded URLs as they are
   * @example `{ baseURL: 'http://127.0.0.1:4173/store/v2' }`
   */
  readonly baseURL?: string | undefined;
  /** Milliseconds the whole replay may take; past them it ends `timed-out` with a `TimeoutError`. @defaultValue no limit */
  readonly timeout?: number | undefined;
  /** The lowest score (0 to 1) a scored match may have to be used. @defaultValue the matcher's, 0.6 */
  readonly matchThreshold?: number | undefined;
  /** Whether the URL and tab count after each recorded step must be those of the recording (the title is only compared). @defaultValue true */
  readonly checkOutcome?: boolean | undefined;
  /** The actions of your own the recording used (as the Executor's `actions` option). */
  readonly actions?: readonly Action[] | undefined;
  /** Which URLs the replay may load, as the Executor's `urlPolicy`. @defaultValue every http(s) URL */
  readonly urlPolicy?: UrlPolicyOptions | undefined;
  /** Keep a screenshot of each replayed step in the replay's history. @defaultValue false */
  readonly recordScreenshots?: boolean | undefined;
  /** Milliseconds one recorded action may take. @defaultValue 180000 */
  readonly actionTimeoutMs?: number | undefined;
  /** The secrets the recording used (`<secret>name</secret>` in its actions), as the Executor's `secrets` option: put in at the last moment, redacted everywhere. */
  readonly secrets?: SecretsOption | undefined;
  /** Prices of the models, for the cost of `ask-model` calls. */
  readonly prices?: PriceTable | undefined;
  /** Absolute paths `upload_file` may send, as the Executor's `uploadPaths`. */
  readonly uploadPaths?: readonly string[] | undefined;
}

/**
 * How a replay ended.
 * @public
 */
export interface ReplayResult {
  /**
   * `ok` when no recorded action failed (each is `exact`, `healed` or `skipped` for a reason its
   * report gives); `failed` when one did, even with `onStepFailure: 'skip'`; `cancelled`; `timed-out`.
   */
  readonly status: 'ok' | 'failed' | 'cancelled' | 'timed-out';
  /** One report per recorded action, in order. */
  readonly steps: readonly ReplayStepReport[];
  /** The replay's own history: what it did, with fresh fingerprints (it can be replayed and exported too). */
  readonly history: RunHistory;
  /** Tokens of the model calls (`ask-model`, `extract_content`). */
  readonly usage: TokenUsage;
  /**
   * The final answer, when the replay reached the recording's `done`: see `finalAnswerSource` for
   * whether it holds for the page now.
   */
  readonly finalAnswer: string | undefined;
  /**
   * Where `finalAnswer` comes from: `page` when the recording read the page for it (`search_page`,
   * `extract_content`) and the replay read the same again now; `recording` when it is the recorded
   * run's answer as it was, which the replay did not read again (it may be out of date: a price).
   */
  readonly finalAnswerSource: 'page' | 'recording' | undefined;
  /** The recorded run's final answer, as it was. */
  readonly recordedFinalAnswer: string | undefined;
  /** The checks of `expect`, in the order they ran. */
  readonly checks: readonly ReplayCheckReport[];
  /** The model calls `ask-model` made. */
  readonly modelCalls: number;
  /** Why the replay did not end `ok`. */
  readonly error: PlannavError | undefined;
  /** How long it took, in milliseconds. */
  readonly durationMs: number;
}

/**
 * A check of the page, for {@link ReplayExpect}: every field given must hold. A string matches
 * when the value contains it (case and spaces folded), a `RegExp` when it matches.
 * @public
 */
export interface ReplayCheck {
  /** The URL of the active tab. */
  readonly url?: string | RegExp | undefined;
  /** The title of the active tab's page. */
  readonly title?: string | RegExp | undefined;
  /** Text the page shows (the whole page, read as the model reads it). */
  readonly text?: string | RegExp | undefined;
  /** Text the page must not show. */
  readonly noText?: string | RegExp | undefined;
}

/**
 * Checks of your own for a replay: `steps` after a recorded step (by its number, as reports give
 * it), `end` once every recorded action ran. A step check that does not hold fails that step (and
 * `onStepFailure` decides); an end check that does not hold fails the replay.
 * @example
 * ```ts
 * replayHistory(history, { browser, expect: { steps: { 3: { url: /\/cart$/ } }, end: { text: 'Thank you' } } });
 * ```
 * @public
 */
export interface ReplayExpect {
  readonly steps?: Readonly<Record<number, ReplayCheck | readonly ReplayCheck[]>> | undefined;
  readonly end?: ReplayCheck | readonly ReplayCheck[] | undefined;
}

/** How one check of `expect` went. @public */
export interface ReplayCheckReport {
  /** After which recorded step, or `end`. */
  readonly at: number | 'end';
  readonly passed: boolean;
  /** What did not hold. */
  readonly reason?: string | undefined;
}

const positive = z.number().int('must be an integer').positive('must be positive');
const matcher = z.union([z.string(), z.instanceof(RegExp)], { error: 'must be a string or a RegExp' });
const checkSchema = z.object({ url: matcher.optional(), title: matcher.optional(), text: matcher.optional(), noText: matcher.optional() }).strict();
const checksSchema = z.union([checkSchema, z.array(checkSchema)]);
const optionsSchema = z
  .object({
    browser: z.custom<BrowserDriver>().superRefine((value, context) => {
      const problem = browserDriverProblem(value);
      if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
    }),
    variables: z.record(z.string(), z.string({ error: 'must map names to strings' })).default({}),
    onStepFailure: z.enum(['stop', 'skip', 'ask-model'], { error: 'must be "stop", "skip" or "ask-model"' }).default('stop'),
    onModelFailure: z.enum(['stop', 'skip'], { error: 'must be "stop" or "skip"' }).default('stop'),
    elementTimeoutMs: z.number().int('must be an integer').nonnegative('must be 0 or more').default(5000),
    expect: z
      .object({ steps: z.record(z.string().regex(/^\d+$/, 'must be keyed by step numbers'), checksSchema).optional(), end: checksSchema.optional() })
      .strict()
      .optional(),
    llm: z
      .custom<LLMClient>(
        (value) => typeof value === 'object' && value !== null && typeof (value as LLMClient).generate === 'function',
        'must be an LLMClient (a generate() method)',
      )
      .optional(),
    delayBetweenActions: z.number().int('must be an integer').nonnegative('must be 0 or more').default(0),
    signal: z.custom<AbortSignal>((value) => value instanceof AbortSignal, 'must be an AbortSignal').optional(),
    timeout: positive.optional(),
    baseURL: z
      .string()
      .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), 'must be an absolute http or https URL')
      .optional(),
    matchThreshold: z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1').optional(),
    checkOutcome: z.boolean({ error: 'must be a boolean' }).default(true),
    actions: z
      .array(z.custom<Action>((value) => typeof (value as Action | null)?.handler === 'function', 'must be an action made with defineAction()'))
      .default([]),
    urlPolicy: z
      .object({ allow: z.array(z.string()).optional(), deny: z.array(z.string()).optional() })
      .strict()
      .default({}),
    recordScreenshots: z.boolean({ error: 'must be a boolean' }).default(false),
    actionTimeoutMs: positive.default(180_000),
    prices: z.record(z.string(), z.object({ input: z.number(), cachedInput: z.number().optional(), output: z.number() })).optional(),
    uploadPaths: z.array(z.string()).default([]),
    secrets: z.unknown().optional(),
  })
  .strict();

type ResolvedOptions = z.output<typeof optionsSchema>;

/** The recorded element, found on the page now. */
interface FoundElement {
  readonly index: number;
  readonly status: 'exact' | 'healed';
  readonly score?: number | undefined;
  readonly differences?: readonly string[] | undefined;
  readonly fingerprint: ElementFingerprint | undefined;
}

/** The recorded element found on a page read now, with that reading and its elements. */
interface LocatedElement extends FoundElement {
  readonly state: PageState;
  readonly candidates: readonly MatchCandidate[];
}

/** How one recorded action went, and what the rest of the replay needs from it. */
interface ActionReplay {
  readonly report: ReplayStepReport;
  /** A failed action after which the replay goes on all the same (`onModelFailure: 'skip'`). */
  readonly continueAfter?: boolean | undefined;
  /** A variable changed what was typed (or where the browser went), now or before. */
  readonly substituted: boolean;
  /** The answer of a recorded `done`. */
  readonly finalAnswer?: string | undefined;
}

/** Recorded actions that need a person: a replay cannot answer for one. */
const needsPerson = new Set(['ask_human']);
/** Recorded actions that need a model. */
const needsModel = new Set(['extract_content']);
/** Recorded actions that read the page: what a final answer may come from. */
const readingActions = new Set(['search_page', 'extract_content']);
/** How often the page is read again while waiting for an element, and how long a found one must keep its box. */
const elementPollMs = 250;
const stableCheckMs = 80;
/** Deadlines of the replay's own browser reads, in milliseconds. */
const pageStateTimeoutMs = 30_000;
const settleTimeoutMs = 15_000;

/** One recorded action, with where it sits in the recording and what the browser looked like after its step. */
interface RecordedAction {
  readonly task: TaskRecord;
  readonly step: StepRecord;
  readonly action: ActionRecord;
  readonly actionIndex: number;
  /** The browser the recording found after this action's step, for its last action. */
  readonly expected: StepRecord['browser'];
}

/** The recorded actions of each task, in order. */
function recordedActions(history: RunHistory): { task: TaskRecord; actions: RecordedAction[] }[] {
  return history.tasks.map((task) => {
    const steps = history.steps.filter((step) => step.taskId === task.taskId);
    const actions = steps.flatMap((step, position) => {
      if (step.actor !== 'navigator') return [];
      const after = steps.slice(position + 1).find((next) => next.browser !== undefined)?.browser;
      return step.actions.map((action, actionIndex) => ({
        task,
        step,
        action,
        actionIndex,
        expected: actionIndex === step.actions.length - 1 ? after : undefined,
      }));
    });
    return { task, actions };
  });
}

/** Where `baseURL` moves the recorded site: its origin, and the new origin and path to put recorded paths under. */
interface SiteMove {
  readonly from: string;
  readonly to: string;
  /** `baseURL`'s path without its trailing `/`: `''` for a root, `/store/v2` for `https://host/store/v2/`. */
  readonly prefix: string;
}

/** The recording's origin (that of its first http(s) page) and where `baseURL` puts it, when `baseURL` is given. */
function originMap(history: RunHistory, baseURL: string | undefined): SiteMove | undefined {
  if (baseURL === undefined) return undefined;
  const urls = history.steps.flatMap((step) => [
    ...(step.browser ? [step.browser.url] : []),
    ...step.actions.map((action) => (action.params as { url?: unknown } | null)?.url).filter((url): url is string => typeof url === 'string'),
  ]);
  const first = urls.find((url) => /^https?:/i.test(url) && URL.canParse(url));
  const base = new URL(baseURL);
  return first ? { from: new URL(first).origin, to: base.origin, prefix: base.pathname.replace(/\/+$/, '') } : undefined;
}

/**
 * A recorded URL of the recorded origin, moved under `baseURL`: the recorded path goes after
 * `baseURL`'s path, unless it starts with that path already (the recording was made under the
 * same path on another host).
 */
function movedUrl(url: string, move: SiteMove): string {
  let rest = url.slice(move.from.length);
  if (rest === '' || /^[?#]/.test(rest)) rest = `/${rest}`;
  const { prefix } = move;
  const under = prefix === '' || rest === prefix || rest.startsWith(`${prefix}/`) || rest.startsWith(`${prefix}?`) || rest.startsWith(`${prefix}#`);
  return `${move.to}${under ? '' : prefix}${rest}`;
}

/** `value` with every string that starts with the recorded origin moved under `baseURL`. */
function moved(value: unknown, origins: SiteMove | undefined): unknown {
  if (!origins) return value;
  if (typeof value === 'string')
    return value === origins.from || (/^[/?#]/.test(value.slice(origins.from.length, origins.from.length + 1)) && value.startsWith(origins.from))
      ? movedUrl(value, origins)
      : value;
  if (Array.isArray(value)) return value.map((item) => moved(item, origins));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, moved(item, origins)]));
  return value;
}

/** Lower case, letters and digits only: how variable names and field names are compared. */
const fieldKey = (text: string): string => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/** Replaces `{{name}}` placeholders in every string of `value`. */
function withPlaceholders(value: unknown, variables: Readonly<Record<string, string>>): unknown {
  if (typeof value === 'string') return value.replace(/\{\{\s*([\w.-]+)\s*\}\}/g, (whole, name: string) => variables[name] ?? whole);
  if (Array.isArray(value)) return value.map((item) => withPlaceholders(item, variables));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withPlaceholders(item, variables)]));
  }
  return value;
}

/** What kind of field a recorded action filled, when it filled one: how a variable goes in. */
type FieldKind = 'text' | 'select' | 'checkbox' | 'radio';

function fieldKindOf(action: ActionRecord): FieldKind | undefined {
  const print = action.fingerprint;
  if (action.name === 'input_text') return 'text';
  if (action.name === 'select_dropdown_option') return 'select';
  if (action.name === 'click_element' && print?.tagName === 'input') {
    if (print.attributes.type === 'checkbox') return 'checkbox';
    if (print.attributes.type === 'radio') return 'radio';
  }
  return undefined;
}

/** The names a recorded field answers to: its `name`, id, label, placeholder or `aria-label` (and a text field's type); a radio group by its `name` and id only. */
function fieldNames(action: ActionRecord, kind: FieldKind): string[] {
  const print = action.fingerprint;
  if (!print) return [];
  const { attributes } = print;
  const names =
    kind === 'radio'
      ? [attributes.name, attributes.id]
      : [attributes.name, attributes.id, kind === 'text' ? attributes.type : undefined, attributes['aria-label'], attributes.placeholder, print.name];
  return names.filter((name): name is string => typeof name === 'string' && name.length > 0);
}

/** The variable a recorded field takes its value from, by its names. */
function variableFor(action: ActionRecord, kind: FieldKind, variables: Readonly<Record<string, string>>): string | undefined {
  const names = fieldNames(action, kind).map(fieldKey);
  const key = Object.keys(variables).find((candidate) => names.includes(fieldKey(candidate)));
  return key === undefined ? undefined : variables[key];
}

const truthy = new Set(['true', 'yes', 'on', '1', 'checked', 'y']);
const falsy = new Set(['false', 'no', 'off', '0', 'unchecked', 'n', '']);
function checkboxValue(value: string): boolean | undefined {
  const key = value.trim().toLowerCase();
  return truthy.has(key) ? true : falsy.has(key) ? false : undefined;
}

/**
 * Checks `variables` against the recording: each key must name a recorded field or a `{{key}}`
 * placeholder, and a checkbox's value must say checked or not.
 * @throws `ConfigError` naming the key at fault and the keys the recording knows.
 */
function checkVariables(history: RunHistory, variables: Readonly<Record<string, string>>): void {
  const keys = Object.keys(variables);
  if (keys.length === 0) return;
  const placeholders = new Set<string>();
  const fields: { kind: FieldKind; names: string[]; shown: string }[] = [];
  for (const step of history.steps) {
    for (const action of step.actions) {
      for (const found of JSON.stringify(action.params ?? null).matchAll(/\{\{\s*([\w.-]+)\s*\}\}/g)) placeholders.add(found[1] ?? '');
      const kind = fieldKindOf(action);
      if (!kind) continue;
      const names = fieldNames(action, kind);
      const [shown] = names;
      if (shown !== undefined) fields.push({ kind, names: names.map(fieldKey), shown });
    }
  }
  const known = [...new Set([...fields.map((field) => field.shown), ...placeholders])];
  for (const key of keys) {
    const field = fields.find((candidate) => candidate.names.includes(fieldKey(key)));
    if (!field && !placeholders.has(key)) {
      throw new ConfigError(
        `Variable \`${key}\` of replayHistory() names no field the recording filled and no {{${key}}} placeholder; the recording knows ${known.length > 0 ? known.map((name) => `\`${name}\``).join(', ') : 'none'}.`,
        { field: `variables.${key}` },
      );
    }
    if (field?.kind === 'checkbox' && checkboxValue(variables[key] ?? '') === undefined) {
      throw new ConfigError(
        `Variable \`${key}\` of replayHistory() is a checkbox: give "true" or "false" (or yes/no, on/off, 1/0, checked/unchecked), not ${JSON.stringify(variables[key])}.`,
        { field: `variables.${key}` },
      );
    }
  }
}

/** How a click on a checkbox or radio button is replayed: the state the recording left, or the one a variable asks for. */
type Choice = { readonly kind: 'checkbox'; readonly checked: boolean } | { readonly kind: 'radio'; readonly group: string; readonly value: string };

/** The recorded parameters with the variables in: placeholders everywhere, and a filled field's value. Returns whether any changed. */
function substitute(recorded: RecordedAction, variables: Readonly<Record<string, string>>): { params: unknown; changed: boolean; choice?: Choice | undefined } {
  let params = withPlaceholders(recorded.action.params, variables);
  const kind = fieldKindOf(recorded.action);
  const value = kind ? variableFor(recorded.action, kind, variables) : undefined;
  let choice: Choice | undefined;
  let chosen = false;
  if (value !== undefined && typeof params === 'object' && params !== null) {
    if (kind === 'text' || kind === 'select') params = { ...(params as Record<string, unknown>), text: value };
  }
  if (kind === 'checkbox') {
    const wanted = value === undefined ? undefined : checkboxValue(value);
    const recordedChecked = recorded.action.fingerprint?.checked;
    // Without a variable, the box ends as the recording left it: the other state than before its click.
    const checked = wanted ?? (recordedChecked === undefined ? undefined : !recordedChecked);
    if (checked !== undefined) choice = { kind: 'checkbox', checked };
    chosen = wanted !== undefined && recordedChecked !== undefined && wanted !== !recordedChecked;
  }
  if (kind === 'radio' && value !== undefined) {
    const group = recorded.action.fingerprint?.attributes.name;
    if (group) {
      choice = { kind: 'radio', group, value };
      const print = recorded.action.fingerprint;
      chosen = ![print?.attributes.value ?? '', print?.name ?? ''].some((name) => name && fieldKey(name) === fieldKey(value));
    }
  }
  return { params, changed: chosen || JSON.stringify(params) !== JSON.stringify(recorded.action.params), choice };
}

/** An URL without its fragment and with its query sorted, for comparing where the browser is. */
function comparable(url: string, withQuery: boolean): string {
  try {
    const parsed = new URL(url);
    parsed.hash = '';
    if (!withQuery) parsed.search = '';
    parsed.searchParams.sort();
    return parsed.href;
  } catch {
    return url;
  }
}

/** Whether a recorded action sends a form: a click on a submit button, or Enter pressed. */
function sendsForm(action: ActionRecord): boolean {
  if (action.name === 'send_keys') {
    const keys = (action.params as { keys?: unknown } | null)?.keys;
    return typeof keys === 'string' && /(^|\s|\+)enter($|\s)/i.test(keys);
  }
  if (action.name !== 'click_element') return false;
  const print = action.fingerprint;
  if (!print) return false;
  const type = print.attributes.type;
  if (print.tagName === 'input') return type === 'submit' || type === 'image';
  return print.tagName === 'button' && (type === undefined || type === 'submit') && /\/form(\[\d+\])?\//.test(print.xpath);
}

/** Whether two boxes are the same, to a pixel. */
function sameBox(a: ElementFingerprint['box'], b: ElementFingerprint['box']): boolean {
  if (!a || !b) return false;
  return Math.abs(a.x - b.x) < 1 && Math.abs(a.y - b.y) < 1 && Math.abs(a.width - b.width) < 1 && Math.abs(a.height - b.height) < 1;
}

/** The page's text as the model reads it, without the element markers. */
function pageText(state: PageState): string {
  return state.elementsText
    .replace(/^\s*\*?\[\d+\]<[^>\n]*>/gm, '')
    .replace(/ \/>$/gm, '')
    .replace(/<\/?untrusted_content>/g, '');
}

const folded = (value: string): string => value.replace(/\s+/g, ' ').trim().toLowerCase();

/** Whether `value` matches a check's string (contained, case and spaces folded) or RegExp. */
function holds(value: string, expected: string | RegExp): boolean {
  if (typeof expected === 'string') return folded(value).includes(folded(expected));
  expected.lastIndex = 0;
  return expected.test(value);
}

/** Why `check` does not hold on the page, or undefined when it holds. */
function checkFailure(check: ReplayCheck, page: { url: string; title: string; text: string }): string | undefined {
  const shown = (expected: string | RegExp): string => (typeof expected === 'string' ? JSON.stringify(expected) : String(expected));
  if (check.url !== undefined && !holds(page.url, check.url)) return `the URL ${page.url} does not match ${shown(check.url)}`;
  if (check.title !== undefined && !holds(page.title, check.title)) return `the title ${JSON.stringify(page.title)} does not match ${shown(check.title)}`;
  if (check.text !== undefined && !holds(page.text, check.text)) return `the page does not show ${shown(check.text)}`;
  if (check.noText !== undefined && holds(page.text, check.noText)) return `the page shows ${shown(check.noText)}`;
  return undefined;
}

const listOf = (checks: ReplayCheck | readonly ReplayCheck[] | undefined): readonly ReplayCheck[] =>
  checks === undefined ? [] : Array.isArray(checks) ? (checks as readonly ReplayCheck[]) : [checks as ReplayCheck];

/**
 * The kind of page a URL is, for healing by intent: its origin and path, with the last segment
 * of a deeper path (the product of `/item/1`) and every segment of digits left open.
 */
function pageKind(url: string): string {
  try {
    const parsed = new URL(url);
    const segments = parsed.pathname.split('/').filter(Boolean);
    const kind = segments.map((segment, position) => (/^\d+$/.test(segment) || (position === segments.length - 1 && segments.length >= 2) ? '*' : segment));
    return `${parsed.origin}/${kind.join('/')}`;
  } catch {
    return url;
  }
}

/** The index of an action's `index` parameter, when it has one. */
function indexParam(params: unknown): number | undefined {
  const index = (params as { index?: unknown } | null)?.index;
  return typeof index === 'number' ? index : undefined;
}

/** Describes a recorded action for the model, from its fingerprint and parameters. */
function describeRecorded(recorded: RecordedAction): string {
  const { action } = recorded;
  const element = action.fingerprint;
  const target = element
    ? ` on the ${element.role ?? element.tagName} ${JSON.stringify(element.name || element.text)}${
        element.ancestors.find((ancestor) => ancestor.name)?.name
          ? ` (inside ${JSON.stringify(element.ancestors.find((ancestor) => ancestor.name)?.name)})`
          : ''
      }`
    : '';
  const params = { ...(typeof action.params === 'object' && action.params !== null ? action.params : {}) } as Record<string, unknown>;
  delete params.index;
  const rest = Object.keys(params).length > 0 ? ` with ${JSON.stringify(params)}` : '';
  return `${action.name}${target}${rest}`;
}

const unanswered = (): Promise<HumanAnswer> => Promise.resolve({ answer: undefined, timedOut: false });

/** The model a recorded action that needs one gets when the replay has none. */
const noModel: LLMClient = {
  specificationVersion: 'v1',
  provider: 'none',
  model: 'none',
  generate: () => Promise.reject(new ConfigError('This replayed action needs a model: pass `llm` in the options of replayHistory().', { field: 'llm' })),
};

/**
 * A recorded run, replayed: listen to its events with `on` (the Executor's, plus `replay-step`
 * after each recorded action), then `run()` it.
 * @public
 */
export class HistoryReplay {
  private readonly options: ResolvedOptions;
  private readonly recording: RunHistory;
  private readonly driver: ResolvedBrowserDriver;
  private readonly registry: ActionRegistry;
  private readonly reader: PageStateReader;
  private readonly urlPolicy: UrlPolicy;
  private readonly secrets: SecretStore;
  private readonly hub = new EventHub((error, event) => {
    if ((event as { code?: unknown }).code === 'LISTENER_ERROR') return;
    this.emit('warning', 'system', { code: 'LISTENER_ERROR', message: `An event listener threw: ${describeThrown(error)}` });
  });
  private readonly controller = new AbortController();
  private readonly tasks: TaskRecord[] = [];
  private readonly steps: StepRecord[] = [];
  private readonly screenshots = new Map<string, Uint8Array>();
  private readonly blocked: BlockedNavigation[] = [];
  private current = { taskId: '', step: 0 };
  private recorder: StepRecorder | undefined;
  private usage = emptyUsage;
  private started = false;
  /** The model calls of `ask-model` (every attempt, failed ones too), counted while `asking`. */
  private modelCalls = 0;
  private asking = false;
  /** Whether the reads the recording made (`search_page`, `extract_content`) read the same now; undefined before any. */
  private readsAgree: boolean | undefined;
  private readonly checks: ReplayCheckReport[] = [];
  /** A field that could not be filled the recorded way, on the page (URL) its form is on: that form is not sent. */
  private unfilled: { readonly page: string; readonly step: number; readonly action: string } | undefined;
  /** Set once a failed action stops the replay (`onStepFailure: 'stop'`): why the rest is skipped. */
  private stoppedBecause: string | undefined;
  /** With `baseURL`: the recorded site's origin and the one to use instead. */
  private readonly origins: SiteMove | undefined;

  /**
   * Checks the history and the options; nothing runs until `run()`.
   * @throws `ConfigError` for a bad option (`ask-model` without `llm`); `HistoryFormatError` for a history that is not valid.
   */
  constructor(history: RunHistory, options: ReplayOptions) {
    const parsed = optionsSchema.safeParse(options);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.join('.') ?? '';
      throw new ConfigError(`Option \`${field}\` of replayHistory() ${issue?.message ?? 'is invalid'}.`, { field });
    }
    this.options = parsed.data;
    if (this.options.onStepFailure === 'ask-model' && !this.options.llm) {
      throw new ConfigError('Option `onStepFailure: "ask-model"` of replayHistory() needs a model: pass `llm`.', { field: 'llm' });
    }
    // The same checks as a loaded file: a history built by hand or changed on the way is read as one.
    const { screenshots, ...json } = history as Partial<RunHistory>;
    this.recording = parseHistory(json, screenshots instanceof Map ? screenshots : new Map());
    this.driver = resolveDriver(this.options.browser);
    const own = this.options.actions;
    this.registry = new ActionRegistry([...builtinActions().filter((action) => !own.some((mine) => mine.name === action.name)), ...own]);
    // The whole page: the recorded element may sit lower now (a banner above it) or have been off screen when recorded.
    this.reader = new PageStateReader(this.driver, { viewportExpansion: -1, includeAttributes: defaultIncludeAttributes, maxTextLength: 100 });
    this.origins = originMap(this.recording, this.options.baseURL);
    checkVariables(this.recording, this.options.variables);
    const recordedSteps = new Set(this.recording.steps.map((step) => String(step.step)));
    for (const step of Object.keys(this.options.expect?.steps ?? {})) {
      if (!recordedSteps.has(step)) {
        throw new ConfigError(`Option \`expect.steps\` of replayHistory() has checks for step ${step}, which the recording does not have.`, {
          field: `expect.steps.${step}`,
        });
      }
    }
    this.urlPolicy = new UrlPolicy(this.options.urlPolicy);
    this.secrets = new SecretStore(this.options.secrets);
    const external = this.options.signal;
    if (external) {
      if (external.aborted) this.cancel('Cancelled by the signal given to replayHistory().');
      else external.addEventListener('abort', () => this.cancel('Cancelled by the signal given to replayHistory().'), { once: true });
    }
  }

  /** Listens to an event, as `Executor.on`. */
  on<K extends ExecutorEventName>(name: K, listener: ExecutorListener<K>): this {
    this.hub.on(name, listener);
    return this;
  }

  /** Listens to the next occurrence of an event only. */
  once<K extends ExecutorEventName>(name: K, listener: ExecutorListener<K>): this {
    this.hub.once(name, listener);
    return this;
  }

  /** Stops listening. */
  off<K extends ExecutorEventName>(name: K, listener: ExecutorListener<K>): this {
    this.hub.off(name, listener);
    return this;
  }

  /** Cancels the replay: `run()` resolves `cancelled`. */
  cancel(reason = 'Cancelled by the caller.'): void {
    if (!this.controller.signal.aborted) this.controller.abort(new RequestCancelledError(reason));
  }

  /** The replay's own history so far. */
  get history(): RunHistory {
    return {
      schemaVersion: historySchemaVersion,
      tasks: this.tasks.map((task) => ({ ...task })),
      steps: [...this.steps],
      screenshots: new Map(this.screenshots),
    };
  }

  /**
   * Replays every recorded task in order. Never rejects for what happens on the pages: the result
   * says how each recorded action went.
   * @throws `ConfigError` when called twice.
   */
  async run(): Promise<ReplayResult> {
    if (this.started) throw new ConfigError('This replay has run already: create another with replayHistory() or new HistoryReplay().');
    this.started = true;
    const startedAt = Date.now();
    const { timeout } = this.options;
    const timer = timeout === undefined ? undefined : setTimeout(() => this.controller.abort(new TimeoutError(timeout, 'The replay')), timeout);
    const reports: ReplayStepReport[] = [];
    let error: PlannavError | undefined;
    let finalAnswer: string | undefined;
    const guarded = await this.installGuard();
    // Page text is redacted where it enters Node, as in a task.
    const unbind = this.secrets.isEmpty ? undefined : bindPageTextRedaction(this.driver, this.secrets);
    try {
      for (const { task, actions } of recordedActions(this.recording)) {
        const outcome = await this.replayTask(task, actions, reports);
        finalAnswer = outcome.finalAnswer ?? finalAnswer;
        if (outcome.error) {
          error = outcome.error;
          break;
        }
      }
      if (!error && this.controller.signal.aborted) error = this.controller.signal.reason as PlannavError;
    } finally {
      unbind?.();
      clearTimeout(timer);
      if (guarded) await this.options.browser.setNavigationGuard?.(undefined).catch(() => undefined);
    }
    if (!error) {
      const endChecks = listOf(this.options.expect?.end);
      if (endChecks.length > 0) await this.runChecks(endChecks, 'end').catch(() => undefined);
    }
    const checksFailed = this.checks.some((check) => check.at === 'end' && !check.passed);
    const status = endedBy(error) ?? (reports.some((report) => report.status === 'failed') || checksFailed ? 'failed' : 'ok');
    const recordedFinalAnswer = recordedAnswer(this.recording);
    return {
      status,
      steps: reports,
      history: this.history,
      usage: this.usage,
      finalAnswer: this.secrets.redactDeep(finalAnswer),
      finalAnswerSource: finalAnswer === undefined ? undefined : this.readsAgree === true ? 'page' : 'recording',
      recordedFinalAnswer: this.secrets.redactDeep(recordedFinalAnswer),
      checks: [...this.checks],
      modelCalls: this.modelCalls,
      error: this.secrets.redactDeep(error),
      durationMs: Date.now() - startedAt,
    };
  }

  /** Replays one recorded task; returns its answer, or the error that ends the replay. */
  private async replayTask(
    task: TaskRecord,
    actions: readonly RecordedAction[],
    reports: ReplayStepReport[],
  ): Promise<{ finalAnswer?: string | undefined; error?: PlannavError | undefined }> {
    const taskIndex = this.tasks.length;
    const startedAt = Date.now();
    const started: TaskRecord = { taskId: task.taskId, task: task.task, startedAt, endedAt: undefined, status: undefined, finalAnswer: undefined };
    this.tasks.push(started);
    this.current = { taskId: task.taskId, step: 0 };
    this.emit('task-start', 'system', { task: task.task, taskIndex });
    const taskUsage = this.usage;
    let finalAnswer: string | undefined;
    let error: PlannavError | undefined;
    let substituted = false;
    // A step failed and the browser may be elsewhere than the recording: the next element is checked against its page.
    let offTrack = false;
    let stepStart: { record: StepRecord; started: number } | undefined;
    for (const recorded of actions) {
      // One replay step per recorded Navigator step, as the recording had them.
      if (stepStart?.record !== recorded.step) {
        this.endStep(stepStart);
        stepStart = { record: recorded.step, started: Date.now() };
        this.current = { taskId: task.taskId, step: recorded.step.step };
        this.recorder = new StepRecorder(task.taskId, taskIndex, recorded.step.step, 'navigator');
        this.emit('step-start', 'navigator', {});
      }
      const stopped = this.stoppedBecause;
      const report: ActionReplay = stopped
        ? this.skipped(recorded, stopped)
        : await this.replayAction(recorded, substituted, offTrack).catch((caught: unknown) => {
            // A cancel, a timeout or a browser gone ends the replay; any other failure (a page
            // that cannot be read in time) fails this action, and onStepFailure decides.
            if (this.controller.signal.aborted || isFatalError(caught)) {
              error = this.controller.signal.aborted ? (this.controller.signal.reason as PlannavError) : toError(caught);
            }
            return this.failedReport(recorded, describeThrown(caught), 0);
          });
      substituted ||= report.substituted;
      offTrack = report.report.status === 'failed' || (offTrack && report.report.status === 'skipped');
      if (report.report.status === 'failed' && fieldKindOf(recorded.action) !== undefined && recorded.step.browser) {
        this.unfilled ??= {
          page: comparable(moved(recorded.step.browser.url, this.origins) as string, false),
          step: recorded.step.step,
          action: recorded.action.name,
        };
      }
      reports.push(this.secrets.redactDeep(report.report));
      this.emit('replay-step', 'system', { report: report.report });
      if (report.finalAnswer !== undefined) finalAnswer = report.finalAnswer;
      if (error) break;
      if (report.report.status === 'failed' && this.options.onStepFailure !== 'skip' && !report.continueAfter) {
        this.stoppedBecause ??= `the replay stopped at step ${recorded.step.step} (${recorded.action.name}), which failed`;
      }
      if (this.options.delayBetweenActions > 0 && !this.stoppedBecause)
        await sleep(this.options.delayBetweenActions, this.controller.signal).catch(() => undefined);
      if (this.controller.signal.aborted) {
        error = this.controller.signal.reason as PlannavError;
        break;
      }
    }
    this.endStep(stepStart, error);
    const failed = reports.some((report) => report.taskId === task.taskId && report.status === 'failed');
    const status = endedBy(error) ?? (failed ? 'failed' : 'ok');
    const endedAt = Date.now();
    this.tasks[taskIndex] = { ...started, endedAt, status, finalAnswer, error: error ? toErrorInfo(error) : undefined };
    const usage = subtractCalls(this.usage, taskUsage);
    this.emit('task-end', 'system', {
      status,
      success: status === 'ok',
      finalAnswer,
      error: error ? toErrorInfo(error) : undefined,
      usage,
      durationMs: endedAt - startedAt,
    });
    return { finalAnswer, error };
  }

  private endStep(step: { record: StepRecord; started: number } | undefined, error?: unknown): void {
    if (!step || !this.recorder) return;
    const record = this.recorder.finish(error, this.keepScreenshot(this.recorder.screenshot));
    this.steps.push(this.secrets.redactDeep(record));
    this.emit('step-end', 'navigator', {
      durationMs: Date.now() - step.started,
      usage: record.usage,
      error: record.error,
      consecutiveFailures: record.actions.some((action) => action.error) ? 1 : 0,
    });
    this.recorder = undefined;
  }

  private keepScreenshot(data: string | undefined): StepRecord['screenshot'] {
    if (data === undefined) return undefined;
    const part = `step-${String(this.steps.length + 1).padStart(4, '0')}.jpg`;
    this.screenshots.set(part, base64ToBytes(data));
    return { part, mediaType: 'image/jpeg' };
  }

  private skipped(recorded: RecordedAction, reason: string): ActionReplay {
    return { report: this.report(recorded, { status: 'skipped', reason, durationMs: 0 }), substituted: false };
  }

  private failedReport(recorded: RecordedAction, reason: string, durationMs: number, about: Partial<ReplayStepReport> = {}): ActionReplay {
    return { report: this.report(recorded, { ...about, status: 'failed', reason, durationMs }), substituted: false };
  }

  /** Notes whether a reading action read again what the recording read. */
  private noteRead(recordedResult: string | undefined, now: string | undefined): void {
    const same = recordedResult !== undefined && now !== undefined && folded(recordedResult) === folded(now);
    this.readsAgree = (this.readsAgree ?? true) && same;
  }

  /** Runs `checks` on the page now; records each; returns why the first that failed did, if one did. */
  private async runChecks(checks: readonly ReplayCheck[], at: number | 'end'): Promise<string | undefined> {
    const state = await this.readPage();
    const page = { url: state.url, title: state.title, text: pageText(state) };
    let first: string | undefined;
    for (const check of checks) {
      const reason = checkFailure(check, page);
      this.checks.push({ at, passed: reason === undefined, ...(reason ? { reason } : {}) });
      first ??= reason;
    }
    return first === undefined ? undefined : `expect ${at === 'end' ? 'at the end' : `after step ${at}`}: ${first}`;
  }

  /** The checks of `expect` after this recorded step, at its last action. */
  private async runStepChecks(recorded: RecordedAction): Promise<string | undefined> {
    if (recorded.actionIndex !== recorded.step.actions.length - 1) return undefined;
    const checks = listOf(this.options.expect?.steps?.[String(recorded.step.step)]);
    return checks.length === 0 ? undefined : this.runChecks(checks, recorded.step.step);
  }

  /**
   * Whether the browser got the effect the recorded step was for, by its kind rather than its
   * URL: a page of the same kind opened (`/item/7` for a recorded `/item/1`), or the same page
   * (the cart, the thanks page of a sent form), with as many tabs.
   */
  private async checkIntent(recorded: RecordedAction): Promise<{ failure?: string | undefined }> {
    const expected = recorded.expected;
    if (!this.options.checkOutcome || !expected) return {};
    const [tabs, active] = await Promise.all([this.driver.tabs({ signal: this.controller.signal }), this.driver.activeTab({ signal: this.controller.signal })]);
    if (tabs.length !== expected.tabs) return { failure: `${tabs.length} tab(s) are open, where the recording had ${expected.tabs}` };
    const after = moved(expected.url, this.origins) as string;
    const before = recorded.step.browser ? (moved(recorded.step.browser.url, this.origins) as string) : undefined;
    const navigated = before === undefined || comparable(before, false) !== comparable(after, false);
    if (!navigated || pageKind(active.url) === pageKind(after)) return {};
    return { failure: `the step was for opening a page like ${pageKind(after)}, and the browser is at ${active.url}` };
  }

  private report(recorded: RecordedAction, fields: Omit<ReplayStepReport, 'taskId' | 'step' | 'actionIndex' | 'action'>): ReplayStepReport {
    return { taskId: recorded.task.taskId, step: recorded.step.step, actionIndex: recorded.actionIndex, action: recorded.action.name, ...fields };
  }

  /** Replays one recorded action: finds its element, acts, checks the outcome; on failure, what `onStepFailure` says. */
  private async replayAction(recorded: RecordedAction, substitutedBefore: boolean, offTrack: boolean): Promise<ActionReplay> {
    const started = Date.now();
    const { action } = recorded;
    if (action.error) return this.skipped(recorded, `it failed when recorded: ${action.error.message}`);
    if (needsPerson.has(action.name)) return this.skipped(recorded, `${action.name} needs a person; a replay cannot answer for one`);
    if (needsModel.has(action.name) && !this.options.llm) return this.skipped(recorded, `${action.name} needs a model: pass \`llm\` to replay it`);
    const { params: substitutedParams, changed, choice } = substitute(recorded, this.options.variables);
    const substituted = substitutedBefore || changed;

    const sends = sendsForm(action);
    if (sends && this.unfilled) {
      const page = comparable(await this.driver.currentUrl({ signal: this.controller.signal }), false);
      if (page === this.unfilled.page) {
        return this.failedReport(
          recorded,
          `a field of this form could not be filled the recorded way (step ${this.unfilled.step}, ${this.unfilled.action}): sending it would send what the recording did not`,
          Date.now() - started,
        );
      }
    }
    let params = moved(substitutedParams, this.origins);
    let match: FoundElement | undefined;
    let failure: string | undefined;
    let best: ScoredMatch | undefined;
    let state: PageState;
    let skipAction: string | undefined;
    if (indexParam(action.params) !== undefined) {
      const located = await this.locate(recorded, offTrack);
      state = located.state;
      if ('reason' in located) {
        failure = located.reason;
        best = located.best;
      } else {
        match = located;
        params = { ...(params as Record<string, unknown>), index: located.index };
        if (choice?.kind === 'radio') {
          const picked = located.candidates.find(
            ({ fingerprint }) =>
              fingerprint.tagName === 'input' &&
              fingerprint.attributes.type === 'radio' &&
              fingerprint.attributes.name === choice.group &&
              [fingerprint.attributes.value ?? '', fingerprint.name, fingerprint.text].some((name) => name && fieldKey(name) === fieldKey(choice.value)),
          );
          if (picked) params = { ...(params as Record<string, unknown>), index: picked.index };
          else failure = `no radio button of the group ${JSON.stringify(choice.group)} has the value or label ${JSON.stringify(choice.value)}`;
        } else if (choice?.kind === 'checkbox' && located.fingerprint?.checked === choice.checked) {
          skipAction = `already ${choice.checked ? 'checked' : 'unchecked'}, as wanted: not clicked`;
        }
      }
    } else {
      state = await this.readPage();
    }
    this.recorder?.setState(state);
    let outcome: ActionOutcome | undefined;
    let fingerprint: ElementFingerprint | undefined;
    let note: string | undefined;
    if (!failure) {
      fingerprint = match?.fingerprint;
      if (skipAction === undefined) {
        outcome = await this.runAction(action.name, params, state, recorded.actionIndex, fingerprint);
        this.recordAction(action.name, params, outcome, fingerprint, started, state);
        if (outcome.error) failure = `the action failed: ${outcome.error.message}`;
        else if (readingActions.has(action.name)) this.noteRead(action.result, outcome.result.extractedContent);
      }
      if (!failure) ({ failure, note } = await this.checkOutcome(recorded, substituted));
      failure ??= await this.runStepChecks(recorded);
    }
    const finalAnswer = outcome?.result.isDone ? outcome.result.extractedContent : undefined;
    if (!failure) {
      const found = match?.differences ?? [];
      // A scored match that differs in nothing is the recorded element, exactly.
      const status = match?.status === 'healed' && found.length > 0 ? 'healed' : 'exact';
      const differences = [...found, ...(skipAction ? [skipAction] : []), ...(note ? [note] : [])];
      return {
        report: this.report(recorded, {
          status,
          ...(status === 'healed' ? { healedBy: 'match' as const, score: match?.score } : {}),
          ...(differences.length > 0 ? { differences } : {}),
          ...(match ? { index: match.index } : {}),
          durationMs: Date.now() - started,
        }),
        substituted,
        finalAnswer,
      };
    }
    // What the failed step was matched to, so the report says on what element it failed.
    const about: Partial<ReplayStepReport> = match
      ? {
          index: match.index,
          ...(match.score !== undefined ? { score: match.score } : {}),
          ...(match.differences?.length ? { differences: match.differences } : {}),
        }
      : best
        ? { index: best.index, score: best.score, ...(best.differences.length > 0 ? { differences: best.differences } : {}) }
        : {};
    if (match && !failure.includes('element ')) {
      const print = match.fingerprint;
      failure = `${failure} (after acting on element ${match.index} ${JSON.stringify(print?.name || print?.text || '')}${match.score !== undefined ? `, matched with score ${match.score}` : ''})`;
    }
    if (this.options.onStepFailure === 'ask-model' && this.options.llm) {
      let why: string | undefined;
      this.asking = true;
      try {
        why = await this.askModel(recorded, failure, this.options.llm);
      } finally {
        this.asking = false;
      }
      const intent = why === undefined ? await this.checkIntent(recorded) : undefined;
      const elsewhere = intent?.failure;
      const healed = intent !== undefined && elsewhere === undefined;
      const unchecked = healed ? await this.runStepChecks(recorded) : undefined;
      if (healed && unchecked === undefined) {
        return {
          report: this.report(recorded, { status: 'healed', healedBy: 'model', reason: failure, durationMs: Date.now() - started }),
          substituted,
          finalAnswer,
        };
      }
      const modelWhy = elsewhere ?? unchecked ?? why ?? '';
      failure = `${failure}; the model could not do it either: ${modelWhy}`;
      return { ...this.failedReport(recorded, failure, Date.now() - started, about), substituted, continueAfter: this.options.onModelFailure === 'skip' };
    }
    return { ...this.failedReport(recorded, failure, Date.now() - started, about), substituted };
  }

  /**
   * Finds the recorded element on the page, waiting as a Playwright locator does: the page is
   * read again until the element is there, visible, enabled and still, or `elementTimeoutMs`
   * passed. A scored match is taken only once a second reading agrees, so that an element the
   * page is still putting in place is not passed over for a look-alike. After a step that failed,
   * the browser must be on the page the recording acted on, or the element's page (its heading)
   * must be the recorded one.
   */
  private async locate(
    recorded: RecordedAction,
    offTrack: boolean,
  ): Promise<LocatedElement | { reason: string; best?: ScoredMatch | undefined; state: PageState }> {
    const fingerprint = recorded.action.fingerprint;
    const deadline = Date.now() + this.options.elementTimeoutMs;
    const recordedUrl = recorded.step.browser ? (moved(recorded.step.browser.url, this.origins) as string) : undefined;
    let previous: LocatedElement | undefined;
    for (let attempt = 0; ; attempt++) {
      const state = await this.readPage();
      const pageMoved = recordedUrl !== undefined && comparable(state.url, false) !== comparable(recordedUrl, false);
      let blocked: { reason: string; best?: ScoredMatch | undefined } | undefined;
      if (pageMoved && offTrack && !fingerprint?.record) {
        blocked = { reason: `the browser is at ${state.url}, not on the page the recording acted on (${recordedUrl ?? ''}), after a step that failed` };
      } else {
        const found = await this.findElement(fingerprint, state, pageMoved);
        if ('reason' in found) blocked = found;
        else {
          const print = found.fingerprint;
          const hidden = !print?.box || print.box.width === 0 || print.box.height === 0;
          if (hidden) blocked = { reason: `element ${found.index} ${JSON.stringify(print?.name ?? '')} is not visible` };
          else if (print?.disabled) blocked = { reason: `element ${found.index} ${JSON.stringify(print.name || print.text)} is disabled` };
          else {
            // Indices change from one reading to the next: the same element is at the same path, in the same box.
            const still = previous !== undefined && previous.fingerprint?.xpath === print.xpath && sameBox(previous.fingerprint.box, print.box);
            if (still || (found.status === 'exact' && (await this.holdsStill(found, state)))) return found;
            previous = found;
            blocked = { reason: `element ${found.index} ${JSON.stringify(print.name || print.text)} is not stable yet` };
          }
        }
      }
      if (Date.now() >= deadline) {
        if (previous && blocked.reason.endsWith('is not stable yet')) return previous; // the best there is once the time is up
        const waited = attempt > 0 ? ` (waited ${this.options.elementTimeoutMs} ms)` : '';
        return { ...blocked, reason: `${blocked.reason}${waited}`, state };
      }
      await sleep(Math.min(elementPollMs, Math.max(0, deadline - Date.now())), this.controller.signal);
    }
  }

  /** Whether a found element's box stays the same over a short while: not moving into place. */
  private async holdsStill(found: LocatedElement, state: PageState): Promise<boolean> {
    const ref = state.elements.get(found.index);
    if (!ref || !found.fingerprint?.box) return false;
    await sleep(stableCheckMs, this.controller.signal);
    const [again] = await readFingerprints(this.driver, [ref], { signal: this.controller.signal });
    return again !== undefined && sameBox(found.fingerprint.box, again.box) && again.disabled !== true;
  }

  /** The recorded element on the page now, or why it cannot be found. */
  private async findElement(
    fingerprint: ElementFingerprint | undefined,
    state: PageState,
    pageMoved: boolean,
  ): Promise<LocatedElement | { reason: string; best?: ScoredMatch | undefined }> {
    if (!fingerprint) return { reason: 'the recording has no fingerprint of the element (a history of version 1, or the page could not be read then)' };
    const refs = [...state.elements.values()];
    const prints = await readFingerprints(this.driver, refs, { signal: this.controller.signal });
    const candidates = refs.flatMap((ref, position) => {
      const print = prints[position];
      return print ? [{ index: ref.index, fingerprint: print }] : [];
    });
    const found = matchElement(fingerprint, candidates, { threshold: this.options.matchThreshold, pageMoved });
    const printOf = (index: number): ElementFingerprint | undefined => candidates.find((candidate) => candidate.index === index)?.fingerprint;
    if (found.kind === 'exact') return { index: found.index, status: 'exact', fingerprint: printOf(found.index), candidates, state };
    if (found.kind === 'healed') {
      return { index: found.index, status: 'healed', score: found.score, differences: found.differences, fingerprint: printOf(found.index), candidates, state };
    }
    const best = found.best && found.best.differences.length > 0 ? ` (what differs on element ${found.best.index}: ${found.best.differences.join('; ')})` : '';
    return {
      reason: `the recorded ${fingerprint.role ?? fingerprint.tagName} ${JSON.stringify(fingerprint.name || fingerprint.text)} was not found: ${found.reason}${best}`,
      best: found.best,
    };
  }

  /** Runs an action on `state`, bounded by the action timeout. */
  private async runAction(
    name: string,
    params: unknown,
    state: PageState,
    actionIndex: number,
    element: ElementFingerprint | undefined,
  ): Promise<ActionOutcome> {
    this.emit('action-start', 'navigator', { action: name, params, actionIndex });
    const started = Date.now();
    let outcome: ActionOutcome;
    try {
      let actual = params;
      if (!this.secrets.isEmpty && SecretStore.holdsPlaceholder(params)) {
        // The recording holds placeholders: the values go in now, for the page acted on.
        const url = (params as { url?: unknown } | null)?.url;
        const page = typeof url === 'string' ? url : (element?.frameUrl ?? (await this.driver.currentUrl({ signal: this.controller.signal })));
        actual = (await this.secrets.substitute(params, page, name)).value;
      }
      outcome = this.secrets.redactDeep(
        await this.registry.runWithOutcome(name, actual, this.actionContext(state), { timeoutMs: this.options.actionTimeoutMs }),
      );
    } catch (error) {
      const info = toErrorInfo(this.controller.signal.aborted ? this.controller.signal.reason : error);
      this.emit('action-end', 'navigator', { action: name, params, actionIndex, result: undefined, error: info, durationMs: Date.now() - started });
      throw error;
    }
    this.emit('action-end', 'navigator', {
      action: name,
      params,
      actionIndex,
      result: outcome.result.extractedContent,
      error: outcome.error,
      durationMs: Date.now() - started,
    });
    return outcome;
  }

  private recordAction(
    name: string,
    params: unknown,
    outcome: ActionOutcome,
    fingerprint: ElementFingerprint | undefined,
    started: number,
    state: PageState,
  ): void {
    const index = indexParam(params);
    const ref = index === undefined ? undefined : state.elements.get(index);
    this.recorder?.addAction({
      name,
      params,
      result: outcome.result.extractedContent,
      error: outcome.error,
      includeInMemory: outcome.result.includeInMemory ?? false,
      isDone: outcome.result.isDone ?? false,
      success: outcome.result.success,
      data: outcome.result.data,
      element: ref && index !== undefined ? { index, tagName: ref.tagName, selector: ref.selector } : undefined,
      fingerprint,
      startedAt: started,
      durationMs: Date.now() - started,
    });
  }

  private actionContext(state: PageState | undefined): ActionContext {
    return createActionContext({
      driver: this.driver,
      state,
      signal: this.controller.signal,
      // Its calls are model calls of the replay: events, usage and history, like the Navigator's.
      extractionLLM: this.options.llm ? observedExtractionClient(this.agentContext(this.options.llm, this.current.step), this.options.llm) : noModel,
      taskId: this.current.taskId,
      step: this.current.step,
      uploadPaths: this.options.uploadPaths,
      urlPolicy: this.urlPolicy,
      askHuman: unanswered,
      onUrlBlocked: (url, reason) => this.emit('url-blocked', 'navigator', { url, reason, kind: 'action' }),
    });
  }

  /**
   * Whether the browser is where the recording was after this step: `failure` says why not (another
   * URL or number of tabs), `note` that only the title differs. Nothing to say when there is
   * nothing to compare.
   */
  private async checkOutcome(recorded: RecordedAction, substituted: boolean): Promise<{ failure?: string | undefined; note?: string | undefined }> {
    const expected = recorded.expected;
    if (!this.options.checkOutcome || !expected) return {};
    const [tabs, active] = await Promise.all([this.driver.tabs({ signal: this.controller.signal }), this.driver.activeTab({ signal: this.controller.signal })]);
    // Typed values that changed change the URLs of GET forms: then only the path must match.
    const withQuery = !substituted;
    const expectedUrl = moved(expected.url, this.origins) as string;
    if (comparable(active.url, withQuery) !== comparable(expectedUrl, withQuery)) {
      return { failure: `the browser is at ${active.url}, where the recording was at ${expectedUrl}` };
    }
    if (tabs.length !== expected.tabs) return { failure: `${tabs.length} tab(s) are open, where the recording had ${expected.tabs}` };
    const title = active.title.replace(/\s+/g, ' ').trim();
    const recordedTitle = expected.title.replace(/\s+/g, ' ').trim();
    return title === recordedTitle ? {} : { note: `the page's title is ${JSON.stringify(title)}, where the recording had ${JSON.stringify(recordedTitle)}` };
  }

  /**
   * Hands one recorded step to the Navigator: it reads the page and acts once. Returns undefined
   * when its actions succeeded, else why not.
   */
  private async askModel(recorded: RecordedAction, failure: string, llm: LLMClient): Promise<string | undefined> {
    const goal = (recorded.step.modelOutput as { current_state?: { next_goal?: unknown } } | undefined)?.current_state?.next_goal;
    const task = [
      `You are replaying a recorded browser task: ${JSON.stringify(recorded.task.task)}.`,
      `One recorded action could not be done the recorded way: ${describeRecorded(recorded)}${typeof goal === 'string' && goal ? ` (its goal: ${goal})` : ''}.`,
      `Why: ${failure}.`,
      'Do what that action was for on the current page, with as few actions as needed, then stop. Do not call done.',
    ].join('\n');
    const offered = this.registry.list().filter((action) => action.name !== 'done' && !needsPerson.has(action.name));
    const context = this.agentContext(llm, recorded.step.step);
    context.messages.initTask(navigatorSystemPrompt({ maxActionsPerStep: 3, actionList: this.registry.describe() }), task);
    const recorder = new StepRecorder(this.current.taskId, this.tasks.length - 1, recorded.step.step, 'navigator');
    try {
      const result = await new NavigatorAgent(context).step(recorder, { only: offered.map((action) => action.name) });
      const record = recorder.finish();
      for (const action of record.actions) this.recorder?.addAction(action);
      const errors = result.results.filter((item) => item.error !== undefined);
      if (result.results.length === 0) return 'it chose no action';
      return errors.length > 0 ? errors.map((item) => item.error).join(' ') : undefined;
    } catch (error) {
      // With `onModelFailure: 'skip'` even a model that cannot be called fails only its step; a cancel still ends the replay.
      if (this.controller.signal.aborted || (isFatalError(error) && this.options.onModelFailure !== 'skip')) throw error;
      return `the model call failed: ${describeThrown(error)}`;
    }
  }

  /** What the Navigator (and the extraction model's events) need: the replay's browser, events and signal, with `llm`. */
  private agentContext(llm: LLMClient, step: number): AgentContext {
    const settings: AgentSettings = {
      maxSteps: 1,
      maxActionsPerStep: 3,
      useVision: false,
      useVisionForPlanner: false,
      recordScreenshots: this.options.recordScreenshots,
      modelRetry: {},
      modelTimeoutMs: 120_000,
      fallbackLLM: undefined,
      browserTimeouts: { pageState: pageStateTimeoutMs, action: this.options.actionTimeoutMs, settle: settleTimeoutMs },
      temperature: undefined,
      prices: this.options.prices,
      uploadPaths: this.options.uploadPaths,
      endTaskOnBlockedUrl: false,
    };
    return {
      taskId: this.current.taskId,
      settings,
      messages: new MessageManager({ maxInputTokens: 128_000 }),
      driver: this.driver,
      pageReader: this.reader,
      registry: this.registry,
      navigatorLLM: redactingClient(llm, this.secrets),
      plannerLLM: redactingClient(llm, this.secrets),
      extractionLLM: redactingClient(llm, this.secrets),
      urlPolicy: this.urlPolicy,
      driverGuarded: false,
      takeBlockedNavigations: () => this.blocked.splice(0),
      signal: this.controller.signal,
      nSteps: step,
      actionResults: [],
      currentState: undefined,
      emit: (name, actor, payload) => this.emit(name, actor, payload),
      checkpoint: () => (this.controller.signal.aborted ? Promise.reject(this.controller.signal.reason as Error) : Promise.resolve(false)),
      askHuman: unanswered,
      secrets: this.secrets,
    };
  }

  /** Reads the page once it settled, within the replay's deadlines. */
  private async readPage(): Promise<PageState> {
    const signal = this.controller.signal;
    const unsettled = (): PlannavError => new PlannavError('BROWSER_TIMEOUT', 'The page did not settle in time.', { retryable: true });
    await withDeadline(settleTimeoutMs, signal, unsettled, (bounded) => this.driver.waitForSettled({ signal: bounded })).catch((error: unknown) => {
      if (signal.aborted || isFatalError(error)) throw error;
    });
    const slow = (): PlannavError => new PlannavError('BROWSER_TIMEOUT', `Reading the page took longer than ${pageStateTimeoutMs} ms.`, { retryable: true });
    return withDeadline(pageStateTimeoutMs, signal, slow, (bounded) => this.reader.capture({ screenshot: this.options.recordScreenshots, signal: bounded }));
  }

  private async installGuard(): Promise<boolean> {
    const browser = this.options.browser;
    if (!this.urlPolicy.restrictive || typeof browser.setNavigationGuard !== 'function') return false;
    const guard: NavigationGuard = {
      check: (url) => this.urlPolicy.check(url),
      blocked: (navigation) => {
        this.blocked.push(navigation);
        this.emit('url-blocked', 'system', { url: navigation.url, reason: navigation.reason, kind: navigation.kind });
      },
    };
    try {
      await browser.setNavigationGuard(guard);
      return true;
    } catch (error) {
      this.emit('warning', 'system', { code: 'URL_POLICY_GUARD_FAILED', message: `The driver could not install the URL policy: ${describeThrown(error)}` });
      return false;
    }
  }

  private emit<K extends ExecutorEventName>(name: K, actor: Actor, payload: EventPayload<K>): void {
    const base: EventBase = { taskId: this.current.taskId, step: this.current.step, actor, timestamp: Date.now() };
    const event = this.secrets.redactDeep({ ...base, ...payload }) as ExecutorEventMap[K];
    if (name === 'model-call-start' && this.asking) this.modelCalls++;
    if (name === 'model-call-end') {
      const { usage, provider, model, attempt, durationMs, error } = event as ExecutorEventMap['model-call-end'];
      this.usage = addUsage(this.usage, usage);
      this.recorder?.addUsage(usage);
      this.recorder?.addModelCall({ actor: 'navigator', provider, model, attempt, usage, durationMs, error });
    }
    this.hub.emit(name, event);
  }
}

/** The usage of the calls made since `before` (the later sum minus the earlier one). */
function subtractCalls(after: TokenUsage, before: TokenUsage): TokenUsage {
  return {
    inputTokens: after.inputTokens - before.inputTokens,
    outputTokens: after.outputTokens - before.outputTokens,
    cachedInputTokens: after.cachedInputTokens - before.cachedInputTokens,
    reasoningTokens: after.reasoningTokens - before.reasoningTokens,
    totalTokens: after.totalTokens - before.totalTokens,
    calls: after.calls - before.calls,
    costUsd: after.costUsd === undefined || before.costUsd === undefined ? undefined : after.costUsd - before.costUsd,
  };
}

/** The recorded run's final answer: the last task's, else the text of its last `done`. */
function recordedAnswer(history: RunHistory): string | undefined {
  const done = history.steps
    .flatMap((step) => step.actions)
    .filter((action) => action.name === 'done' && !action.error)
    .at(-1);
  const text = done?.result ?? (done?.params as { text?: unknown } | undefined)?.text;
  return typeof text === 'string' ? text : history.tasks.filter((task) => task.finalAnswer !== undefined).at(-1)?.finalAnswer;
}

/** How an error ended the replay; undefined for none. */
function endedBy(error: PlannavError | undefined): 'failed' | 'cancelled' | 'timed-out' | undefined {
  if (!error) return undefined;
  if (TimeoutError.isInstance(error)) return 'timed-out';
  return RequestCancelledError.isInstance(error) ? 'cancelled' : 'failed';
}

function toError(error: unknown): PlannavError {
  return PlannavError.isInstance(error)
    ? error
    : new PlannavError('UNEXPECTED_ERROR', `The replay failed unexpectedly: ${describeThrown(error)}`, { cause: error });
}

/**
 * Replays a recorded run without a model: each recorded action again, its element found by
 * fingerprint, its outcome checked against the recording. See {@link ReplayOptions}.
 * @example
 * ```ts
 * const history = await loadHistory('runs/checkout.json');
 * const replay = await replayHistory(history, { browser, variables: { email: 'b@example.com' } });
 * for (const step of replay.steps) console.log(step.step, step.action, step.status, step.reason ?? '');
 * ```
 * @throws `ConfigError` for a bad option; `HistoryFormatError` for a history that is not valid.
 * @public
 */
export function replayHistory(history: RunHistory, options: ReplayOptions): Promise<ReplayResult> {
  return new HistoryReplay(history, options).run();
}
