// act(): runs one action on any BrowserDriver, without the loop: by name (a built-in action or the
// caller's own, parameters checked by the action's schema), or by instruction (the model picks the
// action and its element; an ActionCache replays what it picked before). Always under the URL policy.

import { z } from 'zod';
import { createActionContext } from '../actions/action-context';
import { builtinActions, evaluateAction } from '../actions/builtin/index';
import { ActionRegistry } from '../actions/registry';
import type { Action, ActionResult } from '../actions/types';
import type { PageState } from '../browser/page-state';
import type { BlockedNavigation, BrowserDriver, CallOptions, ResolvedBrowserDriver } from '../browser/types';
import { ActionCache, type ActionCacheStatus } from '../cache/action-cache';
import { ActionError, ConfigError, URLNotAllowedError } from '../errors';
import type { ModelRetryOptions } from '../llm/generate-object';
import type { LLMClient } from '../llm/types';
import { emptyUsage, type TokenUsage } from '../llm/usage';
import { SecretStore, type SecretsOption } from '../security/secrets';
import { UrlPolicy, type UrlPolicyOptions } from '../security/url-policy';
import { boundedCall } from '../util/bounded-call';
import { BrowserSession, unanswered, type UrlGuard } from '../session/index';
import { actOnInstruction } from './act-instruction';
import { callOptionsShape, checkArgument, checkBrowser, describeValue, modelRetrySchema } from './options';
import { countingClient } from './usage-counter';

/**
 * What {@link act} does: one action by name, with its parameters and the page state an index refers
 * to; or an `instruction` in words, for the model to carry out with one action it picks.
 * @public
 */
export interface ActRequest {
  /**
   * The action's name: a built-in one (`click_element`, `input_text`, `go_to_url`, …, see the
   * README's table) or one of the `actions` option. Give either `action` or `instruction`.
   */
  readonly action?: string | undefined;
  /**
   * What to do, in words, as one action: the model reads the page and picks the action and its
   * element (`llm` is required). With the `cache` option, the next call with this instruction on
   * the same kind of page runs from the cache, with no model call. Give either `action` or `instruction`.
   * @example `'add the blue mug to the cart'`
   */
  readonly instruction?: string | undefined;
  /**
   * The action's parameters, checked against its zod schema (defaults filled in).
   * @defaultValue `{}`
   * @example `{ index: 4, text: 'ada@example.com' }`
   */
  readonly params?: Readonly<Record<string, unknown>> | undefined;
  /**
   * The page state an `index` parameter refers to: the one {@link observe} returned. Required when
   * the parameters hold an `index`; an index means nothing without the state it came from.
   */
  readonly state?: PageState | undefined;
}

/**
 * Options of {@link act}.
 * @public
 */
