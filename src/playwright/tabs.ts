// Tab tracking for the Playwright driver: the pages of its context as tabs, with ids, order,
// openers, titles and the active one. It never opens or closes a page itself.

import type { Frame, Page } from 'playwright-core';
import type { TabInfo } from '../browser/types';
import { BrowserError } from '../errors';

/** What the driver adds to the tracking of each tab. */
export interface TabHooks {
  /** Starts the driver's own watch of a new tab; returns the function that stops it. */
  readonly watch: (page: Page) => () => void;
  /** Called when a tab is forgotten (it closed, or the driver closed it). */
  readonly forgotten: (page: Page) => void;
}

/** The tabs of one driver, in the order they opened, and the one it acts on. */
export class TabTracker {
  /** The tab the driver acts on; may have closed since (the driver checks). */
  activePage: Page | undefined;
  private readonly hooks: TabHooks;
  private readonly tabIds = new WeakMap<Page, string>();
  private readonly tabOrder: Page[] = [];
  private readonly openers = new WeakMap<Page, string>();
  /** Titles as of the last load or action, so listing tabs costs no round trip to each page. */
  private readonly titles = new WeakMap<Page, string>();
  /** Removes the listeners the driver added to each page it tracks (attached pages belong to the user). */
  private readonly pageListeners = new Map<Page, () => void>();
  private nextTab = 1;

  constructor(hooks: TabHooks) {
    this.hooks = hooks;
  }

  /** Starts tracking a page as a tab; a page opened by the page (a popup) becomes active. */
  adopt(page: Page, activate: boolean): void {
    if (!this.tabIds.has(page)) {
      this.tabIds.set(page, `tab-${this.nextTab++}`);
      this.tabOrder.push(page);
      const stopWatching = this.hooks.watch(page);
      const closed = (): void => this.forget(page);
      const refresh = (): void => void this.refreshTitle(page);
      const navigated = (frame: Frame): void => {
        if (frame === page.mainFrame()) refresh();
      };
      page.on('close', closed);
      page.on('domcontentloaded', refresh);
      page.on('load', refresh);
      page.on('framenavigated', navigated);
      this.pageListeners.set(page, () => {
        stopWatching();
        page.off('close', closed);
        page.off('domcontentloaded', refresh);
        page.off('load', refresh);
        page.off('framenavigated', navigated);
      });
      void page
        .opener()
        .then((opener) => {
          const openerId = opener ? this.tabIds.get(opener) : undefined;
          if (openerId) this.openers.set(page, openerId);
        })
        .catch(() => undefined);
    }
    if (activate && !page.isClosed()) this.activePage = page;
  }

  /** Stops tracking a tab; if it was active, the one before it becomes active. */
  forget(page: Page): void {
    this.pageListeners.get(page)?.();
    this.pageListeners.delete(page);
    this.hooks.forgotten(page);
    const position = this.tabOrder.indexOf(page);
    if (position !== -1) this.tabOrder.splice(position, 1);
    if (this.activePage === page) this.activePage = this.tabOrder[Math.max(0, position - 1)];
  }

  /** Removes every listener added to the tabs, leaving the pages as they were. */
  detach(): void {
    for (const remove of this.pageListeners.values()) remove();
    this.pageListeners.clear();
  }

  /** Whether the page is a tab of this driver. */
  has(page: Page): boolean {
    return this.tabIds.has(page);
  }

  /** The tab id of a page, such as `tab-2`. */
  idOf(page: Page): string | undefined {
    return this.tabIds.get(page);
  }

  /** Where the tab is in the opening order, or -1. */
  positionOf(page: Page): number {
    return this.tabOrder.indexOf(page);
  }

  /** The tabs that are still open, in the order they opened. */
  livePages(): Page[] {
    return this.tabOrder.filter((page) => !page.isClosed());
  }

  /** The open tab with this id, or a BrowserError listing the open ones. */
  pageById(tabId: string): Page {
    const page = this.livePages().find((candidate) => this.tabIds.get(candidate) === tabId);
    if (!page) {
      const known = this.livePages().map((candidate) => this.tabIds.get(candidate)).join(', ');
      throw new BrowserError(`There is no tab with id ${tabId}. Open tabs: ${known || 'none'}.`);
    }
    return page;
  }

  /** Reads the page's title again; a page that cannot answer keeps the title last read. */
  async refreshTitle(page: Page): Promise<string> {
    const title = await page.title().catch(() => this.titles.get(page) ?? '');
    this.titles.set(page, title);
    return title;
  }

  /** The tab as the driver contract describes it. */
  async info(page: Page): Promise<TabInfo> {
    const title = this.titles.get(page) ?? (await this.refreshTitle(page));
    const openerId = this.openers.get(page);
    return { id: this.tabIds.get(page) ?? 'unknown', url: page.url(), title, ...(openerId ? { openerId } : {}) };
  }
}
