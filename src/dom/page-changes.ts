// Tells whether the page changed under a step's remaining actions: another URL or tab, a new
// document, or interactive elements that were not in the snapshot the model saw (a menu that
// opened, suggestions that appeared). The Navigator then skips the rest of the step.

import type { BrowserDriver, CallOptions } from '../browser/types';

/** Where the browser was when a step's actions were chosen, or after the last action. */
export interface PageBaseline {
  readonly url: string;
  readonly tabId: string;
  readonly tabIds: readonly string[];
}

/** What one probe of a frame found. */
interface FrameProbe {
  /** No snapshot ran in this document: it was loaded since the state the model saw. */
  readonly newDocument: boolean;
  /** Visible interactive elements not in the last snapshot. */
  readonly newElements: number;
}

/* v8 ignore start -- runs inside the page, where Node's coverage cannot see it */
function probeFrame(): FrameProbe {
  type State = { elements: Map<string, WeakRef<Element>> };
  const state = (window as unknown as Record<string, unknown>)['__plannavSnapshot'] as State | undefined;
  if (!state) return { newDocument: true, newElements: 0 };
  const known = new Set<Element>();
  for (const ref of state.elements.values()) {
    const element = ref.deref();
    if (element) known.add(element);
  }
  const roles = new Set(['button', 'link', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'tab', 'checkbox', 'radio', 'switch', 'combobox', 'textbox', 'searchbox', 'treeitem', 'gridcell']);
  const native = new Set(['a', 'button', 'input', 'select', 'textarea', 'summary']);
  const width = window.innerWidth;
  const height = window.innerHeight;
  let count = 0;
  const visit = (root: Document | ShadowRoot): void => {
    for (const element of root.querySelectorAll('*')) {
      if (count >= 50) return;
      const shadow = (element as HTMLElement).shadowRoot;
      if (shadow) visit(shadow);
      if (known.has(element)) continue;
      const tag = element.tagName.toLowerCase();
      const role = element.getAttribute('role') ?? '';
      const interactive =
        (native.has(tag) && !(tag === 'a' && !element.hasAttribute('href')) && !(tag === 'input' && (element as HTMLInputElement).type === 'hidden')) ||
        roles.has(role) ||
        element.hasAttribute('onclick') ||
        (element as HTMLElement).isContentEditable && !(element.parentElement as HTMLElement | null)?.isContentEditable;
      if (!interactive) continue;
      const box = element.getBoundingClientRect();
      // The snapshot's own rules: no tracking pixels, nothing disabled, nothing inside noscript.
      if (box.width <= 1 || box.height <= 1 || box.bottom <= 0 || box.right <= 0 || box.top >= height || box.left >= width) continue;
      const check = (element as Element & { checkVisibility?: (options: object) => boolean }).checkVisibility;
      if (check && !check.call(element, { checkOpacity: true, checkVisibilityCSS: true })) continue;
      if ((element as HTMLElement).closest?.('[inert],[aria-hidden="true"],noscript,[aria-disabled="true"]')) continue;
      if ((element as HTMLInputElement).disabled === true || element.matches(':disabled')) continue;
      count++;
    }
  };
  visit(document);
  return { newDocument: false, newElements: count };
}
/* v8 ignore stop */

/** The id of the page-change probe, for drivers that answer scripts by id. */
export const pageChangesScriptId = 'plannav.page-changes@1';

const probeScript = { id: pageChangesScriptId, run: probeFrame };

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
    let probe: FrameProbe;
    try {
      probe = await driver.evaluate(frameId, probeScript, undefined, options);
    } catch {
      // A frame that went away takes its elements with it; nothing new to act on there.
      continue;
    }
    if (typeof probe !== 'object' || probe === null) continue;
    if (probe.newDocument === true) return { change: 'the page loaded a new document', now };
    if (typeof probe.newElements === 'number') newElements += probe.newElements;
  }
  if (newElements > 0) return { change: `${newElements >= 50 ? '50 or more' : newElements} new element(s) appeared`, now };
  return { change: undefined, now };
}