export interface ActOptions extends CallOptions {
  /**
   * Aborts the call: it rejects at once with a `RequestCancelledError`, and the action's browser
   * calls and waits are aborted.
   */
  readonly signal?: AbortSignal | undefined;
  /**
   * Milliseconds the call may take; past them it rejects with a `TimeoutError`.
   * @defaultValue no timeout
   */
  readonly timeout?: number | undefined;
  /**
   * Your own actions, beside the built-in ones; one named like a built-in replaces it.
   * @example `[defineAction({ name: 'add_to_wishlist', … })]`
   */
  readonly actions?: readonly Action[] | undefined;
  /**
   * Which URLs the action may load, as the Executor's `urlPolicy` (see {@link UrlPolicy}). It is
   * checked before the action navigates (`go_to_url`, `open_tab`, `search`); a driver with
   * `setNavigationGuard` also stops the browser's own navigations during the action (redirects,
   * link clicks, popups); on another driver a denied page the action ended on is left.
   * @defaultValue every http(s) URL
   * @example `{ allow: ['shop.example'], deny: ['admin.shop.example'] }`
   */
  readonly urlPolicy?: UrlPolicyOptions | undefined;
  /**
   * The model: with an `instruction`, the one that picks the action (required); and the model of
   * `extract_content` (and of your actions that use `context.extractionLLM`).
   * @defaultValue none: an instruction is refused, and such actions report that a model is needed
   */
  readonly llm?: LLMClient | undefined;
  /**
   * With an `instruction`: where resolved instructions are kept (see {@link ActionCache}). A hit re-finds
   * the recorded element with the replay matcher and acts without a model call; a page that changed
   * is resolved by the model again and the entry replaced. Ignored with a named `action` (`cache: 'off'`).
   * @defaultValue no cache: the model resolves every instruction
   * @example `const cache = new ActionCache(); await act(browser, { instruction: 'open the cart' }, { llm, cache });`
   */
  readonly cache?: ActionCache | undefined;
  /**
   * Secrets the model never sees, as the Executor's `secrets` option: names to values, or URL
   * patterns to such objects. The model writes `<secret>name</secret>` in an action's text and the
   * value is put in when the action runs (a named action's parameters may hold placeholders too);
   * results are redacted, and the cache stores the placeholder, never the value.
   * @defaultValue none
   * @example `{ 'https://shop.example': { password: process.env.SHOP_PASSWORD ?? '' } }`
   */
  readonly secrets?: SecretsOption | undefined;
  /**
   * With an `instruction`: pixels beyond the viewport whose elements the model is shown; `-1` shows
   * the whole page (more tokens), as `observe()`'s option.
   * @defaultValue 0
   */
  readonly viewportExpansion?: number | undefined;
  /** With an `instruction`: how transient model failures (429, 5xx, timeouts) are retried. @defaultValue 3 retries with backoff */
  readonly retry?: ModelRetryOptions | undefined;
  /**
   * Absolute paths of the files and folders `upload_file` may send; a folder allows every file below it.
   * @defaultValue none: `upload_file` refuses every path
   */
  readonly uploadPaths?: readonly string[] | undefined;
  /**
   * Allow the `evaluate` action (JavaScript of your own in the page's main frame, its value as
   * JSON). Powerful: a script can do anything the page's own code can. Without it, act() with
   * `evaluate` rejects with a `ConfigError` naming this option. The URL policy still guards every
   * navigation a script starts.
   * @defaultValue false
   */
  readonly allowEvaluate?: boolean | undefined;
}

/**
 * What {@link act} returns: the action's result as the Navigator would read it.
 * @public
 */
export interface ActResult extends ActionResult {
  /** The action's name: the one given, or the one the model (or the cache) picked for the instruction. */
  readonly action: string;
  /** The parameters the action ran with; `<secret>name</secret>` placeholders stay as written. */
  readonly params: Readonly<Record<string, unknown>>;
  /**
   * How the action cache served the call: `hit` (no model call), `miss` (no entry: the model
   * resolved the instruction and the entry was written), `healed` (the entry no longer fitted the
   * page: the model resolved it again and the entry was replaced), `off` (no cache, or a named action).
   * An entry is written only for an action that ran without error.
   */
  readonly cache: ActionCacheStatus;
  /** The model calls the call made (none on a cache hit, nor for an action that calls no model). */
  readonly usage: TokenUsage;
  /**
   * Loads the URL policy stopped during the action that did not fail it: frames and prefetches
   * (a stopped load of the page itself rejects with `URLNotAllowedError` instead).
   */
  readonly blockedNavigations: readonly BlockedNavigation[];
}

const actionShape = z.custom<Action>(
  (value) => typeof value === 'object' && value !== null && typeof (value as Action).name === 'string' && typeof (value as Action).handler === 'function',
  { error: 'must be an action made with defineAction()' },
);

const llmClient = z.custom<LLMClient>(
  (value) =>
    typeof value === 'object' && value !== null && (value as LLMClient).specificationVersion === 'v1' && typeof (value as LLMClient).generate === 'function',
  { error: 'must be an LLMClient (specificationVersion "v1" and a generate() method)' },
);

