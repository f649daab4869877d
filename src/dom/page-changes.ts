// Tells whether the page changed under a step's remaining actions: another URL or tab, a new
// document, or interactive elements that were not in the snapshot the model saw (a menu that
// opened, suggestions that appeared). The Navigator then skips the rest of the step.

import type { BrowserDriver, CallOptions } from '../browser/types';
import { callRuntime } from './page-runtime';

/** Where the browser was when a step's actions were chosen, or after the last action. */
export interface PageBaseline {
  readonly url: string;
  readonly tabId: string;
  readonly tabIds: readonly string[];
}

/** Reads where the browser is now. */
export async function readBaseline(driver: BrowserDriver, options: CallOptions): Promise<PageBaseline> {
  const [active, tabs] = await Promise.all([driver.activeTab(options), driver.tabs(options)]);
  return { url: active.url, tabId: active.id, tabIds: tabs.map((tab) => tab.id) };
}

/**
 * Describes how the page changed since `before`, or returns undefined when it did not.
 * `frameIds` are the frames whose elements the model saw.
 */
export async function describePageChange(
  driver: BrowserDriver,
  before: PageBaseline,
  frameIds: readonly string[],
  options: CallOptions,
): Promise<{ readonly change: string | undefined; readonly now: PageBaseline }> {
  const now = await readBaseline(driver, options);
  if (now.tabId !== before.tabId) return { change: 'the active tab changed', now };
  if (now.tabIds.length !== before.tabIds.length || now.tabIds.some((id) => !before.tabIds.includes(id))) {
    return { change: 'a tab opened or closed', now };
  }
  // Any other URL counts, a new fragment too: a hash-routed app shows another view under it.
  if (now.url !== before.url) return { change: `the URL changed to ${now.url}`, now };
  let newElements = 0;
  for (const frameId of frameIds) {
    let probe: unknown;
    try {
      // The probe applies the snapshot's own rules: only what a snapshot would list counts as new.
      probe = await callRuntime(driver, frameId, 'changes', undefined, options);
    } catch {
      // A frame that went away takes its elements with it; nothing new to act on there.
      continue;
    }
    if (typeof probe !== 'object' || probe === null) continue;
    const { newDocument, newElements: found } = probe as { newDocument?: unknown; newElements?: unknown };
    if (newDocument === true) return { change: 'the page loaded a new document', now };
    if (typeof found === 'number' && Number.isFinite(found)) newElements += Math.max(0, Math.min(50, found));
  }
  if (newElements > 0) return { change: `${newElements >= 50 ? '50 or more' : newElements} new element(s) appeared`, now };
  return { change: undefined, now };
}
