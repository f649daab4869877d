// The settle options both Chromium drivers take (plannav/playwright and plannav/puppeteer export
// them under the same name) and their defaults. Types and defaults only; the waiting is per driver.

/**
 * How the driver decides that a page has settled after an action: navigation committed, no
 * tracked request in flight and no DOM mutation for a short quiet window, within an upper bound.
 * @public
 */
export interface SettleOptions {
  /**
   * Milliseconds without a network request starting or finishing that count as quiet.
   * @defaultValue 200
   */
  readonly networkQuietMs?: number | undefined;
  /**
   * Milliseconds without a DOM mutation that count as quiet; also how long a click's delayed
   * effects (a menu opening after a short timer) are given to start.
   * @defaultValue 200
   */
  readonly domQuietMs?: number | undefined;
  /**
   * Upper bound of one settle wait, in milliseconds; the action goes on after it even if the
   * page is still busy (a video, a live ticker, a long script).
   * @defaultValue 5000
   */
  readonly maxWaitMs?: number | undefined;
  /**
   * A request in flight longer than this many milliseconds (long polling, a stalled tracker)
   * no longer keeps the page from settling.
   * @defaultValue 3000
   */
  readonly ignoreRequestsAfterMs?: number | undefined;
}

/** The settle options with every default filled in. */
export interface ResolvedSettleOptions {
  readonly networkQuietMs: number;
  readonly domQuietMs: number;
  readonly maxWaitMs: number;
  readonly ignoreRequestsAfterMs: number;
}

/** Fills in the settle defaults. */
export function resolveSettleOptions(options: SettleOptions | undefined): ResolvedSettleOptions {
  return {
    networkQuietMs: options?.networkQuietMs ?? 200,
    domQuietMs: options?.domQuietMs ?? 200,
    maxWaitMs: options?.maxWaitMs ?? 5000,
    ignoreRequestsAfterMs: options?.ignoreRequestsAfterMs ?? 3000,
  };
}
