// The Navigator: sees the current page, chooses up to maxActionsPerStep actions and runs them in
// order. Its `done` is a proposal the Planner checks; unknown or invalid actions become results.

import { z } from 'zod';
import type { ActionOutcome } from '../actions/registry';
import { createActionContext } from '../actions/action-context';
import type { Action, ActionContext, ActionResult } from '../actions/types';
import type { BlockedNavigation } from '../browser/types';
import { readFingerprints } from '../dom/fingerprint';
import { describePageChange, type PageBaseline } from '../dom/page-changes';
import { ActionError, BrowserError, URLNotAllowedError } from '../errors';
import { toErrorInfo } from '../history/error-info';
import type { StepRecorder } from '../history/step-recorder';
import type { ElementFingerprint } from '../history/types';
import { generateObject } from '../llm/generate-object';
import { hasImages, withoutImages } from '../llm/images';
import { toModelJsonSchema, type JSONSchema } from '../llm/json-schema';
import { buildStateMessage, untrustedResult } from '../prompts/state-message';
import { guardModelOutput } from '../security/injection-guard';
import { InjectionReportFilter, setInjectionReporter, type InjectionDetection } from '../security/injection-report';
import { SecretStore } from '../security/secrets';
import { classifyAction, classifyBlindAction, readableUrl, type ActionTarget, type SensitiveRequest } from '../security/sensitive-actions';
import { normalizeUrl, searchUrl } from '../actions/builtin/navigation';
import { readActionTarget } from './action-target';
import { refusalMessage } from './sensitive-action-gate';
import { withDeadline } from '../util/deadline';
import { secretStateMessage } from './secret-guard';
import type { AgentContext } from './agent-context';
import { navigatorOutputSchema, type NavigatorOutput } from './navigator-output';
import { agentCallOptions, observedExtractionClient, pageStateTimeout } from './agent-context';

/** What one Navigator step did. */
export interface NavigatorStepResult {
  readonly output: NavigatorOutput;
  readonly results: readonly ActionResult[];
  /** The step proposed that the task is done. */
  readonly done: boolean;
  /** With `done`: the success flag the Navigator gave. */
  readonly success: boolean | undefined;
  /** With `done`: the data the `done` action returned. */
  readonly data: unknown;
  /** Every action that ran returned an error: the step made no progress. */
  readonly allActionsFailed: boolean;
}

function firstEntry(item: Record<string, unknown>): [string, unknown] {
  return Object.entries(item)[0] ?? ['', undefined];
}

/** The Navigator agent. */
export class NavigatorAgent {
  /** The output JSON Schema for each set of offered actions (actions limited to URL patterns come and go with the page). */
  private readonly jsonSchemas = new Map<string, JSONSchema>();

  /** With `endTaskOnBlockedUrl`: the URLs the model asked for that the policy denied during the current action. */
  private readonly actionBlocks: BlockedNavigation[] = [];

  /** The task's first state waited for the page to settle. */
  private settledOnce = false;

  /** What the injection guard already reported in this step. */
  private readonly injectionReports = new InjectionReportFilter();

  constructor(private readonly context: AgentContext) {}

  /** Reports what the injection guard found, once per step, place, URL and pattern. */
  private reportInjection(detection: InjectionDetection): void {
    if (this.context.settings.detectInjections === false) return;
    const fresh = this.injectionReports.take(this.context.nSteps, detection);
    if (fresh) this.context.emit('injection-detected', 'navigator', fresh);
  }

  private jsonSchemaFor(actions: readonly Action[]): JSONSchema {
    const key = actions.map((action) => action.name).join(',');
    let schema = this.jsonSchemas.get(key);
    if (!schema) {
      schema = toModelJsonSchema(
        z.object({
          current_state: z.object({
            evaluation_previous_goal: z.string(),
            memory: z.string(),
            next_goal: z.string(),
          }),
          action: z.array(this.context.registry.itemSchema(actions)).min(1).max(this.context.settings.maxActionsPerStep),
        }),
      );
      this.jsonSchemas.set(key, schema);
    }
    return schema;
  }

