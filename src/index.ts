// The public face of the core entry point `plannav`, for app authors: everything exported here is public API,
// and nothing else is. It must not import a `node:` module or an adapter. What driver authors need is in
// src/driver.ts (`plannav/driver`), what model-client authors need in src/provider.ts (`plannav/provider`).

// The loop: the Executor, its options, result and events.
export { Executor } from './executor/executor';
export type { ExecutionResult } from './executor/executor';
export type { BrowserTimeouts, ExecuteOptions, ExecutorOptions, ExecutorUrlPolicy, HumanInputHandler, HumanQuestion } from './executor/options';
export type { ErrorInfo, ExecutorEvent, ExecutorEventMap, ExecutorEventName, ExecutorListener, InjectionFinding, ReplayStepReport, TaskStatus } from './events';

// Actions of your own.
export { defineAction } from './actions/define-action';
export { extractContentAction } from './actions/builtin/extract-content';
export type { ExtractContentOptions } from './actions/builtin/extract-content';
export type { Action, ActionContext, ActionResult, ActionSchema, HumanAnswer } from './actions/types';

// The two contracts an app plugs in (their parts: plannav/driver and plannav/provider).
export type { BrowserDriver } from './browser/types';
export type { PageState } from './browser/page-state';
export type { LLMClient } from './llm/types';

// What the agent may do: URLs, sensitive actions, secrets.
export { UrlPolicy } from './security/url-policy';
export type { UrlPolicyOptions } from './security/url-policy';
export type { SensitiveActionKind, SensitiveActionMode, SensitiveActionsOptions } from './security/sensitive-actions';
export type { SecretValue, SecretsOption } from './security/secrets';

// A run's history, its replay without a model, and its export as a Playwright test.
export type { ActionRecord, RunHistory, StepRecord, TaskRecord } from './history/types';
export { parseHistory } from './history/schema';
export { HistoryReplay, type ReplayCheck, type ReplayExpect, type ReplayOptions, type ReplayResult } from './replay/replay';
export { exportPlaywrightScript, type ExportPlaywrightOptions } from './replay/export-playwright';

// A collection: the loop as a crawler, and where it keeps its records.
export { Collector } from './collect/collector';
export type { CollectOptions } from './collect/options';
export type { CollectionSummary, CollectorEventMap, CollectorEventName, CollectorListener } from './collect/events';
export {
  memoryCollectionStore,
  type CollectedRecord,
  type CollectionCheckpoint,
  type CollectionCommit,
  type CollectionStore,
  type RejectedRecord,
} from './collect/store';

// Without the loop: the Navigator's pieces on any BrowserDriver (src/standalone/).
export { observe } from './standalone/observe';
export type { ObserveOptions } from './standalone/observe';
export { act } from './standalone/act';
export type { ActOptions, ActResult } from './standalone/act';
export { extract } from './standalone/extract';
export type { ExtractOptions } from './standalone/extract';
// Issue 24, the action cache of act()'s instruction form and extract() (its types and file store: plannav/node).
export { ActionCache } from './cache/action-cache';

// The errors an app catches (the model errors' subclasses, which model clients throw: plannav/provider).
export {
  ActionError,
  BrowserDisconnectedError,
  BrowserError,
  ChatModelError,
  ConfigError,
  HistoryFormatError,
  MaxFailuresReachedError,
  MaxStepsReachedError,
  PlannavError,
  RequestCancelledError,
  TimeoutError,
  URLNotAllowedError,
  isFatalError,
} from './errors';
export type { PlannavErrorCode } from './errors';
