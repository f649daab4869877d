// The Executor's options: their documented types, defaults, and the zod check at construction
// that turns a bad option into a ConfigError naming the field, before anything runs.

import { z } from 'zod';
import type { Action } from '../actions/types';
import { browserDriverProblem } from '../browser/driver-check';
import type { BrowserDriver } from '../browser/types';
import { ConfigError } from '../errors';
import type { ModelRetryOptions } from '../llm/generate-object';
import type { LLMClient } from '../llm/types';
import { modelRetryOptionsSchema } from '../llm/retry';
import type { PriceTable } from '../llm/usage';
import type { UrlPolicyOptions } from '../security/url-policy';
import type { SecretsOption } from '../security/secrets';
import { allowAllSensitiveActions, defaultSensitiveActions, type ResolvedSensitiveActions, type SensitiveActionsOptions } from '../security/sensitive-actions';
import { sitesOfEntry } from '../security/task-scope';
import { defaultTimeouts } from '../session/timeouts';

/** A question the agent asks the user, as a {@link HumanInputHandler} receives it. @public */
export interface HumanQuestion {
  /** Identifies the question, as in the `human-question` event; `executor.respond()` accepts it. */
  readonly questionId: string;
  /** The question, in the agent's words. */
  readonly question: string;
  /** The id of the task that asks. */
  readonly taskId: string;
  /** The Navigator step that asks (1-based). */
  readonly step: number;
}

/**
 * Answers the agent's questions (the `ask_human` action). Resolve with the answer, or with
 * `undefined` when there is none. Honour `signal`: it aborts on cancel and on timeout.
 * `options.timeout` is how long the question may wait, in milliseconds.
 * @public
 */
export type HumanInputHandler = (question: HumanQuestion, options: { readonly signal: AbortSignal; readonly timeout: number }) => Promise<string | undefined>;

/**
 * What an Executor needs: the task, the models, the browser and the loop's limits.
 * @public
 */
