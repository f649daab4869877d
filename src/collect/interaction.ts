// The short Navigator task that gets a page ready before its records are read (a cookie wall, a
// "show all" button, a filter form): the Navigator agent alone, bounded in steps, no Planner.

import type { ActionRegistry } from '../actions/registry';
import { NavigatorAgent } from '../agents/navigator-agent';
import { isFatalError } from '../errors';
import type { EventBase, ExecutorEventMap, ExecutorEventName } from '../events';
import { StepRecorder } from '../history/step-recorder';
import type { ModelRetryOptions } from '../llm/generate-object';
import type { LLMClient } from '../llm/types';
import type { PriceTable, TokenUsage } from '../llm/usage';
import { MessageManager } from '../messages/message-manager';
import { navigatorSystemPrompt } from '../prompts/navigator-system';
import type { SecretStore } from '../security/secrets';
import type { UrlPolicy } from '../security/url-policy';
import { createAgentContext, defaultMaxInputTokens, type BrowserSession } from '../session/index';

/** The Navigator's limit of actions per step in an interaction task: a few clicks, not a journey. */
const maxActionsPerStep = 3;

/** What an interaction task needs from the collection. */
export interface InteractionInput {
  /** What must be done, as the survey said it ("accept the cookie banner"). */
  readonly goal: string;
  /** What the collection is for, so the Navigator knows when the page is ready. */
  readonly instruction: string;
  readonly maxSteps: number;
  /** The page's browser session: its driver, reader and deadlines. */
  readonly session: BrowserSession;
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
  const messages = new MessageManager({ maxInputTokens: defaultMaxInputTokens });
  messages.initTask(
    navigatorSystemPrompt({ maxActionsPerStep, actionList: input.registry.describe() }),
    `Get this page ready for reading, then call done at once: ${input.goal}. Stay on the listing; do not open single records. (The page is being read for: ${input.instruction})`,
  );
  const { session, signal } = input;
  const context = createAgentContext({
    taskId: 'collect-interaction',
    driver: session.driver,
    readPage: (read) => session.readPage({ ...read, signal }),
    registry: input.registry,
    llm: { navigator: input.navigatorLLM, extraction: input.extractionLLM },
    secrets: input.secrets,
    urlPolicy: input.urlPolicy,
    signal,
    timeouts: session.timeouts,
    // The page's own deadline bounds the model calls of its interaction.
    modelTimeout: false,
    settings: { maxSteps: input.maxSteps, maxActionsPerStep, modelRetry: input.retry, prices: input.prices },
    messages,
    driverGuarded: input.driverGuarded,
    emit: <K extends ExecutorEventName>(name: K, _actor: EventBase['actor'], payload: Omit<ExecutorEventMap[K], keyof EventBase>) => {
      // Only the usage matters to the collection; the Navigator's other events stay inside the task.
      if (name !== 'model-call-end') return;
      const { provider, model, usage, durationMs } = payload as Omit<ExecutorEventMap['model-call-end'], keyof EventBase>;
      input.onModelCall({ provider, model, usage, durationMs });
    },
    checkpoint: () => input.checkpoint(),
  });
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
