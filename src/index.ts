// The public face of the core entry point `plannav`: everything exported here is public API,
// and nothing else is. It must not import a `node:` module or an adapter.

export { Executor } from './executor/executor';
export type { EventStreamOptions, ExecutionResult } from './executor/executor';
export type { BrowserTimeouts, ExecuteOptions, ExecutorOptions, ExecutorUrlPolicy, HumanInputHandler, HumanQuestion } from './executor/options';

export { defineAction } from './actions/define-action';
export { extractContentAction } from './actions/builtin/extract-content';
export type { ExtractContentOptions } from './actions/builtin/extract-content';
export type { Action, ActionContext, ActionResult, ActionSchema, HumanAnswer } from './actions/types';

export type {
  BlockedNavigation,
  BrowserDriver,
  CallOptions,
  ClickOptions,
  ClickResult,
  ElementRef,
  FrameInfo,
  NavigationGuard,
  NavigationGuardScope,
  NavigationGuardStatus,
  NavigationResponse,
  PageScript,
  ResolvedBrowserDriver,
  ScreenshotOptions,
  ScrollRequest,
  TabInfo,
  UrlDecision,
} from './browser/types';
export { UrlPolicy } from './security/url-policy';
export type { UrlPolicyOptions, UrlPolicyRule, UrlPolicyRules } from './security/url-policy';
export type { SensitiveActionKind, SensitiveActionMode, SensitiveActionsOptions } from './security/sensitive-actions';
export type { SecretValue, SecretsOption } from './security/secrets';
export { matchesUrlPattern } from './security/url-pattern';
export type { PageState } from './browser/page-state';
export { definePageScript, elementLookupExpression, pageRuntime, pageScriptExpression, readPageScriptResult } from './dom/page-runtime';
export { resolveDriver } from './dom/driver-defaults';
export type { FrameSnapshot, SnapshotElement, SnapshotItem, SnapshotScriptOptions, SnapshotText } from './dom/types';

export type {
  ChatMessage,
  ContentPart,
  FinishReason,
  GenerateRequest,
  GenerateResult,
  ImagePart,
  LLMClient,
  LLMUsage,
  StructuredOutputRequest,
  TextPart,
} from './llm/types';
export type { JSONSchema } from './llm/json-schema';
export type { ModelPrice, PriceTable, TokenUsage } from './llm/usage';
export type { ModelRetryOptions } from './llm/generate-object';
export { chatModelErrorFromStatus } from './llm/model-errors';
export { withRetries } from './llm/retry';
export type { WithRetriesOptions } from './llm/retry';
export type { HttpFailure } from './llm/model-errors';

export {
  historySchemaVersion,
  type ActionRecord,
  type ElementFingerprint,
  type FingerprintAncestor,
  type FingerprintRecord,
  type FingerprintBox,
  type ModelCallRecord,
  type ModelFallbackRecord,
  type RunHistory,
  type ScreenshotRef,
  type StepBrowser,
  type StepRecord,
  type TabRecord,
  type TaskRecord,
} from './history/types';
export { elementFingerprintSchema, parseHistory, runHistorySchema } from './history/schema';
export {
  HistoryReplay,
  replayHistory,
  type ReplayCheck,
  type ReplayCheckReport,
  type ReplayExpect,
  type ReplayOptions,
  type ReplayResult,
} from './replay/replay';
export { exportPlaywrightScript, type ExportPlaywrightOptions } from './replay/export-playwright';
export { Collector, collect, type CollectionHistory } from './collect/collector';
export type { BrowserPool, CollectOptions, DetailPagesOptions, PerHostLimit, ResumeOptions } from './collect/options';
export type { PageRetryOptions } from './collect/page-retry';
export type { CollectionEndReason, CollectionSummary, CollectorEventBase, CollectorEventMap, CollectorEventName, CollectorListener } from './collect/events';
export {
  memoryCollectionStore,
  type CollectedRecord,
  type CollectionCheckpoint,
  type CollectionCheckRecord,
  type CollectionCommit,
  type CollectionCounters,
  type CollectionStore,
  type ControlLocator,
  type PageOutcome,
  type PageWayStep,
  type QueuedPage,
  type RejectedRecord,
} from './collect/store';

export type {
  Actor,
  ErrorInfo,
  EventBase,
  ExecutorEvent,
  ExecutorEventMap,
  ExecutorEventName,
  ExecutorListener,
  InjectionFinding,
  InjectionPatternId,
  InjectionSource,
  PlanInfo,
  ReplayStepReport,
  TaskStatus,
} from './events';

export {
  ActionError,
  BrowserDisconnectedError,
  BrowserError,
  CassetteError,
  CassetteMismatchError,
  ChatModelAuthError,
  ChatModelBadRequestError,
  ChatModelContextLengthError,
  ChatModelError,
  ChatModelForbiddenError,
  ChatModelOutputError,
  ChatModelRateLimitError,
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
export type { CassetteErrorOptions, CassetteMismatchErrorOptions, ChatModelErrorOptions, PlannavErrorCode, PlannavErrorOptions } from './errors';

// Without the loop: the Navigator's pieces on any BrowserDriver (src/standalone/).
export { observe } from './standalone/observe';
export type { ObserveOptions } from './standalone/observe';
export { act } from './standalone/act';
export type { ActOptions, ActRequest, ActResult } from './standalone/act';
export { extract } from './standalone/extract';
export type { ExtractOptions, ExtractRequest } from './standalone/extract';
