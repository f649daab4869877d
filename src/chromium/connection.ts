// Whether a driver still has its browser: once the browser process has ended, the connection has
// dropped or the driver was closed, every call rejects with a BrowserDisconnectedError, which ends a
// task at once. Both Chromium drivers share it; it only records what the library reports.

import { BrowserDisconnectedError, RequestCancelledError, type PlannavError } from '../errors';
import { firstLine } from './call';

/** What a killed browser or a dropped connection looks like in a call that was under way. */
const goneWords = /closed|disconnected|crashed|Connection closed|Session closed|WebSocket is not open|Target page, context or browser/i;

/** Whether an error reads as a killed browser or a dropped connection. */
export function readsAsGone(error: unknown): boolean {
  return goneWords.test(`${error instanceof Error ? error.message : ''} ${firstLine(error)}`);
}

/** How long a failed call waits for the library to report a lost browser, when its failure looks like one. */
const reportGraceMs = 250;

/** The state of one driver's browser, as far as the driver knows it. */
export class BrowserConnection {
  private reason: string | undefined;
  private readonly waiting = new Set<() => void>();

  /** Records that the browser is gone; the first reason given stands. */
  lose(reason: string): void {
    this.reason ??= reason;
    for (const wake of this.waiting) wake();
    this.waiting.clear();
  }

  /** Whether the browser is gone. */
  get lost(): boolean {
    return this.reason !== undefined;
  }

  /** @throws `BrowserDisconnectedError` once the browser is gone. */
  check(): void {
    if (this.reason !== undefined) throw new BrowserDisconnectedError(this.reason);
  }

  /**
   * The error a failed call rejects with: `error` as it is while the browser is there, or a
   * `BrowserDisconnectedError` when the browser went away under the call. A failure that reads
   * like a closed target waits a moment for the library to report the loss, since the call's
   * rejection may come before the event.
   */
  async explain(error: PlannavError, raw: unknown): Promise<PlannavError> {
    // A cancel stays a cancel; a BrowserDisconnectedError already says it all.
    const settled: boolean = RequestCancelledError.isInstance(error) || BrowserDisconnectedError.isInstance(error);
    if (settled) return error;
    if (this.reason === undefined && goneWords.test(`${error.message} ${firstLine(raw)}`)) await this.lossWithin(reportGraceMs);
    if (this.reason === undefined) return error;
    return new BrowserDisconnectedError(this.reason, { cause: raw });
  }

  private async lossWithin(ms: number): Promise<void> {
    let wake: (() => void) | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await new Promise<void>((resolve) => {
      wake = resolve;
      this.waiting.add(resolve);
      timer = setTimeout(resolve, ms);
    });
    clearTimeout(timer);
    if (wake) this.waiting.delete(wake);
  }
}

/** What the driver says when its browser went away by itself. */
export const browserGoneMessage = 'The browser is gone (its process ended, the connection dropped, or its context was closed): open a new driver to go on.';

/** What the driver says once `close()` was called. */
export const driverClosedMessage = 'The driver is closed: open a new one.';
