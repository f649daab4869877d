// A fake browser whose chosen calls never settle and ignore their signal, as a stuck driver
// would: for tests that a cancel or a timeout ends a call at once, and that the call was aborted.
import type { CallOptions, ClickOptions, ElementRef, FrameInfo } from '../../src/browser/types';
import { FakeBrowserDriver, type FakeBrowserDriverOptions } from '../../src/testing/fake-browser-driver';

export type HangingCall = 'frames' | 'click';

export class HangingDriver extends FakeBrowserDriver {
  /** The signal of each call that hung. */
  readonly hungSignals: AbortSignal[] = [];
  constructor(
    private readonly hangOn: HangingCall,
    options: FakeBrowserDriverOptions = {},
  ) {
    super(options);
  }

  private hang(options: CallOptions | undefined): Promise<never> {
    if (options?.signal) this.hungSignals.push(options.signal);
    return new Promise<never>(() => undefined);
  }

  override frames(options?: CallOptions): Promise<FrameInfo[]> {
    return this.hangOn === 'frames' ? this.hang(options) : super.frames(options);
  }

  override click(ref: ElementRef, options?: ClickOptions): Promise<void> {
    return this.hangOn === 'click' ? this.hang(options) : super.click(ref, options);
  }
}
