// OpenTelemetry spans of a run (issue 24, contract section D): `traceExecutor(executor, { tracer })` from plannav/otel,
// with the SDK's in-memory exporter. The demo task (the shop, headless Chromium, the scripted shopper) is traced with
// token counts the model reports, and each span is checked against the Executor's own events: one task span, its
// step spans, a `chat <model>` span (GenAI conventions) per model call and a `plannav.action <name>` span per action
// under their step; errors set ERROR; unsubscribing stops the spans; without a tracer, the global API's is used.
import { SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoTask } from '../../src/demo/demo-task';
import { scriptedShopper } from '../../src/demo/scripted-shopper';
import { startDemoShop, type DemoShop } from '../../src/demo/server';
import type { ExecutorEventName } from '../../src/events';
import { Executor, type LLMClient } from '../../src/index';
import type { LLMUsage } from '../../src/llm/types';
import { PlaywrightDriver } from '../../src/playwright/index';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../../src/testing/scripted-llm';

// ---- plannav/otel (src/otel/index.ts) comes with issue 24. It is imported by a computed path so that this file
// type-checks before it exists; once it does, replace this with `import { traceExecutor } from '../../src/otel/index'`.
type TraceExecutor = (executor: Executor, options?: { readonly tracer?: Tracer }) => () => void;
async function loadTraceExecutor(): Promise<TraceExecutor> {
  const entry = '../../src/otel/index';
  const loaded = (await import(/* @vite-ignore */ entry)) as { traceExecutor?: TraceExecutor };
  if (typeof loaded.traceExecutor !== 'function') throw new Error('plannav/otel does not export traceExecutor (issue 24, contract D)');
  return loaded.traceExecutor;
}

let shop: DemoShop;
let browser: PlaywrightDriver;
let traceExecutor: TraceExecutor;

beforeAll(async () => {
  shop = await startDemoShop();
  browser = await PlaywrightDriver.launch({ headless: true });
  traceExecutor = await loadTraceExecutor();
});

afterAll(async () => {
  await browser?.close();
  await shop?.close();
});

/** A tracer whose spans land in an in-memory exporter. */
function inMemoryTracing(): { exporter: InMemorySpanExporter; provider: BasicTracerProvider; tracer: Tracer } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, provider, tracer: provider.getTracer('plannav-otel-test') };
}

/** An event as the test records it, in the order the Executor emitted them. */
interface Recorded {
  readonly type: ExecutorEventName;
  readonly event: Record<string, unknown>;
}

function recordEvents(executor: Executor): Recorded[] {
  const events: Recorded[] = [];
  const names = ['task-start', 'task-end', 'step-start', 'step-end', 'model-call-start', 'model-call-end', 'action-start', 'action-end'] as const;
  for (const type of names) executor.on(type, (event) => void events.push({ type, event: event as unknown as Record<string, unknown> }));
  return events;
}

/** For each event of `type`, the position (from 0) of the step it happened in: how many step-starts came before it, less one. */
function stepOrdinals(events: readonly Recorded[], type: ExecutorEventName): number[] {
  let step = -1;
  const ordinals: number[] = [];
  for (const { type: seen } of events) {
    if (seen === 'step-start') step++;
    else if (seen === type) ordinals.push(step);
  }
  return ordinals;
}

const nanos = (span: ReadableSpan, which: 'startTime' | 'endTime'): number => span[which][0] * 1e9 + span[which][1];
/** Spans of one kind in the order they started (a stable sort: the exporter's order, the end order, breaks ties). */
function byStart(spans: readonly ReadableSpan[], matches: (name: string) => boolean): ReadableSpan[] {
  return spans.filter((span) => matches(span.name)).sort((a, b) => nanos(a, 'startTime') - nanos(b, 'startTime'));
}
const idOf = (span: ReadableSpan): string => span.spanContext().spanId;
const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
const isModelSpan = (name: string): boolean => name.startsWith('chat ');
const isActionSpan = (name: string): boolean => name.startsWith('plannav.action ');

/**
 * A model client that passes each call to `inner` and reports its own token counts, a different pair for every call,
 * under its own provider and model names: the counts on the spans can only come from what the model reported.
 */
function reportingModel(
  inner: LLMClient,
  names: { provider: string; model: string },
): { llm: LLMClient; reported: Required<Pick<LLMUsage, 'inputTokens' | 'outputTokens'>>[] } {
  const reported: Required<Pick<LLMUsage, 'inputTokens' | 'outputTokens'>>[] = [];
  const llm: LLMClient = {
    specificationVersion: 'v1',
    provider: names.provider,
    model: names.model,
    supportsImages: inner.supportsImages,
    generate: async (request) => {
      const result = await inner.generate(request);
      const usage = { inputTokens: 1201 + 173 * reported.length, outputTokens: 31 + 7 * reported.length };
      reported.push(usage);
      return { ...result, usage };
    },
  };
  return { llm, reported };
}

