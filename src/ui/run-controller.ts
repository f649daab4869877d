// The run page's one run at a time: opens the browser session, runs a task, a follow-up or a
// replay, relays its events as cards, and answers the page's commands. No HTTP here (server.ts).

import { join } from 'node:path';
import { openReplaySession, openRunSession, readSecretsFile, type ReplaySession, type RunConfig, type RunSession } from '../front/index';
import { Executor, parseHistory, RequestCancelledError, type ExecutionResult, type HistoryReplay, type ReplayResult, type RunHistory } from '../index';
import { createRunGif, createRunReport, saveHistory } from '../node/index';
import type { PageMessage } from './event-stream';
import { LiveView } from './live-view';
import type { HelloEvent, OpenedHistory, PageEventMap, PageSettings, RunKind, RunStatus, SummaryEvent } from './messages';
import { StepCards } from './step-cards';

/**
 * The files of the last run. The GIF is made when it is first asked for: it takes seconds of CPU
 * that most runs would spend for nothing, between the end of a run and its summary.
 */
interface RunFiles {
  readonly folder: string;
  readonly history: RunHistory;
  readonly historyFile: string;
  readonly reportFile: string | undefined;
  gif?: Promise<string>;
}

/** A command the page sent that cannot be done now or as given: `status` is the HTTP status to answer. */
export class PageCommandError extends Error {
  constructor(
    readonly status: 400 | 404 | 409,
    message: string,
  ) {
    super(message);
    this.name = 'PageCommandError';
  }
}

/** Where the controller's events go: the server's EventHub, or a test's recorder. */
export interface PageEventSink {
  /** Keeps the message for pages that connect later, and sends it to the open ones. */
  publish(message: PageMessage): void;
  /** Sends without keeping (a live frame). */
  publishTransient(message: PageMessage): void;
  /** Forgets the kept messages: a new run starts. */
  clear(): void;
}

/** Options of {@link RunController}. */
export interface RunControllerOptions {
  /** The run set-up the page starts from; the page's settings override its model and browser fields. */
  readonly config: RunConfig;
  /** Where each run's files go, one folder per run. */
  readonly workFolder: string;
  readonly hub: PageEventSink;
  /** Opens a session; the default is src/front's. Tests pass their own. */
  readonly openSession?: ((config: RunConfig, signal?: AbortSignal) => Promise<RunSession>) | undefined;
}

type TokenUsage = ExecutionResult['usage'];

const statusOfTask = (status: ExecutionResult['status']): RunStatus => (status === 'ok' ? 'done' : status === 'cancelled' ? 'cancelled' : 'failed');
const statusOfReplay = (status: ReplayResult['status']): RunStatus => (status === 'ok' ? 'done' : status === 'cancelled' ? 'cancelled' : 'failed');
const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The errors of a run's steps and actions, each once, at most ten, then the run's own. */
function runErrors(history: RunHistory, fromTaskIndex: number, ended: string | undefined): string[] {
  const seen = new Set<string>();
  for (const step of history.steps) {
    if (step.taskIndex < fromTaskIndex) continue;
    if (step.error) seen.add(step.error.message);
    for (const action of step.actions) if (action.error) seen.add(`${action.name}: ${action.error.message}`);
  }
  const errors = [...seen].slice(0, 10);
  if (ended && !seen.has(ended)) errors.push(ended);
  return errors;
}

/**
 * The run page's state: the session (browser, model, demo shop) kept across runs while the
 * settings stay the same, the Executor of the last task (for follow-ups), the opened history,
 * and the files of the last run.
 */