  /**
   * Adds the current browser state to the conversation, unless this iteration already did.
   * Results kept in memory become permanent messages first; the others appear once, in the state.
   * `upcomingStep` is the number of the Navigator step this state is for.
   */
  async addStateMessageToMemory(upcomingStep: number): Promise<void> {
    const { context } = this;
    if (context.messages.hasStateMessage()) return;
    const transient: ActionResult[] = [];
    for (const result of context.actionResults) {
      if (!result.includeInMemory) {
        transient.push(result);
        continue;
      }
      // Results quote pages: inside the untrusted boundary, like the page itself.
      if (result.extractedContent) context.messages.addActionResult(untrustedResult('Action result', result.extractedContent));
      if (result.error) context.messages.addActionResult(untrustedResult('Action error', result.error));
    }
    context.actionResults = [];
    // Every later state follows an action that waited for the page to settle; the first one of a
    // task follows whatever the app did before (a goto that returned at commit, a page still
    // rendering), so it waits the same way.
    const settle = !this.settledOnce;
    this.settledOnce = true;
    const state = await context.readPage({ screenshot: context.settings.useVision || context.settings.recordScreenshots, settle });
    context.currentState = state;
    context.gate?.pageShown(state.url, state.elementsText.trim() !== '' || state.title.trim() !== '' || transient.length > 0);
    const message = buildStateMessage({
      state,
      step: upcomingStep,
      maxSteps: context.settings.maxSteps,
      transientResults: transient,
      includeScreenshot: context.settings.useVision,
      detectInjections: context.settings.detectInjections,
      onInjection: (url, findings) => this.reportInjection({ url, source: 'state', findings }),
    });
    context.messages.addStateMessage(context.secrets.isEmpty ? message : secretStateMessage(message, context.secrets, state.url));
  }

  /**
   * Runs one step: state, model call, actions. `recorder` receives each fact as it happens.
   * With `only`, the model is offered those actions alone and nothing else runs.
   */
  async step(recorder: StepRecorder, options: { readonly only?: readonly string[] | undefined } = {}): Promise<NavigatorStepResult> {
    const { context } = this;
    const llm = context.navigatorLLM;
    await this.addStateMessageToMemory(context.nSteps);
    recorder.setState(context.currentState);
    let messages = context.messages.messages();
    if (hasImages(messages) && llm.supportsImages === false) {
      context.emit('warning', 'navigator', { code: 'IMAGES_UNSUPPORTED', message: `${llm.model} does not accept images; the Navigator got text only.` });
      messages = withoutImages(messages);
    }
    const { only } = options;
    const available = context.registry.availableAt(context.currentState?.url);
    const offered = only ? available.filter((action) => only.includes(action.name)) : available;
    let result;
    try {
      result = await generateObject({
        client: llm,
        messages,
        name: 'navigator_output',
        description: 'The Navigator evaluation, memory, next goal and actions',
        schema: navigatorOutputSchema,
        jsonSchema: this.jsonSchemaFor(offered),
        ...agentCallOptions(context, 'navigator', llm),
      });
    } finally {
      // The state message is transient: the next step (or a retry) adds a fresh one.
      context.messages.removeStateMessage();
    }
    const written = result.object;
    const limit = context.settings.maxActionsPerStep;
    const chosen = (only ? written.action.filter((item) => only.includes(firstEntry(item)[0])) : written.action).slice(0, limit);
    // Only the actions that may run are kept: a reply of 10,000 actions would otherwise be stored
    // whole in the history and resent in every later request (#22). A note says how many were dropped.
    const output = { ...written, action: chosen };
    // The copy kept in the conversation and the history is guarded (a memory that quotes a page
    // cannot close our tags there); the actions run with what the model wrote.
    const stored = guardModelOutput(output);
    if (stored.findings.length > 0) this.reportInjection({ url: context.currentState?.url ?? '', source: 'model-output', findings: stored.findings });
    recorder.setModelOutput(stored.output);
    context.messages.addModelOutput(JSON.stringify(stored.output));
    context.emit('navigator-output', 'navigator', {
      evaluationPreviousGoal: output.current_state.evaluation_previous_goal,
      memory: output.current_state.memory,
      nextGoal: output.current_state.next_goal,
      actions: chosen.map((item) => {
        const [name, params] = firstEntry(item);
        return { name, params };
      }),
    });
    // `interruptedAfter`: a pause stopped the step after this many actions; only those count.
    const { results, failed, interruptedAfter = chosen.length } = await this.runActions(chosen, recorder);
    if (written.action.length > limit) {
      results.push({
        error: `Only the first ${limit} actions ran: ${written.action.length - limit} more were dropped (at most ${limit} per step).`,
        includeInMemory: true,
      });
    }
    context.actionResults = results;
    const doneResult = results.find((item) => item.isDone);
    return {
      output,
      results,
      done: doneResult !== undefined,
      success: doneResult?.success,
      data: doneResult?.data,
      allActionsFailed: interruptedAfter > 0 && failed === interruptedAfter,
    };
  }

