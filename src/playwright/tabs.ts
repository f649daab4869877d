// Tab tracking for the Playwright driver: the shared bookkeeping (src/chromium/tabs.ts) plus
// Playwright's way to know a popup's opener, and the new windows a tab asked for that Playwright has
// not announced yet. It never opens or closes a page itself.

import type { Page } from 'playwright-core';
import { within } from '../chromium/call';
import { TabTracker as ChromiumTabTracker } from '../chromium/tabs';

/** The pages of the driver's context as tabs; a popup's opener is asked of Playwright once, when it is adopted. */
export class TabTracker extends ChromiumTabTracker<Page> {
  private readonly openers = new WeakMap<Page, string>();
  /** New windows the tabs asked the browser for (CDP `Page.windowOpen`) whose pages are not tabs yet. */
  private requested = 0;
  /** Resolves the wait of {@link adoptions} once every requested window is a tab. */
  private allAdopted: (() => void) | undefined;

  /**
   * Notes that a tab asked the browser for a new window (a `target=_blank` link, `window.open`): the browser announces
   * its page later (a new renderer process first, which a loaded machine's full Chromium took seconds to start), and a
   * settle wait meanwhile waits for it.
   */
  windowRequested(): void {
    this.requested++;
  }

  override adopt(page: Page, activate: boolean): void {
    const isNew = !this.has(page);
    super.adopt(page, activate);
    if (isNew && this.requested > 0 && --this.requested === 0) this.allAdopted?.();
  }

  /** Waits (at most `ms`) until the windows the tabs asked for so far are tabs; a window that never comes is then forgotten. */
  override async adoptions(ms: number): Promise<void> {
    if (this.requested === 0) return;
    const adopted = new Promise<void>((resolve) => (this.allAdopted = resolve));
    await within(adopted, ms, undefined);
    this.allAdopted = undefined;
    // A window the browser never opened (a blocked popup) must not hold every later settle wait to its bound.
    this.requested = 0;
  }

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