export class RunController {
  private status: RunStatus = 'idle';
  private busy = false;
  private session: RunSession | undefined;
  private sessionKey = '';
  private settings: PageSettings;
  private executor: Executor | undefined;
  private replay: HistoryReplay | undefined;
  private opening: AbortController | undefined;
  private live: LiveView | undefined;
  /** The live view of the browser that runs now: the session's, or a replay's own. */
  private activeLive: LiveView | undefined;
  private runId = 0;
  private opened: { history: RunHistory; info: OpenedHistory } | undefined;
  private files: RunFiles | undefined;
  private closed = false;
  private readonly cards: StepCards;
  private readonly openSession: (config: RunConfig, signal?: AbortSignal) => Promise<RunSession>;
  /** The run in progress, for close() to wait on. */
  private running: Promise<void> | undefined;

  constructor(private readonly options: RunControllerOptions) {
    this.openSession = options.openSession ?? openRunSession;
    const { config } = options;
    this.settings = {
      model: config.model ?? '',
      plannerModel: config.plannerModel ?? '',
      extractorModel: config.extractorModel ?? '',
      headless: !config.headed,
      cdpUrl: config.cdpUrl ?? '',
      allowedHosts: config.allow ?? [],
      maxSteps: config.maxSteps ?? 0,
    };
    this.cards = new StepCards({
      publish: (type, data) => this.publish(type, data),
      pageChanged: () => this.activeLive?.request(),
      paused: (paused) => this.setStatus(paused ? 'paused' : 'running'),
    });
  }

  /** What a page that connects now is told first. */
  hello(): HelloEvent {
    return {
      status: this.status,
      demo: this.options.config.demo === true,
      demoTask: this.session?.demoTask,
      settings: this.settings,
      canFollowUp: this.canFollowUp,
      openedHistory: this.opened?.info,
    };
  }

  /**
   * Opens the session with the starting settings before any page connects, in demo mode: the
   * shop's URL is then known, and the demo task (which names it) fills the task box.
   */
  async prepare(): Promise<void> {
    if (this.options.config.demo) await this.sessionFor(this.settings);
  }

  /**
   * The file of the last run of this kind, once it has ended; the GIF is made on the first ask.
   * @throws what making the GIF throws (its optional peer dependencies missing).
   */
  async download(kind: 'history' | 'gif' | 'report'): Promise<string | undefined> {
    const files = this.files;
    if (!files) return undefined;
    if (kind === 'history') return files.historyFile;
    if (kind === 'report') return files.reportFile;
    files.gif ??= createRunGif(files.history, join(files.folder, 'run.gif')).then((gif) => gif.path);
    // A failed GIF is asked again next time (a peer installed meanwhile).
    return files.gif.catch((error: unknown) => {
      files.gif = undefined;
      throw error;
    });
  }

  private get canFollowUp(): boolean {
    return !this.busy && this.executor !== undefined && this.session !== undefined;
  }

  private publish<K extends keyof PageEventMap>(type: K, data: PageEventMap[K]): void {
    this.options.hub.publish({ type, data });
  }

  private setStatus(status: RunStatus): void {
    this.status = status;
    this.publish('status', { status, canFollowUp: this.canFollowUp });
  }

  /** Claims the one run slot, or says what is running. */
  private claim(): void {
    if (this.closed) throw new PageCommandError(409, 'The run page is closing.');
    if (this.busy) throw new PageCommandError(409, 'A run is in progress: stop it or wait for it to end first.');
    this.busy = true;
  }

  private configFor(settings: PageSettings): RunConfig {
    const base = this.options.config;
    const text = (value: string, fallback: string | undefined): string | undefined => value.trim() || fallback;
    return {
      ...base,
      model: text(settings.model, base.model),
      plannerModel: text(settings.plannerModel, base.plannerModel),
      extractorModel: text(settings.extractorModel, base.extractorModel),
      headed: !settings.headless,
      cdpUrl: text(settings.cdpUrl, base.cdpUrl),
      allow: settings.allowedHosts.length > 0 ? settings.allowedHosts : base.allow,
      maxSteps: settings.maxSteps > 0 ? settings.maxSteps : base.maxSteps,
    };
  }