  private actionContext(): ActionContext {
    const { context } = this;
    const actionContext = createActionContext({
      driver: context.driver,
      state: context.currentState,
      signal: context.signal,
      extractionLLM: observedExtractionClient(context, context.extractionLLM),
      taskId: context.taskId,
      step: context.nSteps,
      askHuman: (question) => context.askHuman(question),
      uploadPaths: context.settings.uploadPaths,
      urlPolicy: context.urlPolicy,
      onUrlBlocked: (url, reason) => {
        context.emit('url-blocked', 'navigator', { url, reason, kind: 'action' });
        if (context.settings.endTaskOnBlockedUrl) this.actionBlocks.push({ url, reason, kind: 'navigation' });
      },
    });
    // extract_content reports what the guard found in the page it sends to the extraction model.
    setInjectionReporter(actionContext, (detection) => this.reportInjection(detection));
    return actionContext;
  }

  /**
   * Runs the actions in order; `failed` counts those that returned an error. Skipped ones count
   * as failed. The rest of the step is skipped after an action that ends it (`done`,
   * `stopSequence`) or that changed the page under the next ones: another URL or tab, a new
   * document, or elements the model has not seen.
   */
  private async runActions(
    items: readonly Record<string, unknown>[],
    recorder: StepRecorder,
  ): Promise<{ results: ActionResult[]; failed: number; interruptedAfter?: number }> {
    const { context } = this;
    const results: ActionResult[] = [];
    let failed = 0;
    const actionContext = this.actionContext();
    const state = context.currentState;
    let baseline: PageBaseline | undefined = state ? { url: state.url, tabId: state.activeTabId, tabIds: state.tabs.map((tab) => tab.id) } : undefined;
    const frameIds = state ? [...new Set([...state.elements.values()].map((element) => element.frameId))] : [];
    for (let position = 0; position < items.length; position++) {
      if (await context.checkpoint()) {
        // Paused: someone may have used the browser meanwhile. The chosen actions still apply to
        // the page the model saw unless it changed; then the model is asked again. Either way a
        // pause is neutral: nothing it skips counts as a failure.
        const change = await this.changeSince(baseline, frameIds);
        if (change !== undefined) {
          const rest = items.slice(position).map((item) => firstEntry(item)[0]);
          results.push({
            error: `Skipped ${rest.length} action(s) because the page changed while the task was paused (${change}): ${rest.join(', ')}. Read the new page state first.`,
            includeInMemory: true,
          });
          return { results, failed, interruptedAfter: position };
        }
      }
      const [name, params] = firstEntry(items[position] as Record<string, unknown>);
      context.emit('action-start', 'navigator', { action: name, params, actionIndex: position });
      const started = Date.now();
      // Read before the action runs: a click may remove the element or leave the page.
      const fingerprint = await this.fingerprintOf(params);
      let outcome: ActionOutcome;
      try {
        // An action that crosses a trust boundary runs only when the gate allows it.
        outcome = (await this.gateAction(name, params)) ?? (await this.runAction(name, params, actionContext, fingerprint));
      } catch (error) {
        // A cancel or a fatal error (a browser gone) ends the task, but the action still ends in
        // the events and the history, like every other.
        const info = toErrorInfo(context.signal.aborted ? context.signal.reason : error);
        const durationMs = Date.now() - started;
        context.emit('action-end', 'navigator', { action: name, params, actionIndex: position, result: undefined, error: info, durationMs });
        recorder.addAction({
          name,
          params,
          result: undefined,
          error: info,
          includeInMemory: false,
          isDone: false,
          success: undefined,
          element: elementOf(params, context),
          fingerprint,
          startedAt: started,
          durationMs,
        });
        throw error;
      }
      const rest = items.slice(position + 1).map((item) => firstEntry(item)[0]);
      // What the page did after the action: navigations the policy stopped, and whether the
      // remaining actions still apply to the page the model saw.
      let change: string | undefined;
      if (!outcome.result.isDone) {
        const after = await this.afterAction(outcome, baseline, rest.length > 0 && !outcome.result.stopSequence ? frameIds : undefined);
        outcome = after.outcome;
        change = after.change;
        baseline = after.baseline;
      }
      if (!outcome.result.isDone && outcome.error?.code !== 'ACTION_REFUSED') {
        const landed = await this.checkLanding(name);
        if (landed) {
          outcome = landed(outcome);
          change ??= 'a page on a site the task does not involve was left';
        }
      }
      const { result } = outcome;
      const durationMs = Date.now() - started;
      context.emit('action-end', 'navigator', {
        action: name,
        params,
        actionIndex: position,
        result: result.extractedContent,
        error: outcome.error,
        durationMs,
      });
      recorder.addAction({
        name,
        params,
        result: result.extractedContent,
        error: outcome.error,
        includeInMemory: result.includeInMemory ?? false,
        isDone: result.isDone ?? false,
        success: result.success,
        data: result.data,
        element: elementOf(params, context),
        fingerprint,
        startedAt: started,
        durationMs,
      });
      results.push(result);
      if (result.error !== undefined) failed++;
      if ((result.isDone || result.stopSequence || change !== undefined) && rest.length > 0) {
        const why = result.isDone ? 'done ends the step' : `the page changed after ${name}${change ? ` (${change})` : ''}`;
        results.push({
          error: `Skipped ${rest.length} action(s) that did not run because ${why}: ${rest.join(', ')}. Read the new page state first.`,
          includeInMemory: true,
        });
        return { results, failed: failed + rest.length };
      }
    }
    return { results, failed };
  }

