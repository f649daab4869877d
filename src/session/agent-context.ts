// The one place an agent context is built (the Navigator's, and the Planner's in the Executor):
// the session's browser, reader and deadlines, the entry point's models (redacted by its secrets),
// policy, events and controls. The Executor, a replay's model step and the Collector's
// interaction task each pass only what is theirs; the rest has one default here.

import type { ActionRegistry } from '../actions/registry';
import type { ActionResult, HumanAnswer } from '../actions/types';
import type { AgentContext, AgentSettings } from '../agents/agent-context';
import { redactingClient } from '../agents/secret-guard';
import type { SensitiveActionGate } from '../agents/sensitive-action-gate';
import type { PageState } from '../browser/page-state';
import type { BlockedNavigation, ResolvedBrowserDriver } from '../browser/types';
import type { LLMClient } from '../llm/types';
import { MessageManager } from '../messages/message-manager';
import type { SecretStore } from '../security/secrets';
import type { UrlPolicy } from '../security/url-policy';
import type { TimeoutSettings } from './timeouts';

/** The conversation budget of a context that brings no MessageManager of its own (one short task). */
export const defaultMaxInputTokens = 128_000;

/** No person answers: a replay, a collection. */
export const unanswered = (): Promise<HumanAnswer> => Promise.resolve({ answer: undefined, timedOut: false });

/** What an entry point gives {@link createAgentContext}; every field left out has its default. */
export interface AgentContextInit {
  readonly taskId: string;
  readonly driver: ResolvedBrowserDriver;
  /** The session's settle-then-read, for the task's signal. */
  readonly readPage: AgentContext['readPage'];
  readonly registry: ActionRegistry;
  /** The models: the Navigator's, and the Planner's and the extraction's (the Navigator's when left out). */
  readonly llm: { readonly navigator: LLMClient; readonly planner?: LLMClient | undefined; readonly extraction?: LLMClient | undefined };
  /** Every model reads its requests with these secrets' values redacted. */
  readonly secrets: SecretStore;
  readonly urlPolicy: UrlPolicy;
  readonly signal: AbortSignal;
  readonly timeouts: TimeoutSettings;
  /** What the agents read besides the deadlines; see {@link defaultAgentSettings}. */
  readonly settings?: Partial<Omit<AgentSettings, 'browserTimeouts' | 'modelTimeoutMs'>> | undefined;
  /** Whether the model timeout applies (a collection's interaction task has none). @defaultValue true */
  readonly modelTimeout?: boolean | undefined;
  readonly messages?: MessageManager | undefined;
  readonly driverGuarded?: boolean | undefined;
  readonly takeBlockedNavigations?: (() => BlockedNavigation[]) | undefined;
  readonly emit: AgentContext['emit'];
  /** @defaultValue rejects once `signal` aborted, else resolves false (no pause) */
  readonly checkpoint?: (() => Promise<boolean>) | undefined;
  /** @defaultValue no answer */
  readonly askHuman?: ((question: string) => Promise<HumanAnswer>) | undefined;
  readonly nSteps?: number | undefined;
  readonly actionResults?: ActionResult[] | undefined;
  readonly currentState?: PageState | undefined;
  /** Makes the sensitive-action gate of the context (it reads the context it guards). */
  readonly gate?: ((context: AgentContext) => SensitiveActionGate) | undefined;
}

/** The agents' settings when an entry point says nothing: one short step, no vision, no retries of its own. */
export const defaultAgentSettings: Omit<AgentSettings, 'browserTimeouts' | 'modelTimeoutMs'> = {
  maxSteps: 1,
  maxActionsPerStep: 3,
  useVision: false,
  useVisionForPlanner: false,
  recordScreenshots: false,
  modelRetry: {},
  fallbackLLM: undefined,
  temperature: undefined,
  prices: undefined,
  uploadPaths: [],
  endTaskOnBlockedUrl: false,
};

/** Builds an agent context. */
export function createAgentContext(init: AgentContextInit): AgentContext {
  const { secrets, signal } = init;
  const given = init.settings ?? {};
  const settings: AgentSettings = {
    ...defaultAgentSettings,
    ...given,
    fallbackLLM: redactingClient(given.fallbackLLM, secrets),
    modelTimeoutMs: init.modelTimeout === false ? undefined : init.timeouts.model(),
    browserTimeouts: init.timeouts.browser,
  };
  const navigator = init.llm.navigator;
  let gate: SensitiveActionGate | undefined;
  const context: AgentContext = {
    taskId: init.taskId,
    settings,
    messages: init.messages ?? new MessageManager({ maxInputTokens: defaultMaxInputTokens }),
    driver: init.driver,
    readPage: init.readPage,
    registry: init.registry,
    // Every model reads requests with the secret values redacted, whatever path they took in.
    navigatorLLM: redactingClient(navigator, secrets),
    plannerLLM: redactingClient(init.llm.planner ?? navigator, secrets),
    extractionLLM: redactingClient(init.llm.extraction ?? navigator, secrets),
    urlPolicy: init.urlPolicy,
    driverGuarded: init.driverGuarded ?? false,
    takeBlockedNavigations: init.takeBlockedNavigations ?? (() => []),
    signal,
    nSteps: init.nSteps ?? 0,
    actionResults: init.actionResults ?? [],
    currentState: init.currentState,
    emit: init.emit,
    checkpoint: init.checkpoint ?? (() => (signal.aborted ? Promise.reject(signal.reason as Error) : Promise.resolve(false))),
    askHuman: init.askHuman ?? unanswered,
    secrets,
    get gate(): SensitiveActionGate | undefined {
      return gate;
    },
  };
  gate = init.gate?.(context);
  return context;
}
