// Tab tracking for the Playwright driver: the shared bookkeeping (src/chromium/tabs.ts) plus
// Playwright's way to know a popup's opener. It never opens or closes a page itself.

import type { Page } from 'playwright-core';
import { TabTracker as ChromiumTabTracker } from '../chromium/tabs';

/** The pages of the driver's context as tabs; a popup's opener is asked of Playwright once, when it is adopted. */
export class TabTracker extends ChromiumTabTracker<Page> {
  private readonly openers = new WeakMap<Page, string>();

  protected override adopted(page: Page): void {
    void page
      .opener()
      .then((opener) => {
        const openerId = opener ? this.idOf(opener) : undefined;
        if (openerId) this.openers.set(page, openerId);
      })
      .catch(() => undefined);
  }

  protected override openerIdOf(page: Page): string | undefined {
    return this.openers.get(page);
  }
}