export interface ExecutorOptions<TData = unknown> {
  /** The task, in plain words. */
  readonly task: string;
  /** The Navigator's model; also the Planner's and the extraction model unless those are given. */
  readonly llm: LLMClient;
  /** The Planner's model. @defaultValue `llm` */
  readonly plannerLLM?: LLMClient | undefined;
  /**
   * An independent check of completion, off by default: when the Planner says the task is done,
   * this model judges the answer against the request and the conversation, and can send the loop
   * back with its reason (a `validation-end` event; its calls count in usage). After two
   * rejections in a task, the Planner's answer stands. Without it, the Planner alone decides.
   */
  readonly validatorLLM?: LLMClient | undefined;
  /**
   * Takes over a Planner, Navigator or validator call when that agent's model still fails after
   * its retries with a retryable error (rate limit, server error, timeout, network) or its reply
   * is cut off by the output token limit. Each switch is a `model-fallback` event and is kept in
   * the step's history (`fallbacks`). The next call tries the agent's own model again.
   */
  readonly fallbackLLM?: LLMClient | undefined;
  /** The model actions use to extract content from pages. @defaultValue `llm` */
  readonly extractionLLM?: LLMClient | undefined;
  /** The browser. The Executor never closes it: the caller owns it. */
  readonly browser: BrowserDriver;
  /**
   * Cancels the running task when aborted, like `cancel()`, for the whole session: every task
   * that runs after it aborted ends `cancelled` at once. For one task, give `execute({ signal })`.
   */
  readonly signal?: AbortSignal | undefined;
  /** Hard cap on Navigator steps per task. @defaultValue 100 */
  readonly maxSteps?: number | undefined;
  /** Failed steps in a row that end the task. @defaultValue 3 */
  readonly maxFailures?: number | undefined;
  /**
   * Gives a task that `maxSteps` or `maxFailures` ends a partial `finalAnswer` (and `data`) with
   * what was found. The last step `maxSteps` allows is told it is the last, and the `done` it
   * ends with is the answer (no Navigator call is made past `maxSteps`); after `maxFailures`, one
   * last Navigator call is made, offered only `done`. The status stays `max-steps` or `failed`
   * and `success` false.
   * @defaultValue true
   */
  readonly finalAnswerOnLimit?: boolean | undefined;
  /**
   * Notices a task going nowhere: the same actions `repeatedActions` steps in a row, or the same
   * page `unchangedPage` steps in a row although actions ran. Then the Navigator is told plainly
   * (and a `warning` event, code `REPEATED_ACTIONS` or `PAGE_UNCHANGED`, is emitted) and the
   * Planner runs before the next step, whatever `planningInterval` says. No action is ever
   * blocked. `false` turns it off.
   * @defaultValue `{ repeatedActions: 3, unchangedPage: 4 }`
   */
  readonly loopDetection?: false | { readonly repeatedActions?: number | undefined; readonly unchangedPage?: number | undefined } | undefined;
  /** The Planner runs every this many Navigator steps (and after the Navigator proposes done). @defaultValue 3 */
  readonly planningInterval?: number | undefined;
  /** At most this many actions run per Navigator step; the rest are dropped. @defaultValue 10 */
  readonly maxActionsPerStep?: number | undefined;
  /** Send a screenshot with each state. @defaultValue false */
  readonly useVision?: boolean | undefined;
  /** With `useVision`, let the Planner see the screenshot too. @defaultValue true */
  readonly useVisionForPlanner?: boolean | undefined;
  /**
   * Keep a screenshot of each step's page in the history (`RunHistory.screenshots`), for the run's
   * GIF and report, whether or not the model sees it (`useVision`). With `useVision` on, the
   * screenshots the model saw are kept anyway. @defaultValue false
   */
  readonly recordScreenshots?: boolean | undefined;
  /** Token budget of the conversation sent to a model; older turns are compacted beyond it. @defaultValue 128000 */
  readonly maxInputTokens?: number | undefined;
  /** How transient model failures (429, 5xx, network, timeouts) are retried. */
  readonly modelRetry?: ModelRetryOptions | undefined;
  /**
   * Milliseconds one model call may take (each retry has its own): passed to the client, and
   * enforced by the Executor too, so a client without a timeout of its own cannot hang a task.
   * A call that runs past it fails as a retryable `CHAT_MODEL_TIMEOUT`.
   * @defaultValue 120000
   */
  readonly modelTimeoutMs?: number | undefined;
  /**
   * Deadlines of the browser calls, in milliseconds, enforced whatever the driver does: a call
   * past its deadline is aborted and fails as a recoverable, retryable error the task survives.
   */
  readonly browserTimeouts?: BrowserTimeouts | undefined;
  /** Prices by model id: usage in events and results then carries `costUsd`. */
  readonly prices?: PriceTable | undefined;
  /** Sampling temperature for both agents, when set. */
  readonly temperature?: number | undefined;
  /** Actions added to the built-in ones; an action with a built-in's name replaces it. */
  readonly actions?: readonly Action[] | undefined;
  /** Names of built-in actions to withhold from the model. */
  readonly excludeActions?: readonly string[] | undefined;
  /**
   * Offer the `evaluate` action: the Navigator may run JavaScript of its own in the page's main
   * frame and read its value (as JSON, capped, secret-looking values masked). Powerful: a script can
   * do anything the page's own code can (read what the page holds, send forms, call its APIs), so
   * turn it on only for tasks and sites you trust. The URL policy still guards every navigation a
   * script starts.
   * @defaultValue false
   */
  readonly allowEvaluate?: boolean | undefined;
  /**
   * The shape of the structured result the `done` action must return in `data`, for every task of
   * the session. The model's data is validated (and parsed: defaults and transforms apply) before
   * the step is accepted, and `ExecutionResult.data` has the schema's output type.
   */
  readonly outputSchema?: z.ZodType<TData> | undefined;
  /** Answers the agent's questions. Without it, answer with `executor.respond()` after a `human-question` event. */
  readonly humanInput?: HumanInputHandler | undefined;
  /** How long a question waits for an answer, in milliseconds. @defaultValue 3600000 (one hour) */
  readonly humanTimeoutMs?: number | undefined;
  /** Pixels beyond the viewport whose elements are still indexed; -1 indexes the whole page. @defaultValue 0 */
  readonly viewportExpansion?: number | undefined;
  /** Element attributes shown to the model. */
  readonly includeAttributes?: readonly string[] | undefined;
  /**
   * Which URLs the browser may load, enforced on the model's navigations and, through a driver
   * that implements `setNavigationGuard`, on every navigation the browser makes (redirects,
   * popups, frames, prefetches). Without it every http(s) URL is allowed; other schemes
   * (`javascript:`, `file:`, `data:`, …) never are. See {@link UrlPolicy} for the entry syntax.
   */
  readonly urlPolicy?: ExecutorUrlPolicy | undefined;
  /**
   * Secrets the model never sees: it is told the names that apply to the current page and writes
   * `<secret>name</secret>` in an action's text; the value is put in at the last moment, only when
   * the page the action acts on matches the secret's URL pattern (else the action gets a
   * recoverable error). Values are redacted to their placeholder everywhere one could come back:
   * what the model is sent, action results and errors, events, history, the result and its errors.
   * Screenshots are not redacted (see the README).
   * @example `{ secrets: { 'https://*.bank.example': { user: 'ada', password: process.env.BANK_PASSWORD ?? '' }, otp: { totp: 'JBSWY3DPEHPK3PXP' } } }`
   */
  readonly secrets?: SecretsOption | undefined;
  /**
   * Files and folders the `upload_file` action may send (absolute paths; a folder allows every
   * file below it). Without it, `upload_file` refuses every path.
   */
  readonly uploadPaths?: readonly string[] | undefined;
  /**
   * Detection of instruction-injection patterns in page text (a fake tag of our prompt, "ignore
   * previous instructions", a fake agent output): a signal, not the defence (that is
   * `sensitiveActions` and the untrusted-content boundary, which hold whatever this finds). Found
   * patterns are flagged before a model reads the text, and an `injection-detected` event says
   * so. `flag` goes on with the task; `end-task` cancels it at once (status `cancelled`, a
   * `RequestCancelledError` that names the patterns), before the model reads the page. An article
   * that discusses prompt injection may be flagged too, so `end-task` suits tasks on sites that
   * have no reason to. `false` switches detection off (no flags, no events), to compare; page text
   * still stays inside the untrusted boundary with our tags neutralised.
   * @defaultValue `{ onDetected: 'flag' }`
   * @example `{ injectionGuard: { onDetected: 'end-task' } }`
   */
  readonly injectionGuard?: false | { readonly onDetected?: 'flag' | 'end-task' | undefined } | undefined;
  /**
   * What happens, once page content has been read in a task, to an action that crosses a trust
   * boundary: a page on a site the task does not involve (`newHost`), a URL the agent writes with
   * data in its query (`urlData`), a form sent to such a site
   * (`crossOriginForm`), a secret typed into a form that sends to another site or into a URL (`secret`), a
   * download (`download`), a `POST` form on the task's site (`submit`), and ending the task with
   * the Planner's answer (`answer`). Each kind is `allow`, `confirm` (the Planner's model is asked,
   * shown only the user's words and the action, never the page), `ask-human` (through `humanInput`
   * or `respond()`) or `refuse`; a refused action's result says so and why, and every decision is
   * a `sensitive-action` event. The task involves the sites its words name, the page it starts
   * on, `urlPolicy.allow`, `trustedHosts`, and sites reached before any page was read. `false`
   * allows everything (no extra model calls). See the README's "Trust boundaries".
   * @defaultValue `{ newHost: 'confirm', urlData: 'confirm', crossOriginForm: 'confirm', secret: 'refuse', download: 'confirm', submit: 'confirm', answer: 'confirm' }`
   * @example `{ sensitiveActions: { newHost: 'refuse', submit: 'ask-human', trustedHosts: ['pay.example'] } }`
   */
  readonly sensitiveActions?: false | SensitiveActionsOptions | undefined;
}

