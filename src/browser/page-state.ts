// Captures the state of the active tab the way the model sees it: tabs, URL, title, the indexed
// elements of every frame, scroll position and, when asked, a screenshot.

import { domSnapshotScript } from '../dom/snapshot-script';
import { ElementIndexer } from '../dom/serialize';
import type { FrameSnapshot, SnapshotScriptOptions } from '../dom/types';
import { bytesToBase64 } from '../util/base64';
import type { BrowserDriver, ElementRef, TabInfo } from './types';

/** The browser as the model saw it at one step. @public */
export interface PageState {
  readonly url: string;
  readonly title: string;
  readonly tabs: readonly TabInfo[];
  readonly activeTabId: string;
  /** The indexed elements and page text, as the model reads them. */
  readonly elementsText: string;
  /** The element behind each index of `elementsText`. */
  readonly elements: ReadonlyMap<number, ElementRef>;
  /** Indices new since the previous state. */
  readonly newIndices: ReadonlySet<number>;
  /** Pixels of content above and below the viewport of the top frame. */
  readonly pixelsAbove: number;
  readonly pixelsBelow: number;
  /** A base64 JPEG of the viewport, when vision is on. */
  readonly screenshot?: string | undefined;
  /** When the state was captured, in milliseconds since the epoch. */
  readonly capturedAt: number;
}

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
