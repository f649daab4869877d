// Frame tracking shared by the Chromium drivers: stable frame ids, their lookup, pruning of gone
// frames and each child frame's box in its parent. Written once against what it needs of a
// library's frames (FrameAccess); Playwright and Puppeteer each give their own. It never
// navigates or changes a frame.

import type { FrameInfo } from '../browser/types';
import { BrowserError } from '../errors';

/** A box in CSS pixels of a parent frame's viewport. */
export interface FrameBox {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** What the registry needs of a library's pages, frames and element handles. */
export interface FrameAccess<Page, Frame extends object, Handle extends { dispose(): Promise<unknown> }> {
  mainFrame(page: Page): Frame;
  frames(page: Page): readonly Frame[];
  parentFrame(frame: Frame): Frame | null;
  url(frame: Frame): string;
  isDetached(frame: Frame): boolean;
  /** The frame's element in its parent document, or undefined when it has none now. */
  frameElement(frame: Frame): Promise<Handle | undefined>;
  /** The content boxes of these frame elements of `parent`'s document, in order (null: not rendered). */
  measureFrames(parent: Frame, elements: readonly Handle[]): Promise<(FrameBox | null)[]>;
}

/** The members both libraries' pages and frames have alike. */
interface LibraryPage<Frame> {
  mainFrame(): Frame;
  frames(): Frame[];
}
interface LibraryFrame<Frame> {
  parentFrame(): Frame | null;
  url(): string;
}

/** A frame access from the members both libraries share and the three in which they differ. */
export function frameAccess<Page extends LibraryPage<Frame>, Frame extends LibraryFrame<Frame>, Handle extends { dispose(): Promise<unknown> }>(
  differs: Pick<FrameAccess<Page, Frame, Handle>, 'isDetached' | 'frameElement' | 'measureFrames'>,
): FrameAccess<Page, Frame, Handle> {
  return {
    mainFrame: (page) => page.mainFrame(),
    frames: (page) => page.frames(),
    parentFrame: (frame) => frame.parentFrame(),
    url: (frame) => frame.url(),
    ...differs,
  };
}

/** The frames a driver has given ids to, across all its tabs. */
export class FrameRegistry<Page, Frame extends object, Handle extends { dispose(): Promise<unknown> }> {
  private readonly frameIds = new WeakMap<Frame, string>();
  /** The frame element of each child frame seen, kept for measuring; disposed when the frame goes and on close. */
  private readonly frameElements = new Map<Frame, Handle>();
  private readonly framesById = new Map<string, WeakRef<Frame>>();
  private nextFrame = 1;

  constructor(private readonly access: FrameAccess<Page, Frame, Handle>) {}

  /** The rendered frames of a page, top frame first, with each child frame's box in its parent. */
  async describe(page: Page): Promise<FrameInfo[]> {
    const { access } = this;
    const main = access.mainFrame(page);
    // Error pages of frames that failed to load (blocked, offline) hold nothing to act on.
    const frames = [
      main,
      ...access.frames(page).filter((frame) => frame !== main && !access.isDetached(frame) && !access.url(frame).startsWith('chrome-error:')),
    ];
    this.pruneFrames();
    const boxes = await this.frameBoxes(frames.slice(1));
    return frames.map((frame): FrameInfo => {
      const parent = access.parentFrame(frame);
      if (!parent) return { id: this.frameId(frame), url: access.url(frame) };
      const box = boxes.get(frame);
      return {
        id: this.frameId(frame),
        parentId: this.frameId(parent),
        url: access.url(frame),
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
    return frame && !this.access.isDetached(frame) ? frame : undefined;
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
      if (!frame || this.access.isDetached(frame)) this.framesById.delete(id);
    }
    for (const [frame, handle] of this.frameElements) {
      if (!this.access.isDetached(frame)) continue;
      this.frameElements.delete(frame);
      void handle.dispose().catch(() => undefined);
    }
  }

  /** The kept frame element of a child frame, looked up on first need. */
  private async frameElement(frame: Frame): Promise<Handle | undefined> {
    let element = this.frameElements.get(frame);
    if (!element) {
      element = await this.access.frameElement(frame).catch(() => undefined);
      if (element) this.frameElements.set(frame, element);
    }
    return element;
  }

  /**
   * The content box of each child frame's element in its parent's viewport; none for frames that
   * cannot be seen. The frame elements are looked up once per frame and kept; the boxes are read
   * with one evaluate per parent frame, since pages with ads hold dozens of frames. A kept element
   * of a parent document that has since been replaced is looked up again, once.
   */
  private async frameBoxes(frames: readonly Frame[]): Promise<Map<Frame, FrameBox>> {
    const byParent = new Map<Frame, Frame[]>();
    for (const frame of frames) {
      const parent = this.access.parentFrame(frame);
      if (!parent) continue;
      byParent.set(parent, [...(byParent.get(parent) ?? []), frame]);
    }
    const boxes = new Map<Frame, FrameBox>();
    await Promise.all(
      [...byParent].map(async ([parent, children]) => {
        for (let attempt = 0; attempt < 2; attempt++) {
          const found = (await Promise.all(children.map(async (child) => ({ child, element: await this.frameElement(child) })))).filter(
            (entry): entry is { child: Frame; element: Handle } => entry.element !== undefined,
          );
          if (found.length === 0) return;
          const measured = await this.access
            .measureFrames(
              parent,
              found.map((entry) => entry.element),
            )
            .catch(() => undefined);
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
