// Tab bookkeeping both Chromium drivers share: pages as tabs, with ids, opening order, titles and the
// active one. Generic over the library's page type; it never opens or closes a page itself.

import type { TabInfo } from '../browser/types';
import { BrowserError } from '../errors';
import { within } from './call';

/** How long the active tab's title may take to read before the last one read stands. */
const freshTitleMs = 1000;

/** The page events the tracker listens to. */
type TabEvent = 'close' | 'domcontentloaded' | 'load' | 'framenavigated';

/** What the tracker needs of a page: Playwright's and Puppeteer's `Page` both have it. */
export interface TrackedPage {
  on(event: TabEvent, listener: (frame: unknown) => void): unknown;
  off(event: TabEvent, listener: (frame: unknown) => void): unknown;
  mainFrame(): unknown;
  isClosed(): boolean;
  title(): Promise<string>;
  url(): string;
}

/** What the driver adds to the tracking of each tab. */
export interface TabHooks<P> {
  /** Starts the driver's own watch of a new tab; returns the function that stops it. */
  readonly watch: (page: P) => () => void;
  /** Called when a tab is forgotten (it closed, or the driver closed it). */
  readonly forgotten: (page: P) => void;
}

/**
 * The tabs of one driver, in the order they opened, and the one it acts on. How a tab's opener is
 * known differs by library: a driver's subclass records it in `adopted` and answers `openerIdOf`.
 */
export class TabTracker<P extends TrackedPage> {
  /** The tab the driver acts on; may have closed since (the driver checks). */
  activePage: P | undefined;
  private readonly hooks: TabHooks<P>;
  private readonly tabIds = new WeakMap<P, string>();
  private readonly tabOrder: P[] = [];
  /** Titles as of the last load or action, so listing tabs costs no round trip to each page. */
  private readonly titles = new WeakMap<P, string>();
  /** The number of the read each kept title came from: reads overlap, and a slow one must not overwrite a newer one. */
  private readonly titleReads = new WeakMap<P, number>();
  private titleReadCount = 0;
  /** Removes the listeners the driver added to each page it tracks (attached pages belong to the user). */
  private readonly pageListeners = new Map<P, () => void>();
  private nextTab = 1;

  constructor(hooks: TabHooks<P>) {
    this.hooks = hooks;
  }

  /** Waits (at most `ms`) until the pages of new tabs announced so far are tabs; at once where the library announces them ready. */
  async adoptions(_ms: number): Promise<void> {
    return Promise.resolve();
  }

  /** Starts tracking a page as a tab; `activate` makes it the tab the driver acts on. */
  adopt(page: P, activate: boolean): void {
    if (!this.tabIds.has(page)) {
      const id = `tab-${this.nextTab++}`;
      this.tabIds.set(page, id);
      this.tabOrder.push(page);
      const stopWatching = this.hooks.watch(page);
      const closed = (): void => this.forget(page);
      const refresh = (): void => void this.refreshTitle(page);
      const navigated = (frame: unknown): void => {
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
      this.adopted(page, id);
    }
    if (activate && !page.isClosed()) this.activePage = page;
  }

  /** Called once when a page becomes a tab, with its new id; the place to note its opener. */
  protected adopted(_page: P, _id: string): void {}

  /** The id of the tab that opened this one, if it is known. */
  protected openerIdOf(_page: P): string | undefined {
    return undefined;
  }

  /** Stops tracking a tab; if it was active, the one before it becomes active. */
  forget(page: P): void {
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
  has(page: P): boolean {
    return this.tabIds.has(page);
  }

  /** The tab id of a page, such as `tab-2`. */
  idOf(page: P): string | undefined {
    return this.tabIds.get(page);
  }

  /** Where the tab is in the opening order, or -1. */
  positionOf(page: P): number {
    return this.tabOrder.indexOf(page);
  }

  /** The tabs that are still open, in the order they opened. */
  livePages(): P[] {
    return this.tabOrder.filter((page) => !page.isClosed());
  }

  /** The open tab with this id, or a BrowserError listing the open ones. */
  pageById(tabId: string): P {
    const page = this.livePages().find((candidate) => this.tabIds.get(candidate) === tabId);
    if (!page) {
      const known = this.livePages()
        .map((candidate) => this.tabIds.get(candidate))
        .join(', ');
      throw new BrowserError(`There is no tab with id ${tabId}. Open tabs: ${known || 'none'}.`);
    }
    return page;
  }

  /**
   * Reads the page's title again; a page that cannot answer keeps the title last read. Of reads that
   * overlap (a commit's, a load's, an action's), the one started last is kept, whatever order they end in.
   */
  async refreshTitle(page: P): Promise<string> {
    const read = ++this.titleReadCount;
    const title = await page.title().catch(() => undefined);
    if (title !== undefined && read > (this.titleReads.get(page) ?? 0)) {
      this.titles.set(page, title);
      this.titleReads.set(page, read);
    }
    return this.titles.get(page) ?? title ?? '';
  }

  /**
   * The tab as the driver contract describes it. With `fresh`, the title is read from the page now
   * (within a second, else the last one read stands), so that it is of the document shown now: the
   * page state reads it alongside the snapshot. Otherwise it is the one read at the last load or action.
   */
  async info(page: P, read?: 'fresh'): Promise<TabInfo> {
    const kept = this.titles.get(page);
    const title =
      read === 'fresh' && kept !== undefined ? await within(this.refreshTitle(page), freshTitleMs, kept) : (kept ?? (await this.refreshTitle(page)));
    const openerId = this.openerIdOf(page);
    return { id: this.tabIds.get(page) ?? 'unknown', url: page.url(), title, ...(openerId ? { openerId } : {}) };
  }
}
