// Tab tracking for the Puppeteer driver: the shared bookkeeping (src/chromium/tabs.ts) plus what
// Puppeteer needs: pages of new targets adopted once ready, openers by target. It never opens or closes a page.

import { TargetType, type Page, type Target } from 'puppeteer-core';
import { TabTracker as ChromiumTabTracker } from '../chromium/tabs';
import { within } from '../chromium/call';

/** The pages of the driver's browser context as tabs, and the pages of targets still being set up. */
export class TabTracker extends ChromiumTabTracker<Page> {
  /** Tab ids by the page's target, to name the opener of a popup. */
  private readonly targetTabIds = new WeakMap<Target, string>();
  /** Pages of new targets still being set up by Puppeteer; they become tabs when ready. */
  private readonly pending = new Set<Promise<void>>();
  private detached = false;

  /** Starts tracking a page as a tab unless the tracker was detached; `activate` makes it the tab the driver acts on. */
  override adopt(page: Page, activate: boolean): void {
    if (this.detached) return;
    super.adopt(page, activate);
  }

  protected override adopted(page: Page, id: string): void {
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- a page's target is the only way to its opener
    this.targetTabIds.set(page.target(), id);
  }

  protected override openerIdOf(page: Page): string | undefined {
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- as above
    const opener = page.target().opener();
    return opener ? this.targetTabIds.get(opener) : undefined;
  }

  /**
   * Adopts the page of a target that just appeared in the context (a popup, a `target=_blank`
   * link, a tab the driver or the user opened); it becomes the active tab once Puppeteer has it.
   * With `popupsOnly`, only a page one of the tabs opened is adopted (the driver's own new tabs
   * are adopted by the driver itself).
   */
  adoptTarget(target: Target, popupsOnly = false): void {
    if (target.type() !== TargetType.PAGE || this.detached) return;
    if (popupsOnly) {
      const opener = target.opener();
      if (!opener || !this.targetTabIds.has(opener)) return;
    }
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
  override async adoptions(ms: number): Promise<void> {
    if (this.pending.size === 0) return;
    await within(Promise.all([...this.pending]), ms, undefined);
  }

  /** Removes every listener added to the tabs, leaving the pages as they were; adopts nothing after. */
  override detach(): void {
    this.detached = true;
    super.detach();
  }
}
