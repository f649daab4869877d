// The short Navigator task that gets a page ready before its records are read (a cookie wall, a
// "show all" button, a filter form): the Navigator agent alone, bounded in steps, no Planner.

import type { ActionRegistry } from '../actions/registry';
import type { AgentContext, AgentSettings } from '../agents/agent-context';
import { NavigatorAgent } from '../agents/navigator-agent';
import type { ResolvedBrowserDriver } from '../browser/types';
import { isFatalError } from '../errors';
import type { PageStateReader } from '../dom/page-state-reader';
import type { EventBase, ExecutorEventMap, ExecutorEventName } from '../events';
import { StepRecorder } from '../history/step-recorder';
import type { ModelRetryOptions } from '../llm/generate-object';
import type { LLMClient } from '../llm/types';
import type { PriceTable, TokenUsage } from '../llm/usage';
import { MessageManager } from '../messages/message-manager';
import { navigatorSystemPrompt } from '../prompts/navigator-system';
import type { SecretStore } from '../security/secrets';
import type { UrlPolicy } from '../security/url-policy';

/** The Navigator's limit of actions per step in an interaction task: a few clicks, not a journey. */
const maxActionsPerStep = 3;

/** What an interaction task needs from the collection. */
export interface InteractionInput {
  /** What must be done, as the survey said it ("accept the cookie banner"). */
  readonly goal: string;
  /** What the collection is for, so the Navigator knows when the page is ready. */
  readonly instruction: string;
  readonly maxSteps: number;
  readonly driver: ResolvedBrowserDriver;
  readonly pageReader: PageStateReader;
  readonly registry: ActionRegistry;
  readonly navigatorLLM: LLMClient;
  readonly extractionLLM: LLMClient;
  readonly urlPolicy: UrlPolicy;
  readonly driverGuarded: boolean;
  readonly secrets: SecretStore;
  readonly signal: AbortSignal;
  readonly retry: ModelRetryOptions;
  readonly prices: PriceTable | undefined;
  /** Hears of each model call's end, for the run's usage. */
  onModelCall(event: { readonly provider: string; readonly model: string; readonly usage: TokenUsage; readonly durationMs: number }): void;
  /** Waits while the run is paused; rejects when it is cancelled. */
  checkpoint(): Promise<boolean>;
}

/** How the task ended. */
export interface InteractionOutcome {
  readonly steps: number;
  /** The Navigator said it was done. */
  readonly done: boolean;
}

/** Runs the task: at most `maxSteps` Navigator steps, until one says done. Step failures do not throw; a cancel or fatal error does. */
export async function runInteraction(input: InteractionInput): Promise<InteractionOutcome> {
  const messages = new MessageManager({ maxInputTokens: 128_000 });
  messages.initTask(
    navigatorSystemPrompt({ maxActionsPerStep, actionList: input.registry.describe() }),
    `Get this page ready for reading, then call done at once: ${input.goal}. Stay on the listing; do not open single records. (The page is being read for: ${input.instruction})`,
  );
  const settings: AgentSettings = {
    maxSteps: input.maxSteps,
    maxActionsPerStep,
    useVision: false,
    useVisionForPlanner: false,
    recordScreenshots: false,
    modelRetry: input.retry,
    modelTimeoutMs: undefined,
    fallbackLLM: undefined,
    browserTimeouts: { pageState: 30_000, action: 60_000, settle: 15_000 },
    temperature: undefined,
    prices: input.prices,
    uploadPaths: [],
    endTaskOnBlockedUrl: false,
  };
  const context: AgentContext = {
    taskId: 'collect-interaction',
    settings,
    messages,
    driver: input.driver,
    pageReader: input.pageReader,
    registry: input.registry,
    navigatorLLM: input.navigatorLLM,
    plannerLLM: input.navigatorLLM,
    extractionLLM: input.extractionLLM,
    urlPolicy: input.urlPolicy,
    driverGuarded: input.driverGuarded,
    takeBlockedNavigations: () => [],
    signal: input.signal,
    nSteps: 0,
    actionResults: [],
    currentState: undefined,
    emit: <K extends ExecutorEventName>(name: K, _actor: EventBase['actor'], payload: Omit<ExecutorEventMap[K], keyof EventBase>) => {
      // Only the usage matters to the collection; the Navigator's other events stay inside the task.
      if (name !== 'model-call-end') return;
      const { provider, model, usage, durationMs } = payload as Omit<ExecutorEventMap['model-call-end'], keyof EventBase>;
      input.onModelCall({ provider, model, usage, durationMs });
    },
    checkpoint: () => input.checkpoint(),
    askHuman: () => Promise.resolve({ answer: undefined, timedOut: false }),
    secrets: input.secrets,
  };
  const navigator = new NavigatorAgent(context);
  while (context.nSteps < input.maxSteps) {
    await context.checkpoint();
    context.nSteps++;
    const recorder = new StepRecorder(context.taskId, 0, context.nSteps, 'navigator');
    try {
      const result = await navigator.step(recorder);
      if (result.done) return { steps: context.nSteps, done: true };
    } catch (error) {
      if (input.signal.aborted || isFatalError(error)) throw error;
      // A failed step (a malformed answer, a stale element) is the Navigator's to recover from, within the bound.
    }
  }
  return { steps: context.nSteps, done: false };
}