  /** The session for these settings: the open one when they are unchanged, else a new one (the old is closed). */
  private async sessionFor(settings: PageSettings): Promise<RunSession> {
    const config = this.configFor(settings);
    const { env: _env, ...comparable } = config;
    const key = JSON.stringify(comparable);
    if (this.session && key === this.sessionKey) return this.session;
    await this.closeSession();
    this.opening = new AbortController();
    try {
      const session = await this.openSession(config, this.opening.signal);
      this.session = session;
      this.sessionKey = key;
      this.live = new LiveView(session.browser, (frame) => this.options.hub.publishTransient({ type: 'live', data: frame }));
      return session;
    } finally {
      this.opening = undefined;
    }
  }

  private async closeSession(): Promise<void> {
    this.cards.detach();
    this.live?.stop();
    this.live = undefined;
    const executor = this.executor;
    const session = this.session;
    this.executor = undefined;
    this.session = undefined;
    this.sessionKey = '';
    await executor?.close().catch(() => undefined);
    await session?.close().catch(() => undefined);
  }

  /** Starts a new task in a new Executor (the browser is kept when the settings did not change). Resolves once it runs. */
  async run(task: string, settings: Partial<PageSettings> = {}): Promise<{ runId: number }> {
    this.claim();
    try {
      const wanted: PageSettings = { ...this.settings, ...settings };
      this.setStatus('starting');
      const session = await this.sessionFor(wanted);
      this.settings = wanted;
      if (!task.trim() && !session.demoTask) throw new PageCommandError(400, 'Type a task first.');
      // The demo task when the box is empty in demo mode; with a start URL the task does not name, a sentence to start there.
      const text = session.taskFor(task.trim() || undefined);
      await this.executor?.close().catch(() => undefined);
      this.executor = undefined;
      const executor = new Executor(session.executorOptions(text, { recordScreenshots: true }));
      this.executor = executor;
      this.options.hub.clear();
      this.publish('hello', this.hello());
      return this.start('task', text, executor, 0);
    } catch (error) {
      this.busy = false;
      this.setStatus('idle');
      throw error;
    }
  }

  /** Runs `task` in the same session, browser and conversation as the last task. */
  async followUp(task: string): Promise<{ runId: number }> {
    if (!task.trim()) throw new PageCommandError(400, 'Type the follow-up task first.');
    this.claim();
    const executor = this.executor;
    if (!executor || !this.session) {
      this.busy = false;
      throw new PageCommandError(409, 'There is no session to follow up: run a task first.');
    }
    try {
      executor.addFollowUpTask(task.trim());
    } catch (error) {
      this.busy = false;
      throw new PageCommandError(409, describe(error));
    }
    return this.start('follow-up', task.trim(), executor, executor.history.tasks.length - 1);
  }

  private start(kind: RunKind, task: string, executor: Executor, taskIndex: number): { runId: number } {
    const runId = ++this.runId;
    this.cards.attach(executor);
    this.activeLive = this.live;
    this.publish('run-start', { runId, kind, task, fresh: kind === 'task' });
    this.setStatus('running');
    this.live?.request();
    this.running = executor.execute().then(
      (result) => this.finishTask(runId, kind, executor, result, taskIndex),
      (error: unknown) => this.finishBroken(runId, kind, error),
    );
    return { runId };
  }

  private async finishTask(runId: number, kind: RunKind, executor: Executor, result: ExecutionResult, taskIndex: number): Promise<void> {
    const history = executor.history;
    const files = await this.saveFiles(runId, history);
    this.summary({
      runId,
      kind,
      status: statusOfTask(result.status),
      success: result.success,
      result: result.finalAnswer ?? result.error?.message ?? '',
      durationMs: result.durationMs,
      steps: result.steps,
      usage: result.usage,
      errors: runErrors(history, taskIndex, result.error?.message),
      files,
      replay: undefined,
    });
  }

  private async finishBroken(runId: number, kind: RunKind, error: unknown): Promise<void> {
    this.summary({
      runId,
      kind,
      status: 'failed',
      success: false,
      result: describe(error),
      durationMs: 0,
      steps: 0,
      usage: undefined,
      errors: [describe(error)],
      files: undefined,
      replay: undefined,
    });
  }