const optionsSchema = z
  .object({
    ...callOptionsShape,
    actions: z.array(actionShape, { error: 'must be a list of actions' }).default([]),
    urlPolicy: z
      .object({
        allow: z.array(z.string({ error: 'must be a list of strings' }), { error: 'must be a list of strings' }).optional(),
        deny: z.array(z.string({ error: 'must be a list of strings' }), { error: 'must be a list of strings' }).optional(),
      })
      .strict()
      .default({}),
    llm: llmClient.optional(),
    uploadPaths: z
      .array(z.string({ error: 'must be a list of strings' }).regex(/^(\/|[A-Za-z]:[\\/]|\\\\)/, 'must hold absolute paths (such as /home/me/files)'), {
        error: 'must be a list of strings',
      })
      .default([]),
    cache: z.custom<ActionCache>((value) => value instanceof ActionCache, { error: 'must be an ActionCache made with `new ActionCache()`' }).optional(),
    // Checked by SecretStore, which names the entry at fault.
    secrets: z.custom<SecretsOption>(() => true).optional(),
    viewportExpansion: z.number({ error: 'must be a number' }).int('must be an integer').min(-1, 'must be -1 (whole page) or 0 or more').default(0),
    retry: modelRetrySchema,
    allowEvaluate: z.boolean({ error: 'must be true or false' }).default(false),
  })
  .strict();

const requestSchema = z
  .object({
    action: z
      .string({ error: 'must be the name of an action, such as "click_element"' })
      .min(1, 'must be the name of an action, such as "click_element"')
      .optional(),
    instruction: z
      .string({ error: 'must be a string' })
      .trim()
      .min(1, 'must say what to do, such as "open the cart"')
      .max(2000, 'must be at most 2000 characters')
      .optional(),
    params: z.record(z.string(), z.unknown(), { error: 'must be an object of the action\u2019s parameters' }).optional(),
    state: z
      .custom<PageState>((value) => typeof value === 'object' && value !== null && (value as PageState).elements instanceof Map, {
        error: 'must be a page state returned by observe()',
      })
      .optional(),
  })
  .strict();

/** The built-in actions, made once: they hold no state of their own. */
let builtins: readonly Action[] | undefined;

function registryWith(actions: readonly Action[], allowEvaluate: boolean): ActionRegistry {
  builtins ??= builtinActions();
  return new ActionRegistry([...builtins, ...(allowEvaluate ? [evaluateAction] : []), ...actions]);
}

/** `name (type): description; …` of an action's parameters, as the Navigator's prompt lists them. */
function parametersOf(action: Action): string {
  const line = new ActionRegistry([action]).describe();
  const at = line.lastIndexOf(' Parameters: ');
  return at < 0 ? 'no parameters' : line.slice(at + ' Parameters: '.length).replace(/\.$/, '');
}

/**
 * Checks the parameters against the action's schema, and an `index` against the state.
 * @throws `ConfigError` naming the parameter (`params.index`) and what the action takes.
 */
function checkParams(action: Action, params: Readonly<Record<string, unknown>>, state: PageState | undefined): void {
  const takes = `${action.name} takes: ${parametersOf(action)}.`;
  const known = Object.keys(action.schema.shape);
  const unknown = Object.keys(params).find((key) => !known.includes(key));
  if (unknown !== undefined) {
    throw new ConfigError(`Unknown parameter \`${unknown}\` of action ${action.name}. ${takes}`, { field: `params.${unknown}` });
  }
  const parsed = action.schema.safeParse(params);
  if (!parsed.success) {
    const issue = parsed.error.issues[0] as z.core.$ZodIssue;
    const path = issue.path.map(String);
    const field = ['params', ...path].join('.');
    const value = path.reduce<unknown>(
      (current, key) => (typeof current === 'object' && current !== null ? (current as Record<string, unknown>)[key] : undefined),
      params,
    );
    const got = value === undefined ? 'it is missing' : `got ${describeValue(value)}`;
    throw new ConfigError(`Parameter \`${path.join('.') || '(root)'}\` of action ${action.name}: ${issue.message}; ${got}. ${takes}`, { field });
  }
  const index = (parsed.data as { index?: unknown }).index;
  if (typeof index !== 'number') return;
  if (!state) {
    throw new ConfigError(
      `Action ${action.name} acts on the element with index ${index}, and an index only means something in the page state it came from: pass the \`state\` that observe() returned, as act(browser, { action, params, state }).`,
      { field: 'state' },
    );
  }
  if (!state.elements.has(index)) {
    const indexes = [...state.elements.keys()];
    const has = indexes.length === 0 ? 'it has no indexed elements' : `its indexes are ${Math.min(...indexes)} to ${Math.max(...indexes)}`;
    throw new ConfigError(`There is no element with index ${index} in the given state (${has}). Use an index from state.elementsText.`, {
      field: 'params.index',
    });
  }
}