  /**
   * The refusal of an action that crosses a trust boundary the gate did not let it cross, or
   * undefined when it crosses none or may: a URL it loads, or the element it clicks or types a
   * secret into (the link it follows, the form it sends and where, a download).
   */
  private async gateAction(name: string, params: unknown): Promise<ActionOutcome | undefined> {
    const { context } = this;
    const { gate } = context;
    if (!gate || gate.off) return undefined;
    const values = (typeof params === 'object' && params !== null ? params : {}) as Record<string, unknown>;
    let url: string | undefined;
    try {
      if ((name === 'go_to_url' || name === 'open_tab') && typeof values.url === 'string') url = normalizeUrl(name, values.url).url;
      if (name === 'search' && typeof values.query === 'string') {
        const engine = values.engine === 'google' || values.engine === 'bing' ? values.engine : 'duckduckgo';
        url = searchUrl(values.query, engine);
      }
    } catch {
      // Not a URL: the action refuses it itself.
      return undefined;
    }
    const typesSecret = name === 'input_text' && SecretStore.holdsPlaceholder(params);
    let target: ActionTarget | undefined;
    // A double click activates its element as a click does (a form's button sends the form).
    if ((name === 'click_element' || name === 'double_click_element' || typesSecret) && typeof values.index === 'number') {
      const ref = context.currentState?.elements.get(values.index);
      if (ref) target = await readActionTarget(context.driver, ref, context.signal);
    }
    const request =
      classifyBlindAction(name, values) ??
      classifyAction({ action: name, url, target, typesSecret, pageUrl: context.currentState?.url ?? '', scope: gate.scope });
    if (!request) return undefined;
    const verdict = await gate.decide(request);
    if (verdict.allowed) return undefined;
    const message = refusalMessage(request, verdict);
    return { result: { error: message, includeInMemory: true }, error: toErrorInfo(new ActionError(name, message, { code: 'ACTION_REFUSED' })) };
  }

