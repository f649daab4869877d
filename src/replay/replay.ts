// Replay without a model: each recorded action again, on the page as it is now. An action on an
// element finds it by its fingerprint (exactly by stable attributes, else by a scored match),
// acts, and checks where the browser ended against the recording. A step that cannot be done the
// recorded way stops the replay, is skipped, or is handed to the Navigator for that step only.
// Over 600 lines (about 740), for now: the class still holds the replay of one action (find,
// act, check, ask the model) beside the run's frame; the browser, deadlines, guard, agent context
// and events are the session's (src/session), the options, the recording's reading and the
// element search have their own files. Next cut: the action's replay (replayAction, runAction,
// recordAction, checkOutcome, askModel) into action-replay.ts over a small host interface.

import { createActionContext } from '../actions/action-context';
import { builtinActions } from '../actions/builtin/index';
import { ActionRegistry, type ActionOutcome } from '../actions/registry';
import type { ActionContext } from '../actions/types';
import type { AgentContext, EventPayload } from '../agents/agent-context';
import { observedExtractionClient } from '../agents/agent-context';
import { bindPageTextRedaction } from '../dom/page-text-redaction';
import { NavigatorAgent } from '../agents/navigator-agent';
import type { PageState } from '../browser/page-state';
import type { BlockedNavigation, ResolvedBrowserDriver } from '../browser/types';
import { ConfigError, isFatalError, PlannavError, RequestCancelledError, TimeoutError } from '../errors';
import type { Actor, EventBase, ExecutorEventName, ExecutorListener, ReplayStepReport } from '../events';
import { toErrorInfo } from '../history/error-info';
import { parseHistory } from '../history/schema';
import { StepRecorder } from '../history/step-recorder';
import { historySchemaVersion, type ElementFingerprint, type RunHistory, type StepRecord, type TaskRecord } from '../history/types';
import type { LLMClient } from '../llm/types';
import { addUsage, emptyUsage } from '../llm/usage';
import { navigatorSystemPrompt } from '../prompts/navigator-system';
import { SecretStore } from '../security/secrets';
import { UrlPolicy } from '../security/url-policy';
import { sleep } from '../util/abort';
import { base64ToBytes } from '../util/base64';
import { describeThrown } from '../util/describe-thrown';
import type { ScoredMatch } from './match';
import { locateElement } from './locate';
import { BrowserSession, createAgentContext, TypedEventHub, unanswered, type UrlGuard } from '../session/index';
import { isReplayEvent, type ReplayEventMap, type ReplayEventName } from './events';
export type { ReplayCheck, ReplayCheckReport, ReplayExpect, ReplayOptions, ReplayResult } from './options';
import { optionsSchema, type ReplayCheck, type ReplayCheckReport, type ReplayOptions, type ReplayResult, type ResolvedOptions } from './options';
import {
  type FoundElement,
  type ActionReplay,
  needsPerson,
  needsModel,
  readingActions,
  type RecordedAction,
  recordedActions,
  type SiteMove,
  originMap,
  moved,
  fieldKey,
  fieldKindOf,
  checkVariables,
  substitute,
  comparable,
  sendsForm,
  pageText,
  folded,
  checkFailure,
  listOf,
  pageKind,
  indexParam,
  describeRecorded,
  noModel,
  subtractCalls,
  recordedAnswer,
  endedBy,
  toError,
} from './recording';

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
  /** The browser, its reader and the deadlines, wired once. */
  private readonly session: BrowserSession;
  private readonly urlPolicy: UrlPolicy;
  private readonly secrets: SecretStore;
  private readonly hub = new TypedEventHub<ReplayEventMap>((error, event) => {
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
      throw new ConfigError(`Option \`${field}\` of HistoryReplay ${issue?.message ?? 'is invalid'}.`, { field });
    }
    this.options = parsed.data;
    if (this.options.onStepFailure === 'ask-model' && !this.options.llm) {
      throw new ConfigError('Option `onStepFailure: "ask-model"` of HistoryReplay needs a model: pass `llm`.', { field: 'llm' });
    }
    // The same checks as a loaded file: a history built by hand or changed on the way is read as one.
    const { screenshots, ...json } = history as Partial<RunHistory>;
    this.recording = parseHistory(json, screenshots instanceof Map ? screenshots : new Map());
    // The whole page: the recorded element may sit lower now (a banner above it) or have been off screen when recorded.
    this.session = new BrowserSession(this.options.browser, { reader: { viewportExpansion: -1 }, timeouts: { action: this.options.actionTimeoutMs } });
    this.driver = this.session.driver;
    const own = this.options.actions;
    this.registry = new ActionRegistry([...builtinActions().filter((action) => !own.some((mine) => mine.name === action.name)), ...own]);
    this.origins = originMap(this.recording, this.options.baseURL);
    checkVariables(this.recording, this.options.variables);
    const recordedSteps = new Set(this.recording.steps.map((step) => String(step.step)));
    for (const step of Object.keys(this.options.expect?.steps ?? {})) {
      if (!recordedSteps.has(step)) {
        throw new ConfigError(`Option \`expect.steps\` of HistoryReplay has checks for step ${step}, which the recording does not have.`, {
          field: `expect.steps.${step}`,
        });
      }
    }
    this.urlPolicy = new UrlPolicy(this.options.urlPolicy);
    this.secrets = new SecretStore(this.options.secrets);
    const external = this.options.signal;
    if (external) {
      if (external.aborted) this.cancel('Cancelled by the signal given to HistoryReplay.');
      else external.addEventListener('abort', () => this.cancel('Cancelled by the signal given to HistoryReplay.'), { once: true });
    }
  }

  /** Listens to an event, as `Executor.on`. */
  on<K extends ExecutorEventName>(name: K, listener: ExecutorListener<K>): this {
    this.hub.on(name as ReplayEventName, listener as never);
    return this;
  }

  /** Listens to the next occurrence of an event only. */
  once<K extends ExecutorEventName>(name: K, listener: ExecutorListener<K>): this {
    this.hub.once(name as ReplayEventName, listener as never);
    return this;
  }

  /** Stops listening. */
  off<K extends ExecutorEventName>(name: K, listener: ExecutorListener<K>): this {
    this.hub.off(name as ReplayEventName, listener as never);
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
    if (this.started) throw new ConfigError('This replay has run already: create another with new HistoryReplay().');
    this.started = true;
    const startedAt = Date.now();
    const { timeout } = this.options;
    const timer = timeout === undefined ? undefined : setTimeout(() => this.controller.abort(new TimeoutError(timeout, 'The replay')), timeout);
    const reports: ReplayStepReport[] = [];
    let error: PlannavError | undefined;
    let finalAnswer: string | undefined;
    const guard = await this.installGuard();
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
      await guard.release();
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

  /** Finds the recorded element on the page now (see locateElement). */
  private locate(recorded: RecordedAction, offTrack: boolean): ReturnType<typeof locateElement> {
    return locateElement(
      {
        driver: this.driver,
        signal: this.controller.signal,
        readPage: () => this.readPage(),
        elementTimeoutMs: this.options.elementTimeoutMs,
        matchThreshold: this.options.matchThreshold,
        origins: this.origins,
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
    const signal = this.controller.signal;
    return createAgentContext({
      taskId: this.current.taskId,
      driver: this.driver,
      readPage: (read) => this.session.readPage({ ...read, signal }),
      registry: this.registry,
      llm: { navigator: llm },
      secrets: this.secrets,
      urlPolicy: this.urlPolicy,
      signal,
      timeouts: this.session.timeouts,
      settings: { recordScreenshots: this.options.recordScreenshots, prices: this.options.prices, uploadPaths: this.options.uploadPaths },
      takeBlockedNavigations: () => this.blocked.splice(0),
      nSteps: step,
      // The Navigator's events that are not a replay's (none today) are not passed on.
      emit: (name, actor, payload) => {
        if (isReplayEvent(name)) this.emit(name, actor, payload as EventPayload<typeof name>);
      },
    });
  }

  /** Reads the page once it settled, within the replay's deadlines. */
  private readPage(): Promise<PageState> {
    return this.session.readPage({ signal: this.controller.signal, screenshot: this.options.recordScreenshots });
  }

  /** Installs the replay's URL policy in the driver, lifting an Executor's kept guard until `run()` ends. */
  private async installGuard(): Promise<UrlGuard> {
    const guard = this.session.urlGuard(
      this.urlPolicy,
      {
        check: (url) => this.urlPolicy.check(url),
        blocked: (navigation) => {
          this.blocked.push(navigation);
          this.emit('url-blocked', 'system', { url: navigation.url, reason: navigation.reason, kind: navigation.kind });
        },
      },
      this.controller.signal,
      'lift',
    );
    const installed = await guard.install().catch((error: unknown) => ({ failure: error }));
    if (installed.failure !== undefined) {
      this.emit('warning', 'system', {
        code: 'URL_POLICY_GUARD_FAILED',
        message: `The driver could not install the URL policy: ${describeThrown(installed.failure)}`,
      });
    }
    return guard;
  }

  private emit<K extends ReplayEventName>(name: K, actor: Actor, payload: EventPayload<K>): void {
    const base: EventBase = { taskId: this.current.taskId, step: this.current.step, actor, timestamp: Date.now() };
    const event = this.secrets.redactDeep({ ...base, ...payload }) as ReplayEventMap[K];
    if (name === 'model-call-start' && this.asking) this.modelCalls++;
    if (name === 'model-call-end') {
      const { usage, provider, model, attempt, durationMs, error } = event as ReplayEventMap['model-call-end'];
      this.usage = addUsage(this.usage, usage);
      this.recorder?.addUsage(usage);
      this.recorder?.addModelCall({ actor: 'navigator', provider, model, attempt, usage, durationMs, error });
    }
    this.hub.emit(name, event);
  }
}

/**
 * `new HistoryReplay(history, options).run()` in one call (the public way in is the class).
 * @internal
 */
export function replayHistory(history: RunHistory, options: ReplayOptions): Promise<ReplayResult> {
  return new HistoryReplay(history, options).run();
}
