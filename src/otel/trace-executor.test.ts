import { readFileSync } from 'node:fs';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type Span as SdkSpan,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { shopBrowser } from '../../test/helpers/loop';
import { ConfigError } from '../errors';
import { Executor } from '../executor/executor';
import { HistoryReplay } from '../replay/replay';
import { ScriptedLLM, scriptedActions, scriptedPlan } from '../testing/scripted-llm';
import { traceExecutor } from './index';
import { plannavVersion } from './version';

/** Counts spans started and ended, so a test can tell that none was left open. */
class OpenSpanCounter implements SpanProcessor {
  readonly started = new Set<string>();
  readonly ended = new Set<string>();
  onStart(span: SdkSpan): void {
    this.started.add(span.spanContext().spanId);
  }
  onEnd(span: ReadableSpan): void {
    this.ended.add(span.spanContext().spanId);
  }
  get open(): number {
    return [...this.started].filter((id) => !this.ended.has(id)).length;
  }
  async forceFlush(): Promise<void> {}
  async shutdown(): Promise<void> {}
}

function tracing() {
  const exporter = new InMemorySpanExporter();
  const counter = new OpenSpanCounter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter), counter] });
  const tracer = provider.getTracer('plannav-test');
  const spans = () => exporter.getFinishedSpans();
  const named = (name: string) => spans().filter((span) => span.name === name);
  const parentOf = (span: ReadableSpan) => spans().find((other) => other.spanContext().spanId === span.parentSpanContext?.spanId);
  return { exporter, counter, provider, tracer, spans, named, parentOf };
}

const usage = { inputTokens: 50, outputTokens: 5, cachedInputTokens: 10, reasoningTokens: 2 };

/** Plan, a note and a read of the page (the extraction model's call), done, the Planner's answer. */
function shopRun(extra: Partial<ConstructorParameters<typeof Executor>[0]> = {}) {
  const llm = new ScriptedLLM({
    model: 'scripted-shopper',
    responses: [
      scriptedPlan({ nextSteps: 'note it' }),
      scriptedActions([{ cache_content: { content: 'a fact' } }, { extract_content: { goal: 'the shop name' } }]),
      scriptedActions([{ done: { text: 'ok' } }]),
      scriptedPlan({ done: true, finalAnswer: 'the fact' }),
    ],
    usage,
  });
  const extractionLLM = new ScriptedLLM({ provider: 'scripted-reader', model: 'scripted-extractor', responses: ['The shop is called Shop.'], usage });
  const executor = new Executor({
    sensitiveActions: false,
    task: 'Note a fact',
    llm,
    extractionLLM,
    browser: shopBrowser(),
    prices: { 'scripted-shopper': { input: 1, output: 10 } },
    ...extra,
  });
  return executor;
}

afterEach(() => {
  trace.disable();
});

