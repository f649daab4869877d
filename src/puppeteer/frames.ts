// Frame tracking for the Puppeteer driver: stable frame ids, their lookup, pruning of gone frames
// and each child frame's box in its parent. It never navigates or changes a frame.

import type { ElementHandle, Frame, Page } from 'puppeteer-core';
import type { FrameInfo } from '../browser/types';
import { BrowserError } from '../errors';
import { measureFrames, type FrameBox } from './runtime-calls';

/** The frames a driver has given ids to, across all its tabs. */
export class FrameRegistry {
  private readonly frameIds = new WeakMap<Frame, string>();
  /** The frame element of each child frame seen, kept for measuring; disposed when the frame goes and on close. */
  private readonly frameElements = new Map<Frame, ElementHandle>();
  private readonly framesById = new Map<string, WeakRef<Frame>>();
  private nextFrame = 1;

  /** The rendered frames of a page, top frame first, with each child frame's box in its parent. */
  async describe(page: Page): Promise<FrameInfo[]> {
    const main = page.mainFrame();
    // Error pages of frames that failed to load (blocked, offline) hold nothing to act on.
    const frames = [main, ...page.frames().filter((frame) => frame !== main && !frame.detached && !frame.url().startsWith('chrome-error:'))];
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
    const frame = this.find(frameId);
    if (!frame) {
      this.framesById.delete(frameId);
      throw new BrowserError(`The frame ${frameId} is gone (it navigated or was removed). Read the page state again.`, { retryable: true });
    }
    return frame;
  }

  /** The frame with this id while it is attached, else undefined. */
  find(frameId: string): Frame | undefined {
    const frame = this.framesById.get(frameId)?.deref();
    return frame && !frame.detached ? frame : undefined;
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

  /** Forgets every frame and disposes the frame elements kept for them. */
  async clear(): Promise<void> {
    const handles = [...this.frameElements.values()];
    this.frameElements.clear();
    this.framesById.clear();
    await Promise.all(handles.map((handle) => handle.dispose().catch(() => undefined)));
  }

  /** Forgets frames that are gone (of any tab), and disposes the frame elements kept for them. */
  private pruneFrames(): void {
    for (const [id, reference] of this.framesById) {
      const frame = reference.deref();
      if (!frame || frame.detached) this.framesById.delete(id);
    }
    for (const [frame, handle] of this.frameElements) {
      if (!frame.detached) continue;
      this.frameElements.delete(frame);
      void handle.dispose().catch(() => undefined);
    }
  }

  /** The kept frame element of a child frame, looked up on first need. */
  private async frameElement(frame: Frame): Promise<ElementHandle | undefined> {
    let element = this.frameElements.get(frame);
    if (!element) {
      element = ((await frame.frameElement().catch(() => null)) as ElementHandle | null) ?? undefined;
      if (element) this.frameElements.set(frame, element);
    }
    return element;
  }

  /**
   * The content box of each child frame's element in its parent's viewport (the runtime's
   * `frameBoxes`); none for frames that cannot be seen. The frame elements are looked up once per
   * frame and kept; the boxes are read with one evaluate per parent frame, since pages with ads
   * hold dozens of frames. A kept element of a parent document that has since been replaced is
   * looked up again, once.
   */
  private async frameBoxes(frames: readonly Frame[]): Promise<Map<Frame, FrameBox>> {
    const byParent = new Map<Frame, Frame[]>();
    for (const frame of frames) {
      const parent = frame.parentFrame();
      if (!parent) continue;
      byParent.set(parent, [...(byParent.get(parent) ?? []), frame]);
    }
    const boxes = new Map<Frame, FrameBox>();
    await Promise.all(
      [...byParent].map(async ([parent, children]) => {
        for (let attempt = 0; attempt < 2; attempt++) {
          const found = (await Promise.all(children.map(async (child) => ({ child, element: await this.frameElement(child) })))).filter(
            (entry): entry is { child: Frame; element: ElementHandle } => entry.element !== undefined,
          );
          if (found.length === 0) return;
          const measured = await measureFrames(
            parent,
            found.map((entry) => entry.element),
          ).catch(() => undefined);
          if (measured) {
            found.forEach((entry, position) => {
              const box = measured[position];
              if (box) boxes.set(entry.child, box);
            });
            return;
          }
          for (const { child, element } of found) {
            this.frameElements.delete(child);
            void element.dispose().catch(() => undefined);
          }
        }
      }),
    );
    return boxes;
  }
}