  /**
   * After an action: when the browser now shows a page on a site the task does not involve that
   * no decision allowed (a same-site link that redirected away, a script that moved the page), the
   * gate decides now; refused, the tab goes back and the result says so. Undefined when nothing
   * is to be done.
   */
  private async checkLanding(name: string): Promise<((outcome: ActionOutcome) => ActionOutcome) | undefined> {
    const { context } = this;
    const { gate } = context;
    if (!gate || gate.off || !gate.tainted) return undefined;
    let url: string;
    try {
      url = await context.driver.currentUrl({ signal: context.signal });
    } catch (error) {
      if (context.signal.aborted) throw error;
      return undefined;
    }
    if (gate.scope.involves(url)) return undefined;
    const shown = readableUrl(url);
    const request: SensitiveRequest = {
      kind: 'new-host',
      action: name,
      url: shown,
      description: `${name} led the browser to ${shown}, a site the task does not involve`,
    };
    const verdict = await gate.decide(request);
    if (verdict.allowed) return undefined;
    const { action } = context.settings.browserTimeouts;
    const slow = (): BrowserError => new BrowserError('Leaving the page took too long.', { code: 'BROWSER_TIMEOUT', retryable: true });
    await withDeadline(action, context.signal, slow, async (signal) => {
      await context.driver.goBack({ signal }).catch(() => context.driver.goto('about:blank', { signal }));
    }).catch((error: unknown) => {
      if (context.signal.aborted) throw error;
    });
    const message = `${refusalMessage(request, verdict)} The tab was taken back.`;
    return (outcome) => ({
      result: { ...outcome.result, error: outcome.result.error ? `${outcome.result.error} ${message}` : message, includeInMemory: true },
      error: toErrorInfo(new ActionError(name, message, { code: 'ACTION_REFUSED' })),
    });
  }

  /**
   * Runs an action with its secrets put in: each `<secret>name</secret>` of its parameters gets
   * the value for the page it acts on (the element's frame, a URL it loads, or the active tab), or
   * the action fails, recoverably, when the secret is not for that page. What it reports is
   * redacted, and typing a secret reads "typed secret `name`".
   */
  private async runAction(name: string, params: unknown, actionContext: ActionContext, fingerprint: ElementFingerprint | undefined): Promise<ActionOutcome> {
    const { context } = this;
    const run = (actual: unknown): Promise<ActionOutcome> =>
      context.registry.runWithOutcome(name, actual, actionContext, { timeoutMs: context.settings.browserTimeouts.action });
    const { secrets } = context;
    if (secrets.isEmpty || !SecretStore.holdsPlaceholder(params)) return secrets.isEmpty ? run(params) : secrets.redactDeep(await run(params));
    let substituted: { readonly value: unknown; readonly used: readonly string[] };
    try {
      substituted = await secrets.substitute(params, await this.pageOf(params, fingerprint), name);
    } catch (error) {
      if (!ActionError.isInstance(error)) throw error;
      return { result: { error: error.message, includeInMemory: true }, error: toErrorInfo(error) };
    }
    const outcome = secrets.redactDeep(await run(substituted.value));
    const text = (params as { text?: unknown } | null)?.text;
    const typed = typeof text === 'string' ? /^<secret>\s*([\w-]+)\s*<\/secret>$/.exec(text)?.[1] : undefined;
    if (name !== 'input_text' || typed === undefined || outcome.result.extractedContent === undefined) return outcome;
    // Neither the value nor its length: "Typed secret `password` into element 4 (…)".
    const result = outcome.result.extractedContent.replace(/^Typed (?:"(?:[^"\\]|\\.)*"|\d+ characters?)/, `Typed secret \`${typed}\``);
    return { ...outcome, result: { ...outcome.result, extractedContent: result } };
  }