/** Deadlines of the browser calls an Executor makes, in milliseconds. @public */
export interface BrowserTimeouts {
  /**
   * Reading the page: a snapshot with its screenshot, the tabs, the check after an action. Past
   * it, the step fails with a `BrowserError` (code `BROWSER_TIMEOUT`). @defaultValue 30000
   */
  readonly pageState?: number | undefined;
  /**
   * One action, its driver calls, waits and (for `extract_content`) model call included. Past
   * it, the model reads an `ACTION_TIMEOUT` error and may try something else. @defaultValue 180000
   */
  readonly action?: number | undefined;
  /**
   * The wait for the page to settle before a task's first state. Past it, the page is read as it
   * is. @defaultValue 15000
   */
  readonly settle?: number | undefined;
}

/** Options of one `execute()`: they apply to that task only. @public */
export interface ExecuteOptions {
  /** Cancels this task when aborted (status `cancelled`); the constructor's `signal` covers the whole session. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Milliseconds this task may run, pauses and questions included; then what is in flight is
   * aborted and the task ends with status `timed-out` and a `TimeoutError`.
   */
  readonly timeout?: number | undefined;
}

/** The Executor's URL policy: the lists, and what a stopped navigation does. @public */
export interface ExecutorUrlPolicy extends UrlPolicyOptions {
  /**
   * `report` tells the model the page is not allowed and the task goes on; `end-task` ends the
   * task (status `failed`, a `URLNotAllowedError`) at the first stopped load of a page: a URL the
   * model asked for, a navigation, a redirect hop or a popup. A stopped frame or prefetch never
   * ends the task: the model only gets a note.
   * @defaultValue 'report'
   */
  readonly onBlocked?: 'report' | 'end-task' | undefined;
  /**
   * What the policy stops. `navigation`: every load of a page or frame (links, forms, scripts,
   * redirect hops, popups, frames, prefetches), but not what a loaded page sends by itself.
   * `all-requests`: every request as well, of every frame, worker and service worker (`fetch`,
   * XHR, images, scripts, styles, beacons, `<a ping>`), failed before it is sent and reported as
   * a `url-blocked` event of kind `request` once per host and step, with a note in the next
   * action result; such a request never ends the task. WebSocket handshakes are stopped by host (but loopback and link-local hosts)
   * in a browser the bundled drivers launched (through their local proxy), not in one you attach
   * or connect to, nor one launched with your own proxy: a `URL_POLICY_REQUESTS_NOT_ENFORCED`
   * warning says what goes unchecked at each task's start, as it does for a driver that cannot
   * check requests at all. Every request then waits for a round trip to the driver, which slows
   * pages with many requests.
   * @defaultValue 'navigation'
   * @example
   * ```ts
   * new Executor({ task, llm, browser, urlPolicy: { allow: ['shop.example'], scope: 'all-requests' } });
   * ```
   */
  readonly scope?: 'navigation' | 'all-requests' | undefined;
}

