// Frame tracking for the Puppeteer driver: the shared registry (chromium/frame-registry.ts) over
// Puppeteer's frames.

import type { ElementHandle, Frame, Page } from 'puppeteer-core';
import { FrameRegistry as SharedFrameRegistry, frameAccess } from '../chromium/frame-registry';
import { measureFrames } from './runtime-calls';

/** The frames a Puppeteer driver has given ids to, across all its tabs. */
export class FrameRegistry extends SharedFrameRegistry<Page, Frame, ElementHandle> {
  constructor() {
    super(
      frameAccess<Page, Frame, ElementHandle>({
        isDetached: (frame) => frame.detached,
        frameElement: async (frame) => ((await frame.frameElement()) as ElementHandle | null) ?? undefined,
        measureFrames,
      }),
    );
  }
}