  /** The URL of the page an action with these parameters acts on, for the secrets it may use. */
  private async pageOf(params: unknown, fingerprint: ElementFingerprint | undefined): Promise<string> {
    const { context } = this;
    const url = (params as { url?: unknown } | null)?.url;
    if (typeof url === 'string') return url;
    if (fingerprint) return fingerprint.frameUrl;
    const index = (params as { index?: unknown } | null)?.index;
    const ref = typeof index === 'number' ? context.currentState?.elements.get(index) : undefined;
    if (ref) {
      const frame = (await context.driver.frames({ signal: context.signal })).find((item) => item.id === ref.frameId);
      if (frame) return frame.url;
    }
    return context.driver.currentUrl({ signal: context.signal });
  }

  /**
   * The fingerprint of the element an action names (`params.index`), for replay; undefined for an
   * action on no element, and when the page cannot be read in time (the action runs anyway).
   */
  private async fingerprintOf(params: unknown): Promise<ElementFingerprint | undefined> {
    const { context } = this;
    const index = (params as { index?: unknown } | null)?.index;
    const ref = typeof index === 'number' ? context.currentState?.elements.get(index) : undefined;
    if (!ref) return undefined;
    const { pageState } = context.settings.browserTimeouts;
    try {
      const [fingerprint] = await withDeadline(
        pageState,
        context.signal,
        () => pageStateTimeout(pageState),
        (signal) => readFingerprints(context.driver, [ref], { signal }),
      );
      return fingerprint;
    } catch (error) {
      if (context.signal.aborted) throw error;
      return undefined;
    }
  }

  /** Compares the page with `baseline`, within the page-state deadline. */
  private probePage(baseline: PageBaseline, frameIds: readonly string[]): ReturnType<typeof describePageChange> {
    const { context } = this;
    const { pageState } = context.settings.browserTimeouts;
    return withDeadline(
      pageState,
      context.signal,
      () => pageStateTimeout(pageState),
      (signal) => describePageChange(context.driver, baseline, frameIds, { signal }),
    );
  }

  /**
   * How the page differs from `baseline` (another URL or tab, a new document, elements the model
   * has not seen), or undefined when it does not, for actions chosen before a pause.
   */
  private async changeSince(baseline: PageBaseline | undefined, frameIds: readonly string[]): Promise<string | undefined> {
    const { context } = this;
    if (!baseline) return undefined;
    try {
      return (await this.probePage(baseline, frameIds)).change;
    } catch (error) {
      if (context.signal.aborted) throw error;
      return 'the browser could not be read';
    }
  }