const llmClient = z.custom<LLMClient>(
  (value) =>
    typeof value === 'object' && value !== null && (value as LLMClient).specificationVersion === 'v1' && typeof (value as LLMClient).generate === 'function',
  { error: 'must be an LLMClient (specificationVersion "v1" and a generate() method)' },
);

const browserDriver = z.custom<BrowserDriver>().superRefine((value, context) => {
  const problem = browserDriverProblem(value);
  if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
});

const abortSignal = z.custom<AbortSignal>(
  (value) => typeof value === 'object' && value !== null && 'aborted' in value && typeof (value as AbortSignal).addEventListener === 'function',
  { error: 'must be an AbortSignal' },
);

const positiveInteger = z.number({ error: 'must be a number' }).int('must be an integer').positive('must be a positive integer');

const actionShape = z.custom<Action>(
  (value) => typeof value === 'object' && value !== null && typeof (value as Action).name === 'string' && typeof (value as Action).handler === 'function',
  { error: 'must be an action made with defineAction()' },
);

const sensitiveMode = z.enum(['allow', 'confirm', 'ask-human', 'refuse'], { error: 'must be "allow", "confirm", "ask-human" or "refuse"' });

const optionsSchema = z
  .object({
    task: z.string({ error: 'must be a string' }).trim().min(1, 'must not be empty'),
    llm: llmClient,
    plannerLLM: llmClient.optional(),
    extractionLLM: llmClient.optional(),
    validatorLLM: llmClient.optional(),
    fallbackLLM: llmClient.optional(),
    browser: browserDriver,
    signal: abortSignal.optional(),
    maxSteps: positiveInteger.default(100),
    maxFailures: positiveInteger.default(3),
    finalAnswerOnLimit: z.boolean({ error: 'must be a boolean' }).default(true),
    loopDetection: z
      .union([
        z.literal(false),
        z
          .object({
            repeatedActions: positiveInteger.min(2, 'must be at least 2').default(3),
            unchangedPage: positiveInteger.min(2, 'must be at least 2').default(4),
          })
          .strict(),
      ])
      .default({ repeatedActions: 3, unchangedPage: 4 }),
    planningInterval: positiveInteger.default(3),
    maxActionsPerStep: positiveInteger.default(10),
    useVision: z.boolean({ error: 'must be a boolean' }).default(false),
    useVisionForPlanner: z.boolean({ error: 'must be a boolean' }).default(true),
    recordScreenshots: z.boolean({ error: 'must be a boolean' }).default(false),
    maxInputTokens: z.number().int('must be an integer').min(1000, 'must be at least 1000').default(128_000),
    modelRetry: modelRetryOptionsSchema.default({}),
    modelTimeoutMs: positiveInteger.default(defaultTimeouts.model),
    browserTimeouts: z
      .object({
        pageState: positiveInteger.default(defaultTimeouts.pageState),
        action: positiveInteger.default(defaultTimeouts.action),
        settle: positiveInteger.default(defaultTimeouts.settle),
      })
      .strict()
      .default({ pageState: defaultTimeouts.pageState, action: defaultTimeouts.action, settle: defaultTimeouts.settle }),
    temperature: z.number().min(0, 'must be between 0 and 2').max(2, 'must be between 0 and 2').optional(),
    prices: z
      .record(
        z.string(),
        z.object({ input: z.number().nonnegative(), cachedInput: z.number().nonnegative().optional(), output: z.number().nonnegative() }).strict(),
      )
      .optional(),
    actions: z.array(actionShape).default([]),
    excludeActions: z.array(z.string()).default([]),
    allowEvaluate: z.boolean({ error: 'must be true or false' }).default(false),
    outputSchema: z.custom<z.ZodType>((value) => value instanceof z.ZodType, { error: 'must be a zod schema' }).optional(),
    humanInput: z.custom<HumanInputHandler>((value) => typeof value === 'function', { error: 'must be a function' }).optional(),
    humanTimeoutMs: positiveInteger.default(3_600_000),
    viewportExpansion: z.number().int('must be an integer').min(-1, 'must be -1 (whole page) or 0 or more').default(0),
    includeAttributes: z.array(z.string()).optional(),
    // Checked by SecretStore, which names the entry at fault.
    secrets: z.unknown().optional(),
    urlPolicy: z
      .object({
        allow: z.array(z.string({ error: 'must be a list of strings' })).optional(),
        deny: z.array(z.string({ error: 'must be a list of strings' })).optional(),
        onBlocked: z.enum(['report', 'end-task'], { error: 'must be "report" or "end-task"' }).default('report'),
        scope: z.enum(['navigation', 'all-requests'], { error: 'must be "navigation" or "all-requests"' }).default('navigation'),
      })
      .strict()
      .default({ onBlocked: 'report', scope: 'navigation' }),
    uploadPaths: z
      .array(z.string({ error: 'must be a list of strings' }).regex(/^(\/|[A-Za-z]:[\\/]|\\\\)/, 'must hold absolute paths (such as /home/me/files)'))
      .default([]),
    injectionGuard: z
      .union([z.literal(false), z.object({ onDetected: z.enum(['flag', 'end-task'], { error: 'must be "flag" or "end-task"' }).default('flag') }).strict()])
      .default({ onDetected: 'flag' })
      .transform((value) => (value === false ? { enabled: false, onDetected: 'flag' as const } : { enabled: true, onDetected: value.onDetected })),
    sensitiveActions: z
      .union([
        z.literal(false),
        z
          .object({
            newHost: sensitiveMode.optional(),
            urlData: sensitiveMode.optional(),
            crossOriginForm: sensitiveMode.optional(),
            secret: sensitiveMode.optional(),
            download: sensitiveMode.optional(),
            submit: sensitiveMode.optional(),
            answer: z
              .enum(['allow', 'confirm', 'ask-human'], { error: 'must be "allow", "confirm" or "ask-human" (a task must be able to end, so not "refuse")' })
              .optional(),
            trustedHosts: z
              .array(
                z
                  .string({ error: 'must be a list of strings' })
                  .refine((entry) => sitesOfEntry(entry).length > 0, 'must hold hosts (such as shop.example or 127.0.0.1:8080) or http(s) URLs'),
              )
              .optional(),
          })
          .strict(),
      ])
      .default({})
      .transform((value): ResolvedSensitiveActions =>
        value === false
          ? allowAllSensitiveActions
          : {
              newHost: value.newHost ?? defaultSensitiveActions.newHost,
              urlData: value.urlData ?? defaultSensitiveActions.urlData,
              crossOriginForm: value.crossOriginForm ?? defaultSensitiveActions.crossOriginForm,
              secret: value.secret ?? defaultSensitiveActions.secret,
              download: value.download ?? defaultSensitiveActions.download,
              submit: value.submit ?? defaultSensitiveActions.submit,
              answer: value.answer ?? defaultSensitiveActions.answer,
              trustedHosts: value.trustedHosts ?? [],
            },
      ),
  })
  .strict();

