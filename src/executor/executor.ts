// The Executor: runs the Planner/Navigator loop for a task and its follow-ups, with pause,
// resume, cancel, human input, typed events and a history that survives any ending. It holds the
// task's frame; the steps are task-loop.ts's, the URL guard url-guard.ts's, the browser the session's.
// Over 600 lines: the public face of the loop (options, events, tasks, follow-ups, history, close) in one class; its parts live beside it.

import { ActionRegistry } from '../actions/registry';
import { builtinActions, evaluateAction } from '../actions/builtin/index';
import type { ActionResult, HumanAnswer } from '../actions/types';
import type { AgentContext, EventPayload } from '../agents/agent-context';
import { ConfigError, MaxFailuresReachedError, MaxStepsReachedError, PlannavError, RequestCancelledError, TimeoutError } from '../errors';
import type { Actor, ExecutorEvent, ExecutorEventMap, ExecutorEventName, ExecutorListener, TaskStatus } from '../events';
import { toErrorInfo } from '../history/error-info';
import { StepRecorder } from '../history/step-recorder';
import { historySchemaVersion, type RunHistory, type StepRecord, type TaskRecord } from '../history/types';
import { base64ToBytes } from '../util/base64';
import { addUsage, emptyUsage, type TokenUsage } from '../llm/usage';
import { MessageManager } from '../messages/message-manager';
import { navigatorSystemPrompt } from '../prompts/navigator-system';
import { SecretStore } from '../security/secrets';
import { bindPageTextRedaction } from '../dom/page-text-redaction';
import { UrlPolicy } from '../security/url-policy';
import { TaskScope } from '../security/task-scope';
import { SensitiveActionGate } from '../agents/sensitive-action-gate';
import type { ResolvedBrowserDriver } from '../browser/types';
import { BrowserSession, createAgentContext, TypedEventHub } from '../session/index';
import { createEventStream, subscribeToEvents } from './event-stream';
import { TaskLoop, type TaskLoopHost } from './task-loop';
import { ExecutorUrlGuard } from './url-guard';
import { ExecutorDownloads } from './downloads';
import { HumanInputBroker } from './human-input';
import {
  resolveExecuteOptions,
  resolveExecutorOptions,
  type ExecuteOptions,
  type ExecutorOptions,
  type ResolvedExecuteOptions,
  type ResolvedExecutorOptions,
} from './options';
import { TaskControl } from '../util/task-control';
import { describeThrown } from '../util/describe-thrown';

/**
 * How one `execute()` ended. `TData` is the output type of the Executor's `outputSchema`.
 * @public
 */
export interface ExecutionResult<TData = unknown> {
  /** The id of the task that ran; its events and history records carry the same id. */
  readonly taskId: string;
  /** How the task ended: `ok` when the Planner finished it, else `failed`, `cancelled`, `timed-out` or `max-steps`. */
  readonly status: TaskStatus;
  /** True when the Planner declared the task done and the Navigator did not report failure. */
  readonly success: boolean;
  /** The Planner's final answer, when the task finished. */
  readonly finalAnswer: string | undefined;
  /**
   * The structured result of the `done` action, when the task finished with one: with an
   * `outputSchema`, the data the schema parsed, of its output type.
   */
  readonly data: TData | undefined;
  /**
   * Why the task did not finish: a `MaxStepsReachedError`, `MaxFailuresReachedError`,
   * `RequestCancelledError`, `TimeoutError`, or a fatal model error.
   */
  readonly error: PlannavError | undefined;
  /** Navigator steps taken in this task. */
  readonly steps: number;
  /** Tokens used by this task's model calls. */
  readonly usage: TokenUsage;
  /** The session's history so far (every task, every step). */
  readonly history: RunHistory;
  /** How long the task ran, in milliseconds. */
  readonly durationMs: number;
}

/** Options of {@link Executor.events}. @public */
export interface EventStreamOptions {
  /** Ends the stream early when aborted. */
  readonly signal?: AbortSignal | undefined;
  /**
   * How long the stream lasts. `task` (the default): the events of one task, the one running when
   * the stream is opened or else the next one to run, up to and including its `task-end`; with no
   * task running or left to run, the stream ends at once. `session`: every event of every task,
   * until `close()`.
   * @defaultValue 'task'
   */
  readonly scope?: 'task' | 'session' | undefined;
}

