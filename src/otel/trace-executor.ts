// OpenTelemetry spans of a run, made from an Executor's (or a HistoryReplay's) events: a task span,
// a span per step, per model call and per action, nested. It only listens: it never changes the run.

import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { ConfigError } from '../errors';
import type { ErrorInfo, ExecutorEventMap, ExecutorEventName, Executor, HistoryReplay } from '../index';
import { asText, errorAttributes, modelCallEndAttributes, modelCallStartAttributes, usageAttributes, type ModelCallRole } from './attributes';
import { plannavVersion } from './version';

/**
 * Options of {@link traceExecutor}.
 * @example
 * ```ts
 * const stop = traceExecutor(executor, { tracer: trace.getTracer('my-app') });
 * ```
 * @public
 */
export interface TraceExecutorOptions {
  /**
   * The tracer that makes the spans.
   * @defaultValue `trace.getTracer('plannav', <plannav's version>)` of `@opentelemetry/api`: the
   * global tracer provider's, a no-op until an OpenTelemetry SDK is registered.
   */
  readonly tracer?: Tracer | undefined;
}

/** What {@link traceExecutor} listens to: an `Executor` or a `HistoryReplay` (both send the same events). @public */
export type TracedRun = Executor | HistoryReplay;

/** The spans open for one task, innermost last. */
interface OpenSpans {
  readonly task: Span;
  step?: Span | undefined;
  action?: Span | undefined;
  model?: Span | undefined;
}

/** A listener of one event, whatever its name (stored so `off` gets the same function back). */
type AnyListener = (event: ExecutorEventMap[ExecutorEventName]) => void;

/** The events that become span events (`plannav.<name>`) on the innermost open span (the task's for {@link taskEvents}), with what of them is kept. */
const spanEvents: { readonly [K in ExecutorEventName]?: (event: ExecutorEventMap[K]) => Attributes } = {
  'task-pause': () => ({}),
  'task-resume': () => ({}),
  'task-cancel': (event) => ({ 'plannav.reason': event.reason }),
  'model-retry': (event) => ({ 'plannav.model_call.attempt': event.attempt, 'plannav.delay_ms': event.delayMs, ...errorAttributes(event.error) }),
  'model-fallback': (event) => ({
    'plannav.from': `${event.from.provider}:${event.from.model}`,
    'plannav.to': `${event.to.provider}:${event.to.model}`,
    ...errorAttributes(event.error),
  }),
  'url-blocked': (event) => ({ 'url.full': event.url, 'plannav.reason': event.reason, 'plannav.kind': event.kind }),
  'sensitive-action': (event) => ({
    'plannav.kind': event.kind,
    'plannav.action.name': event.action,
    'plannav.decision': event.decision,
    'plannav.decided_by': event.decidedBy,
  }),
  'injection-detected': (event) => ({
    'url.full': event.url,
    'plannav.source': event.source,
    'plannav.patterns': event.findings.map((finding) => finding.pattern),
  }),
  'human-question': (event) => ({ 'plannav.question_id': event.questionId }),
  'human-answer': (event) => ({ 'plannav.question_id': event.questionId, 'plannav.timed_out': event.timedOut }),
  warning: (event) => ({ 'plannav.code': event.code, 'plannav.message': event.message }),
  'replay-step': (event) => ({
    'plannav.action.name': event.report.action,
    'plannav.action.index': event.report.actionIndex,
    'plannav.replay.status': event.report.status,
    ...(event.report.reason !== undefined ? { 'plannav.reason': event.report.reason } : {}),
    ...(event.report.score !== undefined ? { 'plannav.replay.score': event.report.score } : {}),
    ...(event.report.healedBy !== undefined ? { 'plannav.replay.healed_by': event.report.healedBy } : {}),
  }),
};

/**
 * Who made a model call: the extraction model when the Navigator's action is running
 * (`extract_content` reports its calls as the Navigator's), else the event's agent (a Planner
 * confirming a sensitive action during an action is the Planner).
 */
function roleOf(event: ExecutorEventMap['model-call-start'], spans: OpenSpans): ModelCallRole {
  if (event.actor === 'planner' || event.actor === 'validator') return event.actor;
  return spans.action ? 'extractor' : 'navigator';
}

/** Span events of the task's own span, whatever is running inside it. */
const taskEvents = new Set<ExecutorEventName>(['task-pause', 'task-resume', 'task-cancel']);

/** Marks a span as failed with the error's message, and records the error as an exception event. */
function fail(span: Span, error: ErrorInfo): void {
  span.setAttributes(errorAttributes(error));
  span.recordException({ name: error.name, message: error.message, code: error.code });
  span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
}

