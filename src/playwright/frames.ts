// Frame tracking for the Playwright driver: the shared registry (chromium/frame-registry.ts) over
// Playwright's frames.

import type { ElementHandle, Frame, Page } from 'playwright-core';
import { FrameRegistry as SharedFrameRegistry, frameAccess } from '../chromium/frame-registry';
import { measureFrames } from './runtime-calls';

/** The frames a Playwright driver has given ids to, across all its tabs. */
export class FrameRegistry extends SharedFrameRegistry<Page, Frame, ElementHandle> {
  constructor() {
    super(
      frameAccess<Page, Frame, ElementHandle>({
        isDetached: (frame) => frame.isDetached(),
        frameElement: (frame) => frame.frameElement(),
        measureFrames,
      }),
    );
  }
}
