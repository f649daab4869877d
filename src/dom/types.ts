// The data the in-page snapshot script returns for one frame. Plain JSON, so it crosses any
// driver's evaluate boundary; the core turns it into the model's text.

/** An interactive element found by the snapshot script. @public */
export interface SnapshotElement {
  /** Marks an element entry, as opposed to a text entry. */
  readonly kind: 'element';
  /** Unique in the page and kept while the element lives. */
  readonly elementId: string;
  /** Lower-case tag name. */
  readonly tagName: string;
  /** The whitelisted attributes, values already capped. */
  readonly attributes: Readonly<Record<string, string>>;
  /**
   * The element's own visible text in lines (block boundaries and `<br>` start a new line), each
   * trimmed and cut to `maxTextLength`, separated by `\n`; for a control without text of its own,
   * its accessible name (label, aria-labelledby, aria-label, title, placeholder, alt).
   */
  readonly text: string;
  /** Nesting depth among the listed elements, for indentation. */
  readonly depth: number;
  /** A CSS selector that finds the element, as a fallback for drivers. */
  readonly selector?: string | undefined;
  /**
   * For a scrollable container: the pixels of its content hidden above and below its visible
   * area, so the model knows it can scroll inside it (by this element's index).
   */
  readonly scroll?: { readonly above: number; readonly below: number } | undefined;
}

/** Visible page text between interactive elements. @public */
export interface SnapshotText {
  /** Marks a text entry, as opposed to an element entry. */
  readonly kind: 'text';
  /** The text, whitespace collapsed and cut to `maxTextLength` characters. */
  readonly text: string;
  /** Nesting depth among the listed elements, for indentation. */
  readonly depth: number;
}

/** One entry of a frame snapshot, in document order. @public */
export type SnapshotItem = SnapshotElement | SnapshotText;

/** What the snapshot script returns for one frame. @public */
export interface FrameSnapshot {
  /** The URL of the frame's document. */
  readonly url: string;
  /** The title of the frame's document. */
  readonly title: string;
  /** The frame's interactive elements and visible text, in document order. */
  readonly items: readonly SnapshotItem[];
  /** Pixels of content above the viewport. */
  readonly pixelsAbove: number;
  /** Pixels of content below the viewport. */
  readonly pixelsBelow: number;
  /** The frame's viewport size in CSS pixels; the core uses the top frame's to place child frames. */
  readonly viewport?: { readonly width: number; readonly height: number } | undefined;
}

/** Options the core passes to the snapshot script. @public */
export interface SnapshotScriptOptions {
  /** Pixels beyond the viewport still indexed; -1 for the whole page. */
  readonly viewportExpansion: number;
  /** Attributes kept for the model. */
  readonly includeAttributes: readonly string[];
  /** Upper bound of one attribute value or one line of text, in characters. */
  readonly maxTextLength: number;
  /**
   * For a child frame: the part of the top page's (expanded) viewport this frame covers, in the
   * frame's own viewport coordinates. Only elements inside it are indexed. Absent for the top
   * frame, which uses its own viewport and `viewportExpansion`, and in whole-page mode.
   */
  readonly clip?: { readonly x: number; readonly y: number; readonly width: number; readonly height: number } | undefined;
}