/**
 * Makes OpenTelemetry spans of what `executor` does, from its events, until the returned function
 * is called: one span per task (`plannav.task`; `plannav.replay` for a `HistoryReplay`), inside it
 * one per Planner, Navigator or validator step (`plannav.step`), and inside a step one per model
 * call (`chat <model>`, with the GenAI semantic conventions: `gen_ai.operation.name`,
 * `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.usage.input_tokens`,
 * `gen_ai.usage.output_tokens`, and `plannav.cost_usd` when the Executor's `prices` know the model)
 * and one per action (`plannav.action <name>`, with its parameters and outcome). The extraction
 * model's calls (`extract_content`) nest in their action's span, with `plannav.agent.role`
 * `extractor`.
 *
 * @remarks
 * A failed task, step, model call or action has the status `ERROR` with the error's message, its
 * `error.type` (the class name) and `plannav.error.code`. A task span starts as a child of the
 * context active when the task starts, so a run inside a span of yours nests in it. Spans still
 * open when a task ends (a cancelled task) are ended with it, and those open when the returned
 * function is called are ended then. Events carry no secret values (the Executor replaces them with
 * their names before any listener sees them), and no prompt or page text is put in a span.
 *
 * Needs the optional peer dependency `@opentelemetry/api` (1.9 or later); with no OpenTelemetry SDK
 * registered and no `tracer` given, the spans are no-ops.
 *
 * @param executor - The run to trace: an `Executor` or a `HistoryReplay`. Call before `execute()` or `run()`.
 * @returns A function that stops tracing (idempotent).
 * @throws `ConfigError` when `executor` cannot be listened to or `tracer` is not a tracer.
 * @example
 * ```ts
 * import { trace } from '@opentelemetry/api';
 * import { traceExecutor } from 'plannav/otel';
 *
 * const executor = new Executor({ task, llm, browser });
 * const stopTracing = traceExecutor(executor, { tracer: trace.getTracer('checkout-bot') });
 * try {
 *   await executor.execute();
 * } finally {
 *   stopTracing();
 * }
 * ```
 * @public
 */