  /**
   * Looks at the browser after an action: reports navigations the URL policy stopped (or, when
   * the driver cannot stop them, leaves a denied page), and with `frameIds` tells whether the
   * page changed since `baseline`. A driver failure here never fails the action.
   */
  private async afterAction(
    outcome: ActionOutcome,
    baseline: PageBaseline | undefined,
    frameIds: readonly string[] | undefined,
  ): Promise<{ outcome: ActionOutcome; change: string | undefined; baseline: PageBaseline | undefined }> {
    const { context } = this;
    let change: string | undefined;
    let now = baseline;
    if (baseline && (frameIds || (!context.driverGuarded && context.urlPolicy.restrictive))) {
      try {
        const probe = await this.probePage(baseline, frameIds ?? []);
        change = frameIds ? probe.change : undefined;
        now = probe.now;
      } catch (error) {
        if (context.signal.aborted) throw error;
        // The browser could not be read: assume the page changed, so no action runs blind.
        change = 'the browser could not be read';
      }
    }
    const blocked = [...this.actionBlocks.splice(0), ...context.takeBlockedNavigations()];
    const verdict = !context.driverGuarded && now && now !== baseline ? context.urlPolicy.check(now.url) : undefined;
    if (now && verdict && !verdict.allowed) {
      // The driver cannot stop navigations: leave the denied page the action ended on.
      blocked.push({ url: now.url, reason: verdict.reason, kind: 'navigation', tabId: now.tabId });
      const { action } = context.settings.browserTimeouts;
      const slow = (): BrowserError => new BrowserError('Leaving the denied page took too long.', { code: 'BROWSER_TIMEOUT', retryable: true });
      await withDeadline(action, context.signal, slow, async (signal) => {
        await context.driver.goBack({ signal }).catch(() => context.driver.goto('about:blank', { signal }));
      }).catch((error: unknown) => {
        if (context.signal.aborted) throw error;
      });
      change ??= 'a denied page was left';
    }
    return { outcome: withBlocked(outcome, blocked, context), change, baseline: now };
  }
}

/**
 * Adds the navigations the URL policy stopped during an action to its result. A stopped load of
 * the page itself (a navigation, a redirect hop, a popup) is an error the model reads; a stopped
 * frame or prefetch only a note, since the action did what it was asked. With
 * `endTaskOnBlockedUrl`, a stopped load of the page ends the task.
 */
function withBlocked(outcome: ActionOutcome, blocked: readonly BlockedNavigation[], context: AgentContext): ActionOutcome {
  if (blocked.length === 0) return outcome;
  const describe = (items: readonly BlockedNavigation[]): string => items.map((item) => `${item.url} (${item.kind}: ${item.reason})`).join('; ');
  const pages = blocked.filter((item) => item.kind === 'navigation' || item.kind === 'redirect' || item.kind === 'popup');
  const requests = blocked.filter((item) => item.kind === 'request');
  const others = blocked.filter((item) => !pages.includes(item) && !requests.includes(item));
  const first = pages[0];
  if (first && context.settings.endTaskOnBlockedUrl)
    throw new URLNotAllowedError(first.url, `The URL policy stopped a navigation to ${first.url}: ${first.reason}.`);
  let { result: next, error } = outcome;
  if (first) {
    const note = `The browser was stopped from loading ${describe(pages)}. That page is not allowed; choose another way.`;
    next = { ...next, error: next.error ? `${next.error} ${note}` : note, includeInMemory: true };
    error = { ...(error ?? toErrorInfo(new URLNotAllowedError(first.url))), message: next.error as string };
  }
  if (others.length > 0) {
    const note = `Note: the URL policy kept the page from loading ${describe(others)}.`;
    next = { ...next, extractedContent: next.extractedContent ? `${next.extractedContent} ${note}` : note };
  }
  if (requests.length > 0) {
    // One per host and step (the Executor's filter): the page's own requests, not the agent's doing.
    const note = `Note: the URL policy blocked the page's requests to ${requests.map((item) => `${item.url} (${item.reason})`).join('; ')}, and any more to those hosts.`;
    next = { ...next, extractedContent: next.extractedContent ? `${next.extractedContent} ${note}` : note };
  }
  return { result: next, error };
}

function elementOf(params: unknown, context: AgentContext): { index: number; tagName: string; selector?: string | undefined } | undefined {
  const index = (params as { index?: unknown } | null)?.index;
  if (typeof index !== 'number') return undefined;
  const element = context.currentState?.elements.get(index);
  return element ? { index, tagName: element.tagName, selector: element.selector } : undefined;
}