/** The extraction model when none was given: every call says how to give one. */
const missingModel: LLMClient = {
  specificationVersion: 'v1',
  provider: 'none',
  model: 'none',
  generate: () => Promise.reject(new ConfigError('This action needs a model: pass `llm` in the options of act().', { field: 'llm' })),
};

/** Without a guard in the driver: a denied page the action ended on is left, and reported. */
async function leaveDeniedPage(
  driver: ResolvedBrowserDriver,
  policy: UrlPolicy,
  before: { url: string; id: string },
  blocked: BlockedNavigation[],
  signal: AbortSignal,
): Promise<void> {
  const now = await driver.activeTab({ signal });
  if (now.url === before.url && now.id === before.id) return;
  const verdict = policy.check(now.url);
  if (verdict.allowed) return;
  blocked.push({ url: now.url, reason: verdict.reason, kind: 'navigation', tabId: now.id });
  await driver.goBack({ signal }).catch(() => driver.goto('about:blank', { signal }).catch(() => undefined));
}

/** A stopped load of the page itself, as opposed to a frame or a prefetch. */
const isPageLoad = (navigation: BlockedNavigation): boolean =>
  navigation.kind === 'navigation' || navigation.kind === 'redirect' || navigation.kind === 'popup';

/** `llm` with every known secret value in its requests replaced by its placeholder; `llm` itself when there is no secret. */
function redactingModel(llm: LLMClient, secrets: SecretStore): LLMClient {
  if (secrets.isEmpty) return llm;
  return {
    specificationVersion: llm.specificationVersion,
    provider: llm.provider,
    model: llm.model,
    supportsImages: llm.supportsImages,
    generate: (request) =>
      llm.generate({
        ...request,
        messages: request.messages.map((message) =>
          typeof message.content === 'string'
            ? { ...message, content: secrets.redact(message.content) }
            : { role: 'user', content: message.content.map((part) => (part.type === 'text' ? { ...part, text: secrets.redact(part.text) } : part)) },
        ),
      }),
  };
}

/** The address of the page an action acts on, for the secrets it may use: the URL it loads, its element's frame, or the page. */
async function pageOf(
  driver: ResolvedBrowserDriver,
  params: Readonly<Record<string, unknown>>,
  state: PageState | undefined,
  signal: AbortSignal,
): Promise<string> {
  if (typeof params.url === 'string') return params.url;
  const ref = typeof params.index === 'number' ? state?.elements.get(params.index) : undefined;
  if (ref) {
    const frame = (await driver.frames({ signal })).find((item) => item.id === ref.frameId);
    if (frame) return frame.url;
  }
  return state?.url ?? driver.currentUrl({ signal });
}

