// Tab tracking for the Puppeteer driver: the pages of its browser context as tabs, with ids, order,
// openers, titles and the active one. It never opens or closes a page itself.

import type { Frame, Page, Target } from 'puppeteer-core';
import type { TabInfo } from '../browser/types';
import { BrowserError } from '../errors';
import { within } from './call';

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
  /** Tab ids by the page's target, to name the opener of a popup. */
  private readonly targetTabIds = new WeakMap<Target, string>();
  private readonly tabOrder: Page[] = [];
  /** Titles as of the last load or action, so listing tabs costs no round trip to each page. */
  private readonly titles = new WeakMap<Page, string>();
  /** Removes the listeners the driver added to each page it tracks (attached pages belong to the user). */
  private readonly pageListeners = new Map<Page, () => void>();
  /** Pages of new targets still being set up by Puppeteer; they become tabs when ready. */
  private readonly pending = new Set<Promise<void>>();
  private nextTab = 1;
  private detached = false;

  constructor(hooks: TabHooks) {
    this.hooks = hooks;
  }

  /** Starts tracking a page as a tab; `activate` makes it the tab the driver acts on. */
  adopt(page: Page, activate: boolean): void {
    if (this.detached) return;
    if (!this.tabIds.has(page)) {
      const id = `tab-${this.nextTab++}`;
      this.tabIds.set(page, id);
      this.targetTabIds.set(page.target(), id);
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
    }
    if (activate && !page.isClosed()) this.activePage = page;
  }

  /**
   * Adopts the page of a target that just appeared in the context (a popup, a `target=_blank`
   * link, a tab the driver or the user opened); it becomes the active tab once Puppeteer has it.
   */
  adoptTarget(target: Target): void {
    if (target.type() !== 'page' || this.detached) return;
    const adoption = target
      .page()
      .then((page) => {
        if (page && !page.isClosed()) this.adopt(page, true);
      })
      .catch(() => undefined)
      .finally(() => this.pending.delete(adoption));
    this.pending.add(adoption);
  }

  /** Waits (at most `ms`) until the pages of targets that appeared so far are tabs. */
  async adoptions(ms: number): Promise<void> {
    if (this.pending.size === 0) return;
    await within(Promise.all([...this.pending]), ms, undefined);
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

  /** Removes every listener added to the tabs, leaving the pages as they were; adopts nothing after. */
  detach(): void {
    this.detached = true;
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
    const opener = page.target().opener();
    const openerId = opener ? this.targetTabIds.get(opener) : undefined;
    return { id: this.tabIds.get(page) ?? 'unknown', url: page.url(), title, ...(openerId ? { openerId } : {}) };
  }
}