function newTaskId(): string {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  return crypto?.randomUUID?.() ?? `task-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/**
 * Runs a browser task with a Planner and a Navigator sharing one conversation. `TData` is
 * inferred from the `outputSchema` option: it types `ExecutionResult.data`.
 *
 * @example
 * ```ts
 * const executor = new Executor({ task: 'Find the cheapest blue mug', llm, browser });
 * executor.on('action-end', (event) => console.log(event.action, event.result ?? event.error));
 * const result = await executor.execute();
 * console.log(result.status, result.finalAnswer);
 * ```
 * @public
 */
export class Executor<TData = unknown> {
  private readonly options: ResolvedExecutorOptions;
  /** The listeners; one's exception reaches no other listener and not the loop, but a `LISTENER_ERROR` warning. */
  private readonly hub = new TypedEventHub<ExecutorEventMap>((error, event) => {
    if ((event as { code?: unknown }).code === 'LISTENER_ERROR') return;
    this.emit('warning', 'system', { code: 'LISTENER_ERROR', message: `An event listener threw: ${describeThrown(error)}` });
  });
  private readonly control = new TaskControl();
  private readonly human: HumanInputBroker;
  private readonly messages: MessageManager;
  private readonly registry: ActionRegistry;
  /** The browser, its reader and the deadlines, wired once. */
  private readonly session: BrowserSession;
  /** The browser with the core's defaults for what its driver leaves out. */
  private readonly driver: ResolvedBrowserDriver;
  private readonly urlPolicy: UrlPolicy;
  /** The `secrets` option: names for the model, values for actions, redaction of every sink. */
  private readonly secrets: SecretStore;
  /** Ends the redaction of the driver's page text by this executor's secrets. */
  private readonly unbindPageTextRedaction: (() => void) | undefined;
  /** The URL policy's guard in the driver, across tasks. */
  private readonly urlGuard: ExecutorUrlGuard;
  /** Downloads (issue 24): the driver's reports as events, step records and results. */
  private readonly downloads: ExecutorDownloads;
  private readonly tasks: TaskRecord[] = [];
  private readonly steps: StepRecord[] = [];
  /** The steps' screenshots by part name, with `recordScreenshots` or `useVision`. */
  private readonly screenshots = new Map<string, Uint8Array>();
  /** The last screenshot kept, so a Planner and a Navigator step that read the same state share one part. */
  private lastScreenshot: { readonly data: string; readonly part: string } | undefined;
  private carriedResults: ActionResult[] = [];
  private nextTaskIndex = 0;
  private running = false;
  /** Token usage of the running task and of its current step, summed from model-call-end events. */
  private taskUsage = emptyUsage;
  private stepRecorder: StepRecorder | undefined;
  private current: { taskId: string; step: number } | undefined;
  /** The running `execute()`, for `close()` to wait on. */
  private runningTask: Promise<unknown> | undefined;
  private closed = false;
  /** Ends the open event streams of scope `session`. */
  private readonly sessionStreams = new Set<() => void>();
  /** Whether a task of this session has shown page content to a model (the conversation holds it). */
  private pageContentShown = false;

  /**
   * Checks the options and prepares the first task; nothing runs until `execute()`.
   * @throws `ConfigError` when an option is invalid; nothing has run yet.
   */
  constructor(options: ExecutorOptions<TData>) {
    this.options = resolveExecutorOptions(options);
    this.urlPolicy = new UrlPolicy({ allow: this.options.urlPolicy.allow, deny: this.options.urlPolicy.deny });
    this.secrets = new SecretStore(this.options.secrets);
    const excluded = new Set(this.options.excludeActions);
    const builtins = [...builtinActions(this.options.outputSchema), ...(this.options.allowEvaluate ? [evaluateAction] : [])];
    const unknown = this.options.excludeActions.filter((name) => !builtins.some((action) => action.name === name));
    if (unknown.length > 0) {
      throw new ConfigError(`Option \`excludeActions\` names unknown built-in actions: ${unknown.join(', ')}.`, { field: 'excludeActions' });
    }
    if (excluded.has('done'))
      throw new ConfigError('Option `excludeActions` cannot exclude `done`: the Navigator needs it to finish.', { field: 'excludeActions' });
    const names = this.options.actions.map((action) => action.name);
    const repeated = [...new Set(names.filter((name, index) => names.indexOf(name) !== index))];
    if (repeated.length > 0) {
      throw new ConfigError(
        `Option \`actions\` has more than one action named ${repeated.map((name) => `"${name}"`).join(', ')}: give each action its own name (one named like a built-in replaces the built-in).`,
        { field: 'actions' },
      );
    }
    this.registry = new ActionRegistry([...builtins.filter((action) => !excluded.has(action.name)), ...this.options.actions]);
    this.human = new HumanInputBroker(this.options.humanInput, this.options.humanTimeoutMs);
    this.messages = new MessageManager({ maxInputTokens: this.options.maxInputTokens });
    this.messages.initTask(
      navigatorSystemPrompt({ maxActionsPerStep: this.options.maxActionsPerStep, actionList: this.registry.describe() }),
      this.options.task,
    );
    this.session = new BrowserSession(this.options.browser, {
      reader: { viewportExpansion: this.options.viewportExpansion, includeAttributes: this.options.includeAttributes },
      timeouts: { ...this.options.browserTimeouts, model: this.options.modelTimeoutMs },
    });
    this.driver = this.session.driver;
    this.urlGuard = new ExecutorUrlGuard({
      session: this.session,
      browser: this.options.browser,
      urlPolicy: this.urlPolicy,
      scope: this.options.urlPolicy.scope,
      emit: (name, actor, payload) => this.emit(name, actor, payload),
      currentStep: () => this.current?.step,
      isClosed: () => this.closed,
      lastTaskId: () => this.tasks[this.nextTaskIndex - 1]?.taskId ?? '',
    });
    this.downloads = new ExecutorDownloads(
      this.options.browser,
      (name, actor, payload) => this.emit(name, actor, payload),
      () => this.current !== undefined,
    );
    // Page text is redacted where it enters Node, before the view cuts it or an action searches it.
    if (!this.secrets.isEmpty) this.unbindPageTextRedaction = bindPageTextRedaction(this.driver, this.secrets);
    this.tasks.push({ taskId: newTaskId(), task: this.options.task, startedAt: 0, endedAt: undefined, status: undefined, finalAnswer: undefined });
    if (this.options.injectionGuard.enabled && this.options.injectionGuard.onDetected === 'end-task') {
      this.hub.subscribe('injection-detected', (event) => this.endOnInjection(event));
    }
  }

  /**
   * `injectionGuard.onDetected: 'end-task'`: what a listener calling `cancel()` would do, at once
   * (the event comes before any model reads the text), with a reason that names what was found.
   */
  private endOnInjection(event: ExecutorEventMap['injection-detected']): void {
    const patterns = event.findings.map((finding) => finding.pattern).join(', ');
    const reason = `The injection guard ended the task: ${event.url || 'the page'} holds instruction-injection patterns (${patterns}) in the ${event.source}.`;
    if (this.running && this.control.cancel(new RequestCancelledError(reason))) this.emit('task-cancel', 'system', { reason });
  }

  /**
   * Listens to an event. Returns this, for chaining. The listener may be async; the loop does not
   * wait for it, and its exception or rejection becomes a `LISTENER_ERROR` warning.
   */
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

  /**
   * Every event, as an async iterator, for streaming to a UI. By default it yields the events of
   * one task (the running one, or else the next to run) and ends after that task's `task-end`;
   * with `scope: 'session'` it lasts until `close()`. It also ends when `signal` aborts or the
   * `for await` loop breaks. Events are buffered until read, so read what you open. What happens
   * between tasks (a `url-blocked` event with `betweenTasks`) is in session streams only.
   */
  events(options: EventStreamOptions = {}): AsyncIterableIterator<ExecutorEvent> {
    const scope = options.scope ?? 'task';
    if (scope !== 'task' && scope !== 'session') {
      throw new ConfigError(`events() option \`scope\` must be "task" or "session"; got ${JSON.stringify(scope)}.`, { field: 'scope' });
    }
    // The task a task-scoped stream is for; none when nothing runs and nothing is left to run.
    const taskId = this.running ? this.current?.taskId : this.tasks[this.nextTaskIndex]?.taskId;
    const endsNow = this.closed || (scope === 'task' && taskId === undefined);
    return createEventStream((listener, end) => {
      if (endsNow) {
        end();
        return () => undefined;
      }
      const unsubscribe = subscribeToEvents(this.hub, scope === 'task' ? taskId : undefined, listener, end);
      if (scope === 'session') this.sessionStreams.add(end);
      return () => {
        this.sessionStreams.delete(end);
        unsubscribe();
      };
    }, options.signal);
  }

  /**
   * Ends the session: cancels the running task (it ends `cancelled`), waits for it to end,
   * removes the URL policy's navigation guard from the driver, and ends every event stream.
   * Afterwards `execute()` and `addFollowUpTask()` throw a `ConfigError`. The browser is not
   * closed: the caller owns it. Calling it again does nothing more.
   */
  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.cancel('The executor was closed.');
    }
    await this.runningTask?.catch(() => undefined);
    await this.urlGuard.remove();
    this.downloads.close();
    this.unbindPageTextRedaction?.();
    for (const end of [...this.sessionStreams]) end();
  }

  /** The session's history: every task and step so far, as versioned JSON-ready data. */
  get history(): RunHistory {
    return {
      schemaVersion: historySchemaVersion,
      tasks: this.tasks.map((task) => this.secrets.redactDeep({ ...task })),
      steps: [...this.steps],
      screenshots: new Map(this.screenshots),
    };
  }

  /** Whether a task is running. */
  get isRunning(): boolean {
    return this.running;
  }

  /**
   * Pauses the running task at its next checkpoint: before each step and each action. A model
   * call in flight finishes; the actions it chose run after `resume()` if the page did not change
   * meanwhile, else the model is asked again on the page as it is. A pause never counts as a
   * failed step.
   */
  pause(): void {
    if (this.running && this.control.pause()) this.emit('task-pause', 'user', {});
  }

  /** Resumes a paused task. */
  resume(): void {
    if (this.running && this.control.resume()) this.emit('task-resume', 'user', {});
  }

  /**
   * Cancels the running task: the model call or action in flight is aborted and `execute()`
   * resolves with status `cancelled` at once, even while paused or waiting for a person.
   */
  cancel(reason = 'Cancelled by the caller.'): void {
    if (this.running && this.control.cancel(reason)) this.emit('task-cancel', 'user', { reason });
  }

  /**
   * Answers the agent's question (after a `human-question` event), the oldest waiting one unless
   * `questionId` is given. Returns false when no question was waiting.
   */
  respond(answer: string, questionId?: string): boolean {
    return this.human.respond(answer, questionId);
  }

  /**
   * Adds a follow-up task to the same session: same browser, same conversation. Run it with
   * `execute()`. Only action results kept in memory carry over.
   * @throws `ConfigError` while a task is running, when `task` is empty, or after `close()`.
   */
  addFollowUpTask(task: string): void {
    if (this.closed) throw new ConfigError('The executor is closed: create a new Executor for more tasks.', { field: 'task' });
    if (this.running) throw new ConfigError('A follow-up task can only be added when no task is running: await execute() first.', { field: 'task' });
    if (typeof task !== 'string' || !task.trim()) throw new ConfigError('A follow-up task must be a non-empty string.', { field: 'task' });
    this.tasks.push({ taskId: newTaskId(), task, startedAt: 0, endedAt: undefined, status: undefined, finalAnswer: undefined });
    this.messages.addNewTask(task);
    this.carriedResults = this.carriedResults.filter((result) => result.includeInMemory);
  }

  /**
   * Runs the next task (the first, then each follow-up) to its end. Never rejects for what
   * happens during the task: the result says how it ended. `options.signal` cancels this task
   * and `options.timeout` (ms) ends it with status `timed-out`; a follow-up gets its own.
   *
   * With a restrictive `urlPolicy`, each call (re)installs the policy's navigation guard in the
   * driver, replacing whatever guard another Executor left there, and the guard stays installed
   * when the task ends, until `close()`: a page's own timer or script cannot take the tab to a
   * denied host between tasks either. A navigation it stops while no task runs is reported at the
   * next task's start (a `url-blocked` event inside that task, and a note the agents read first).
   * @throws `ConfigError` when an option is invalid, a task is already running, there is no task
   * left to run, the executor is closed, or the browser driver is running another Executor's
   * task (field `browser`: a driver runs one task at a time); nothing has run then.
   */
  async execute(options?: ExecuteOptions): Promise<ExecutionResult<TData>> {
    const run = resolveExecuteOptions(options);
    if (this.closed) throw new ConfigError('The executor is closed: create a new Executor for more tasks.');
    if (this.running) throw new ConfigError('execute() is already running: await it, or cancel() it first.');
    const taskIndex = this.nextTaskIndex;
    const task = this.tasks[taskIndex];
    if (!task) throw new ConfigError('There is no task left to run: add one with addFollowUpTask() first.');
    // Another Executor's task on the same driver would act on this task's pages.
    const release = this.session.lease({ what: "another Executor's running task", taskId: task.taskId });
    this.nextTaskIndex++;
    this.running = true;
    const running = this.runTask(task, taskIndex, run).finally(release);
    this.runningTask = running;
    return running;
  }

  private async runTask(task: TaskRecord, taskIndex: number, run: ResolvedExecuteOptions): Promise<ExecutionResult<TData>> {
    this.control.reset();
    const startedAt = Date.now();
    this.tasks[taskIndex] = { ...task, startedAt };
    this.current = { taskId: task.taskId, step: 0 };
    const driverGuarded = await this.urlGuard.install(this.control.signal);
    const context = this.createContext(task.taskId, driverGuarded);
    this.emit('task-start', 'system', { task: task.task, taskIndex });
    this.urlGuard.taskStarted(context, driverGuarded);
    // Linked after task-start, so a signal aborted already reports its cancel inside the task.
    const unlinkSession = this.linkSignal(this.options.signal, 'Cancelled by the caller\u2019s signal.');
    const unlinkRun = this.linkSignal(run.signal, 'Cancelled by the signal given to execute().');
    const clearTimer = this.startTimeout(run.timeout);

    let status: TaskStatus = 'ok';
    let error: PlannavError | undefined;
    let finalAnswer: string | undefined;
    let success = false;
    let data: TData | undefined;
    this.taskUsage = emptyUsage;
    const loop = new TaskLoop(this.loopHost(), context, taskIndex);
    try {
      let found: unknown;
      ({ finalAnswer, success, data: found } = await loop.run());
      // The done action's schema was built from outputSchema, so its data has TData's shape.
      data = found as TData | undefined;
    } catch (caught) {
      error = this.control.cancelled ? (this.control.signal.reason as PlannavError) : toPlannavError(caught);
      status = statusOf(error);
      const limit = MaxStepsReachedError.isInstance(error)
        ? 'step limit (maxSteps)'
        : MaxFailuresReachedError.isInstance(error)
          ? 'failure limit (maxFailures)'
          : undefined;
      if (limit && this.options.finalAnswerOnLimit) {
        // The step cap makes no call past it (whatever the model chose there could not run): the
        // last step was told it is the last, and the done it ended with is the partial answer.
        const partial = context.nSteps >= this.options.maxSteps ? loop.lastStepDone : await loop.forcedAnswer(limit);
        if (partial) ({ text: finalAnswer, data } = { text: partial.text, data: partial.data as TData | undefined });
      }
    } finally {
      clearTimer();
      unlinkRun();
      unlinkSession();
      this.runningTask = undefined;
      // The guard stays installed (see execute()); what it stops from now on waits for the next task.
      this.urlGuard.taskEnded();
      this.carriedResults = context.actionResults;
      this.pageContentShown ||= context.gate?.tainted ?? false;
      this.running = false;
    }
    const endedAt = Date.now();
    this.tasks[taskIndex] = {
      ...this.tasks[taskIndex],
      endedAt,
      status,
      finalAnswer,
      error: error ? toErrorInfo(error) : undefined,
      ...(data === undefined ? {} : { data }),
    };
    const usage = this.taskUsage;
    this.emit('task-end', 'system', {
      status,
      success,
      finalAnswer,
      error: error ? toErrorInfo(error) : undefined,
      usage,
      durationMs: endedAt - startedAt,
    });
    this.current = undefined;
    // What the caller gets holds no secret value: the answer, the data, the error and its causes.
    return {
      taskId: task.taskId,
      status,
      success,
      finalAnswer: this.secrets.redactDeep(finalAnswer),
      data: this.secrets.redactDeep(data),
      error: this.secrets.redactDeep(error),
      steps: context.nSteps,
      usage,
      history: this.history,
      durationMs: endedAt - startedAt,
    };
  }

  /** What a task's loop reaches of this Executor. */
  private loopHost(): TaskLoopHost {
    return {
      options: this.options,
      secrets: this.secrets,
      driver: this.driver,
      control: this.control,
      emit: (name, actor, payload) => this.emit(name, actor, payload),
      setStep: (step) => this.setStep(step),
      startStep: (recorder) => {
        this.stepRecorder = recorder;
      },
      recordStep: (recorder, failure) => {
        this.steps.push(this.secrets.redactDeep(recorder.finish(failure, this.keepScreenshot(recorder.screenshot))));
      },
      afterNavigatorStep: (recorder, context) => this.downloads.afterStep(recorder, context, this.options.browserTimeouts.action, this.control.signal),
    };
  }

  /** Keeps a step's screenshot as a binary part of the history; returns the part's reference. */
  private keepScreenshot(data: string | undefined): StepRecord['screenshot'] {
    if (data === undefined) return undefined;
    if (this.lastScreenshot?.data !== data) {
      const part = `step-${String(this.steps.length + 1).padStart(4, '0')}.jpg`;
      this.screenshots.set(part, base64ToBytes(data));
      this.lastScreenshot = { data, part };
    }
    return { part: this.lastScreenshot.part, mediaType: 'image/jpeg' };
  }

  private createContext(taskId: string, driverGuarded: boolean): AgentContext {
    const options = this.options;
    const control = this.control;
    const tasks = this.tasks;
    // The task involves the sites the user's words name (this task's and the earlier ones', whose
    // pages the browser may still show) and the hosts the user allowed.
    const words = (): string[] => tasks.slice(0, this.nextTaskIndex).map((task) => task.task);
    return createAgentContext({
      taskId,
      driver: this.driver,
      readPage: (read) => this.session.readPage({ ...read, signal: control.signal }),
      registry: this.registry,
      llm: { navigator: options.llm, planner: options.plannerLLM, extraction: options.extractionLLM },
      secrets: this.secrets,
      urlPolicy: this.urlPolicy,
      signal: control.signal,
      timeouts: this.session.timeouts,
      settings: {
        maxSteps: options.maxSteps,
        maxActionsPerStep: options.maxActionsPerStep,
        useVision: options.useVision,
        useVisionForPlanner: options.useVisionForPlanner,
        recordScreenshots: options.recordScreenshots,
        modelRetry: options.modelRetry,
        fallbackLLM: options.fallbackLLM,
        temperature: options.temperature,
        prices: options.prices,
        uploadPaths: options.uploadPaths,
        endTaskOnBlockedUrl: options.urlPolicy.onBlocked === 'end-task',
        detectInjections: options.injectionGuard.enabled,
      },
      messages: this.messages,
      driverGuarded,
      takeBlockedNavigations: () => this.urlGuard.takeBlockedNavigations(),
      actionResults: this.carriedResults,
      emit: (name, actor, payload) => this.emit(name, actor, payload),
      checkpoint: async () => {
        const waited = await control.checkpoint();
        // After a pause the page may have changed: the next model call must see it afresh.
        if (waited) this.messages.removeStateMessage();
        return waited;
      },
      askHuman: (question) => this.askHuman(question, taskId),
      gate: (context) => {
        const scope = new TaskScope(words().join('\n'), [...(options.urlPolicy.allow ?? []), ...options.sensitiveActions.trustedHosts]);
        const gate = new SensitiveActionGate(context, scope, options.sensitiveActions, words);
        // The conversation carries the pages of earlier tasks: a follow-up starts tainted by them.
        if (this.pageContentShown) gate.contentShown();
        return gate;
      },
    });
  }

  private async askHuman(question: string, taskId: string): Promise<HumanAnswer> {
    const questionId = this.human.nextQuestionId();
    const step = this.current?.step ?? 0;
    this.emit('human-question', 'navigator', { questionId, question, timeoutMs: this.options.humanTimeoutMs });
    const reply = await this.human.ask({ questionId, question, taskId, step }, this.control.signal);
    this.emit('human-answer', 'user', { questionId, answer: reply.answer, timedOut: reply.timedOut });
    return reply;
  }

  /** Makes `signal` cancel the running task with `reason`; returns the function that unlinks it. */
  private linkSignal(signal: AbortSignal | undefined, reason: string): () => void {
    if (!signal) return () => undefined;
    const onAbort = (): void => this.cancel(reason);
    if (signal.aborted) {
      onAbort();
      return () => undefined;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    return () => signal.removeEventListener('abort', onAbort);
  }

  /** Ends the running task with a `TimeoutError` after `timeoutMs`; returns the function that clears the timer. */
  private startTimeout(timeoutMs: number | undefined): () => void {
    if (timeoutMs === undefined) return () => undefined;
    const timer = setTimeout(() => this.control.cancel(new TimeoutError(timeoutMs, 'The task')), timeoutMs);
    return () => clearTimeout(timer);
  }

  private setStep(step: number): void {
    if (this.current) this.current.step = step;
  }

  private emit<K extends ExecutorEventName>(name: K, actor: Actor, payload: EventPayload<K> & { readonly taskId?: string }): void {
    const { taskId = this.current?.taskId ?? '', ...rest } = payload;
    // No secret value leaves in a payload. The event's own fields stay whole: a short secret (a user name) inside
    // a random task id, redacted, left a task-scoped stream waiting for its task's `task-end` forever.
    const event = { taskId, step: this.current?.step ?? 0, actor, timestamp: Date.now(), ...this.secrets.redactDeep(rest) } as ExecutorEventMap[K];
    if (name === 'model-fallback') {
      const { from, to, error } = event as ExecutorEventMap['model-fallback'];
      this.stepRecorder?.addFallback({ from: `${from.provider}:${from.model}`, to: `${to.provider}:${to.model}`, error });
    }
    if (name === 'model-call-end') {
      const { usage, provider, model, attempt, durationMs, error } = event as ExecutorEventMap['model-call-end'];
      this.taskUsage = addUsage(this.taskUsage, usage);
      this.stepRecorder?.addUsage(usage);
      if (actor === 'planner' || actor === 'navigator' || actor === 'validator') {
        this.stepRecorder?.addModelCall({ actor, provider, model, attempt, usage, durationMs, error });
      }
    }
    this.hub.emit(name, event);
  }
}

/** How a task that ended with `error` ended. */
function statusOf(error: PlannavError): TaskStatus {
  if (TimeoutError.isInstance(error)) return 'timed-out';
  if (RequestCancelledError.isInstance(error)) return 'cancelled';
  return MaxStepsReachedError.isInstance(error) ? 'max-steps' : 'failed';
}

function toPlannavError(error: unknown): PlannavError {
  if (PlannavError.isInstance(error)) return error;
  const message = describeThrown(error);
  return new PlannavError('UNEXPECTED_ERROR', `The task failed unexpectedly: ${message}`, { cause: error });
}