/**
 * Runs one action on any {@link BrowserDriver}, without the loop: by name (a built-in action or
 * one of `options.actions`, its parameters checked by the action's schema), or by `instruction`
 * (the model picks the action and its element on the page; with `options.cache`, the next call on the
 * same kind of page runs from the cache with no model call). Always under the URL policy.
 *
 * @remarks
 * An `index` parameter refers to an element of `request.state`, the state {@link observe}
 * returned; act() reads no page of its own for it (when the state is stale, the action reports
 * that the element is gone). An `instruction` reads the page itself (settled, as the Navigator
 * reads it) and asks `options.llm` for one action; when the page lacks what it needs, the model
 * answers that it cannot and the result's `error` says why. A misused call rejects; what the page
 * does is reported:
 *
 * - an unknown action, parameters its schema refuses, an index without a state or not in it,
 *   both or neither of `action` and `instruction`, an instruction without `llm`, a bad option, a
 *   driver in use: `ConfigError` naming the field (`action`, `params.index`, `state`, `llm`,
 *   `browser`, …), before the browser is touched;
 * - a URL the policy denies, asked for by the action or loaded by the browser during it (a
 *   link, a redirect, a popup): `URLNotAllowedError` (a denied page is not left loaded);
 * - a failure the page explains (the element is gone, nothing to go back to): the result's
 *   `error`, the recoverable message the Navigator would read;
 * - the model failing (after retries) or answering unusably: the `ChatModelError` (no action runs);
 * - `signal`: `RequestCancelledError`, at once; `timeout`: `TimeoutError`.
 *
 * A cache hit never acts on an element the replay matcher did not find again plainly: when the
 * recorded element is gone, ambiguous, changed or only similar (another product's button in its
 * place), the model is asked instead, and `result.cache` is `healed`.
 *
 * A driver runs one task at a time: act() on a driver that an Executor task or another act()
 * is using rejects with a `ConfigError` (field `browser`), since each installs its own URL policy
 * in the driver. The guard an Executor keeps on the driver between its tasks gives way to act()'s
 * own policy (or to none) during the call, and is back when it ends. Handlers get `taskId` `act`
 * and `step` 1, and `ask_human` gets no answer.
 *
 * @example
 * ```ts
 * const state = await observe(browser);
 * const result = await act(browser, { action: 'input_text', params: { index: 2, text: 'ada@example.com' }, state });
 * if (result.error) console.warn(result.error);
 * await act(browser, { action: 'go_to_url', params: { url: 'https://shop.example/cart' } }, { urlPolicy: { allow: ['shop.example'] } });
 *
 * const cache = new ActionCache();
 * const added = await act(browser, { instruction: 'add the blue mug to the cart' }, { llm, cache });
 * console.log(added.action, added.cache, added.usage.totalTokens); // click_element miss 220
 * ```
 * @public
 */
