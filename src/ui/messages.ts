// What the run page's server and the page say to each other: the events the server streams and
// the commands the page posts. Types only, shared by both sides; nothing here runs.

/** The state of the run page's run, as `run-status` shows it. */
export type RunStatus = 'idle' | 'starting' | 'running' | 'paused' | 'done' | 'failed' | 'cancelled';

/** What kind of run a run is. */
export type RunKind = 'task' | 'follow-up' | 'replay';

/** The model and browser settings of the page's form, as it posts them with `run`. */
export interface PageSettings {
  /** `provider:model` for the Navigator (and the Planner unless `plannerModel`); empty in demo mode for the scripted model. */
  readonly model: string;
  readonly plannerModel: string;
  readonly extractorModel: string;
  readonly headless: boolean;
  readonly cdpUrl: string;
  /** Host patterns the agent may visit; empty for no limit (the demo allows only its shop). */
  readonly allowedHosts: readonly string[];
  /** The step cap; 0 for the default. */
  readonly maxSteps: number;
}

/** Sent first on every connection: the page resets its view to this, then receives the session's events again. */
export interface HelloEvent {
  readonly status: RunStatus;
  readonly demo: boolean;
  /** The demo task, to prefill the task box. */
  readonly demoTask: string | undefined;
  readonly settings: PageSettings;
  /** Whether `submit` now runs a follow-up in the same session and browser. */
  readonly canFollowUp: boolean;
  /** The history opened for replay, if any. */
  readonly openedHistory: OpenedHistory | undefined;
}

/** A history the page opened, ready to replay. */
export interface OpenedHistory {
  readonly name: string;
  readonly tasks: readonly string[];
  readonly steps: number;
}

/** A run started: a task, a follow-up of the session, or a replay. `fresh` clears the step cards. */
export interface RunStartEvent {
  readonly runId: number;
  readonly kind: RunKind;
  readonly task: string;
  readonly fresh: boolean;
}

export interface StatusEvent {
  readonly status: RunStatus;
  readonly canFollowUp: boolean;
}

/** A step started: a new card. */
export interface CardStartEvent {
  readonly cardId: number;
  readonly actor: 'planner' | 'navigator' | 'validator' | 'system' | 'user';
  readonly step: number;
  readonly taskIndex: number;
}

export interface PlanEvent {
  readonly cardId: number;
  readonly observation: string;
  readonly challenges: string;
  readonly nextSteps: string;
  readonly reasoning: string;
  readonly done: boolean;
  readonly finalAnswer: string;
}

export interface ThoughtsEvent {
  readonly cardId: number;
  readonly evaluation: string;
  readonly memory: string;
  readonly nextGoal: string;
}

/** An action started (`status: 'running'`) or ended; the page keys it by card and index. */
export interface ActionEvent {
  readonly cardId: number;
  readonly actionIndex: number;
  readonly name: string;
  /** The parameters as indented JSON. */
  readonly params: string;
  readonly status: 'running' | 'ok' | 'failed' | 'exact' | 'healed' | 'skipped';
  /** What the action reported, or why it failed. */
  readonly detail: string;
}

export interface CardEndEvent {
  readonly cardId: number;
  readonly durationMs: number;
  readonly tokens: number;
  readonly error: string | undefined;
  /** The step's screenshot as a `data:` URL. */
  readonly screenshot: string | undefined;
  readonly url: string | undefined;
  readonly title: string | undefined;
}

/** A frame of the browser's page, as a `data:` URL. Only the latest is kept. */
export interface LiveEvent {
  readonly image: string;
  readonly url: string;
}

export interface QuestionEvent {
  readonly questionId: string;
  readonly question: string;
  readonly timeoutMs: number;
}

export interface QuestionEndEvent {
  readonly questionId: string;
  readonly timedOut: boolean;
}

/** A run ended. */
export interface SummaryEvent {
  readonly runId: number;
  readonly kind: RunKind;
  readonly status: RunStatus;
  readonly success: boolean;
  /** The final answer, or why there is none. */
  readonly result: string;
  readonly durationMs: number;
  readonly steps: number;
  readonly modelCalls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
  /** Dollars; undefined when a model has no known price. */
  readonly costUsd: number | undefined;
  readonly errors: readonly string[];
  /** Which files of the run can be downloaded. */
  readonly downloads: { readonly history: boolean; readonly gif: boolean; readonly report: boolean };
  /** For a replay: how its recorded actions went. */
  readonly replay: { readonly exact: number; readonly healed: number; readonly failed: number; readonly skipped: number } | undefined;
}

export interface NoticeEvent {
  readonly level: 'info' | 'warning' | 'error';
  readonly message: string;
}

/** Every event the server streams, by SSE event name. (No `error`: EventSource uses that name for its own connection errors.) */
export interface PageEventMap {
  hello: HelloEvent;
  'run-start': RunStartEvent;
  status: StatusEvent;
  'card-start': CardStartEvent;
  plan: PlanEvent;
  thoughts: ThoughtsEvent;
  action: ActionEvent;
  'card-end': CardEndEvent;
  live: LiveEvent;
  question: QuestionEvent;
  'question-end': QuestionEndEvent;
  summary: SummaryEvent;
  notice: NoticeEvent;
}

/** The commands the page posts to `/api/<verb>`, with their JSON bodies. */
export interface PageCommandMap {
  run: { readonly task: string; readonly settings?: Partial<PageSettings> };
  'follow-up': { readonly task: string };
  pause: Record<string, never>;
  resume: Record<string, never>;
  stop: Record<string, never>;
  answer: { readonly questionId: string; readonly text: string };
  'open-history': { readonly name?: string; readonly history: unknown };
  replay: Record<string, never>;
  'new-session': Record<string, never>;
}
