// Captures the state of the active tab the way the model sees it: tabs, URL, title, the indexed
// elements of every frame, scroll position and, when asked, a screenshot; with no tab open, a state
// that says so. It only reads through the driver, never opens or changes a tab.

import type { PageState } from '../browser/page-state';
import type { BrowserDriver, CallOptions, ClosedDialog, FrameInfo, PageDialog, TabInfo } from '../browser/types';
import { dialogState, redactClosed, tabFields } from './dialog-state';
import { isFatalError } from '../errors';
import { bytesToBase64 } from '../util/base64';
import { readOneDocument } from './document-read';
import { ElementIndexer } from './serialize';
import { callRuntime } from './page-runtime';
import type { FrameSnapshot, SnapshotScriptOptions } from './types';
import { oneLine, validateFrameSnapshot } from './validate-snapshot';

/**
 * Default attributes shown to the model. `value`, `checked` and `selected` show the live state
 * (what was typed or chosen), not the HTML attribute; password values are never shown.
 */
export const defaultIncludeAttributes: readonly string[] = [
  'title',
  'type',
  'name',
  'role',
  'aria-label',
  'placeholder',
  'value',
  'alt',
  'href',
  'checked',
  'selected',
  'aria-expanded',
  'aria-checked',
  'aria-selected',
  'aria-pressed',
];

/** Where each frame sits on the top page: the sum of its offsets up the frame chain; none when a frame is not rendered. */
export function absoluteOffsets(frames: readonly FrameInfo[]): Map<string, { x: number; y: number } | undefined> {
  const byId = new Map(frames.map((frame) => [frame.id, frame]));
  const result = new Map<string, { x: number; y: number } | undefined>();
  for (const frame of frames) {
    let x = 0;
    let y = 0;
    let current: FrameInfo | undefined = frame;
    let rendered = true;
    // Bounded by the number of frames, so a malformed parent chain cannot loop.
    for (let level = 0; current?.parentId !== undefined && level <= frames.length; level++) {
      if (!current.offset) {
        rendered = false;
        break;
      }
      x += current.offset.x;
      y += current.offset.y;
      current = byId.get(current.parentId);
    }
    result.set(frame.id, rendered && current !== undefined ? { x, y } : undefined);
  }
  return result;
}

/** The title of the state the model gets when no tab is open: what happened and what to do. */
export const noTabOpenTitle = 'No tab is open; use open_tab or go_to_url';

/**
 * The state when no tab is open (the page closed its last tab, or the user did): no page, no tabs,
 * and a title that tells the model how to go on.
 */
export function noTabOpenState(): PageState {
  return {
    url: 'about:blank',
    title: noTabOpenTitle,
    tabs: [],
    activeTabId: '',
    elementsText: '',
    elements: new Map(),
    newIndices: new Set(),
    pixelsAbove: 0,
    pixelsBelow: 0,
    screenshot: undefined,
    capturedAt: Date.now(),
  };
}

/** Options of {@link PageStateReader.capture}. */
export interface CaptureOptions {
  readonly screenshot: boolean;
  readonly signal?: AbortSignal | undefined;
  /** How long a dialog open in the tab may wait for an answer, from its opening (the caller's action timeout). */
  readonly dialogAnswerMs?: number | undefined;
}

/** Reads page states from one driver, keeping element indices stable between reads. */
export class PageStateReader {
  private readonly indexer = new ElementIndexer();
  /** Dialogs the driver reported closed, until a state carries them. */
  private closedDialogs: ClosedDialog[] = [];

  constructor(
    private readonly driver: BrowserDriver,
    private readonly scriptOptions: SnapshotScriptOptions,
  ) {}

  /**
   * Captures the active tab's state. With no tab open, the state says so ({@link noTabOpenState})
   * rather than failing, whatever the driver: the model can then open one.
   */
  async capture(options: CaptureOptions): Promise<PageState> {
    try {
      // A page holding a dialog runs no script: its state is the dialog's, read without the page.
      const open = await this.openDialog(options);
      if (open) return await dialogState(this.driver, open, this.takeClosedDialogs(), options);
      const state = await this.captureActiveTab(options);
      // Dialogs that closed meanwhile (a second read) are in the report too.
      await this.openDialog(options);
      const closed = this.takeClosedDialogs();
      return closed.length > 0 ? { ...state, closedDialogs: closed } : state;
    } catch (error) {
      if (options.signal?.aborted || isFatalError(error)) throw error;
      // A dialog the page opened during the read stopped it: the state is the dialog's.
      const open = await this.openDialog(options).catch(() => undefined);
      if (open) return dialogState(this.driver, open, this.takeClosedDialogs(), options);
      // Drivers fail in their own words when there is no tab to read; the tab list tells.
      const tabs = await this.driver.tabs({ signal: options.signal }).catch((reason: unknown): TabInfo[] | undefined => {
        if (isFatalError(reason)) throw reason;
        return undefined;
      });
      if (tabs?.length === 0) return noTabOpenState();
      throw error;
    }
  }

