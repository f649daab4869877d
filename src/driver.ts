// The public face of `plannav/driver`, for driver authors: the BrowserDriver contract and its parts, the page
// runtime a driver runs in every frame, the helpers to run it, and the pool a Collector takes browsers from. An app needs none of it (it imports `plannav`).
// It must not import a `node:` module or an adapter.

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
  UrlPolicyRule,
  UrlPolicyRules,
} from './browser/types';
// Downloads and PDFs (issue 24): the optional members' types.
export type { DownloadReport, DownloadStatus, PdfSource, PdfText, SavedFile, SavePdfOptions } from './browser/types';
export type { PageState } from './browser/page-state';
// Staying logged in (issue 24): the storage state a driver saves and loads.
export type { StorageState, StorageStateCookie, StorageStateOptions, StorageStateOrigin } from './browser/storage-state';
// Issue 24, the missing actions: the page's JavaScript dialogs as a driver reports them.
export type { ClosedDialog, DialogAnswer, DialogReport, DialogsOptions, PageDialog } from './browser/types';
export type { BrowserPool } from './collect/options';
export { resolveDriver } from './dom/driver-defaults';
export { definePageScript, elementLookupExpression, pageRuntime, pageScriptExpression, readPageScriptResult } from './dom/page-runtime';
export type { FrameSnapshot, SnapshotElement, SnapshotItem, SnapshotScriptOptions, SnapshotText } from './dom/types';
export { matchesUrlPattern } from './security/url-pattern';
