// Rectangle arithmetic for the page runtime: boxes by their edges in CSS pixels, as getBoundingClientRect reports them.
// Runs inside the page as part of the injected script: pure functions, no DOM access beyond reading a given rectangle, no imports.

/** A rectangle by its four edges in CSS pixels, in viewport coordinates (not by its width and height). */
export interface Box {
  /** The top edge: distance from the top of the viewport. */
  readonly top: number;
  /** The bottom edge: distance from the top of the viewport. */
  readonly bottom: number;
  /** The left edge: distance from the left of the viewport. */
  readonly left: number;
  /** The right edge: distance from the left of the viewport. */
  readonly right: number;
}

/** True when the two boxes overlap; boxes that only share an edge or a corner do not. */
export function intersects(a: Box, b: Box): boolean {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

/**
 * The part of the page both boxes cover. When they do not overlap the result is empty (see
 * {@link isEmpty}), and its bottom may lie above its top or its right left of its left.
 */
export function meet(a: Box, b: Box): Box {
  return {
    top: Math.max(a.top, b.top),
    bottom: Math.min(a.bottom, b.bottom),
    left: Math.max(a.left, b.left),
    right: Math.min(a.right, b.right),
  };
}

/** The box's area in square CSS pixels; 0 for an empty box (see {@link isEmpty}), so area and emptiness never disagree. */
export function area(box: Box): number {
  return isEmpty(box) ? 0 : (box.right - box.left) * (box.bottom - box.top);
}

/** The edges of a rectangle measured in the page, such as the result of `element.getBoundingClientRect()`. */
export function boxOf(rect: DOMRectReadOnly): Box {
  return { top: rect.top, bottom: rect.bottom, left: rect.left, right: rect.right };
}

/**
 * True when the box is narrower or shorter than one CSS pixel: a user cannot see or click such a
 * sliver (a collapsed element, a hairline border), so it counts as no box at all.
 */
export function isEmpty(box: Box): boolean {
  return box.right - box.left < 1 || box.bottom - box.top < 1;
}