  /** The dialog open in the active tab, keeping the closed ones the driver reported until a state carries them. */
  private async openDialog(options: CaptureOptions): Promise<PageDialog | undefined> {
    if (!this.driver.dialogs) return undefined;
    const report = await this.driver.dialogs({ signal: options.signal, answerWithinMs: options.dialogAnswerMs });
    this.closedDialogs.push(...report.closed);
    return report.open;
  }

  private takeClosedDialogs(): ClosedDialog[] {
    const closed = redactClosed(this.driver, this.closedDialogs);
    this.closedDialogs = [];
    return closed;
  }

  private async captureActiveTab(options: CaptureOptions): Promise<PageState> {
    const call = { signal: options.signal };
    // The snapshots, the URL and the title come from one document: a navigation meanwhile reads them again.
    const { snapshots, tabs, active } = await readOneDocument(this.driver, call, async () => {
      // The tab list runs alongside the snapshot: each is a round trip to the browser.
      const tabsRead = Promise.all([this.driver.tabs(call), this.driver.activeTab(call)]);
      tabsRead.catch(() => undefined);
      const frameSnapshots = await this.snapshotFrames(await this.driver.frames(call), call);
      const [tabList, activeTab] = await tabsRead;
      return { snapshots: frameSnapshots, tabs: tabList, active: activeTab };
    });
    // Serialized only once the read is known to be of one document, so a discarded read leaves the indexes alone.
    const page = this.indexer.serialize(snapshots);
    const top = snapshots[0]?.snapshot;
    const screenshot = options.screenshot
      ? bytesToBase64(await this.driver.screenshot({ ...call, quality: 70, elements: [...page.elements.values()] }))
      : undefined;
    // The URL and title come from the driver, never from the snapshot: the page controls what the snapshot script returns.
    return {
      ...tabFields(this.driver, tabs, active).fields,
      elementsText: page.text,
      elements: page.elements,
      newIndices: page.newIndices,
      pixelsAbove: top?.pixelsAbove ?? 0,
      pixelsBelow: top?.pixelsBelow ?? 0,
      screenshot,
      capturedAt: Date.now(),
    };
  }

  /**
   * Runs the snapshot script in the top frame, then in every rendered child frame at once, each
   * told which part of the top page's viewport it covers. A child frame that goes away meanwhile
   * (a navigation, an ad reloading) is left out rather than failing the whole state. Every
   * snapshot is validated before use; a child frame's URL is the driver's, not the snapshot's.
   */
  private async snapshotFrames(frames: readonly FrameInfo[], call: CallOptions): Promise<{ frameId: string; snapshot: FrameSnapshot }[]> {
    const [topFrame, ...children] = frames;
    if (!topFrame) return [];
    const top = validateFrameSnapshot(await callRuntime(this.driver, topFrame.id, 'snapshot', this.scriptOptions, call), this.scriptOptions);
    const offsets = absoluteOffsets(frames);
    const expansion = this.scriptOptions.viewportExpansion;
    const width = top.viewport?.width ?? 0;
    const height = top.viewport?.height ?? 0;
    const childSnapshots = await Promise.all(
      children.map(async (frame) => {
        const offset = offsets.get(frame.id);
        if (!offset) return undefined;
        // A frame of known size that is a tracking pixel, or outside the indexed part of the page, has nothing to show.
        if (frame.size) {
          if (frame.size.width <= 2 || frame.size.height <= 2) return undefined;
          const outside =
            expansion >= 0 &&
            top.viewport !== undefined &&
            (offset.y + frame.size.height <= -expansion || offset.y >= height + expansion || offset.x + frame.size.width <= 0 || offset.x >= width);
          if (outside) return undefined;
        }
        const clip = expansion < 0 || !top.viewport ? undefined : { x: -offset.x, y: -offset.y - expansion, width, height: height + 2 * expansion };
        try {
          const raw = await callRuntime(this.driver, frame.id, 'snapshot', { ...this.scriptOptions, clip }, call);
          const snapshot: FrameSnapshot = { ...validateFrameSnapshot(raw, this.scriptOptions), url: oneLine(frame.url, 2000) };
          return { frameId: frame.id, snapshot };
        } catch (error) {
          if (call.signal?.aborted) throw error;
          return undefined;
        }
      }),
    );
    return [{ frameId: topFrame.id, snapshot: top }, ...childSnapshots.filter((entry) => entry !== undefined)];
  }
}
