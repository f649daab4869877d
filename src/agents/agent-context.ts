// What the agents share during one task: the conversation, the browser, the options, the cancel
// signal and the event sink. The Executor builds one per task; agents only read and append.

import type { ActionRegistry } from '../actions/registry';
import type { ActionResult, HumanAnswer } from '../actions/types';
import type { PageState } from '../browser/page-state';
import type { BlockedNavigation, ResolvedBrowserDriver } from '../browser/types';
import type { SecretStore } from '../security/secrets';
import type { SensitiveActionGate } from './sensitive-action-gate';
import type { UrlPolicy } from '../security/url-policy';
import type { EventBase, ExecutorEventMap, ExecutorEventName } from '../events';
import type { GenerateObjectArgs, ModelCallObserver, ModelRetryOptions } from '../llm/generate-object';
import { BrowserError } from '../errors';
import { toErrorInfo } from '../history/error-info';
import type { LLMClient } from '../llm/types';
import { toCallError } from '../llm/model-errors';
import { modelTimeout } from '../llm/model-timeout';
import { withDeadline } from '../util/deadline';
import { emptyUsage, normalizeUsage, priceUsage, type PriceTable } from '../llm/usage';
import type { MessageManager } from '../messages/message-manager';

/** The error of a page read that ran past its deadline: retryable, and the step that needed it fails. */
export function pageStateTimeout(timeoutMs: number): BrowserError {
  return new BrowserError(`Reading the page took longer than ${timeoutMs} ms (browserTimeouts.pageState); the page may be busy or the browser stuck.`, {
    code: 'BROWSER_TIMEOUT',
    retryable: true,
  });
}

/** The options the agents read. */
export interface AgentSettings {
  readonly maxSteps: number;
  readonly maxActionsPerStep: number;
  readonly useVision: boolean;
  readonly useVisionForPlanner: boolean;
  /** Take a screenshot with each state for the history, even when the model does not see it. */
  readonly recordScreenshots: boolean;
  readonly modelRetry: ModelRetryOptions;
  readonly modelTimeoutMs: number | undefined;
  /** The model that takes over an agent's call when its own keeps failing. */
  readonly fallbackLLM: LLMClient | undefined;
  /** Deadlines of browser calls, in milliseconds. */
  readonly browserTimeouts: { readonly pageState: number; readonly action: number; readonly settle: number };
  readonly temperature: number | undefined;
  readonly prices: PriceTable | undefined;
  /** Files and folders `upload_file` may send. */
  readonly uploadPaths: readonly string[];
  /** A navigation the URL policy stops ends the task instead of going back to the model. */
  readonly endTaskOnBlockedUrl: boolean;
  /** Run the injection guard's detection on page text (flags and `injection-detected` events). @defaultValue true */
  readonly detectInjections?: boolean | undefined;
}

/** An event payload without the fields the context fills in. */
export type EventPayload<K extends ExecutorEventName> = Omit<ExecutorEventMap[K], keyof EventBase>;

/** The shared state of one task. */
export interface AgentContext {
  readonly taskId: string;
  readonly settings: AgentSettings;
  readonly messages: MessageManager;
  readonly driver: ResolvedBrowserDriver;
  /**
   * Reads the active tab (settled first with `settle`) within the session's deadlines and the
   * task's signal: the session's one settle-then-read.
   */
  readPage(options: { readonly screenshot: boolean; readonly settle: boolean }): Promise<PageState>;
  readonly registry: ActionRegistry;
  readonly navigatorLLM: LLMClient;
  readonly plannerLLM: LLMClient;
  readonly extractionLLM: LLMClient;
  /** The task's URL policy. */
  readonly urlPolicy: UrlPolicy;
  /**
   * Whether the driver enforces the policy on the browser's own navigations; when it does not,
   * the Navigator checks the page each action leaves behind.
   */
  readonly driverGuarded: boolean;
  /** The navigations the driver's guard stopped since the last call; empties the list. */
  takeBlockedNavigations(): BlockedNavigation[];
  /** Aborted when the task is cancelled. */
  readonly signal: AbortSignal;
  /** Navigator steps started in this task. */
  nSteps: number;
  /** The results of the last Navigator step. */
  actionResults: ActionResult[];
  /** The state added to the conversation in this iteration, if any. */
  currentState: PageState | undefined;
  /** Emits an event, filling in task id, step and time. */
  emit<K extends ExecutorEventName>(name: K, actor: EventBase['actor'], payload: EventPayload<K>): void;
  /**
   * Resolves at once (false), or when a pause ends (true); rejects when the task is cancelled.
   * After a pause the state message is dropped, so the next model call sees the page as it is.
   */
  checkpoint(): Promise<boolean>;
  /** Asks the user a question (the `ask_human` action). */
  askHuman(question: string): Promise<HumanAnswer>;
  /** The run's secrets: their names for the state, their values for actions, their redaction. */
  readonly secrets: SecretStore;
  /**
   * Decides the actions that cross a trust boundary once page content has been read. Absent
   * (replay, the Collector's interactions), every action runs as before.
   */
  readonly gate?: SensitiveActionGate | undefined;
}