/** The options with every default filled in. */
export type ResolvedExecutorOptions = z.output<typeof optionsSchema>;

function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return String(value);
  return typeof value;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const key of path) current = typeof current === 'object' && current !== null ? (current as Record<PropertyKey, unknown>)[key] : undefined;
  return current;
}

const executeOptionsSchema = z
  .object({
    signal: abortSignal.optional(),
    timeout: positiveInteger.optional(),
  })
  .strict();

/** The options of one run, checked. */
export type ResolvedExecuteOptions = z.output<typeof executeOptionsSchema>;

/**
 * The ConfigError for the first issue zod found in `input`, an object of type `typeName`:
 * `Unknown <what> …` or `<What> \`field\` must be …`.
 */
function configError(error: z.ZodError, input: unknown, typeName: string, what: string, What: string): ConfigError {
  const issue = deepestIssue(error.issues[0] as z.core.$ZodIssue);
  if (issue.code === 'unrecognized_keys') {
    const prefix = issue.path.length > 0 ? `${issue.path.join('.')}.` : '';
    const field = `${prefix}${issue.keys[0] ?? ''}`;
    return new ConfigError(`Unknown ${what} \`${field}\`. Check its spelling against ${typeName}.`, { field });
  }
  const field = issue.path.join('.');
  const value = valueAt(input, issue.path);
  const got = value === undefined ? 'it is missing' : `got ${describeValue(value)}`;
  return new ConfigError(`${What} \`${field}\` ${issue.message}; ${got}.`, { field });
}

