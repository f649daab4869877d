// The checks of the driver conformance kit on tabs and loading: listing, opening, switching and
// closing tabs, popups becoming active, goto's wait and its failures. Contracts of BrowserDriver
// only; what a particular browser adds (tab titles of error pages, opener ids) does not belong here.

import type { TabInfo } from '../browser/types';
import { BrowserError } from '../errors';
import { describeValue } from './conformance';
import { closedPortOrigin } from './driver-conformance-pages';
import { isRetryableBrowserError, type DriverCaseContext, type DriverCheck } from './driver-conformance-harness';
import { locationScript } from './driver-conformance-probes';

const tabsContract = 'tabs() lists the open tabs in the order they opened, each with an id that stays the same while the tab lives';
const popupContract = 'a tab the page opens (a target=_blank link, window.open) becomes the active tab';
const popupBoundMs = 5000;

const ids = (tabs: readonly TabInfo[]): string[] => tabs.map((tab) => tab.id);

/** Waits (bounded) for a tab other than `opener` to become active with a URL that contains `urlPart`. */
async function awaitPopup(context: DriverCaseContext, opener: TabInfo, urlPart: string, how: string): Promise<void> {
  const active = await context.poll(
    `the tab that ${how} opened to become active`,
    async () => {
      const tab = await context.expectValue('activeTab()', () => context.driver.activeTab(), { contract: popupContract });
      return tab.id !== opener.id && tab.url.includes(urlPart) ? tab : undefined;
    },
    popupBoundMs,
  );
  if (active) {
    const listed = await context.expectValue('tabs()', () => context.driver.tabs(), { contract: tabsContract });
    if (listed.some((tab) => tab.id === active.id) && listed.some((tab) => tab.id === opener.id)) return;
    throw context.fail({
      contract: tabsContract,
      expected: `tabs() to list the opener ${opener.id} and the new tab ${active.id}`,
      received: describeValue(listed),
      fix: "list every page of the browser context (Playwright's context.pages()), the ones the page opened included",
    });
  }
  const [tabs, current] = [await context.driver.tabs().catch((error: unknown) => error), await context.driver.activeTab().catch((error: unknown) => error)];
  throw context.fail({
    contract: popupContract,
    expected: `within ${popupBoundMs} ms of the click, an active tab other than ${opener.id} showing ${urlPart}`,
    received: `active tab ${describeValue(current)}; tabs ${describeValue(tabs)}`,
    fix: "listen for new pages (Playwright's context.on('page'), CDP's Target.targetCreated) and make each the active tab",
  });
}

