// Type tests of the public API, compiled by `npm run typecheck` (tsc): what a TypeScript user's editor infers. Each
// assertion fails to compile when the type it pins changes; test/types/inference-guard.test.ts
// checks that breaking the outputSchema inference on purpose makes these fail.
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import type { ResumeOptions } from '../../src/collect/options';
import type { QueuedPage } from '../../src/collect/store';
import type * as driverEntry from '../../src/driver';
import type { Actor } from '../../src/events';
import type { ModelCallRecord } from '../../src/history/types';
import {
  act,
  ActionError,
  Collector,
  ConfigError,
  defineAction,
  Executor,
  HistoryReplay,
  PlannavError,
  TimeoutError,
  URLNotAllowedError,
  type BrowserDriver,
  type CollectedRecord,
  type CollectionCheckpoint,
  type CollectOptions,
  type ErrorInfo,
  type ExecuteOptions,
  type ExecutionResult,
  type ExecutorEvent,
  type ExecutorEventMap,
  type ExecutorListener,
  type ExecutorOptions,
  type LLMClient,
  type PageState,
  type PlannavErrorCode,
  type ReplayResult,
  type RunHistory,
  type StepRecord,
  type TaskStatus,
} from '../../src/index';
import { ChatModelRateLimitError, type LLMClient as ProviderLLMClient } from '../../src/provider';
import type { ReplayCheckReport } from '../../src/replay/replay';
import type { ActRequest } from '../../src/standalone/act';
import { FakeBrowserDriver, ScriptedLLM } from '../../src/testing/index';

const llm = new ScriptedLLM({ responses: [] });
const browser = new FakeBrowserDriver({ pages: {} });

describe('outputSchema types result.data', () => {
  it('is unknown without a schema', () => {
    const executor = new Executor({ task: 'x', llm, browser });
    expectTypeOf(executor).toEqualTypeOf<Executor<unknown>>();
    expectTypeOf(executor.execute()).resolves.toEqualTypeOf<ExecutionResult<unknown>>();
    expectTypeOf<ExecutionResult['data']>().toEqualTypeOf<unknown>();
  });

  it("is the schema's output type (after transforms and defaults), or undefined", () => {
    const schema = z.object({ name: z.string(), price: z.string().transform(Number), tags: z.array(z.string()).default([]) });
    const executor = new Executor({ task: 'x', llm, browser, outputSchema: schema });
    expectTypeOf(executor).toEqualTypeOf<Executor<{ name: string; price: number; tags: string[] }>>();
    expectTypeOf(executor.execute()).resolves.toHaveProperty('data').toEqualTypeOf<{ name: string; price: number; tags: string[] } | undefined>();
  });

  it('keeps the type for follow-up tasks, and takes any zod schema', () => {
    const executor = new Executor({ task: 'x', llm, browser, outputSchema: z.array(z.number()) });
    executor.addFollowUpTask('y');
    expectTypeOf(executor.execute({ timeout: 1000 }))
      .resolves.toHaveProperty('data')
      .toEqualTypeOf<number[] | undefined>();
    const union = new Executor({ task: 'x', llm, browser, outputSchema: z.union([z.literal('yes'), z.literal('no')]) });
    expectTypeOf(union.execute()).resolves.toHaveProperty('data').toEqualTypeOf<'yes' | 'no' | undefined>();
  });

  it('refuses what is not a zod schema', () => {
    // @ts-expect-error outputSchema must be a zod schema
    new Executor({ task: 'x', llm, browser, outputSchema: { type: 'object' } });
  });
});

describe('options', () => {
  it('requires task, llm and browser, and knows every option', () => {
    // @ts-expect-error llm is required
    new Executor({ task: 'x', browser });
    // @ts-expect-error unknown option
    new Executor({ task: 'x', llm, browser, maxStep: 3 });
    expectTypeOf<ExecutorOptions['maxSteps']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<NonNullable<ExecutorOptions['urlPolicy']>['onBlocked']>().toEqualTypeOf<'report' | 'end-task' | undefined>();
  });

  it('takes { signal, timeout } per execute()', () => {
    const executor = new Executor({ task: 'x', llm, browser });
    expectTypeOf(executor.execute).parameter(0).toEqualTypeOf<ExecuteOptions | undefined>();
    expectTypeOf<ExecuteOptions>().toEqualTypeOf<{ readonly signal?: AbortSignal | undefined; readonly timeout?: number | undefined }>();
    // @ts-expect-error the timeout is in milliseconds, a number
    void executor.execute({ timeout: '5s' });
    // @ts-expect-error unknown run option
    void executor.execute({ timout: 5 });
  });
});

