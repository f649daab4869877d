// The replay of one recorded action: find its element, act, check where the browser ended, and on
// failure hand the step to the model when asked to. It stands alone so HistoryReplay keeps only the
// run's frame (tasks, steps, events, guard); it never ends the replay itself, its caller does.

import { createActionContext } from '../actions/action-context';
import type { ActionOutcome, ActionRegistry } from '../actions/registry';
import type { ActionContext } from '../actions/types';
import type { AgentContext, EventPayload } from '../agents/agent-context';
import { observedExtractionClient } from '../agents/agent-context';
import { NavigatorAgent } from '../agents/navigator-agent';
import type { PageState } from '../browser/page-state';
import type { ResolvedBrowserDriver } from '../browser/types';
import { isFatalError } from '../errors';
import type { Actor, ReplayStepReport } from '../events';
import { toErrorInfo } from '../history/error-info';
import { StepRecorder } from '../history/step-recorder';
import type { ElementFingerprint } from '../history/types';
import type { LLMClient } from '../llm/types';
import { navigatorSystemPrompt } from '../prompts/navigator-system';
import { SecretStore } from '../security/secrets';
import type { UrlPolicy } from '../security/url-policy';
import { unanswered } from '../session/index';
import { describeThrown } from '../util/describe-thrown';
import type { ReplayEventName } from './events';
import { locateElement } from './locate';
import type { ScoredMatch } from './match';
import type { ReplayCheck, ReplayCheckReport, ResolvedOptions } from './options';
import {
  type ActionReplay,
  checkFailure,
  comparable,
  describeRecorded,
  fieldKey,
  fieldKindOf,
  folded,
  type FoundElement,
  indexParam,
  listOf,
  moved,
  needsModel,
  needsPerson,
  noModel,
  pageKind,
  pageText,
  readingActions,
  type RecordedAction,
  sendsForm,
  type SiteMove,
  substitute,
} from './recording';

/** What the replay of an action needs from the HistoryReplay that runs it. */
export interface ActionReplayHost {
  readonly options: ResolvedOptions;
  readonly driver: ResolvedBrowserDriver;
  readonly registry: ActionRegistry;
  readonly secrets: SecretStore;
  readonly urlPolicy: UrlPolicy;
  /** Aborts on cancel and timeout. */
  readonly signal: AbortSignal;
  /** With `baseURL`: the recorded site's origin and the one to use instead. */
  readonly origins: SiteMove | undefined;
  emit<K extends ReplayEventName>(name: K, actor: Actor, payload: EventPayload<K>): void;
  /** The task and step being replayed. */
  current(): { readonly taskId: string; readonly step: number };
  /** The index of the task being replayed. */
  taskIndex(): number;
  /** The record of the step being replayed, if one is open. */
  recorder(): StepRecorder | undefined;
  /** Reads the page once it settled, within the replay's deadlines. */
  readPage(): Promise<PageState>;
  /** An agent context on the replay's browser, events and signal, with `llm`. */
  agentContext(llm: LLMClient, step: number): AgentContext;
  /** Runs `ask`, counting its model calls as the replay's `modelCalls`. */
  whileAsking<T>(ask: () => Promise<T>): Promise<T>;
}

/** Replays recorded actions one at a time; one per replay, for the checks and reads it keeps. */
export class ActionReplayer {
  /** Whether the reads the recording made (`search_page`, `extract_content`) read the same now; undefined before any. */
  readsAgree: boolean | undefined;
  /** Every `expect` check made so far, in order. */
  readonly checks: ReplayCheckReport[] = [];
  /** A field that could not be filled the recorded way, on the page (URL) its form is on: that form is not sent. */
  private unfilled: { readonly page: string; readonly step: number; readonly action: string } | undefined;

  constructor(private readonly host: ActionReplayHost) {}

  /** After an action's replay: a field that failed keeps its form from being sent (see replay). */
  noteOutcome(recorded: RecordedAction, report: ReplayStepReport): void {
    if (report.status === 'failed' && fieldKindOf(recorded.action) !== undefined && recorded.step.browser) {
      this.unfilled ??= {
        page: comparable(moved(recorded.step.browser.url, this.host.origins) as string, false),
        step: recorded.step.step,
        action: recorded.action.name,
      };
    }
  }

  skipped(recorded: RecordedAction, reason: string): ActionReplay {
    return { report: this.report(recorded, { status: 'skipped', reason, durationMs: 0 }), substituted: false };
  }