describe('traceExecutor', () => {
  it('makes a task span with step, model-call and action spans nested in it, with the GenAI attributes', async () => {
    const { tracer, spans, named, parentOf, counter } = tracing();
    const executor = shopRun();
    const stop = traceExecutor(executor, { tracer });
    const result = await executor.execute();
    stop();
    expect(result.status).toBe('ok');

    const [task, ...otherTasks] = named('plannav.task');
    expect(otherTasks).toHaveLength(0);
    expect(task!.parentSpanContext).toBeUndefined();
    expect(task!.attributes).toMatchObject({ 'plannav.task.id': result.taskId, 'plannav.task.status': 'ok', 'plannav.task.success': true });
    expect(task!.status.code).toBe(SpanStatusCode.UNSET);

    const steps = named('plannav.step');
    expect(steps.map((step) => step.attributes['plannav.agent.role'])).toEqual(['planner', 'navigator', 'navigator', 'planner']);
    for (const step of steps) expect(parentOf(step)).toBe(task);

    // Four calls of the loop's model, each in its step; one of the extraction model, in its action.
    const calls = named('chat scripted-shopper');
    expect(calls).toHaveLength(4);
    for (const call of calls) {
      expect(parentOf(call)?.name).toBe('plannav.step');
      expect(call.kind).toBe(2); // SpanKind.CLIENT
      expect(call.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'scripted',
        'gen_ai.system': 'scripted',
        'gen_ai.request.model': 'scripted-shopper',
        'gen_ai.usage.input_tokens': 50,
        'gen_ai.usage.output_tokens': 5,
        'gen_ai.usage.cache_read.input_tokens': 10,
      });
      expect(call.attributes['plannav.agent.role']).toBe(parentOf(call)!.attributes['plannav.agent.role']);
      // 40 uncached and 10 cached input tokens at $1, 5 output tokens at $10 per million.
      expect(call.attributes['plannav.cost_usd']).toBeCloseTo(100 / 1_000_000, 12);
    }
    const [read] = named('chat scripted-extractor');
    expect(read!.attributes).toMatchObject({ 'plannav.agent.role': 'extractor', 'gen_ai.provider.name': 'scripted-reader', 'gen_ai.usage.input_tokens': 50 });
    // No price for the extraction model: its cost is unknown, so absent.
    expect(read!.attributes['plannav.cost_usd']).toBeUndefined();
    expect(parentOf(read!)?.name).toBe('plannav.action extract_content');

    const actions = spans().filter((span) => span.name.startsWith('plannav.action '));
    expect(actions.map((span) => span.name)).toEqual(['plannav.action cache_content', 'plannav.action extract_content', 'plannav.action done']);
    const [note] = actions;
    expect(note!.attributes).toMatchObject({ 'plannav.action.name': 'cache_content', 'plannav.action.index': 0, 'plannav.action.outcome': 'ok' });
    expect(JSON.parse(note!.attributes['plannav.action.params'] as string)).toEqual({ content: 'a fact' });
    for (const action of actions) expect(parentOf(action)?.attributes['plannav.agent.role']).toBe('navigator');

    // The task's totals: five calls of 55 tokens.
    expect(task!.attributes).toMatchObject({ 'plannav.usage.input_tokens': 250, 'plannav.usage.output_tokens': 25, 'plannav.usage.model_calls': 5 });
    // Every child lies within its parent's time.
    for (const span of spans()) {
      const parent = parentOf(span);
      if (!parent) continue;
      expect(span.startTime[0] * 1e9 + span.startTime[1]).toBeGreaterThanOrEqual(parent.startTime[0] * 1e9 + parent.startTime[1]);
      expect(span.endTime[0] * 1e9 + span.endTime[1]).toBeLessThanOrEqual(parent.endTime[0] * 1e9 + parent.endTime[1]);
    }
    expect(counter.open).toBe(0);
  });

  it('sets the status ERROR with the message on a failed action, model call, step and task', async () => {
    const { tracer, named, spans } = tracing();
    const llm = new ScriptedLLM({
      responses: [
        scriptedPlan({ nextSteps: 'click' }),
        scriptedActions([{ click_element: { index: 999 } }]),
        { fail: 'status', status: 401, message: 'bad key' },
      ],
    });
    const executor = new Executor({ sensitiveActions: false, task: 'Click', llm, browser: shopBrowser() });
    traceExecutor(executor, { tracer });
    const result = await executor.execute();
    expect(result.status).toBe('failed');

    const [click] = named('plannav.action click_element');
    expect(click!.status.code).toBe(SpanStatusCode.ERROR);
    expect(click!.status.message).toMatch(/999/);
    expect(click!.attributes['plannav.action.outcome']).toBe('failed');
    expect(click!.events.map((event) => event.name)).toContain('exception');

    const failedCall = named('chat scripted-model').find((span) => span.status.code === SpanStatusCode.ERROR);
    expect(failedCall?.status.message).toMatch(/bad key/);
    expect(failedCall?.attributes['error.type']).toBe('ChatModelAuthError');

    const [task] = named('plannav.task');
    expect(task!.status).toMatchObject({ code: SpanStatusCode.ERROR, message: expect.stringMatching(/bad key/) });
    expect(task!.attributes['plannav.task.status']).toBe('failed');
    // The step whose every action failed, and the step whose model call failed.
    const failedSteps = spans().filter((span) => span.name === 'plannav.step' && span.status.code === SpanStatusCode.ERROR);
    expect(failedSteps.map((step) => step.status.message)).toEqual([expect.stringMatching(/999/), expect.stringMatching(/bad key/)]);
  });

  it('ends every span of a task cancelled during a model call', async () => {
    const { tracer, counter, named, spans } = tracing();
    const llm = new ScriptedLLM({ responses: [scriptedPlan({ nextSteps: 'wait' }), { fail: 'hang' }] });
    const executor = new Executor({ sensitiveActions: false, task: 'Wait', llm, browser: shopBrowser() });
    traceExecutor(executor, { tracer });
    executor.on('model-call-start', (event) => {
      if (event.actor === 'navigator') setTimeout(() => executor.cancel('enough'), 5);
    });
    const result = await executor.execute();
    expect(result.status).toBe('cancelled');
    expect(counter.open).toBe(0);
    expect(counter.started.size).toBe(spans().length);
    const [task] = named('plannav.task');
    expect(task!.status.code).toBe(SpanStatusCode.ERROR);
    expect(task!.events.map((event) => event.name)).toContain('plannav.task-cancel');
    const hung = named('chat scripted-model').at(-1);
    expect(hung!.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('stops on the returned function: open spans end, later events make none', async () => {
    const { tracer, counter, spans } = tracing();
    const llm = new ScriptedLLM({ responses: [scriptedPlan({ nextSteps: 'wait' }), { fail: 'hang' }] });
    const executor = new Executor({ sensitiveActions: false, task: 'Wait', llm, browser: shopBrowser() });
    const stop = traceExecutor(executor, { tracer });
    executor.on('model-call-start', (event) => {
      if (event.actor !== 'navigator') return;
      stop();
      stop();
      setTimeout(() => executor.cancel(), 5);
    });
    await executor.execute();
    const names = spans().map((span) => span.name);
    expect(names.filter((name) => name === 'plannav.task')).toHaveLength(1);
    expect(names.filter((name) => name === 'plannav.step')).toHaveLength(2);
    expect(counter.open).toBe(0);
    expect(spans().find((span) => span.name === 'plannav.task')?.attributes['plannav.incomplete']).toBe(true);
  });

  it('traces a HistoryReplay as a plannav.replay span, with the replay of each action', async () => {
    const { tracer, named, parentOf } = tracing();
    const recorded = await shopRun().execute();
    const replay = new HistoryReplay(recorded.history, { browser: shopBrowser() });
    traceExecutor(replay, { tracer });
    const result = await replay.run();
    expect(result.status).toBe('ok');
    const [span] = named('plannav.replay');
    expect(span).toBeDefined();
    const steps = named('plannav.step');
    expect(steps.length).toBeGreaterThan(0);
    for (const step of steps) expect(parentOf(step)).toBe(span);
    const replayed = steps.flatMap((step) => step.events.filter((event) => event.name === 'plannav.replay-step'));
    expect(replayed.map((event) => event.attributes?.['plannav.action.name'])).toEqual(['cache_content', 'extract_content', 'done']);
    expect(named('plannav.action cache_content')).toHaveLength(1);
  });

  it("uses the global tracer provider's tracer named plannav, with plannav's version, by default", async () => {
    const { provider, spans } = tracing();
    trace.setGlobalTracerProvider(provider);
    const executor = shopRun();
    traceExecutor(executor);
    await executor.execute();
    expect(spans().length).toBeGreaterThan(5);
    for (const span of spans()) expect(span.instrumentationScope).toMatchObject({ name: 'plannav', version: plannavVersion });
    const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(plannavVersion).toBe(packageJson.version);
  });

  it('rejects what is not a run or not a tracer with a ConfigError', () => {
    expect(() => traceExecutor({} as Executor)).toThrow(ConfigError);
    expect(() => traceExecutor(shopRun(), { tracer: {} as never })).toThrow(/Option `tracer`/);
  });
});
