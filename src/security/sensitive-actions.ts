// Actions that cross a trust boundary once page content has been read: which they are, and what
// the `sensitiveActions` option says to do with each kind. Pure: no browser, no model, no Node
// API. The Navigator asks `classifyAction` before an action runs; the gate in agents/ decides.

import type { SensitiveActionKind } from '../events';
import { siteOf, type TaskScope } from './task-scope';

export type { SensitiveActionKind } from '../events';

/**
 * What happens to a sensitive action once page content has been read: `allow` runs it; `confirm`
 * asks the Planner model, shown only the user's own task and the action (never the page), whether
 * the task calls for it; `ask-human` asks a person through the human-in-the-loop (`humanInput` or
 * `respond()`); `refuse` does not run it and the action result says why.
 * @public
 */
export type SensitiveActionMode = 'allow' | 'confirm' | 'ask-human' | 'refuse';

/**
 * The `sensitiveActions` option: a mode per kind of action (see {@link SensitiveActionKind}), and
 * hosts the task may always reach. A decision is an event (`sensitive-action`) either way.
 * @public
 */
export interface SensitiveActionsOptions {
  /** A page on a site the task does not involve. @defaultValue 'confirm' */
  readonly newHost?: SensitiveActionMode | undefined;
  /** A URL the agent writes itself with data in its query, on a site the task involves. @defaultValue 'confirm' */
  readonly urlData?: SensitiveActionMode | undefined;
  /** A form that sends to a site the task does not involve. @defaultValue 'confirm' */
  readonly crossOriginForm?: SensitiveActionMode | undefined;
  /** A secret typed into a form that sends to another site than the page's. @defaultValue 'refuse' */
  readonly secret?: SensitiveActionMode | undefined;
  /** A file download. @defaultValue 'confirm' */
  readonly download?: SensitiveActionMode | undefined;
  /** A `POST` form sent on a site the task involves. @defaultValue 'confirm' */
  readonly submit?: SensitiveActionMode | undefined;
  /**
   * The Planner's final answer of a web task. `refuse` is not offered: a task must be able to
   * end. An answer the check turns down sends the agents back to work, with the reason.
   * @defaultValue 'confirm'
   */
  readonly answer?: Exclude<SensitiveActionMode, 'refuse'> | undefined;
  /**
   * Hosts the task involves besides those its words name, the page it starts on and
   * `urlPolicy.allow`: `shop.example` (with its subdomains), `127.0.0.1:8080`, or a URL.
   */
  readonly trustedHosts?: readonly string[] | undefined;
}

/** The options with every default filled in. */
export interface ResolvedSensitiveActions {
  readonly newHost: SensitiveActionMode;
  readonly urlData: SensitiveActionMode;
  readonly crossOriginForm: SensitiveActionMode;
  readonly secret: SensitiveActionMode;
  readonly download: SensitiveActionMode;
  readonly submit: SensitiveActionMode;
  readonly answer: Exclude<SensitiveActionMode, 'refuse'>;
  readonly trustedHosts: readonly string[];
}

/** The defaults: every boundary checked, a secret never sent to another site. */
export const defaultSensitiveActions: ResolvedSensitiveActions = {
  newHost: 'confirm',
  urlData: 'confirm',
  crossOriginForm: 'confirm',
  secret: 'refuse',
  download: 'confirm',
  submit: 'confirm',
  answer: 'confirm',
  trustedHosts: [],
};

/** Every mode `allow`: the policy off (what the Executor did before it existed). */
export const allowAllSensitiveActions: ResolvedSensitiveActions = {
  newHost: 'allow',
  urlData: 'allow',
  crossOriginForm: 'allow',
  secret: 'allow',
  download: 'allow',
  submit: 'allow',
  answer: 'allow',
  trustedHosts: [],
};

/** The option key of each kind. */
export const sensitiveActionOption: Readonly<Record<SensitiveActionKind, Exclude<keyof ResolvedSensitiveActions, 'trustedHosts'>>> = {
  'new-host': 'newHost',
  'url-data': 'urlData',
  'cross-origin-form': 'crossOriginForm',
  secret: 'secret',
  download: 'download',
  submit: 'submit',
  answer: 'answer',
};

/**
 * What the page says about the element an action targets, read just before the action runs.
 * Every URL is absolute (resolved against the document).
 */
export interface ActionTarget {
  /** The element's tag name, lower case. */
  readonly tagName: string;
  /** The URL a link (or an element inside one) goes to. */
  readonly href?: string | undefined;
  /** The link has a `download` attribute. */
  readonly download?: boolean | undefined;
  /** Clicking the element submits its form (a submit button or input, or an image input). */
  readonly submits?: boolean | undefined;
  /** Where the element's form sends (its `action`, or the button's `formaction`). */
  readonly formAction?: string | undefined;
  /** How the form sends: `get`, `post` or `dialog`. */
  readonly formMethod?: string | undefined;
  /** The element's visible label, at most 100 characters (page text: show it as data). */
  readonly label?: string | undefined;
}

/** An action that needs a decision, with what it would reach. */
export interface SensitiveRequest {
  readonly kind: SensitiveActionKind;
  /** The action's name (`click_element`, `go_to_url`, … or `done` for an answer). */
  readonly action: string;
  /** The URL it would load or send to, decoded for reading. */
  readonly url?: string | undefined;
  /** The element's label (page text), when it acts on an element. */
  readonly label?: string | undefined;
  /** What it would do, in our words, for the model, the event and the person asked. */
  readonly description: string;
}