  failedReport(recorded: RecordedAction, reason: string, durationMs: number, about: Partial<ReplayStepReport> = {}): ActionReplay {
    return { report: this.report(recorded, { ...about, status: 'failed', reason, durationMs }), substituted: false };
  }

  /** Notes whether a reading action read again what the recording read. */
  private noteRead(recordedResult: string | undefined, now: string | undefined): void {
    const same = recordedResult !== undefined && now !== undefined && folded(recordedResult) === folded(now);
    this.readsAgree = (this.readsAgree ?? true) && same;
  }

  /** Runs `checks` on the page now; records each; returns why the first that failed did, if one did. */
  async runChecks(checks: readonly ReplayCheck[], at: number | 'end'): Promise<string | undefined> {
    const state = await this.host.readPage();
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
    const checks = listOf(this.host.options.expect?.steps?.[String(recorded.step.step)]);
    return checks.length === 0 ? undefined : this.runChecks(checks, recorded.step.step);
  }

  /**
   * Whether the browser got the effect the recorded step was for, by its kind rather than its
   * URL: a page of the same kind opened (`/item/7` for a recorded `/item/1`), or the same page
   * (the cart, the thanks page of a sent form), with as many tabs.
   */
  private async checkIntent(recorded: RecordedAction): Promise<{ failure?: string | undefined }> {
    const expected = recorded.expected;
    if (!this.host.options.checkOutcome || !expected) return {};
    const [tabs, active] = await Promise.all([this.host.driver.tabs({ signal: this.host.signal }), this.host.driver.activeTab({ signal: this.host.signal })]);
    if (tabs.length !== expected.tabs) return { failure: `${tabs.length} tab(s) are open, where the recording had ${expected.tabs}` };
    const after = moved(expected.url, this.host.origins) as string;
    const before = recorded.step.browser ? (moved(recorded.step.browser.url, this.host.origins) as string) : undefined;
    const navigated = before === undefined || comparable(before, false) !== comparable(after, false);
    if (!navigated || pageKind(active.url) === pageKind(after)) return {};
    return { failure: `the step was for opening a page like ${pageKind(after)}, and the browser is at ${active.url}` };
  }

  private report(recorded: RecordedAction, fields: Omit<ReplayStepReport, 'taskId' | 'step' | 'actionIndex' | 'action'>): ReplayStepReport {
    return { taskId: recorded.task.taskId, step: recorded.step.step, actionIndex: recorded.actionIndex, action: recorded.action.name, ...fields };
  }

