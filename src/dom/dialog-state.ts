// The page state while a JavaScript dialog holds the active tab: the page runs no script then, so the
// state is read from the driver alone (tabs, URL, the dialog) and never from the page.

import type { PageState } from '../browser/page-state';
import type { BrowserDriver, CallOptions, ClosedDialog, PageDialog, TabInfo } from '../browser/types';
import { pageTextRedactions } from './page-text-redaction';
import { oneLine } from './validate-snapshot';

/**
 * The tab fields of a page state, from the driver (never from the page's scripts), and the function
 * that redacts page text: the URL and titles are page text too, redacted before they are cut.
 */
export function tabFields(
  driver: BrowserDriver,
  tabs: TabInfo[],
  active: TabInfo,
): { fields: Pick<PageState, 'url' | 'title' | 'tabs' | 'activeTabId'>; redact: (text: string) => string } {
  const redactions = pageTextRedactions(driver);
  const redact = (text: string): string => redactions.reduce((redacted, redaction) => redaction.redact(redacted), text);
  const fields = {
    url: oneLine(redact(active.url), 2000),
    title: oneLine(redact(active.title), 500),
    tabs: redactions.length === 0 ? tabs : tabs.map((tab) => ({ ...tab, url: redact(tab.url), title: redact(tab.title) })),
    activeTabId: active.id,
  };
  return { fields, redact };
}

/** The state of a tab whose page shows `dialog`: no elements, the dialog, and the dialogs closed before it. */
export async function dialogState(driver: BrowserDriver, dialog: PageDialog, closed: readonly ClosedDialog[], call: CallOptions): Promise<PageState> {
  const [tabs, active] = await Promise.all([driver.tabs(call), driver.activeTab(call)]);
  const { fields, redact } = tabFields(driver, tabs, active);
  return {
    ...fields,
    elementsText: '',
    elements: new Map(),
    newIndices: new Set(),
    pixelsAbove: 0,
    pixelsBelow: 0,
    screenshot: undefined,
    capturedAt: Date.now(),
    dialog: redactDialog(dialog, redact),
    ...(closed.length > 0 ? { closedDialogs: closed.map((item) => redactDialog(item, redact)) } : {}),
  };
}

/** A dialog's texts (page text, or what was typed: a secret may be in it) with the driver's redactions. */
export function redactDialog<D extends PageDialog & { readonly text?: string | undefined }>(dialog: D, redact: (text: string) => string): D {
  return {
    ...dialog,
    message: redact(dialog.message),
    ...(dialog.defaultValue !== undefined ? { defaultValue: redact(dialog.defaultValue) } : {}),
    ...(dialog.text !== undefined ? { text: redact(dialog.text) } : {}),
  };
}

/** The dialog report's redaction for a state read normally. */
export function redactClosed(driver: BrowserDriver, closed: readonly ClosedDialog[]): ClosedDialog[] {
  const redactions = pageTextRedactions(driver);
  const redact = (text: string): string => redactions.reduce((redacted, redaction) => redaction.redact(redacted), text);
  return closed.map((item) => redactDialog(item, redact));
}