describe('events', () => {
  it('types each payload by its name', () => {
    const executor = new Executor({ task: 'x', llm, browser });
    executor.on('action-end', (event) => {
      expectTypeOf(event.error).toEqualTypeOf<ErrorInfo | undefined>();
      expectTypeOf(event.action).toBeString();
      expectTypeOf(event.durationMs).toBeNumber();
    });
    executor.on('task-end', (event) => {
      expectTypeOf(event.status).toEqualTypeOf<TaskStatus>();
      expectTypeOf(event.error).toEqualTypeOf<ErrorInfo | undefined>();
    });
    executor.on('step-end', (event) => expectTypeOf(event.error).toEqualTypeOf<ErrorInfo | undefined>());
    executor.on('model-retry', (event) => expectTypeOf(event.error).toEqualTypeOf<ErrorInfo>());
    executor.on('url-blocked', (event) =>
      expectTypeOf(event.kind).toEqualTypeOf<'action' | 'navigation' | 'redirect' | 'popup' | 'frame' | 'prefetch' | 'request' | 'download'>(),
    );
    // @ts-expect-error no such event
    executor.on('action-done', () => undefined);
    // @ts-expect-error task-start has no error
    executor.on('task-start', (event) => event.error);
  });

  it('structured errors are the same ErrorInfo everywhere', () => {
    expectTypeOf<ErrorInfo>().toEqualTypeOf<{ readonly name: string; readonly code: string; readonly message: string; readonly retryable: boolean }>();
    expectTypeOf<ExecutorEventMap['action-end']['error']>().toEqualTypeOf<ExecutorEventMap['step-end']['error']>();
    expectTypeOf<RunHistory['steps'][number]['actions'][number]['error']>().toEqualTypeOf<ErrorInfo | undefined>();
    expectTypeOf<TaskStatus>().toEqualTypeOf<'ok' | 'failed' | 'cancelled' | 'timed-out' | 'max-steps'>();
  });

  it('accepts sync and async listeners, and listeners that return a value', () => {
    const executor = new Executor({ task: 'x', llm, browser });
    const seen: unknown[] = [];
    executor.on('task-end', async (event) => {
      await Promise.resolve(event.status);
    });
    executor.on('warning', (event) => seen.push(event.code));
    executor.once('task-start', () => undefined);
    expectTypeOf<ExecutorListener<'task-end'>>().parameter(0).toEqualTypeOf<ExecutorEventMap['task-end']>();
    expectTypeOf(executor.on('task-start', () => undefined)).toEqualTypeOf<typeof executor>();
  });

  it('yields a union the type field narrows', async () => {
    const executor = new Executor({ task: 'x', llm, browser });
    for await (const event of executor.events({ scope: 'session' })) {
      expectTypeOf(event).toEqualTypeOf<ExecutorEvent>();
      if (event.type === 'action-end') expectTypeOf(event.error).toEqualTypeOf<ErrorInfo | undefined>();
      if (event.type === 'task-end') expectTypeOf(event.usage.totalTokens).toBeNumber();
    }
    // @ts-expect-error scope is 'task' or 'session'
    executor.events({ scope: 'forever' });
  });
});

describe("errors' isInstance narrows", () => {
  it('to the class and its fields', () => {
    const caught: unknown = new Error('x');
    if (TimeoutError.isInstance(caught)) {
      expectTypeOf(caught).toEqualTypeOf<TimeoutError>();
      expectTypeOf(caught.timeoutMs).toBeNumber();
    }
    if (ChatModelRateLimitError.isInstance(caught)) expectTypeOf(caught.retryAfterMs).toEqualTypeOf<number | undefined>();
    if (URLNotAllowedError.isInstance(caught)) expectTypeOf(caught.url).toBeString();
    if (ConfigError.isInstance(caught)) expectTypeOf(caught.field).toEqualTypeOf<string | undefined>();
    if (ActionError.isInstance(caught)) expectTypeOf(caught.action).toBeString();
    if (PlannavError.isInstance(caught)) expectTypeOf(caught.code).toEqualTypeOf<PlannavErrorCode>();
    expectTypeOf<'TIMEOUT'>().toExtend<PlannavErrorCode>();
    expectTypeOf<'ACTION_INVALID_PARAMS'>().toExtend<PlannavErrorCode>();
  });
});

describe('defineAction', () => {
  it("types the handler's parameters from its schema", () => {
    defineAction({
      name: 'add_to_cart',
      description: 'Add an item',
      schema: z.object({ sku: z.string(), quantity: z.number().default(1) }),
      handler: async (params) => {
        expectTypeOf(params).toEqualTypeOf<{ sku: string; quantity: number }>();
        return 'added';
      },
    });
  });
});

describe('the entry for each audience', () => {
  it('shares the contracts: plannav/driver and plannav/provider name the same types as the core', () => {
    expectTypeOf<driverEntry.BrowserDriver>().toEqualTypeOf<BrowserDriver>();
    expectTypeOf<driverEntry.PageState>().toEqualTypeOf<PageState>();
    expectTypeOf<ProviderLLMClient>().toEqualTypeOf<LLMClient>();
    // A page state's elements are the driver's element references.
    expectTypeOf<PageState['elements']>().toEqualTypeOf<ReadonlyMap<number, driverEntry.ElementRef>>();
  });

  it('replays and collects one way each: the classes', () => {
    expectTypeOf<HistoryReplay['run']>().returns.resolves.toEqualTypeOf<ReplayResult>();
    expectTypeOf<Collector<{ title: string }>['records']>().returns.toEqualTypeOf<AsyncIterableIterator<CollectedRecord<{ title: string }>>>();
  });
});

describe('the detail types the core no longer names', () => {
  it('are reached through the types that hold them, as the CHANGELOG says', () => {
    expectTypeOf<ExecutorEvent['actor']>().toEqualTypeOf<Actor>();
    expectTypeOf<StepRecord['modelCalls'][number]>().toEqualTypeOf<ModelCallRecord>();
    expectTypeOf<ReplayResult['checks'][number]>().toEqualTypeOf<ReplayCheckReport>();
    expectTypeOf<Parameters<typeof act>[1]>().toEqualTypeOf<ActRequest>();
    expectTypeOf<NonNullable<CollectOptions['resume']>>().toEqualTypeOf<ResumeOptions>();
    expectTypeOf<CollectionCheckpoint['queue'][number]>().toEqualTypeOf<QueuedPage>();
  });
});
