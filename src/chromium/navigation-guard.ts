// What both drivers' navigation guards keep the same way: the guard's reports, the last stopped
// navigation of each tab, and the driver's own navigations refused or failed with the hop that was
// stopped. How navigations are intercepted is the library's, in each driver's enforcer.

import type { BlockedNavigation, NavigationGuard, UrlDecision } from '../browser/types';
import { URLNotAllowedError } from '../errors';

/** The base of a driver's navigation guard enforcer; `P` is the library's page type. */
export abstract class GuardedNavigations<P extends object> {
  protected guard: NavigationGuard;
  /** The last navigation of each page's top frame the guard stopped, for the driver's own navigations. */
  private readonly lastBlocked = new WeakMap<P, { readonly url: string; readonly reason: string; readonly sequence: number }>();
  private sequence = 0;

  protected constructor(guard: NavigationGuard) {
    this.guard = guard;
  }

  /** The guard's verdict on a URL; a guard that fails or gives no verdict must deny. */
  protected abstract decide(url: string): UrlDecision;

  /** The driver's id of a tab, when it tracks the page. */
  protected abstract tabIdOf(page: P): string | undefined;

  /**
   * Throws a `URLNotAllowedError` (and reports the navigation) when the guard denies `url`; for
   * navigations the driver starts itself, before any request.
   */
  assertAllowed(url: string, tabId: string | undefined): void {
    const decision = this.decide(url);
    if (decision.allowed) return;
    this.report({ url, reason: decision.reason, kind: 'navigation', tabId });
    throw new URLNotAllowedError(url, `Navigation to ${url} is not allowed by the URL policy (${decision.reason}); choose another page.`);
  }

  /**
   * Runs a navigation the driver starts in `page`: refused up front when the guard denies `url`,
   * and failed with a `URLNotAllowedError` when the guard stopped one of its redirect hops.
   */
  async navigate<T>(page: P, url: string, load: () => Promise<T>): Promise<T> {
    this.assertAllowed(url, this.tabIdOf(page));
    const mark = this.sequence;
    try {
      return await load();
    } catch (error) {
      const blocked = this.lastBlocked.get(page);
      if (blocked && blocked.sequence > mark) {
        throw new URLNotAllowedError(
          blocked.url,
          `Navigation to ${url} was stopped: it led to ${blocked.url}, which the URL policy does not allow (${blocked.reason}); choose another page.`,
          {
            cause: error,
          },
        );
      }
      throw error;
    }
  }

  /** Tells the guard about a navigation it stopped. */
  protected report(navigation: BlockedNavigation): void {
    try {
      this.guard.blocked(navigation);
    } catch {
      // A reporting hook that throws must not let the navigation through or break the enforcement.
    }
  }

  /** Notes a stopped navigation of a page's top frame, for `navigate` to name. */
  protected noteBlocked(page: P, url: string, reason: string): void {
    this.lastBlocked.set(page, { url, reason, sequence: ++this.sequence });
  }
}