  /** Writes the run's history and report; a file that cannot be written is a notice, never the end of the page. */
  private async saveFiles(runId: number, history: RunHistory): Promise<RunFiles | undefined> {
    const folder = join(this.options.workFolder, `run-${runId}`);
    const historyFile = join(folder, 'history.json');
    try {
      await saveHistory(historyFile, history);
    } catch (error) {
      this.publish('notice', { level: 'error', message: `The run's history could not be saved: ${describe(error)}` });
      this.files = undefined;
      return undefined;
    }
    const reportFile = await createRunReport(history, join(folder, 'report.html')).then(
      (report) => report.path,
      (error: unknown) => {
        this.publish('notice', { level: 'warning', message: `No report: ${describe(error)}` });
        return undefined;
      },
    );
    this.files = { folder, history, historyFile, reportFile };
    return this.files;
  }

  private summary(run: {
    runId: number;
    kind: RunKind;
    status: RunStatus;
    success: boolean;
    result: string;
    durationMs: number;
    steps: number;
    usage: TokenUsage | undefined;
    errors: string[];
    files: RunFiles | undefined;
    replay: SummaryEvent['replay'];
  }): void {
    const { usage, files } = run;
    this.busy = false;
    this.live?.request();
    this.publish('summary', {
      runId: run.runId,
      kind: run.kind,
      status: run.status,
      success: run.success,
      result: run.result,
      durationMs: run.durationMs,
      steps: run.steps,
      modelCalls: usage?.calls ?? 0,
      inputTokens: usage?.inputTokens ?? 0,
      outputTokens: usage?.outputTokens ?? 0,
      totalTokens: usage?.totalTokens ?? 0,
      costUsd: usage ? usage.costUsd : 0,
      errors: run.errors,
      downloads: { history: files !== undefined, gif: files !== undefined, report: files?.reportFile !== undefined },
      replay: run.replay,
    });
    this.setStatus(run.status);
  }

  /** Pauses the running task at its next checkpoint. */
  pause(): void {
    if (!this.executor?.isRunning || this.status === 'paused') throw new PageCommandError(409, 'No task is running to pause.');
    this.executor.pause();
  }

  /** Resumes a paused task. */
  resume(): void {
    if (!this.executor?.isRunning || this.status !== 'paused') throw new PageCommandError(409, 'No task is paused.');
    this.executor.resume();
  }

  /** Stops the running task or replay: it ends `cancelled`, its history kept. */
  stop(): void {
    if (this.opening) {
      this.opening.abort(new RequestCancelledError('The run was stopped before it started.'));
      return;
    }
    if (this.replay && this.busy) {
      this.replay.cancel('Stopped from the run page.');
      return;
    }
    if (!this.executor?.isRunning) throw new PageCommandError(409, 'Nothing is running to stop.');
    this.executor.cancel('Stopped from the run page.');
  }

  /** Answers the agent's question. */
  answer(questionId: string, text: string): void {
    if (!this.executor?.respond(text, questionId)) throw new PageCommandError(409, `No question ${JSON.stringify(questionId)} is waiting for an answer.`);
  }

  /** Keeps a saved history (its JSON; screenshots are not needed to replay) for `replay()`. */
  openHistory(name: string, json: unknown): OpenedHistory {
    let history: RunHistory;
    try {
      history = parseHistory(json);
    } catch (error) {
      throw new PageCommandError(400, `This file is not a plannav history: ${describe(error)}`);
    }
    const info: OpenedHistory = { name, tasks: history.tasks.map((task) => task.task), steps: history.steps.length };
    this.opened = { history, info };
    this.publish('notice', { level: 'info', message: `Opened ${name}: ${info.tasks.length} task(s), ${info.steps} steps. Replay it without a model.` });
    return info;
  }

