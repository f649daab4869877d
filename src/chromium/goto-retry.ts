// When a goto that failed is made again: both Chromium drivers share the decision and the one
// retry; how a URL is loaded in a tab stays the driver's, and this never opens or picks a tab itself.

import type { NavigationResponse } from '../browser/types';
import { URLNotAllowedError } from '../errors';

/** What a goto's retry needs of a tab: Playwright's and Puppeteer's `Page` both have it. */
export interface RetriedPage {
  isClosed(): boolean;
}

/** What {@link gotoRetryingOnce} needs of a driver. */
export interface GotoDriver<P extends RetriedPage> {
  /** The tab the driver acts on now. */
  active(): P;
  /** The tabs still open. */
  livePages(): readonly P[];
  /** Loads the goto's URL in `page` within `timeout` ms; it waits for the tab to settle before it throws. */
  load(page: P, timeout: number): Promise<NavigationResponse | undefined>;
}

/**
 * Loads the goto's URL in `page`, and once more, within what is left of the call's time
 * (`deadline`, epoch milliseconds), in the tab active then when the first load was cut short by
 * something other than the caller.
 */
export async function gotoRetryingOnce<P extends RetriedPage>(
  driver: GotoDriver<P>,
  page: P,
  timeout: number,
  deadline: number,
  signal: AbortSignal | undefined,
): Promise<NavigationResponse | undefined> {
  try {
    return await driver.load(page, timeout);
  } catch (error) {
    // A cancel (its stop aborts the load too) and a policy refusal are the caller's answer.
    if (URLNotAllowedError.isInstance(error) || signal?.aborted || Date.now() >= deadline) throw error;
    // Another navigation of the tab aborted the load (the page's own script, the error page
    // of a load the URL policy stopped), or the tab closed under it (a popup the policy
    // stopped, a page that closed itself): the load is made again, once, in the tab that is
    // active now. load() has waited for the tab to settle before it threw.
    const closed = page.isClosed();
    const aborted = !closed && /ERR_ABORTED/.test(error instanceof Error ? error.message : '');
    if (!aborted && (!closed || driver.livePages().length === 0)) throw error;
    return driver.load(driver.active(), Math.max(1, deadline - Date.now()));
  }
}
