// One read of the active tab made in one document: the rule every page read follows (observe, the
// Navigator's state, extraction) when a navigation may replace the document under it. It only reads.

import type { BrowserDriver, CallOptions } from '../browser/types';
import { BrowserError, isFatalError, PlannavError } from '../errors';
import { sleep } from '../util/abort';
import { describeThrown } from '../util/describe-thrown';
import { callRuntime } from './page-runtime';

/**
 * How many times a read starts again on a new document before it gives up: a redirect chain is a
 * handful of hops; a page that keeps navigating would otherwise be read forever when its caller set no timeout.
 */
const maxDocumentChanges = 10;

/** How often a failed read is tried again when no document of the page ever told its token. */
const maxBlindRetries = 2;

/** How long a driver without `waitForSettled` is given for a new document to load before the read starts again. */
const plainSettleMs = 100;

/** The token of the top frame's document (see the runtime's `documentToken`), or undefined when it cannot be read now. */
async function documentToken(driver: BrowserDriver, options: CallOptions): Promise<string | undefined> {
  try {
    const [top] = await driver.frames(options);
    if (!top) return undefined;
    const token = await callRuntime(driver, top.id, 'documentToken', undefined, options);
    return typeof token === 'string' ? token : undefined;
  } catch (error) {
    if (options.signal?.aborted) throw error;
    // Between two documents the new one has no context yet; a browser that is gone fails the read itself.
    return undefined;
  }
}

/**
 * Runs `read` (a sequence of driver calls that only read the active tab) so that everything it
 * returns comes from one document of the top frame. The document's token is read before and after;
 * when a navigation replaced the document meanwhile (a redirect, a `location` change, a new execution
 * context), whether `read` failed for it (its context destroyed, its frame detached) or returned
 * what may mix two documents, the driver waits for the new document to settle and `read` runs again.
 * A failure in an unchanged document is `read`'s own and is thrown as it is.
 *
 * Bounded by `options.signal` (the caller's timeout aborts it), and by {@link maxDocumentChanges}.
 * @throws the signal's `RequestCancelledError` or `TimeoutError`; `read`'s own failure; a retryable
 * `BrowserError` when the page replaced its document too often to be read.
 */
export async function readOneDocument<T>(driver: BrowserDriver, options: CallOptions, read: () => Promise<T>): Promise<T> {
  let lastChange: unknown;
  let tokensSeen = false;
  let blindRetries = 0;
  for (let changes = 0; changes <= maxDocumentChanges; changes++) {
    if (changes > 0) await settleNewDocument(driver, options);
    const before = await documentToken(driver, options);
    let result: T;
    try {
      result = await read();
    } catch (error) {
      if (options.signal?.aborted || isFatalError(error)) throw error;
      const after = await documentToken(driver, options);
      tokensSeen ||= before !== undefined || after !== undefined;
      // A token on one side only: the read began or ended between two documents. The same token on
      // both: the failure is not a navigation's. No token on either side cannot tell: a retryable
      // failure is tried again, fully where this page told its token before (it is between documents
      // now), a couple of times where none ever did (a driver that cannot run the page runtime).
      const unknown = before === undefined && after === undefined;
      const retryable = PlannavError.isInstance(error) && error.retryable;
      if (!unknown ? before === after : !retryable || (!tokensSeen && blindRetries++ >= maxBlindRetries)) throw error;
      lastChange = error;
      continue;
    }
    const after = await documentToken(driver, options);
    if (before === after) return result;
    tokensSeen = true;
    lastChange = undefined;
  }
  const why = lastChange === undefined ? '' : ` The last read failed with: ${describeThrown(lastChange)}`;
  throw new BrowserError(
    `The page loaded a new document ${maxDocumentChanges + 1} times while it was being read (a redirect chain, or a page that keeps navigating), so no read came from one document. Read it again once it has stopped loading.${why}`,
    { retryable: true, cause: lastChange },
  );
}

/** Waits for the document that replaced the one being read to settle; a driver's failure to wait is no reason to stop reading. */
async function settleNewDocument(driver: BrowserDriver, options: CallOptions): Promise<void> {
  try {
    if (driver.waitForSettled) await driver.waitForSettled({ signal: options.signal });
    else await sleep(plainSettleMs, options.signal);
  } catch (error) {
    if (options.signal?.aborted || isFatalError(error)) throw error;
    await sleep(plainSettleMs, options.signal);
  }
}