  /**
   * Replays the opened history without a model, in a browser of its own (and, in demo mode, a shop
   * of its own, where the recorded shop's URLs are moved): the recording started from a new
   * browser, and the session's browser and conversation stay as they were for a follow-up.
   */
  async replayOpened(): Promise<{ runId: number }> {
    const opened = this.opened;
    if (!opened) throw new PageCommandError(409, 'Open a saved history first.');
    this.claim();
    const config = this.configFor(this.settings);
    let replaySession: ReplaySession;
    let secrets: Awaited<ReturnType<typeof readSecretsFile>> | undefined;
    try {
      this.setStatus('starting');
      this.opening = new AbortController();
      // The recording's secrets go back in where its actions named them, as in a task.
      secrets = config.secretsFile ? await readSecretsFile(config.secretsFile) : undefined;
      replaySession = await openReplaySession(
        { demo: config.demo, headed: config.headed, cdpUrl: config.cdpUrl, wsEndpoint: config.wsEndpoint, env: config.env },
        this.opening.signal,
      ).finally(() => (this.opening = undefined));
    } catch (error) {
      this.busy = false;
      this.setStatus('idle');
      throw error;
    }
    const live = new LiveView(replaySession.browser, (frame) => this.options.hub.publishTransient({ type: 'live', data: frame }));
    // In demo mode the replay session keeps the replay on its own shop; elsewhere the tasks' URL policy applies.
    const urlPolicy =
      config.demo || (!config.allow?.length && !config.deny?.length) ? undefined : { allow: config.allow, deny: config.deny, scope: config.scope };
    const replay = replaySession.replay(opened.history, { ...(urlPolicy ? { urlPolicy } : {}), ...(secrets ? { secrets } : {}) });
    this.replay = replay;
    const runId = ++this.runId;
    this.options.hub.clear();
    this.publish('hello', this.hello());
    this.cards.attach(replay);
    this.activeLive = live;
    this.publish('run-start', { runId, kind: 'replay', task: opened.info.tasks.join(' / '), fresh: true });
    this.setStatus('running');
    live.request();
    const cleanUp = async (): Promise<void> => {
      this.replay = undefined;
      this.cards.detach();
      live.stop();
      await replaySession.close().catch(() => undefined);
    };
    this.running = replay.run().then(
      async (result) => {
        await cleanUp();
        const files = await this.saveFiles(runId, result.history);
        const count = (status: string): number => result.steps.filter((step) => step.status === status).length;
        this.summary({
          runId,
          kind: 'replay',
          status: statusOfReplay(result.status),
          success: result.status === 'ok',
          result: result.finalAnswer ?? result.error?.message ?? `Replayed ${result.steps.length} recorded actions.`,
          durationMs: result.durationMs,
          steps: result.history.steps.length,
          usage: result.usage,
          errors: [
            ...result.steps.filter((step) => step.status === 'failed').map((step) => `step ${step.step} ${step.action}: ${step.reason ?? 'failed'}`),
            ...runErrors(result.history, 0, result.error?.message),
          ].slice(0, 10),
          files,
          replay: { exact: count('exact'), healed: count('healed'), failed: count('failed'), skipped: count('skipped') },
        });
      },
      async (error: unknown) => {
        await cleanUp();
        return this.finishBroken(runId, 'replay', error);
      },
    );
    return { runId };
  }

  /** Closes the browser session; the next task opens a new one. */
  async newSession(): Promise<void> {
    if (this.busy) throw new PageCommandError(409, 'A run is in progress: stop it first.');
    await this.closeSession();
    this.files = undefined;
    this.options.hub.clear();
    this.status = 'idle';
    this.publish('hello', this.hello());
  }

  /** Stops what runs, waits for it, and closes the session. Idempotent. */
  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.opening?.abort(new RequestCancelledError('The run page closed.'));
      this.replay?.cancel('The run page closed.');
      if (this.executor?.isRunning) this.executor.cancel('The run page closed.');
    }
    await this.running?.catch(() => undefined);
    await this.closeSession();
  }
}