  /** Replays one recorded action: finds its element, acts, checks the outcome; on failure, what `onStepFailure` says. */
  async replay(recorded: RecordedAction, substitutedBefore: boolean, offTrack: boolean): Promise<ActionReplay> {
    const started = Date.now();
    const { action } = recorded;
    if (action.error) return this.skipped(recorded, `it failed when recorded: ${action.error.message}`);
    if (needsPerson.has(action.name)) return this.skipped(recorded, `${action.name} needs a person; a replay cannot answer for one`);
    if (needsModel.has(action.name) && !this.host.options.llm) return this.skipped(recorded, `${action.name} needs a model: pass \`llm\` to replay it`);
    const { params: substitutedParams, changed, choice } = substitute(recorded, this.host.options.variables);
    const substituted = substitutedBefore || changed;

    const sends = sendsForm(action);
    if (sends && this.unfilled) {
      const page = comparable(await this.host.driver.currentUrl({ signal: this.host.signal }), false);
      if (page === this.unfilled.page) {
        return this.failedReport(
          recorded,
          `a field of this form could not be filled the recorded way (step ${this.unfilled.step}, ${this.unfilled.action}): sending it would send what the recording did not`,
          Date.now() - started,
        );
      }
    }
    let params = moved(substitutedParams, this.host.origins);
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
      state = await this.host.readPage();
    }
    this.host.recorder()?.setState(state);
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
    if (this.host.options.onStepFailure === 'ask-model' && this.host.options.llm) {
      const llm = this.host.options.llm;
      const failed = failure;
      const why = await this.host.whileAsking(() => this.askModel(recorded, failed, llm));
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
      return { ...this.failedReport(recorded, failure, Date.now() - started, about), substituted, continueAfter: this.host.options.onModelFailure === 'skip' };
    }
    return { ...this.failedReport(recorded, failure, Date.now() - started, about), substituted };
  }

  /** Finds the recorded element on the page now (see locateElement). */
  private locate(recorded: RecordedAction, offTrack: boolean): ReturnType<typeof locateElement> {
    return locateElement(
      {
        driver: this.host.driver,
        signal: this.host.signal,
        readPage: () => this.host.readPage(),
        elementTimeoutMs: this.host.options.elementTimeoutMs,
        matchThreshold: this.host.options.matchThreshold,
        origins: this.host.origins,
      },
      recorded,
      offTrack,
    );
  }

  /** Runs an action on `state`, bounded by the action timeout. */
  private async runAction(
    name: string,
    params: unknown,
    state: PageState,
    actionIndex: number,
    element: ElementFingerprint | undefined,
  ): Promise<ActionOutcome> {
    this.host.emit('action-start', 'navigator', { action: name, params, actionIndex });
    const started = Date.now();
    let outcome: ActionOutcome;
    try {
      let actual = params;
      if (!this.host.secrets.isEmpty && SecretStore.holdsPlaceholder(params)) {
        // The recording holds placeholders: the values go in now, for the page acted on.
        const url = (params as { url?: unknown } | null)?.url;
        const page = typeof url === 'string' ? url : (element?.frameUrl ?? (await this.host.driver.currentUrl({ signal: this.host.signal })));
        actual = (await this.host.secrets.substitute(params, page, name)).value;
      }
      outcome = this.host.secrets.redactDeep(
        await this.host.registry.runWithOutcome(name, actual, this.actionContext(state), { timeoutMs: this.host.options.actionTimeoutMs }),
      );
    } catch (error) {
      const info = toErrorInfo(this.host.signal.aborted ? this.host.signal.reason : error);
      this.host.emit('action-end', 'navigator', { action: name, params, actionIndex, result: undefined, error: info, durationMs: Date.now() - started });
      throw error;
    }
    this.host.emit('action-end', 'navigator', {
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
    this.host.recorder()?.addAction({
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
      driver: this.host.driver,
      state,
      signal: this.host.signal,
      // Its calls are model calls of the replay: events, usage and history, like the Navigator's.
      extractionLLM: this.host.options.llm
        ? observedExtractionClient(this.host.agentContext(this.host.options.llm, this.host.current().step), this.host.options.llm)
        : noModel,
      taskId: this.host.current().taskId,
      step: this.host.current().step,
      uploadPaths: this.host.options.uploadPaths,
      urlPolicy: this.host.urlPolicy,
      askHuman: unanswered,
      onUrlBlocked: (url, reason) => this.host.emit('url-blocked', 'navigator', { url, reason, kind: 'action' }),
    });
  }

  /**
   * Whether the browser is where the recording was after this step: `failure` says why not (another
   * URL or number of tabs), `note` that only the title differs. Nothing to say when there is
   * nothing to compare.
   */
  private async checkOutcome(recorded: RecordedAction, substituted: boolean): Promise<{ failure?: string | undefined; note?: string | undefined }> {
    const expected = recorded.expected;
    if (!this.host.options.checkOutcome || !expected) return {};
    const [tabs, active] = await Promise.all([this.host.driver.tabs({ signal: this.host.signal }), this.host.driver.activeTab({ signal: this.host.signal })]);
    // Typed values that changed change the URLs of GET forms: then only the path must match.
    const withQuery = !substituted;
    const expectedUrl = moved(expected.url, this.host.origins) as string;
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
    const offered = this.host.registry.list().filter((action) => action.name !== 'done' && !needsPerson.has(action.name));
    const context = this.host.agentContext(llm, recorded.step.step);
    context.messages.initTask(navigatorSystemPrompt({ maxActionsPerStep: 3, actionList: this.host.registry.describe() }), task);
    const recorder = new StepRecorder(this.host.current().taskId, this.host.taskIndex(), recorded.step.step, 'navigator');
    try {
      const result = await new NavigatorAgent(context).step(recorder, { only: offered.map((action) => action.name) });
      const record = recorder.finish();
      for (const action of record.actions) this.host.recorder()?.addAction(action);
      const errors = result.results.filter((item) => item.error !== undefined);
      if (result.results.length === 0) return 'it chose no action';
      return errors.length > 0 ? errors.map((item) => item.error).join(' ') : undefined;
    } catch (error) {
      // With `onModelFailure: 'skip'` even a model that cannot be called fails only its step; a cancel still ends the replay.
      if (this.host.signal.aborted || (isFatalError(error) && this.host.options.onModelFailure !== 'skip')) throw error;
      return `the model call failed: ${describeThrown(error)}`;
    }
  }
}
