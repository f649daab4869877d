// Settle-then-read, once for every entry point: wait (best effort, bounded) for the page to
// settle, then read it within the page-state deadline. A page that never settles is read as it
// is; a read past its deadline is a retryable BROWSER_TIMEOUT.

import type { PageState } from '../browser/page-state';
import type { ResolvedBrowserDriver } from '../browser/types';
import type { PageStateReader } from '../dom/page-state-reader';
import { pageStateTimeout } from '../agents/agent-context';
import { BrowserError, isFatalError } from '../errors';
import { withDeadline } from '../util/deadline';
import type { TimeoutSettings } from './timeouts';

export { pageStateTimeout };

/**
 * Waits for the page to settle, at most `timeoutMs`. Best effort: past the deadline, or when the
 * driver fails to wait, the page is read as it is. A cancel of `signal` and a fatal error (a
 * closed browser) still reject.
 */
export async function settlePage(driver: ResolvedBrowserDriver, signal: AbortSignal, timeoutMs: number): Promise<void> {
  const unsettled = (): BrowserError => new BrowserError('The page did not settle in time.', { code: 'BROWSER_TIMEOUT', retryable: true });
  await withDeadline(timeoutMs, signal, unsettled, (bounded) => driver.waitForSettled({ signal: bounded })).catch((error: unknown) => {
    if (signal.aborted || isFatalError(error)) throw error;
  });
}

/** How one read goes. */
export interface ReadPageOptions {
  readonly signal: AbortSignal;
  /** Take a screenshot with the state. @defaultValue false */
  readonly screenshot?: boolean | undefined;
  /** Wait for the page to settle first. @defaultValue true */
  readonly settle?: boolean | undefined;
  /** This call's own deadlines, over the session's. */
  readonly timeouts?: { readonly pageState?: number | undefined; readonly settle?: number | undefined } | undefined;
}

/** Settles the page (unless told not to), then reads it with `reader` within the page-state deadline. */
export async function readSettledPage(
  driver: ResolvedBrowserDriver,
  reader: PageStateReader,
  timeouts: TimeoutSettings,
  options: ReadPageOptions,
): Promise<PageState> {
  const { signal } = options;
  if (options.settle !== false) await settlePage(driver, signal, timeouts.settle(options.timeouts?.settle));
  const pageState = timeouts.pageState(options.timeouts?.pageState);
  return withDeadline(
    pageState,
    signal,
    () => pageStateTimeout(pageState),
    // A dialog open in the tab waits for the model's answer as long as an action may take.
    (bounded) => reader.capture({ screenshot: options.screenshot ?? false, signal: bounded, dialogAnswerMs: timeouts.action() }),
  );
}
