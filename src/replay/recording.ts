// What a replay reads from a recording: its actions in order, the site they were on (and the one
// to use instead), the variables to put in, and how a page now compares with the recorded one.
// Plain functions over the history and page states; no browser calls.

import type { PageState } from '../browser/page-state';
import { ConfigError, PlannavError, RequestCancelledError, TimeoutError } from '../errors';
import type { ReplayStepReport } from '../events';
import type { ActionRecord, ElementFingerprint, RunHistory, StepRecord, TaskRecord } from '../history/types';
import type { LLMClient } from '../llm/types';
import type { TokenUsage } from '../llm/usage';
import { describeThrown } from '../util/describe-thrown';
import type { MatchCandidate } from './match';
import type { ReplayCheck } from './options';

/** The recorded element, found on the page now. */
export interface FoundElement {
  readonly index: number;
  readonly status: 'exact' | 'healed';
  readonly score?: number | undefined;
  readonly differences?: readonly string[] | undefined;
  readonly fingerprint: ElementFingerprint | undefined;
}

/** The recorded element found on a page read now, with that reading and its elements. */
export interface LocatedElement extends FoundElement {
  readonly state: PageState;
  readonly candidates: readonly MatchCandidate[];
}

/** How one recorded action went, and what the rest of the replay needs from it. */
export interface ActionReplay {
  readonly report: ReplayStepReport;
  /** A failed action after which the replay goes on all the same (`onModelFailure: 'skip'`). */
  readonly continueAfter?: boolean | undefined;
  /** A variable changed what was typed (or where the browser went), now or before. */
  readonly substituted: boolean;
  /** The answer of a recorded `done`. */
  readonly finalAnswer?: string | undefined;
}

/** Recorded actions that need a person: a replay cannot answer for one. */
export const needsPerson = new Set(['ask_human']);
/** Recorded actions that need a model. */
export const needsModel = new Set(['extract_content']);
/** Recorded actions that read the page: what a final answer may come from. */
export const readingActions = new Set(['search_page', 'extract_content']);
/** How often the page is read again while waiting for an element, and how long a found one must keep its box. */
export const elementPollMs = 250;
export const stableCheckMs = 80;

/** One recorded action, with where it sits in the recording and what the browser looked like after its step. */
export interface RecordedAction {
  readonly task: TaskRecord;
  readonly step: StepRecord;
  readonly action: ActionRecord;
  readonly actionIndex: number;
  /** The browser the recording found after this action's step, for its last action. */
  readonly expected: StepRecord['browser'];
}

/** The recorded actions of each task, in order. */
export function recordedActions(history: RunHistory): { task: TaskRecord; actions: RecordedAction[] }[] {
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
export interface SiteMove {
  readonly from: string;
  readonly to: string;
  /** `baseURL`'s path without its trailing `/`: `''` for a root, `/store/v2` for `https://host/store/v2/`. */
  readonly prefix: string;
}

/** The recording's origin (that of its first http(s) page) and where `baseURL` puts it, when `baseURL` is given. */
export function originMap(history: RunHistory, baseURL: string | undefined): SiteMove | undefined {
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
export function movedUrl(url: string, move: SiteMove): string {
  let rest = url.slice(move.from.length);
  if (rest === '' || /^[?#]/.test(rest)) rest = `/${rest}`;
  const { prefix } = move;
  const under = prefix === '' || rest === prefix || rest.startsWith(`${prefix}/`) || rest.startsWith(`${prefix}?`) || rest.startsWith(`${prefix}#`);
  return `${move.to}${under ? '' : prefix}${rest}`;
}

/** `value` with every string that starts with the recorded origin moved under `baseURL`. */
export function moved(value: unknown, origins: SiteMove | undefined): unknown {
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
export const fieldKey = (text: string): string => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/** Replaces `{{name}}` placeholders in every string of `value`. */
export function withPlaceholders(value: unknown, variables: Readonly<Record<string, string>>): unknown {
  if (typeof value === 'string') return value.replace(/\{\{\s*([\w.-]+)\s*\}\}/g, (whole, name: string) => variables[name] ?? whole);
  if (Array.isArray(value)) return value.map((item) => withPlaceholders(item, variables));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withPlaceholders(item, variables)]));
  }
  return value;
}

/** What kind of field a recorded action filled, when it filled one: how a variable goes in. */
export type FieldKind = 'text' | 'select' | 'checkbox' | 'radio';

export function fieldKindOf(action: ActionRecord): FieldKind | undefined {
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
export function fieldNames(action: ActionRecord, kind: FieldKind): string[] {
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
export function variableFor(action: ActionRecord, kind: FieldKind, variables: Readonly<Record<string, string>>): string | undefined {
  const names = fieldNames(action, kind).map(fieldKey);
  const key = Object.keys(variables).find((candidate) => names.includes(fieldKey(candidate)));
  return key === undefined ? undefined : variables[key];
}

export const truthy = new Set(['true', 'yes', 'on', '1', 'checked', 'y']);
export const falsy = new Set(['false', 'no', 'off', '0', 'unchecked', 'n', '']);
export function checkboxValue(value: string): boolean | undefined {
  const key = value.trim().toLowerCase();
  return truthy.has(key) ? true : falsy.has(key) ? false : undefined;
}

/**
 * Checks `variables` against the recording: each key must name a recorded field or a `{{key}}`
 * placeholder, and a checkbox's value must say checked or not.
 * @throws `ConfigError` naming the key at fault and the keys the recording knows.
 */
export function checkVariables(history: RunHistory, variables: Readonly<Record<string, string>>): void {
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
        `Variable \`${key}\` of HistoryReplay names no field the recording filled and no {{${key}}} placeholder; the recording knows ${known.length > 0 ? known.map((name) => `\`${name}\``).join(', ') : 'none'}.`,
        { field: `variables.${key}` },
      );
    }
    if (field?.kind === 'checkbox' && checkboxValue(variables[key] ?? '') === undefined) {
      throw new ConfigError(
        `Variable \`${key}\` of HistoryReplay is a checkbox: give "true" or "false" (or yes/no, on/off, 1/0, checked/unchecked), not ${JSON.stringify(variables[key])}.`,
        { field: `variables.${key}` },
      );
    }
  }
}