export function traceExecutor(executor: TracedRun, options: TraceExecutorOptions = {}): () => void {
  const source = executor as unknown as { on?: unknown; off?: unknown; run?: unknown; execute?: unknown };
  if (typeof source !== 'object' || source === null || typeof source.on !== 'function' || typeof source.off !== 'function') {
    throw new ConfigError('traceExecutor needs an Executor or a HistoryReplay (an object with `on` and `off`) as its first argument.', { field: 'executor' });
  }
  if (options.tracer !== undefined && typeof (options.tracer as { startSpan?: unknown }).startSpan !== 'function') {
    throw new ConfigError('Option `tracer` of traceExecutor must be an OpenTelemetry Tracer, such as `trace.getTracer("my-app")`.', { field: 'tracer' });
  }
  const tracer = options.tracer ?? trace.getTracer('plannav', plannavVersion);
  // A HistoryReplay runs with `run()`; an Executor with `execute()`.
  const taskSpanName = typeof source.run === 'function' && typeof source.execute !== 'function' ? 'plannav.replay' : 'plannav.task';
  const open = new Map<string, OpenSpans>();

  const child = (name: string, parent: Span, attributes: Attributes, startTime: number, kind = SpanKind.INTERNAL): Span =>
    tracer.startSpan(name, { kind, attributes, startTime }, trace.setSpan(context.active(), parent));

  /** Ends a span left open inside one that ends now: it did not end by itself. */
  const endLeftOver = (span: Span | undefined, time: number, why: string | undefined): void => {
    if (!span) return;
    span.setAttribute('plannav.incomplete', true);
    if (why !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: why });
    span.end(time);
  };
  const endChildren = (spans: OpenSpans, time: number, why: string | undefined, level: 'step' | 'action'): void => {
    endLeftOver(spans.model, time, why);
    spans.model = undefined;
    endLeftOver(spans.action, time, why);
    spans.action = undefined;
    if (level === 'action') return;
    endLeftOver(spans.step, time, why);
    spans.step = undefined;
  };

  const handlers: { [K in ExecutorEventName]?: (event: ExecutorEventMap[K]) => void } = {
    'task-start': (event) => {
      const earlier = open.get(event.taskId);
      if (earlier) {
        endChildren(earlier, event.timestamp, undefined, 'step');
        endLeftOver(earlier.task, event.timestamp, undefined);
      }
      const parent: Context = context.active();
      const task = tracer.startSpan(
        taskSpanName,
        { kind: SpanKind.INTERNAL, startTime: event.timestamp, attributes: { 'plannav.task.id': event.taskId, 'plannav.task.index': event.taskIndex } },
        parent,
      );
      open.set(event.taskId, { task });
    },
    'task-end': (event) => {
      const spans = open.get(event.taskId);
      if (!spans) return;
      open.delete(event.taskId);
      const failed = event.status !== 'ok';
      endChildren(spans, event.timestamp, failed ? `The task ended (${event.status}) before this span ended.` : undefined, 'step');
      spans.task.setAttributes({ 'plannav.task.status': event.status, 'plannav.task.success': event.success, ...usageAttributes(event.usage) });
      if (event.error) fail(spans.task, event.error);
      else if (failed) spans.task.setStatus({ code: SpanStatusCode.ERROR, message: `The task ended ${event.status}.` });
      spans.task.end(event.timestamp);
    },
    'step-start': (event) => {
      const spans = open.get(event.taskId);
      if (!spans) return;
      endChildren(spans, event.timestamp, undefined, 'step');
      spans.step = child('plannav.step', spans.task, { 'plannav.step.number': event.step, 'plannav.agent.role': event.actor }, event.timestamp);
    },
    'step-end': (event) => {
      const spans = open.get(event.taskId);
      const step = spans?.step;
      if (!spans || !step) return;
      endChildren(spans, event.timestamp, event.error ? `The step ended before this span ended: ${event.error.message}` : undefined, 'action');
      step.setAttributes({ ...usageAttributes(event.usage), 'plannav.step.consecutive_failures': event.consecutiveFailures });
      if (event.error) fail(step, event.error);
      step.end(event.timestamp);
      spans.step = undefined;
    },
    'action-start': (event) => {
      const spans = open.get(event.taskId);
      if (!spans) return;
      endChildren(spans, event.timestamp, undefined, 'action');
      spans.action = child(
        `plannav.action ${event.action}`,
        spans.step ?? spans.task,
        { 'plannav.action.name': event.action, 'plannav.action.index': event.actionIndex, 'plannav.action.params': asText(event.params) },
        event.timestamp,
      );
    },
    'action-end': (event) => {
      const spans = open.get(event.taskId);
      if (!spans) return;
      // An action refused before it started (an unknown name, bad parameters) ends without a start.
      const action =
        spans.action ??
        child(
          `plannav.action ${event.action}`,
          spans.step ?? spans.task,
          { 'plannav.action.name': event.action, 'plannav.action.index': event.actionIndex, 'plannav.action.params': asText(event.params) },
          event.timestamp - event.durationMs,
        );
      spans.action = undefined;
      endLeftOver(spans.model, event.timestamp, undefined);
      spans.model = undefined;
      action.setAttribute('plannav.action.outcome', event.error ? 'failed' : 'ok');
      if (event.result !== undefined) action.setAttribute('plannav.action.result', asText(event.result));
      if (event.error) fail(action, event.error);
      action.end(event.timestamp);
    },
    'model-call-start': (event) => {
      const spans = open.get(event.taskId);
      if (!spans) return;
      endLeftOver(spans.model, event.timestamp, undefined);
      spans.model = child(
        `chat ${event.model}`,
        spans.action ?? spans.step ?? spans.task,
        modelCallStartAttributes(event, roleOf(event, spans)),
        event.timestamp,
        SpanKind.CLIENT,
      );
    },
    'model-call-end': (event) => {
      const spans = open.get(event.taskId);
      if (!spans) return;
      // A call whose start this function did not see (tracing began during it) still gets its span.
      const model =
        spans.model ??
        child(
          `chat ${event.model}`,
          spans.action ?? spans.step ?? spans.task,
          modelCallStartAttributes(event, roleOf(event, spans)),
          event.timestamp - event.durationMs,
          SpanKind.CLIENT,
        );
      spans.model = undefined;
      model.setAttributes(modelCallEndAttributes(event));
      if (event.error) fail(model, event.error);
      model.end(event.timestamp);
    },
  };
  for (const [name, attributesOf] of Object.entries(spanEvents) as [ExecutorEventName, (event: ExecutorEventMap[ExecutorEventName]) => Attributes][]) {
    handlers[name] = (event: ExecutorEventMap[ExecutorEventName]) => {
      const spans = open.get(event.taskId);
      const span = spans ? (taskEvents.has(name) ? spans.task : (spans.action ?? spans.step ?? spans.task)) : undefined;
      span?.addEvent(`plannav.${name}`, { 'plannav.step.number': event.step, ...attributesOf(event) }, event.timestamp);
    };
  }

  const listening = Object.entries(handlers) as [ExecutorEventName, AnyListener][];
  const target = executor as unknown as {
    on(name: ExecutorEventName, listener: AnyListener): unknown;
    off(name: ExecutorEventName, listener: AnyListener): unknown;
  };
  for (const [name, listener] of listening) target.on(name, listener);
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    for (const [name, listener] of listening) target.off(name, listener);
    const now = Date.now();
    for (const spans of open.values()) {
      endChildren(spans, now, undefined, 'step');
      endLeftOver(spans.task, now, undefined);
    }
    open.clear();
  };
}