/**
 * What every agent's structured model call shares: the task's signal, the retry policy and
 * deadline, the fallback model, the token budget of a repair request, and the model-call events.
 */
export function agentCallOptions(context: AgentContext, actor: 'planner' | 'navigator' | 'validator', llm: LLMClient) {
  return {
    signal: context.signal,
    retry: context.settings.modelRetry,
    timeout: context.settings.modelTimeoutMs,
    fallback: context.settings.fallbackLLM,
    maxInputTokens: context.messages.maxInputTokens,
    temperature: context.settings.temperature,
    observer: modelCallObserver(context, actor, llm),
  } satisfies Partial<GenerateObjectArgs<unknown>>;
}

/** Model-call events for one agent, as a generateObject observer. */
export function modelCallObserver(context: AgentContext, actor: 'planner' | 'navigator' | 'validator', llm: LLMClient): ModelCallObserver {
  const named = (client: LLMClient = llm) => ({ provider: client.provider, model: client.model });
  return {
    onCallStart: (attempt, client) => context.emit('model-call-start', actor, { ...named(client), attempt }),
    onCallEnd: (attempt, outcome, client = llm) =>
      context.emit('model-call-end', actor, {
        ...named(client),
        attempt,
        usage: priceUsage(outcome.usage, context.settings.prices?.[client.model]),
        durationMs: outcome.durationMs,
        finishReason: outcome.finishReason,
        error: outcome.error ? toErrorInfo(outcome.error) : undefined,
      }),
    onRetry: (attempt, error, delayMs) => context.emit('model-retry', actor, { attempt, delayMs, error: toErrorInfo(error) }),
    onFallback: (from, to, error) => context.emit('model-fallback', actor, { from: named(from), to: named(to), error: toErrorInfo(error) }),
  };
}

/**
 * The extraction model as actions receive it: every call is reported with `model-call-start` and
 * `model-call-end` events, so its tokens count in the step's and the task's usage.
 */
export function observedExtractionClient(context: AgentContext, llm: LLMClient): LLMClient {
  const observer = modelCallObserver(context, 'navigator', llm);
  return {
    specificationVersion: 'v1',
    provider: llm.provider,
    model: llm.model,
    supportsImages: llm.supportsImages,
    generate: async (request) => {
      const started = Date.now();
      observer.onCallStart?.(1, llm);
      try {
        const timeout = request.timeout ?? context.settings.modelTimeoutMs;
        const result = await withDeadline(
          timeout,
          request.signal ?? context.signal,
          () => modelTimeout(llm, timeout),
          (signal) => llm.generate({ ...request, signal, timeout }),
        );
        observer.onCallEnd?.(1, { usage: normalizeUsage(result.usage), durationMs: Date.now() - started, finishReason: result.finishReason }, llm);
        return result;
      } catch (error) {
        observer.onCallEnd?.(1, { usage: emptyUsage, durationMs: Date.now() - started, error: toCallError(error, request.signal) }, llm);
        throw error;
      }
    },
  };
}