export async function act(browser: BrowserDriver, request: ActRequest, options: ActOptions = {}): Promise<ActResult> {
  checkBrowser(browser, 'act()');
  const checkedRequest = checkArgument(requestSchema, request, 'the request of act()', 'Field');
  const checked = checkArgument(optionsSchema, options, 'act()');
  const instruction = checkedRequest.instruction;
  if ((instruction === undefined) === (checkedRequest.action === undefined)) {
    throw new ConfigError(
      instruction === undefined
        ? 'act() needs either `action` (an action by name, such as "click_element") or `instruction` (what to do, in words).'
        : 'act() takes either `action` or `instruction`, not both: an instruction lets the model pick the action.',
      { field: 'action' },
    );
  }
  if (instruction !== undefined) {
    const extra = (['params', 'state'] as const).find((field) => checkedRequest[field] !== undefined);
    if (extra) {
      throw new ConfigError(
        `Field \`${extra}\` of the request of act() goes with \`action\`: with an \`instruction\`, act() reads the page and the model picks the parameters.`,
        {
          field: extra,
        },
      );
    }
    if (!checked.llm) throw new ConfigError('act() with an `instruction` needs a model to carry it out: pass `llm` in its options.', { field: 'llm' });
  }
  const secrets = new SecretStore(checked.secrets);
  const policy = new UrlPolicy(checked.urlPolicy);
  const names = checked.actions.map((item) => item.name);
  const repeated = [...new Set(names.filter((name, index) => names.indexOf(name) !== index))];
  if (repeated.length > 0) {
    throw new ConfigError(
      `Option \`actions\` of act() has more than one action named ${repeated.map((name) => `"${name}"`).join(', ')}: give each action its own name (one named like a built-in replaces the built-in).`,
      { field: 'actions' },
    );
  }
  if (checkedRequest.action === evaluateAction.name && !checked.allowEvaluate && !names.includes(evaluateAction.name)) {
    throw new ConfigError(
      'Action evaluate runs JavaScript of your own in the page, which is off by default: pass `allowEvaluate: true` in the options of act() to allow it.',
      { field: 'allowEvaluate' },
    );
  }
  const registry = registryWith(checked.actions, checked.allowEvaluate);
  const action = checkedRequest.action === undefined ? undefined : registry.get(checkedRequest.action);
  if (checkedRequest.action !== undefined && !action) {
    const names = registry.list().map((item) => item.name);
    throw new ConfigError(`Unknown action "${checkedRequest.action}". Available actions: ${names.join(', ')}. Add your own with the \`actions\` option.`, {
      field: 'action',
    });
  }
  const params = checkedRequest.params ?? {};
  if (action) checkParams(action, params, checkedRequest.state);
  const model = checked.llm ? countingClient(redactingModel(checked.llm, secrets)) : undefined;
  // The reader is observe()'s: a state it reads for an action limited to some pages numbers the elements as observe() does.
  const session = new BrowserSession(browser, {
    sharedReader: true,
    reader: instruction === undefined ? undefined : { viewportExpansion: checked.viewportExpansion },
  });
  const { driver } = session;
  // One task or act() at a time per driver: each installs its own URL policy in it.
  const release = session.lease({ what: 'act()' });

  const blocked: BlockedNavigation[] = [];
  // An Executor's guard kept on the driver between its tasks: lifted for this call, put back after.
  let guard: UrlGuard | undefined;
  const removeGuard = async (): Promise<void> => guard?.release();
  try {
    return await boundedCall('act()', checked, async (signal) => {
      guard = session.urlGuard(policy, { check: (url) => policy.check(url), blocked: (navigation) => blocked.push(navigation) }, signal, 'lift');
      // A driver whose install fails is treated as one without a guard, as the Executor does: the page is checked after the action.
      const { guarded } = await guard.install();
      /** Runs one action on `state` with its secrets put in; a denied page it ended on is left. */
      const run = async (name: string, actionParams: Readonly<Record<string, unknown>>, state: PageState | undefined): Promise<ActionResult> => {
        const before = !guarded && policy.restrictive ? await driver.activeTab({ signal }) : undefined;
        const context = createActionContext({
          driver,
          state,
          signal,
          extractionLLM: model?.client ?? missingModel,
          taskId: 'act',
          step: 1,
          uploadPaths: checked.uploadPaths,
          urlPolicy: policy,
          askHuman: unanswered,
          onUrlBlocked: (url, reason) => blocked.push({ url, reason, kind: 'navigation' }),
        });
        let actual: unknown = actionParams;
        if (SecretStore.holdsPlaceholder(actionParams)) {
          try {
            actual = (await secrets.substitute(actionParams, await pageOf(driver, actionParams, state, signal), name)).value;
          } catch (error) {
            if (!ActionError.isInstance(error)) throw error;
            return { error: error.message, includeInMemory: true };
          }
        }
        const result = secrets.redactDeep(await registry.run(name, actual, context));
        if (before) await leaveDeniedPage(driver, policy, before, blocked, signal);
        return result;
      };
      try {
        let outcome: { result: ActionResult; action: string; params: Readonly<Record<string, unknown>>; cache: ActionCacheStatus };
        if (instruction !== undefined && model) {
          outcome = await actOnInstruction({
            instruction,
            llm: model.client,
            usage: () => model.usage(),
            cache: checked.cache,
            secrets,
            registry,
            session,
            signal,
            retry: checked.retry,
            run,
          });
        } else {
          const named = action as Action;
          // An action limited to some pages is judged on the state it gets: without one, read the page.
          const state = checkedRequest.state ?? (named.urlPatterns ? await session.reader.capture({ screenshot: false, signal }) : undefined);
          outcome = { result: await run(named.name, params, state), action: named.name, params, cache: 'off' };
        }
        const stopped = blocked.find(isPageLoad);
        if (stopped) {
          throw new URLNotAllowedError(
            stopped.url,
            `act(): the URL policy stopped ${outcome.action} from loading ${stopped.url} (${stopped.kind}): ${stopped.reason}.`,
          );
        }
        return {
          ...outcome.result,
          action: outcome.action,
          params: outcome.params,
          cache: outcome.cache,
          usage: model?.usage() ?? emptyUsage,
          blockedNavigations: blocked,
        };
      } finally {
        await removeGuard();
      }
    });
  } catch (error) {
    // Cancelled or timed out, the action may still be stuck in the driver: the policy goes now,
    // without waiting, so the rejection stays prompt.
    void removeGuard();
    throw error;
  } finally {
    release();
  }
}
