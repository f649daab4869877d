// plannav/node: what needs Node's file system. Runs kept on disk (history files and journals),
// and a run as a GIF or an HTML report. The core (`plannav`) imports none of it.

export { loadHistory, saveHistory, screenshotFolder } from './history-files';
export { recordRun, type RecordableRun, type RunRecording } from './journal';
export { createRunGif, type RunGifOptions, type RunGifResult } from './run-gif';
export { createRunReport, type RunReportOptions, type RunReportResult } from './run-report';
export { fileCollectionStore } from './collect-store';
// Issue 24, the action cache: its store on disk, and the types of ActionCache (the class is in the core).
export { fileActionCacheStore } from './action-cache-store';
export type { ActionCacheEntry, ActionCacheStore, CachedAction } from '../cache/cache-entry';
export type { ActionCacheEvent, ActionCacheOptions, ActionCacheStats, ActionCacheStatus } from '../cache/action-cache';
export type { SaveHistoryOptions } from './history-files'; // issue 24: a run's Playwright trace beside its history
// Staying logged in (issue 24): log in once, reuse the saved storage state.
export { reuseLogin, type LoginSession, type ReuseLoginOptions } from './login-state';
