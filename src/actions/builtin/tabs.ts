// The tab actions: open_tab, switch_tab and close_tab, with the tab ids the state message shows
// (the driver's `TabInfo.id`). A tab that is already gone is reported, never a crash.

import { z } from 'zod';
import type { TabInfo } from '../../browser/types';
import { ActionError, BrowserError, isFatalError } from '../../errors';
import { defineAction } from '../define-action';
import type { ActionContext } from '../types';
import { describeTab, loadFailure, normalizeUrl, refuseScriptUrl } from './navigation';

const tabIdParameter = z
  .union([z.string().min(1).max(100), z.number().int().nonnegative()])
  .describe('The id of the tab, as the state lists it (such as "tab-2")');

/**
 * The tab the model means: the exact id, else, for a bare number (`2`, `"2"`), the one tab whose
 * id ends in that number (models often drop the prefix the state shows).
 */
export function findTab(tabs: readonly TabInfo[], requested: string | number): TabInfo | undefined {
  const wanted = String(requested).trim();
  const exact = tabs.find((tab) => tab.id === wanted);
  if (exact || !/^\d+$/.test(wanted)) return exact;
  const numbered = tabs.filter((tab) => /(\d+)$/.exec(tab.id)?.[1] === wanted);
  return numbered.length === 1 ? numbered[0] : undefined;
}

function listTabs(tabs: readonly TabInfo[]): string {
  return tabs.length === 0 ? 'none' : tabs.map((tab) => `${tab.id} ${describeTab(tab)}`).join('; ');
}

async function tabsAndActive(context: ActionContext): Promise<{ tabs: TabInfo[]; active: TabInfo }> {
  const options = { signal: context.signal };
  return { tabs: await context.driver.tabs(options), active: await context.driver.activeTab(options) };
}

/** Opens a URL in a new tab, which becomes the active tab. */
export const openTabAction = defineAction({
  name: 'open_tab',
  description: 'Open a URL in a new tab; the new tab becomes the current tab.',
  schema: z.object({ url: z.string().min(1).max(8000).describe('The full URL, such as https://example.com/page') }),
  handler: async ({ url }, context) => {
    refuseScriptUrl(context, url);
    const normalized = normalizeUrl('open_tab', url);
    context.assertUrlAllowed(normalized.url);
    const prefix = normalized.note ? `${normalized.note} ` : '';
    let tab: TabInfo;
    try {
      tab = await context.driver.openTab(normalized.url, { signal: context.signal });
    } catch (error) {
      const failure = loadFailure(normalized.url, error);
      // The driver may have opened the tab before the load failed: say which tab is current now.
      const active = await context.driver.activeTab({ signal: context.signal }).catch((reason: unknown) => {
        if (isFatalError(reason)) throw reason;
        return undefined;
      });
      return { ...failure, error: `${failure.error ?? ''}${active ? ` The current tab is ${active.id} ${describeTab(active)}.` : ''}` };
    }
    return {
      extractedContent: `${prefix}Opened tab ${tab.id} with ${describeTab(tab)}; it is now the current tab.`,
      includeInMemory: true,
      stopSequence: true,
    };
  },
});

/** Makes another tab the active one. */
export const switchTabAction = defineAction({
  name: 'switch_tab',
  description: 'Make another open tab the current tab.',
  schema: z.object({ tab_id: tabIdParameter }),
  handler: async ({ tab_id: tabId }, context) => {
    const { tabs, active } = await tabsAndActive(context);
    const tab = findTab(tabs, tabId);
    if (!tab) throw new ActionError('switch_tab', `There is no tab ${JSON.stringify(String(tabId))}. Open tabs: ${listTabs(tabs)}.`);
    if (tab.id === active.id) return { extractedContent: `Tab ${tab.id} is already the current tab: ${describeTab(tab)}.`, includeInMemory: true };
    const shown = await context.driver.switchTab(tab.id, { signal: context.signal });
    return { extractedContent: `Switched to tab ${shown.id}: ${describeTab(shown)}.`, includeInMemory: true, stopSequence: true };
  },
});

/** Closes a tab; closing the current one makes another tab current. */
export const closeTabAction = defineAction({
  name: 'close_tab',
  description: 'Close a tab. Closing the current tab makes another tab current (the result says which).',
  schema: z.object({ tab_id: tabIdParameter }),
  handler: async ({ tab_id: tabId }, context) => {
    const { tabs, active } = await tabsAndActive(context);
    const tab = findTab(tabs, tabId);
    if (!tab) {
      return {
        extractedContent: `Tab ${JSON.stringify(String(tabId))} is already closed (or never existed). Open tabs: ${listTabs(tabs)}.`,
        includeInMemory: true,
      };
    }
    try {
      await context.driver.closeTab(tab.id, { signal: context.signal });
    } catch (error) {
      if (isFatalError(error)) throw error;
      // Closed meanwhile (by the page, or the user): that is what was asked.
      const still = await context.driver.tabs({ signal: context.signal });
      if (still.some((candidate) => candidate.id === tab.id)) throw error instanceof Error ? error : new BrowserError(String(error));
    }
    const now = await context.driver.activeTab({ signal: context.signal });
    const closed = `Closed tab ${tab.id} ${describeTab(tab)}.`;
    if (now.id === active.id) return { extractedContent: `${closed} Tab ${now.id} stays the current tab.`, includeInMemory: true };
    const newTab = tabs.some((candidate) => candidate.id === now.id) ? '' : 'new blank ';
    return { extractedContent: `${closed} The current tab is now the ${newTab}tab ${now.id}: ${describeTab(now)}.`, includeInMemory: true, stopSequence: true };
  },
});
