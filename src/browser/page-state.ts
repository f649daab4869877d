// The state of the active tab as the model saw it at one step. Types only: the DOM layer
// captures it (dom/page-state-reader.ts).

import type { ClosedDialog, ElementRef, PageDialog, TabInfo } from './types';

/**
 * The browser as the model saw it at one step. When no tab is open (the page closed its last tab),
 * `tabs` is empty, `activeTabId` is `''`, `url` is `about:blank` and `title` tells the model to
 * open one (`open_tab` or `go_to_url`).
 * @public
 */
export interface PageState {
  /** The active tab's URL. */
  readonly url: string;
  /** The title of the active tab's page. */
  readonly title: string;
  /** Every open tab. */
  readonly tabs: readonly TabInfo[];
  /** The id of the active tab, one of `tabs`. */
  readonly activeTabId: string;
  /** The indexed elements and page text, as the model reads them. */
  readonly elementsText: string;
  /** The element behind each index of `elementsText`. */
  readonly elements: ReadonlyMap<number, ElementRef>;
  /** Indices new since the previous state. */
  readonly newIndices: ReadonlySet<number>;
  /** Pixels of content above the viewport of the top frame. */
  readonly pixelsAbove: number;
  /** Pixels of content below the viewport of the top frame. */
  readonly pixelsBelow: number;
  /** A base64 JPEG of the viewport, when vision is on. */
  readonly screenshot?: string | undefined;
  /**
   * The JavaScript dialog open in the active tab now (alert, confirm, prompt, beforeunload): the
   * page runs no script until it is answered (`handle_dialog`), so `elementsText` is empty then.
   */
  readonly dialog?: PageDialog | undefined;
  /** The dialogs that closed since the previous state (answered, or dismissed because nobody did), oldest first. */
  readonly closedDialogs?: readonly ClosedDialog[] | undefined;
  /** When the state was captured, in milliseconds since the epoch. */
  readonly capturedAt: number;
}
