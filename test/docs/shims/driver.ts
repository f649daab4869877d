// TEMPORARY stand-in for the `plannav/driver` entry (plan10.md's split), until src/driver.ts lands:
// the docs test maps `plannav/driver` here only when tsconfig.json has no path for it. Delete at merge.
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
} from '../../../src/browser/types';
export type { PageState } from '../../../src/browser/page-state';
export { definePageScript, elementLookupExpression, pageRuntime, pageScriptExpression, readPageScriptResult } from '../../../src/dom/page-runtime';
export { resolveDriver } from '../../../src/dom/driver-defaults';
export type { FrameSnapshot, SnapshotElement, SnapshotItem, SnapshotScriptOptions, SnapshotText } from '../../../src/dom/types';
export { matchesUrlPattern } from '../../../src/security/url-pattern';
export type { UrlPolicyRule, UrlPolicyRules } from '../../../src/security/url-policy';
export type { BrowserPool } from '../../../src/collect/options';
