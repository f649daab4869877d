// The live view: screenshots of the browser's page pushed to the run page when a step or an action
// ends, at most one in flight and one per interval, the last request always honoured. Never polls.

import type { BrowserDriver } from '../index';

/** Options of {@link LiveView}. */
export interface LiveViewOptions {
  /** The fewest milliseconds between two frames. @defaultValue 500 */
  readonly minIntervalMs?: number | undefined;
  /** JPEG quality of a frame. @defaultValue 55 */
  readonly quality?: number | undefined;
}

/** A frame: the page as a `data:` URL, and the URL it was at. */
export interface LiveFrame {
  readonly image: string;
  readonly url: string;
}

/**
 * Takes a frame when asked (`request()`), throttled: a request while a frame is being taken, or
 * sooner than the interval after the last, is folded into one frame taken as soon as allowed. A
 * frame that fails (the page is navigating, the browser closing) is dropped without a word: the
 * next request takes another.
 */
export class LiveView {
  private inFlight = false;
  private pending = false;
  private lastAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly minIntervalMs: number;
  private readonly quality: number;

  constructor(
    private readonly browser: BrowserDriver,
    private readonly send: (frame: LiveFrame) => void,
    options: LiveViewOptions = {},
  ) {
    this.minIntervalMs = options.minIntervalMs ?? 500;
    this.quality = options.quality ?? 55;
  }

  /** Asks for a frame of the page as it is now (or as soon as the throttle allows). */
  request(): void {
    if (this.stopped) return;
    this.pending = true;
    this.schedule();
  }

  /** Takes no more frames. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.inFlight || this.timer || !this.pending || this.stopped) return;
    const wait = Math.max(0, this.lastAt + this.minIntervalMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.take();
    }, wait);
  }

  private async take(): Promise<void> {
    if (this.stopped) return;
    this.pending = false;
    this.inFlight = true;
    try {
      const bytes = await this.browser.screenshot({ quality: this.quality, timeout: 5000 });
      const url = (await this.browser.currentUrl?.().catch(() => '')) ?? '';
      if (!this.stopped) this.send({ image: `data:image/jpeg;base64,${Buffer.from(bytes).toString('base64')}`, url });
    } catch {
      // The page was between documents, or the browser is going away: the next request tries again.
    } finally {
      this.inFlight = false;
      this.lastAt = Date.now();
      this.schedule();
    }
  }
}
