// observe(): the page state as the Navigator sees it, read from any BrowserDriver without the loop.
// It only reads: it never clicks, types or navigates.

import { z } from 'zod';
import type { PageState } from '../browser/page-state';
import type { BrowserDriver, CallOptions } from '../browser/types';
import { BrowserSession } from '../session/index';
import { boundedCall } from '../util/bounded-call';
import { callOptionsShape, checkArgument, checkBrowser } from './options';

/**
 * Options of {@link observe}.
 * @public
 */
export interface ObserveOptions extends CallOptions {
  /**
   * Aborts the call: it rejects at once with a `RequestCancelledError`, and the browser calls in
   * flight are aborted.
   */
  readonly signal?: AbortSignal | undefined;
  /**
   * Milliseconds the call may take; past them it rejects with a `TimeoutError`.
   * @defaultValue no timeout
   */
  readonly timeout?: number | undefined;
  /**
   * Also take a screenshot of the viewport (`state.screenshot`, a base64 JPEG).
   * @defaultValue false
   */
  readonly screenshot?: boolean | undefined;
  /**
   * Pixels beyond the viewport whose elements are still indexed; `-1` indexes the whole page.
   * @defaultValue 0
   * @example `observe(browser, { viewportExpansion: -1 })`
   */
  readonly viewportExpansion?: number | undefined;
  /**
   * Element attributes shown in `state.elementsText`.
   * @defaultValue the Executor's short list (`title`, `type`, `name`, `role`, `aria-label`, `placeholder`, `value`, `href`, …)
   */
  readonly includeAttributes?: readonly string[] | undefined;
  /**
   * Wait for the page to settle (no pending loads, a quiet DOM, bounded) before reading it, as
   * the Navigator does before its first state of a task.
   * @defaultValue true
   */
  readonly waitForSettled?: boolean | undefined;
}

const optionsSchema = z
  .object({
    ...callOptionsShape,
    screenshot: z.boolean({ error: 'must be a boolean' }).default(false),
    viewportExpansion: z.number({ error: 'must be a number' }).int('must be an integer').min(-1, 'must be -1 (whole page) or 0 or more').default(0),
    includeAttributes: z.array(z.string({ error: 'must be a list of attribute names' }), { error: 'must be a list of attribute names' }).optional(),
    waitForSettled: z.boolean({ error: 'must be a boolean' }).default(true),
  })
  .strict();

/**
 * Reads the active tab as the Navigator sees it: the URL, title and tabs, the indexed elements
 * and page text the model reads (`elementsText`), the element behind each index (`elements`), the
 * scroll position and, when asked, a screenshot. Works with any {@link BrowserDriver}. The state
 * is of one document: when a navigation replaces the document while it is read (a redirect, a page
 * that changes its `location`), it is read again in the new one once that has settled, within `timeout`.
 *
 * @remarks
 * Indexes are stable: an element keeps its index across calls on the same browser while it lives
 * (with the same `viewportExpansion` and `includeAttributes`), and `newIndices` lists those that
 * appeared since the previous call. Pass the returned state to {@link act} to act on an index.
 *
 * @example
 * ```ts
 * const state = await observe(browser, { timeout: 10_000 });
 * console.log(state.url, state.title);
 * console.log(state.elementsText); // [1]<a>All orders />\n[2]<input type="email" name="email">Email address />…
 * ```
 * @throws `ConfigError` for a bad option or a value that is not a BrowserDriver;
 * `RequestCancelledError` when `signal` aborts; `TimeoutError` when `timeout` runs out;
 * `BrowserError` when the browser cannot be read.
 * @public
 */
export async function observe(browser: BrowserDriver, options: ObserveOptions = {}): Promise<PageState> {
  checkBrowser(browser, 'observe()');
  const checked = checkArgument(optionsSchema, options, 'observe()');
  // The reader is shared by every observe() and act() on this browser: indexes stay stable between calls.
  const session = new BrowserSession(browser, {
    reader: { viewportExpansion: checked.viewportExpansion, includeAttributes: checked.includeAttributes },
    sharedReader: true,
  });
  return boundedCall('observe()', checked, (signal) => session.readPage({ signal, screenshot: checked.screenshot, settle: checked.waitForSettled }));
}