describe('traceExecutor() with the in-memory exporter', () => {
  it('traces the demo run: one task span, its steps, a chat span per model call with the reported tokens and cost, an action span per action', async () => {
    const { exporter, tracer } = inMemoryTracing();
    const { llm, reported } = reportingModel(scriptedShopper(), { provider: 'scripted-shop', model: 'shopper-1' });
    const executor = new Executor({
      task: demoTask(shop.url, 25),
      llm,
      browser,
      maxSteps: 20,
      urlPolicy: { allow: [new URL(shop.url).hostname] },
      prices: { 'shopper-1': { input: 2, output: 8 } },
    });
    const events = recordEvents(executor);
    const unsubscribe = traceExecutor(executor, { tracer });
    const result = await executor.execute();
    unsubscribe();
    expect(result.status).toBe('ok');
    expect(result.success).toBe(true);
    expect(shop.cart().map(({ product }) => product.id)).toEqual(['blue-bowl']);

    const spans = exporter.getFinishedSpans();
    const [task, ...otherTasks] = spans.filter((span) => span.name === 'plannav.task');
    expect(task).toBeDefined();
    expect(otherTasks).toHaveLength(0);
    expect(task!.parentSpanContext).toBeUndefined();
    expect(task!.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(new Set(spans.map((span) => span.spanContext().traceId))).toEqual(new Set([task!.spanContext().traceId]));

    // Steps: one per step-start event, each a child of the task.
    const steps = byStart(spans, (name) => name === 'plannav.step');
    expect(steps).toHaveLength(events.filter(({ type }) => type === 'step-start').length);
    for (const step of steps) expect(parentOf(step)).toBe(idOf(task!));
    const stepIds = new Set(steps.map(idOf));

    // Model calls: one `chat <model>` span per call, in order, with what the model reported.
    const modelEnds = events.filter(({ type }) => type === 'model-call-end').map(({ event }) => event);
    const models = byStart(spans, isModelSpan);
    expect(reported.length).toBeGreaterThan(5);
    expect(models).toHaveLength(reported.length);
    expect(modelEnds).toHaveLength(reported.length);
    models.forEach((span, at) => {
      expect(span.name).toBe('chat shopper-1');
      expect(span.attributes['gen_ai.operation.name']).toBe('chat');
      expect(span.attributes['gen_ai.request.model']).toBe('shopper-1');
      expect(span.attributes['gen_ai.provider.name'] ?? span.attributes['gen_ai.system']).toBe('scripted-shop');
      expect(span.attributes['gen_ai.usage.input_tokens']).toBe(reported[at]!.inputTokens);
      expect(span.attributes['gen_ai.usage.output_tokens']).toBe(reported[at]!.outputTokens);
      const cost = (reported[at]!.inputTokens * 2 + reported[at]!.outputTokens * 8) / 1e6;
      expect(span.attributes['plannav.cost_usd']).toBeCloseTo(cost, 12);
      expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
    });
    const totalInput = models.reduce((sum, span) => sum + Number(span.attributes['gen_ai.usage.input_tokens']), 0);
    expect(totalInput).toBe(result.usage.inputTokens);

    // Actions: one `plannav.action <name>` span per action, in order, each a child of its step.
    const actionEnds = events.filter(({ type }) => type === 'action-end').map(({ event }) => event);
    const actions = byStart(spans, isActionSpan);
    expect(actions.map((span) => span.name)).toEqual(actionEnds.map((event) => `plannav.action ${String(event.action)}`));
    expect(actions.map((span) => span.name)).toEqual(expect.arrayContaining(['plannav.action click_element', 'plannav.action done']));
    const actionSteps = stepOrdinals(events, 'action-end');
    actions.forEach((span, at) => {
      expect(parentOf(span), `${span.name} (action ${at}) is a child of step span ${actionSteps[at]}`).toBe(idOf(steps[actionSteps[at]!]!));
      expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
    });

    // Each model call is a child of the step it was made in (a call made during an action, such as a confirmation,
    // may be the action's child, the action being the step's).
    const actionParent = new Map(actions.map((span) => [idOf(span), parentOf(span)]));
    const modelSteps = stepOrdinals(events, 'model-call-end');
    models.forEach((span, at) => {
      const parent = parentOf(span)!;
      const step = stepIds.has(parent) ? parent : actionParent.get(parent);
      expect(step, `chat span ${at} is under step span ${modelSteps[at]}`).toBe(idOf(steps[modelSteps[at]!]!));
    });
  });

  it('sets ERROR on a failed action, the failed model call, the failed steps and the failed task', async () => {
    const { exporter, tracer } = inMemoryTracing();
    let navigatorCalls = 0;
    const llm = new ScriptedLLM({
      model: 'm-fail',
      respond: ({ agent }) => {
        if (agent === 'planner') return scriptedPlan({ nextSteps: 'Open the shop' });
        navigatorCalls++;
        if (navigatorCalls === 1) return scriptedActions([{ go_to_url: { url: shop.url } }]);
        // Denied by the URL policy: the action fails, the task goes on.
        if (navigatorCalls === 2) return scriptedActions([{ go_to_url: { url: 'http://denied.invalid/' } }]);
        // A refused key: the task fails.
        return { fail: 'status', status: 401, message: 'Incorrect API key provided.' };
      },
    });
    const executor = new Executor({ task: 'Open the shop', llm, browser, sensitiveActions: false, urlPolicy: { allow: [new URL(shop.url).hostname] } });
    const events = recordEvents(executor);
    const unsubscribe = traceExecutor(executor, { tracer });
    const result = await executor.execute();
    unsubscribe();
    expect(result.status).toBe('failed');
    expect(result.error?.name).toBe('ChatModelAuthError');

    const spans = exporter.getFinishedSpans();
    const tasks = spans.filter((span) => span.name === 'plannav.task');
    expect(tasks).toHaveLength(1);
    expect(tasks[0]!.status.code).toBe(SpanStatusCode.ERROR);

    const actions = byStart(spans, isActionSpan);
    expect(actions.map((span) => [span.name, span.status.code === SpanStatusCode.ERROR])).toEqual([
      ['plannav.action go_to_url', false],
      ['plannav.action go_to_url', true],
    ]);

    const modelEnds = events.filter(({ type }) => type === 'model-call-end').map(({ event }) => event.error !== undefined);
    const models = byStart(spans, isModelSpan);
    expect(models.map((span) => span.status.code === SpanStatusCode.ERROR)).toEqual(modelEnds);
    expect(modelEnds.at(-1)).toBe(true);
    expect(models.at(-1)!.attributes['gen_ai.request.model']).toBe('m-fail');

    const stepEnds = events.filter(({ type }) => type === 'step-end').map(({ event }) => event.error !== undefined);
    expect(stepEnds.filter(Boolean).length).toBeGreaterThanOrEqual(1);
    expect(byStart(spans, (name) => name === 'plannav.step').map((span) => span.status.code === SpanStatusCode.ERROR)).toEqual(stepEnds);
  });

  it('stops making spans once unsubscribed', async () => {
    const { exporter, tracer } = inMemoryTracing();
    const llm = new ScriptedLLM({ respond: () => scriptedPlan({ done: true, webTask: false, finalAnswer: 'Hello.' }) });
    const executor = new Executor({ task: 'Say hello', llm, browser, sensitiveActions: false });
    const unsubscribe = traceExecutor(executor, { tracer });
    expect((await executor.execute()).status).toBe('ok');
    const traced = exporter.getFinishedSpans();
    expect(traced.filter((span) => span.name === 'plannav.task')).toHaveLength(1);
    expect(traced.filter((span) => isModelSpan(span.name))).toHaveLength(llm.callCount);

    unsubscribe();
    executor.addFollowUpTask('Say hello again');
    const callsBefore = llm.callCount;
    expect((await executor.execute()).status).toBe('ok');
    expect(llm.callCount).toBeGreaterThan(callsBefore);
    expect(exporter.getFinishedSpans()).toHaveLength(traced.length);
  });

  it('uses the global tracer provider when no tracer is given, and the given tracer over it', async () => {
    const global = inMemoryTracing();
    expect(trace.setGlobalTracerProvider(global.provider)).toBe(true);
    try {
      const llm = new ScriptedLLM({
        model: 'm-global',
        usage: { inputTokens: 321, outputTokens: 12 },
        respond: () => scriptedPlan({ done: true, webTask: false, finalAnswer: 'Hi.' }),
      });
      const executor = new Executor({ task: 'Say hi', llm, browser, sensitiveActions: false });
      const unsubscribe = traceExecutor(executor);
      await executor.execute();
      unsubscribe();
      const spans = global.exporter.getFinishedSpans();
      expect(spans.filter((span) => span.name === 'plannav.task')).toHaveLength(1);
      const models = spans.filter((span) => span.name === 'chat m-global');
      expect(models).toHaveLength(llm.callCount);
      expect(models[0]!.attributes['gen_ai.usage.input_tokens']).toBe(321);
      expect(models[0]!.attributes['gen_ai.usage.output_tokens']).toBe(12);

      // A tracer passed in wins over the global one.
      const own = inMemoryTracing();
      const second = new Executor({ task: 'Say hi', llm, browser, sensitiveActions: false });
      const stop = traceExecutor(second, { tracer: own.tracer });
      await second.execute();
      stop();
      expect(own.exporter.getFinishedSpans().filter((span) => span.name === 'plannav.task')).toHaveLength(1);
      expect(global.exporter.getFinishedSpans()).toHaveLength(spans.length);
    } finally {
      trace.disable();
    }
  });
});