/** How a click on a checkbox or radio button is replayed: the state the recording left, or the one a variable asks for. */
export type Choice = { readonly kind: 'checkbox'; readonly checked: boolean } | { readonly kind: 'radio'; readonly group: string; readonly value: string };

/** The recorded parameters with the variables in: placeholders everywhere, and a filled field's value. Returns whether any changed. */
export function substitute(
  recorded: RecordedAction,
  variables: Readonly<Record<string, string>>,
): { params: unknown; changed: boolean; choice?: Choice | undefined } {
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
export function comparable(url: string, withQuery: boolean): string {
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
export function sendsForm(action: ActionRecord): boolean {
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
export function sameBox(a: ElementFingerprint['box'], b: ElementFingerprint['box']): boolean {
  if (!a || !b) return false;
  return Math.abs(a.x - b.x) < 1 && Math.abs(a.y - b.y) < 1 && Math.abs(a.width - b.width) < 1 && Math.abs(a.height - b.height) < 1;
}

/** The page's text as the model reads it, without the element markers. */
export function pageText(state: PageState): string {
  return state.elementsText
    .replace(/^\s*\*?\[\d+\]<[^>\n]*>/gm, '')
    .replace(/ \/>$/gm, '')
    .replace(/<\/?untrusted_content>/g, '');
}

export const folded = (value: string): string => value.replace(/\s+/g, ' ').trim().toLowerCase();

/** Whether `value` matches a check's string (contained, case and spaces folded) or RegExp. */
export function holds(value: string, expected: string | RegExp): boolean {
  if (typeof expected === 'string') return folded(value).includes(folded(expected));
  expected.lastIndex = 0;
  return expected.test(value);
}

/** Why `check` does not hold on the page, or undefined when it holds. */
export function checkFailure(check: ReplayCheck, page: { url: string; title: string; text: string }): string | undefined {
  const shown = (expected: string | RegExp): string => (typeof expected === 'string' ? JSON.stringify(expected) : String(expected));
  if (check.url !== undefined && !holds(page.url, check.url)) return `the URL ${page.url} does not match ${shown(check.url)}`;
  if (check.title !== undefined && !holds(page.title, check.title)) return `the title ${JSON.stringify(page.title)} does not match ${shown(check.title)}`;
  if (check.text !== undefined && !holds(page.text, check.text)) return `the page does not show ${shown(check.text)}`;
  if (check.noText !== undefined && holds(page.text, check.noText)) return `the page shows ${shown(check.noText)}`;
  return undefined;
}

export const listOf = (checks: ReplayCheck | readonly ReplayCheck[] | undefined): readonly ReplayCheck[] =>
  checks === undefined ? [] : Array.isArray(checks) ? (checks as readonly ReplayCheck[]) : [checks as ReplayCheck];

/**
 * The kind of page a URL is, for healing by intent: its origin and path, with the last segment
 * of a deeper path (the product of `/item/1`) and every segment of digits left open.
 */
export function pageKind(url: string): string {
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
export function indexParam(params: unknown): number | undefined {
  const index = (params as { index?: unknown } | null)?.index;
  return typeof index === 'number' ? index : undefined;
}

/** Describes a recorded action for the model, from its fingerprint and parameters. */
export function describeRecorded(recorded: RecordedAction): string {
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

/** The model a recorded action that needs one gets when the replay has none. */
export const noModel: LLMClient = {
  specificationVersion: 'v1',
  provider: 'none',
  model: 'none',
  generate: () => Promise.reject(new ConfigError('This replayed action needs a model: pass `llm` in the options of HistoryReplay.', { field: 'llm' })),
};

/** The usage of the calls made since `before` (the later sum minus the earlier one). */
export function subtractCalls(after: TokenUsage, before: TokenUsage): TokenUsage {
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
export function recordedAnswer(history: RunHistory): string | undefined {
  const done = history.steps
    .flatMap((step) => step.actions)
    .filter((action) => action.name === 'done' && !action.error)
    .at(-1);
  const text = done?.result ?? (done?.params as { text?: unknown } | undefined)?.text;
  return typeof text === 'string' ? text : history.tasks.filter((task) => task.finalAnswer !== undefined).at(-1)?.finalAnswer;
}

/** How an error ended the replay; undefined for none. */
export function endedBy(error: PlannavError | undefined): 'failed' | 'cancelled' | 'timed-out' | undefined {
  if (!error) return undefined;
  if (TimeoutError.isInstance(error)) return 'timed-out';
  return RequestCancelledError.isInstance(error) ? 'cancelled' : 'failed';
}

export function toError(error: unknown): PlannavError {
  return PlannavError.isInstance(error)
    ? error
    : new PlannavError('UNEXPECTED_ERROR', `The replay failed unexpectedly: ${describeThrown(error)}`, { cause: error });
}
