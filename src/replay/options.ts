// The options and the result of a replay, and the check of the options: what a caller gives
// HistoryReplay and what it gets back.

import { z } from 'zod';
import type { Action } from '../actions/types';
import { browserDriverProblem } from '../browser/driver-check';
import type { BrowserDriver } from '../browser/types';
import type { PlannavError } from '../errors';
import type { ReplayStepReport } from '../events';
import type { RunHistory } from '../history/types';
import type { LLMClient } from '../llm/types';
import type { PriceTable, TokenUsage } from '../llm/usage';
import type { SecretsOption } from '../security/secrets';
import type { UrlPolicyOptions } from '../security/url-policy';
import { defaultTimeouts } from '../session/timeouts';

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
 * await new HistoryReplay(history, { browser, expect: { steps: { 3: { url: /\/cart$/ } }, end: { text: "Thank you" } } }).run();
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
export const optionsSchema = z
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
    actionTimeoutMs: positive.default(defaultTimeouts.action),
    prices: z.record(z.string(), z.object({ input: z.number(), cachedInput: z.number().optional(), output: z.number() })).optional(),
    uploadPaths: z.array(z.string()).default([]),
    secrets: z.unknown().optional(),
  })
  .strict();

export type ResolvedOptions = z.output<typeof optionsSchema>;