/**
 * For an option that is `false` or an object, the issue inside the object (`sensitiveActions.newHost
 * must be …`) rather than zod's "Invalid input" for the whole union; the issue itself otherwise.
 */
function deepestIssue(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code !== 'invalid_union') return issue;
  const inner = issue.errors.flat().sort((a, b) => b.path.length - a.path.length)[0];
  if (!inner || (inner.path.length === 0 && inner.code === 'invalid_value')) return issue;
  return deepestIssue({ ...inner, path: [...issue.path, ...inner.path] });
}

/**
 * Validates options and fills in the defaults.
 * @throws `ConfigError` naming the first invalid field and what it must be.
 */
export function resolveExecutorOptions(input: ExecutorOptions): ResolvedExecutorOptions {
  const parsed = optionsSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw configError(parsed.error, input, 'ExecutorOptions', 'option', 'Option');
}

/**
 * Validates the options of one `execute()`.
 * @throws `ConfigError` naming the first invalid field and what it must be.
 */
export function resolveExecuteOptions(input: ExecuteOptions | undefined): ResolvedExecuteOptions {
  if (input !== undefined && (typeof input !== 'object' || input === null)) {
    throw new ConfigError(`execute() takes an options object ({ signal, timeout }); got ${describeValue(input)}.`);
  }
  const parsed = executeOptionsSchema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  throw configError(parsed.error, input, 'ExecuteOptions (signal, timeout)', 'execute() option', 'The execute() option');
}
