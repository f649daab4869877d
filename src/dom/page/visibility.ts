// What CSS hides although the element has a box: clipping to nothing, and text pushed out of
// sight (zero font size, the image-replacement indent). Runs in the page; reads computed style.

/** Clipped to nothing: clip-path inset(50%) or more, or clip: rect() of no width or height on a positioned element. */
export function clippedAway(style: CSSStyleDeclaration, position: string): boolean {
  const clipPath = style.clipPath;
  const inset = clipPath && clipPath !== 'none' ? /^inset\(([^)]*)\)/.exec(clipPath) : null;
  if (inset) {
    // inset(top right bottom left), shortened like margin; without the box size only percentages (and zero) can be judged.
    const percent = (value: string): number => (value.endsWith('%') ? parseFloat(value) : parseFloat(value) === 0 ? 0 : Number.NaN);
    const [top = Number.NaN, right = top, bottom = top, left = right] = ((inset[1] ?? '').split(/\s+round\s/)[0] ?? '').trim().split(/\s+/).map(percent);
    if (top + bottom >= 100 || left + right >= 100) return true;
  }
  if (position === 'absolute' || position === 'fixed') {
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- pages still hide text with clip: rect(), so the page reader must see it
    const clipRect = style.clip;
    const edges = clipRect && clipRect !== 'auto' ? /^rect\(\s*([-\d.]+)px,?\s*([-\d.]+)px,?\s*([-\d.]+)px,?\s*([-\d.]+)px\s*\)$/.exec(clipRect) : null;
    if (edges && (Number(edges[2]) - Number(edges[4]) <= 1 || Number(edges[3]) - Number(edges[1]) <= 1)) return true;
  }
  return false;
}

/** Made invisible by a filter: `opacity(0)` in the filter list. */
export function filteredAway(style: CSSStyleDeclaration): boolean {
  const filter = style.filter;
  return filter !== 'none' && /\bopacity\(\s*0*(?:\.0*)?%?\s*\)/.test(filter);
}

/** A colour with no alpha: `transparent`, `rgba(…, 0)`. */
function invisibleColour(colour: string): boolean {
  if (colour === 'transparent') return true;
  const alpha = /^rgba?\((?:[^,]+,){3}\s*([\d.]+)\s*\)$/.exec(colour) ?? /\/\s*([\d.]+%?)\s*\)$/.exec(colour);
  return alpha !== null && parseFloat(alpha[1] ?? '1') === 0;
}

/**
 * The element's own text cannot be read: a zero font size, indented far beyond the left edge
 * (the image-replacement trick), or drawn in a transparent colour with nothing to outline it.
 */
export function textHiddenBy(style: CSSStyleDeclaration, rect: DOMRectReadOnly): boolean {
  if (parseFloat(style.fontSize) === 0) return true;
  // Gradient headings draw their text through the background (background-clip: text): it shows.
  const clippedToText = style.backgroundClip === 'text' || style.getPropertyValue('-webkit-background-clip') === 'text';
  if (invisibleColour(style.color) && !clippedToText && style.textShadow === 'none' && !(parseFloat(style.getPropertyValue('-webkit-text-stroke-width')) > 0))
    return true;
  const indent = style.textIndent;
  const amount = parseFloat(indent);
  if (!Number.isFinite(amount) || amount >= 0) return false;
  if (indent.endsWith('%')) return amount <= -100;
  return rect.left + window.scrollX + amount <= -999;
}