export const navigationChecks: DriverCheck[] = [
  {
    name: 'driver › implements BrowserDriver v1',
    run: async (context) => {
      // The harness checked the members when createDriver returned; a new driver also needs a tab to act in.
      const tab = await context.expectValue('activeTab()', () => context.driver.activeTab(), {
        contract: 'a new driver has an active tab to load pages in',
        fix: 'open (or adopt) one tab when the driver starts, and return it from activeTab()',
      });
      if (typeof tab?.id !== 'string' || typeof tab.url !== 'string' || typeof tab.title !== 'string') {
        throw context.fail({
          contract: 'a new driver has an active tab to load pages in',
          expected: 'a TabInfo: { id: string, url: string, title: string }',
          received: describeValue(tab),
          fix: 'return { id, url, title } for the tab the driver acts on',
        });
      }
    },
  },
  {
    name: 'tabs › lists, opens, switches and closes tabs, with ids stable while a tab lives',
    run: async (context) => {
      const { driver, site } = context;
      const first = await context.expectValue('activeTab()', () => driver.activeTab(), { contract: tabsContract });
      const before = await context.expectValue('tabs()', () => driver.tabs(), { contract: tabsContract });
      const firstUrl = await context.open('tabs');
      const afterGoto = await context.expectValue('activeTab()', () => driver.activeTab(), { contract: tabsContract });
      if (!ids(before).includes(first.id) || afterGoto.id !== first.id || afterGoto.url !== firstUrl) {
        throw context.fail({
          contract: tabsContract,
          expected: `the active tab ${first.id} listed by tabs(), and after goto the same id with url ${firstUrl}`,
          received: `tabs() ${describeValue(ids(before))}; after goto ${describeValue(afterGoto)}`,
          fix: 'give each tab an id when it opens (a WeakMap from page to id) and keep it across navigations; report the URL the tab shows',
        });
      }
      const targetUrl = site.url('target');
      const opened = await context.expectValue(`openTab(${targetUrl})`, () => driver.openTab(targetUrl), {
        contract: 'openTab opens a tab, makes it active and loads the URL in it',
        ms: 15_000,
      });
      const active = await context.expectValue('activeTab()', () => driver.activeTab(), {
        contract: 'openTab opens a tab, makes it active and loads the URL in it',
      });
      const listed = await context.expectValue('tabs()', () => driver.tabs(), { contract: tabsContract });
      const expectedIds = [...ids(before), opened.id];
      if (
        ids(before).includes(opened.id) ||
        opened.url !== targetUrl ||
        active.id !== opened.id ||
        JSON.stringify(ids(listed)) !== JSON.stringify(expectedIds)
      ) {
        throw context.fail({
          contract: 'openTab opens a tab, makes it active and loads the URL in it',
          expected: `a new id with url ${targetUrl}, active, and tabs() ${describeValue(expectedIds)}`,
          received: `openTab gave ${describeValue(opened)}; active ${describeValue(active)}; tabs() ${describeValue(ids(listed))}`,
          fix: 'open a page, load the URL, make it the active tab, and list tabs in the order they opened',
        });
      }
      const switched = await context.expectValue(`switchTab(${first.id})`, () => driver.switchTab(first.id), { contract: 'switchTab makes a tab active' });
      const nowActive = await context.expectValue('activeTab()', () => driver.activeTab(), { contract: 'switchTab makes a tab active' });
      const location = await context.probe(locationScript, undefined);
      if (switched.id !== first.id || nowActive.id !== first.id || location.href !== firstUrl) {
        throw context.fail({
          contract: 'switchTab makes a tab active: activeTab(), frames() and evaluate() act on it from then on',
          expected: `tab ${first.id} active, and evaluate() running in its page (${firstUrl})`,
          received: `switchTab gave ${describeValue(switched)}; active ${describeValue(nowActive)}; evaluate() ran in ${location.href}`,
          fix: 'keep one active tab and resolve frames() and evaluate() against it',
        });
      }
      await context.expectValue(`closeTab(${opened.id})`, () => driver.closeTab(opened.id), { contract: 'closeTab closes a tab' });
      const remaining = await context.expectValue('tabs()', () => driver.tabs(), { contract: tabsContract });
      if (ids(remaining).includes(opened.id) || !ids(remaining).includes(first.id)) {
        throw context.fail({
          contract: 'closeTab closes a tab, and tabs() no longer lists it',
          expected: `tabs() without ${opened.id} and still with ${first.id}`,
          received: describeValue(ids(remaining)),
          fix: 'close the page and forget its id',
        });
      }
    },
  },
  {
    name: 'tabs › switching to an unknown id is a BrowserError naming the open tabs',
    run: async (context) => {
      const { driver, site } = context;
      await context.open('tabs');
      await context.expectValue('openTab()', () => driver.openTab(site.url('target')), {
        contract: 'openTab opens a tab, makes it active and loads the URL in it',
        ms: 15_000,
      });
      const open = ids(await context.expectValue('tabs()', () => driver.tabs(), { contract: tabsContract }));
      const unknown = 'plannav-conformance-no-such-tab';
      const contract = 'switchTab with an id that is not an open tab rejects with a BrowserError naming the open tabs, so the model can pick one';
      const error = await context.expectRejection(`switchTab(${unknown})`, () => driver.switchTab(unknown), {
        contract,
        fix: `throw new BrowserError(\`There is no tab with id \${id}. Open tabs: \${ids.join(', ')}.\`)`,
      });
      const message = error instanceof Error ? error.message : '';
      if (!BrowserError.isInstance(error) || !open.every((id) => message.includes(id))) {
        throw context.fail({
          contract,
          expected: `a BrowserError whose message names ${open.join(', ')}`,
          received: describeValue(error),
          fix: `throw new BrowserError(\`There is no tab with id \${id}. Open tabs: \${ids.join(', ')}.\`)`,
          cause: error,
        });
      }
    },
  },
  {
    name: 'tabs › closing the active tab makes another tab active',
    run: async (context) => {
      const { driver, site } = context;
      await context.open('tabs');
      const first = await context.expectValue('activeTab()', () => driver.activeTab(), { contract: tabsContract });
      const second = await context.expectValue('openTab()', () => driver.openTab(site.url('target')), {
        contract: 'openTab opens a tab, makes it active and loads the URL in it',
        ms: 15_000,
      });
      await context.expectValue(`closeTab(${second.id})`, () => driver.closeTab(second.id), {
        contract: 'closeTab closes a tab; if it was active, another becomes active',
      });
      const active = await context.expectValue('activeTab() after closing the active tab', () => driver.activeTab(), {
        contract: 'closeTab closes a tab; if it was active, another becomes active',
        fix: 'when the active tab closes, make another open tab active (the one before it, say)',
      });
      const location = await context.probe(locationScript, undefined);
      if (active.id !== first.id || location.href !== site.url('tabs')) {
        throw context.fail({
          contract: 'closeTab closes a tab; if it was active, another becomes active',
          expected: `the remaining tab ${first.id} active, and evaluate() running in its page`,
          received: `active ${describeValue(active)}; evaluate() ran in ${location.href}`,
          fix: 'when the active tab closes, make another open tab active (the one before it, say)',
        });
      }
    },
  },
  {
    name: 'tabs › a link with target=_blank opens a tab that becomes active',
    run: async (context) => {
      await context.open('tabs');
      const opener = await context.expectValue('activeTab()', () => context.driver.activeTab(), { contract: tabsContract });
      const link = context.elementOf(await context.capture(), 'a', 'Open in new tab');
      await context.expectValue('click() on the target=_blank link', () => context.resolved.click(link), { contract: popupContract, ms: 15_000 });
      await awaitPopup(context, opener, 'from=link', 'the link');
    },
  },
  {
    name: 'tabs › a window.open popup becomes the active tab',
    run: async (context) => {
      await context.open('tabs');
      const opener = await context.expectValue('activeTab()', () => context.driver.activeTab(), { contract: tabsContract });
      const button = context.elementOf(await context.capture(), 'button', 'Open with script');
      await context.expectValue('click() on the window.open button', () => context.resolved.click(button), { contract: popupContract, ms: 15_000 });
      await awaitPopup(context, opener, 'from=script', 'window.open');
    },
  },
  {
    name: 'goto › resolves once the document has loaded, with what its DOMContentLoaded script added',
    run: async (context) => {
      const url = await context.open('loaded');
      const tab = await context.expectValue('activeTab()', () => context.driver.activeTab(), { contract: tabsContract });
      if (tab.url !== url) {
        throw context.fail({
          contract: 'goto loads the URL in the active tab',
          expected: `activeTab().url ${url}`,
          received: describeValue(tab),
          fix: 'navigate the active tab and report the URL it shows',
        });
      }
      const state = await context.capture();
      if (!/\[\d+\]<button[^\n]*Added at DOMContentLoaded/.test(state.elementsText)) {
        throw context.fail({
          contract: 'goto resolves once the document has committed and settled, so the first snapshot sees what its scripts added at DOMContentLoaded',
          expected: 'the button "Added at DOMContentLoaded" in the snapshot taken right after goto',
          received: describeValue(state.elementsText),
          fix: "wait for the load (Playwright's waitUntil: 'load', or 'commit' and then a settle) before goto resolves",
        });
      }
    },
  },
  {
    name: 'goto › a failed load is a retryable BrowserError, and the next goto works',
    run: async (context) => {
      const contract = 'goto rejects with a retryable BrowserError when the page cannot load, once the tab is ready for the next load';
      const closed = `${await closedPortOrigin()}/nothing-listens-here`;
      const error = await context.expectRejection(`goto(${closed})`, () => context.driver.goto(closed), {
        contract,
        ms: 15_000,
        fix: 'reject when the browser reports a failed navigation (connection refused, DNS, TLS), not only on timeouts',
      });
      if (!isRetryableBrowserError(error)) {
        throw context.fail({
          contract,
          expected: 'a BrowserError with retryable: true',
          received: describeValue(error),
          fix: `throw new BrowserError(\`Could not load \${url}: \${reason}\`, { cause, retryable: true })`,
          cause: error,
        });
      }
      const url = context.site.url('target');
      await context.expectValue(`goto(${url}) after the failed load`, () => context.driver.goto(url), {
        contract,
        ms: 15_000,
        fix: "after a failed load, wait for the browser's error page to commit before rejecting, or the next goto is interrupted by it",
      });
      const location = await context.probe(locationScript, undefined);
      if (location.href !== url) {
        throw context.fail({
          contract,
          expected: `the next goto to load ${url}`,
          received: `the page is at ${location.href}`,
          fix: "after a failed load, wait for the browser's error page to commit before rejecting, or the next goto is interrupted by it",
        });
      }
    },
  },
];
