// Frame tracking for the Playwright driver: stable frame ids, their lookup, pruning of gone frames
// and each child frame's box in its parent. It never navigates or changes a frame.

import type { ElementHandle, Frame, Page } from 'playwright-core';
import type { FrameInfo } from '../browser/types';
import { BrowserError } from '../errors';
import { measureFrames } from './runtime-calls';

/** A box in CSS pixels of a parent frame's viewport. */
interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The frames a driver has given ids to, across all its tabs. */
export class FrameRegistry {
  private readonly frameIds = new WeakMap<Frame, string>();
  /** The iframe element of each child frame seen, kept for measuring; disposed when the frame goes and on close. */
  private readonly frameElements = new Map<Frame, ElementHandle>();
  private readonly framesById = new Map<string, WeakRef<Frame>>();
  private nextFrame = 1;

  /** The rendered frames of a page, top frame first, with each child frame's box in its parent. */
  async describe(page: Page): Promise<FrameInfo[]> {
    const main = page.mainFrame();
    // Error pages of frames that failed to load (blocked, offline) hold nothing to act on.
    const frames = [main, ...page.frames().filter((frame) => frame !== main && !frame.isDetached() && !frame.url().startsWith('chrome-error:'))];
    this.pruneFrames();
    const boxes = await this.frameBoxes(frames.slice(1));
    return frames.map((frame): FrameInfo => {
      const parent = frame.parentFrame();
      if (!parent) return { id: this.frameId(frame), url: frame.url() };
      const box = boxes.get(frame);
      return {
        id: this.frameId(frame),
        parentId: this.frameId(parent),
        url: frame.url(),
        offset: box ? { x: box.x, y: box.y } : undefined,
        size: box ? { width: box.width, height: box.height } : undefined,
      };
    });
  }

  /** The frame with this id, or a recoverable BrowserError when it is gone. */
  frameById(frameId: string): Frame {
    const frame = this.framesById.get(frameId)?.deref();
    if (!frame || frame.isDetached()) {
      this.framesById.delete(frameId);
      throw new BrowserError(`The frame ${frameId} is gone (it navigated or was removed). Read the page state again.`, { retryable: true });
    }
    return frame;
  }

  /** The frame with this id while it is attached, else undefined. */
  find(frameId: string): Frame | undefined {
    const frame = this.framesById.get(frameId)?.deref();
    return frame && !frame.isDetached() ? frame : undefined;
  }

  /** Forgets every frame and disposes the frame elements kept for them. */
  async clear(): Promise<void> {
    const handles = [...this.frameElements.values()];
    this.frameElements.clear();
    this.framesById.clear();
    await Promise.all(handles.map((handle) => handle.dispose().catch(() => undefined)));
  }

  /** The id of a frame, given on first sight and kept while the frame lives. */
  frameId(frame: Frame): string {
    let id = this.frameIds.get(frame);
    if (id === undefined) {
      id = `frame-${this.nextFrame++}`;
      this.frameIds.set(frame, id);
      this.framesById.set(id, new WeakRef(frame));
    }
    return id;
  }

  /** Forgets frames that are gone (of any tab), and disposes the frame elements kept for them. */
  private pruneFrames(): void {
    for (const [id, reference] of this.framesById) {
      const frame = reference.deref();
      if (!frame || frame.isDetached()) this.framesById.delete(id);
    }
    for (const [frame, handle] of this.frameElements) {
      if (!frame.isDetached()) continue;
      this.frameElements.delete(frame);
      void handle.dispose().catch(() => undefined);
    }
  }

  /**
   * The content box of each child frame's element in its parent's viewport; none for frames that
   * are not rendered. The frame elements are looked up once per frame and kept; the boxes are
   * read with one evaluate per parent frame, since pages with ads hold dozens of frames.
   */
  private async frameBoxes(frames: readonly Frame[]): Promise<Map<Frame, Box>> {
    const byParent = new Map<Frame, { frame: Frame; element: ElementHandle }[]>();
    await Promise.all(
      frames.map(async (frame) => {
        const parent = frame.parentFrame();
        if (!parent) return;
        let element = this.frameElements.get(frame);
        if (!element) {
          element = await frame.frameElement().catch(() => undefined);
          if (!element) return;
          this.frameElements.set(frame, element);
        }
        const siblings = byParent.get(parent) ?? [];
        siblings.push({ frame, element });
        byParent.set(parent, siblings);
      }),
    );
    const boxes = new Map<Frame, Box>();
    await Promise.all(
      [...byParent].map(async ([parent, children]) => {
        const measured = await measureFrames(
          parent,
          children.map((child) => child.element),
        ).catch(() => undefined);
        children.forEach((child, position) => {
          const box = measured?.[position];
          if (box) boxes.set(child.frame, box);
        });
      }),
    );
    return boxes;
  }
}
