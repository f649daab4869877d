// What the Collector's page step is given: the action registry, the extractor and the models, each
// reading requests with the secret values redacted, and the templates learnt so far.

import type { z } from 'zod';
import { builtinActions } from '../actions/builtin/index';
import { ActionRegistry } from '../actions/registry';
import { redactingClient } from '../agents/secret-guard';
import type { ModelCallObserver } from '../llm/generate-object';
import type { LLMClient } from '../llm/types';
import type { SecretStore } from '../security/secrets';
import type { UrlPolicy } from '../security/url-policy';
import type { ListingPlan } from './listing-plan';
import type { ResolvedCollectOptions } from './options';
import { PageExtractor } from './page-extraction';
import { countingClient, type PageModelCall, type PageStepContext } from './page-step';

/** What the wiring needs of the run. */
export interface PageStepHooks {
  /** A model call of the page step ended (the extraction's, or an interaction's). */
  modelCall(role: 'navigator' | 'extraction', call: PageModelCall): void;
  observer(role: 'navigator'): ModelCallObserver;
  checkpoint(): Promise<boolean>;
  warn(code: string, message: string): void;
}

/** The page step's parts, built once per Collector. */
export class PageStepWiring<TRecord> {
  readonly registry: ActionRegistry;
  readonly extractor: PageExtractor<TRecord>;
  readonly navigatorLLM: LLMClient;
  readonly plannerLLM: LLMClient;
  readonly extractionLLM: LLMClient;
  /** What was learnt of each listing template: found again on its other pages without a survey. */
  readonly plans = new Map<string, ListingPlan>();

  constructor(
    private readonly options: ResolvedCollectOptions,
    schema: z.ZodType<TRecord>,
    private readonly urlPolicy: UrlPolicy,
    private readonly secrets: SecretStore,
    private readonly hooks: PageStepHooks,
  ) {
    const names = options.actions.map((action) => action.name);
    const builtins = builtinActions().filter((action) => !names.includes(action.name));
    this.registry = new ActionRegistry([...builtins, ...options.actions]);
    this.extractor = new PageExtractor(schema, { retry: options.modelRetry, maxChunkChars: options.maxChunkChars, partial: Boolean(options.details) });
    const { llm } = options;
    // Every model reads requests with the secret values redacted, as in a task.
    this.navigatorLLM = redactingClient(options.navigatorLLM ?? llm, secrets);
    this.plannerLLM = redactingClient(options.plannerLLM ?? llm, secrets);
    this.extractionLLM = countingClient(redactingClient(options.extractionLLM ?? llm, secrets), (call) => hooks.modelCall('extraction', call));
  }

  /** The page step's context, in the instruction in force now. */
  context(instruction: string): PageStepContext<TRecord> {
    const { options, hooks } = this;
    return {
      instruction,
      interactionSteps: options.interactionSteps,
      maxLoadMore: options.maxLoadMore,
      modelRetry: options.modelRetry,
      prices: options.prices,
      urlPolicy: this.urlPolicy,
      secrets: this.secrets,
      registry: this.registry,
      extractor: this.extractor,
      navigatorLLM: this.navigatorLLM,
      extractionLLM: this.extractionLLM,
      navigatorObserver: hooks.observer('navigator'),
      onInteractionCall: (call) => hooks.modelCall('navigator', call),
      checkpoint: () => hooks.checkpoint(),
      warn: (code, message) => hooks.warn(code, message),
      plans: this.plans,
    };
  }
}