// File types a browser saves rather than shows: what a link to one does is a download.
const downloadExtensions =
  /\.(?:exe|msi|msix|dmg|pkg|app|apk|aab|ipa|deb|rpm|appimage|snap|jar|bat|cmd|com|scr|ps1|psm1|vbs|vbe|wsf|hta|lnk|reg|sh|bash|run|bin|iso|img|zip|rar|7z|tar|gz|tgz|bz2|xz|zst|cab|pdf|docx?|docm|xlsx?|xlsm|pptx?|pptm|odt|ods|rtf|csv|torrent|dll|so|dylib)$/i;

/** Whether loading `url` saves a file: its path ends in a file type browsers download. */
export function looksLikeDownload(url: string): boolean {
  try {
    const parsed = new URL(url);
    return downloadExtensions.test(decodeURIComponent(parsed.pathname));
  } catch {
    return false;
  }
}

/** A URL as a person reads it: percent-escapes decoded where that is valid, else as written. */
export function readableUrl(url: string): string {
  try {
    return decodeURI(url);
  } catch {
    return url;
  }
}

function sameSite(first: string, second: string): boolean {
  const a = siteOf(first);
  const b = siteOf(second);
  return a !== undefined && a === b;
}

/** What classifying an action needs. */
export interface ClassifyInput {
  /** The action's name. */
  readonly action: string;
  /** The URL the action loads by itself (`go_to_url`, `open_tab`, `search`), already completed. */
  readonly url?: string | undefined;
  /** The element the action targets, as the page describes it. */
  readonly target?: ActionTarget | undefined;
  /** The action types a secret (`<secret>name</secret>`). */
  readonly typesSecret?: boolean | undefined;
  /** The URL of the page the action acts on. */
  readonly pageUrl: string;
  /** The sites the task involves. */
  readonly scope: TaskScope;
}

/**
 * The boundary an action crosses, or undefined when it crosses none. One action may cross
 * several (a link to a file on another site): the first that applies, in the order new host,
 * download, cross-site form, secret, submit, is the one asked about; a decision that allows a new
 * host adds it to the task, so the next boundary is asked about on the next attempt.
 */
export function classifyAction(input: ClassifyInput): SensitiveRequest | undefined {
  const { action, target, scope } = input;
  const label = target?.label?.trim() ? target.label.trim() : undefined;
  const named = label ? ` ${JSON.stringify(label)}` : '';
  const loads = input.url ?? (target?.href && !target.submits ? target.href : undefined);
  if (input.url !== undefined && /<secret>/i.test(input.url)) {
    return { kind: 'secret', action, url: readableUrl(input.url), description: `${action} writes a secret into the address ${readableUrl(input.url)}` };
  }
  if (loads !== undefined) {
    const url = readableUrl(loads);
    if (!scope.involves(loads)) {
      const data = hasQueryData(loads) ? ', sending data in its address' : '';
      const how = input.url ? `${action} loads` : `the link${named} goes to`;
      return {
        kind: 'new-host',
        action,
        url,
        label,
        description: `${how} ${url}, on ${siteOf(loads) ?? 'another site'}, a site the task does not involve${data}`,
      };
    }
    if (target?.download || looksLikeDownload(loads)) {
      return { kind: 'download', action, url, label, description: `${input.url ? action : `the link${named}`} downloads the file ${url}` };
    }
    // Data the agent put into an address itself (a search engine's query is the search: new-host
    // covers it); a link the page offers is the page's own.
    if (input.url !== undefined && action !== 'search' && hasQueryData(loads)) {
      return { kind: 'url-data', action, url, description: `${action} loads ${url}, sending data in its address` };
    }
  }
  if (target?.download && !target.href) return { kind: 'download', action, label, description: `the element${named} downloads a file` };
  const formAction = target?.formAction;
  if (formAction !== undefined && (target?.submits || input.typesSecret)) {
    const url = readableUrl(formAction);
    if (target?.submits && !scope.involves(formAction)) {
      return {
        kind: 'cross-origin-form',
        action,
        url,
        label,
        description: `the button${named} sends a form to ${url}, on ${siteOf(formAction) ?? 'another site'}, a site the task does not involve`,
      };
    }
    if (input.typesSecret && !sameSite(formAction, input.pageUrl)) {
      return { kind: 'secret', action, url, label, description: `a secret is typed into a form that sends to ${url}, another site than the page's` };
    }
    if (target?.submits && (target.formMethod ?? 'get').toLowerCase() === 'post') {
      return { kind: 'submit', action, url, label, description: `the button${named} sends a form (POST ${url})` };
    }
  }
  return undefined;
}

/**
 * The request of an action whose target cannot be read before it runs: a click at page coordinates lands on whatever
 * the page draws there, and `evaluate` runs the model's own JavaScript. Either may send a form, so each passes the gate
 * as a form's submit does; undefined for any other action.
 */
export function classifyBlindAction(action: string, params: Readonly<Record<string, unknown>>): SensitiveRequest | undefined {
  if (action === 'click_coordinates') {
    const at = `(${String(params.x)}, ${String(params.y)})`;
    return { kind: 'submit', action, description: `${action} clicks at ${at} on whatever the page shows there, which may send a form` };
  }
  if (action === 'evaluate') return { kind: 'submit', action, description: `${action} runs JavaScript in the page, which may send a form or data` };
  return undefined;
}

function hasQueryData(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.search.length > 1 || parsed.hash.length > 1;
  } catch {
    return false;
  }
}
