// Captures the state of the active tab the way the model sees it: tabs, URL, title, the indexed
// elements of every frame, scroll position and, when asked, a screenshot.

import type { PageState } from '../browser/page-state';
import type { BrowserDriver } from '../browser/types';
import { bytesToBase64 } from '../util/base64';
import { ElementIndexer } from './serialize';
import { domSnapshotScript } from './snapshot-script';
import type { FrameSnapshot, SnapshotScriptOptions } from './types';

/** Default attributes shown to the model. */
export const defaultIncludeAttributes: readonly string[] = [
  'title', 'type', 'name', 'role', 'aria-label', 'placeholder', 'value', 'alt', 'aria-expanded', 'href', 'checked', 'selected',
];

/** Options of {@link PageStateReader.capture}. */
export interface CaptureOptions {
  readonly screenshot: boolean;
  readonly signal?: AbortSignal | undefined;
}

/** Reads page states from one driver, keeping element indices stable between reads. */
export class PageStateReader {
  private readonly indexer = new ElementIndexer();

  constructor(
    private readonly driver: BrowserDriver,
    private readonly scriptOptions: SnapshotScriptOptions,
  ) {}

  /** Captures the active tab's state. */
  async capture(options: CaptureOptions): Promise<PageState> {
    const call = { signal: options.signal };
    const [tabs, active, frames] = await Promise.all([this.driver.tabs(call), this.driver.activeTab(call), this.driver.frames(call)]);
    const snapshots: { frameId: string; snapshot: FrameSnapshot }[] = [];
    for (const frame of frames) {
      snapshots.push({ frameId: frame.id, snapshot: await this.driver.evaluate(frame.id, domSnapshotScript, this.scriptOptions, call) });
    }
    const page = this.indexer.serialize(snapshots);
    const top = snapshots[0]?.snapshot;
    const screenshot = options.screenshot ? bytesToBase64(await this.driver.screenshot({ ...call, quality: 70 })) : undefined;
    return {
      url: top?.url ?? active.url,
      title: top?.title ?? active.title,
      tabs,
      activeTabId: active.id,
      elementsText: page.text,
      elements: page.elements,
      newIndices: page.newIndices,
      pixelsAbove: top?.pixelsAbove ?? 0,
      pixelsBelow: top?.pixelsBelow ?? 0,
      screenshot,
      capturedAt: Date.now(),
    };
  }
}
