// Replay without a model: each recorded action again, on the page as it is now. An action on an
// element finds it by its fingerprint (exactly by stable attributes, else by a scored match),
// acts, and checks where the browser ended against the recording. A step that cannot be done the
// recorded way stops the replay, is skipped, or is handed to the Navigator for that step only.
// HistoryReplay holds the run's frame (tasks, steps, events, guard); one action's replay is
// action-replay.ts's, and the browser, deadlines and agent context are the session's.

import { builtinActions } from '../actions/builtin/index';
import { ActionRegistry } from '../actions/registry';
import type { AgentContext, EventPayload } from '../agents/agent-context';
import { bindPageTextRedaction } from '../dom/page-text-redaction';
import type { PageState } from '../browser/page-state';
import type { BlockedNavigation, ResolvedBrowserDriver } from '../browser/types';
import { ConfigError, isFatalError, PlannavError, RequestCancelledError, TimeoutError } from '../errors';
import type { Actor, EventBase, ExecutorEventName, ExecutorListener, ReplayStepReport } from '../events';
import { toErrorInfo } from '../history/error-info';
import { parseHistory } from '../history/schema';
import { StepRecorder } from '../history/step-recorder';
import { historySchemaVersion, type RunHistory, type StepRecord, type TaskRecord } from '../history/types';
import type { LLMClient } from '../llm/types';
import { addUsage, emptyUsage } from '../llm/usage';
import { SecretStore } from '../security/secrets';
import { UrlPolicy } from '../security/url-policy';
import { sleep } from '../util/abort';
import { base64ToBytes } from '../util/base64';
import { describeThrown } from '../util/describe-thrown';
import { ActionReplayer } from './action-replay';
import { BrowserSession, createAgentContext, TypedEventHub, type UrlGuard } from '../session/index';
import { isReplayEvent, type ReplayEventMap, type ReplayEventName } from './events';
export type { ReplayCheck, ReplayCheckReport, ReplayExpect, ReplayOptions, ReplayResult } from './options';
import { optionsSchema, type ReplayOptions, type ReplayResult, type ResolvedOptions } from './options';
import {
  type ActionReplay,
  type RecordedAction,
  recordedActions,
  type SiteMove,
  originMap,
  checkVariables,
  listOf,
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
  /** The replay of each recorded action, with the checks and reads it keeps. */
  private readonly actions: ActionReplayer;
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
    this.actions = new ActionReplayer({
      options: this.options,
      driver: this.driver,
      registry: this.registry,
      secrets: this.secrets,
      urlPolicy: this.urlPolicy,
      signal: this.controller.signal,
      origins: this.origins,
      emit: (name, actor, payload) => this.emit(name, actor, payload),
      current: () => this.current,
      taskIndex: () => this.tasks.length - 1,
      recorder: () => this.recorder,
      readPage: () => this.readPage(),
      agentContext: (llm, step) => this.agentContext(llm, step),
      whileAsking: async (ask) => {
        this.asking = true;
        try {
          return await ask();
        } finally {
          this.asking = false;
        }
      },
    });
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
      if (endChecks.length > 0) await this.actions.runChecks(endChecks, 'end').catch(() => undefined);
    }
    const checksFailed = this.actions.checks.some((check) => check.at === 'end' && !check.passed);
    const status = endedBy(error) ?? (reports.some((report) => report.status === 'failed') || checksFailed ? 'failed' : 'ok');
    const recordedFinalAnswer = recordedAnswer(this.recording);
    return {
      status,
      steps: reports,
      history: this.history,
      usage: this.usage,
      finalAnswer: this.secrets.redactDeep(finalAnswer),
      finalAnswerSource: finalAnswer === undefined ? undefined : this.actions.readsAgree === true ? 'page' : 'recording',
      recordedFinalAnswer: this.secrets.redactDeep(recordedFinalAnswer),
      checks: [...this.actions.checks],
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
        ? this.actions.skipped(recorded, stopped)
        : await this.actions.replay(recorded, substituted, offTrack).catch((caught: unknown) => {
            // A cancel, a timeout or a browser gone ends the replay; any other failure (a page
            // that cannot be read in time) fails this action, and onStepFailure decides.
            if (this.controller.signal.aborted || isFatalError(caught)) {
              error = this.controller.signal.aborted ? (this.controller.signal.reason as PlannavError) : toError(caught);
            }
            return this.actions.failedReport(recorded, describeThrown(caught), 0);
          });
      substituted ||= report.substituted;
      offTrack = report.report.status === 'failed' || (offTrack && report.report.status === 'skipped');
      this.actions.noteOutcome(recorded, report.report);
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
    // The event's own fields stay whole (see the Executor's emit): only the payload is redacted.
    const event = { ...base, ...this.secrets.redactDeep(payload) } as ReplayEventMap[K];
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
