// The page side of the answer check: the text of a frame split into what a person can read and
// what only a machine reads (text hidden, too small or the colour of its background, and the
// attributes an agent sees as text: alt, aria-label, title). The core compares an answer with
// both: a value the page gives only where no person can see it is not the page's word to its user.

import { clippedAway, textHiddenBy } from '../visibility';
import { renderedChildren, renderedParent } from './rendered-tree';

/** What the text-evidence method is asked. */
export interface TextEvidenceRequest {
  /** Characters of each kind read at most: a bound on time and memory. */
  readonly maxChars: number;
}

/** A frame's text by who can read it. */
export interface TextEvidenceAnswer {
  /** Text a person sees on the page. */
  readonly seen: string;
  /** Text in the document that no person sees: hidden or illegible text, alt, aria-label, title. */
  readonly unseen: string;
}

/** Elements whose content is not page text. */
const skipped = new Set(['script', 'style', 'noscript', 'template', 'head', 'iframe', 'frame', 'object', 'embed']);
/** Attributes an agent reads as text that the page does not show. */
const unseenAttributes = ['alt', 'aria-label', 'title', 'aria-description'];
/** Elements that draw a picture text may be laid over. */
const drawsPicture = new Set(['img', 'video', 'canvas', 'svg', 'picture']);
/** Nodes the walk enters at most. */
const maxSteps = 500_000;
/** Smallest font a person reads, in CSS pixels. */
const minFontPx = 6;
/** The contrast ratio below which text is taken as drawn in its background's colour (1 is the same colour). */
const minContrast = 1.25;
/** Opacity, multiplied along the ancestors, below which nothing is seen. */
const minOpacity = 0.1;

type Rgba = readonly [number, number, number, number];

function parseColour(value: string): Rgba | undefined {
  const match = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/.exec(value);
  if (!match) return value === 'transparent' ? [0, 0, 0, 0] : undefined;
  const alpha = match[4] === undefined ? 1 : match[4].endsWith('%') ? parseFloat(match[4]) / 100 : parseFloat(match[4]);
  return [Number(match[1]), Number(match[2]), Number(match[3]), alpha];
}

function luminance([r, g, b]: Rgba): number {
  const channel = (value: number): number => {
    const c = value / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

/** `top` drawn over the opaque `bottom`. */
function over(top: Rgba, bottom: Rgba): Rgba {
  const a = top[3];
  return [top[0] * a + bottom[0] * (1 - a), top[1] * a + bottom[1] * (1 - a), top[2] * a + bottom[2] * (1 - a), 1];
}

function contrast(first: Rgba, second: Rgba): number {
  const [light, dark] = [luminance(first), luminance(second)].sort((a, b) => b - a) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** Reads one frame's text, with each element's readability judged once. */
class EvidenceReader {
  seen = '';
  unseen = '';
  private readonly styles = new Map<Element, CSSStyleDeclaration>();
  private readonly shown = new Map<Element, boolean>();
  private readonly opacities = new Map<Element, number>();
  /** The opaque colour behind an element's text, or null where an image is behind it (it cannot be judged). */
  private readonly backgrounds = new Map<Element, Rgba | null>();

  constructor(private readonly maxChars: number) {}

  private styleOf(element: Element): CSSStyleDeclaration {
    let style = this.styles.get(element);
    if (!style) {
      style = window.getComputedStyle(element);
      this.styles.set(element, style);
    }
    return style;
  }

  private opacityOf(element: Element): number {
    const known = this.opacities.get(element);
    if (known !== undefined) return known;
    const parent = renderedParent(element);
    const value = (parseFloat(this.styleOf(element).opacity) || 0) * (parent ? this.opacityOf(parent) : 1);
    this.opacities.set(element, value);
    return value;
  }

  private backgroundOf(element: Element): Rgba | null {
    const known = this.backgrounds.get(element);
    if (known !== undefined) return known;
    const style = this.styleOf(element);
    const parent = renderedParent(element);
    const below: Rgba | null = parent ? this.backgroundOf(parent) : [255, 255, 255, 1];
    let value: Rgba | null;
    if (style.backgroundImage !== 'none') value = null;
    else {
      const own = parseColour(style.backgroundColor);
      value = !own || own[3] === 0 ? below : below === null ? (own[3] >= 0.99 ? own : null) : over(own, below);
    }
    this.backgrounds.set(element, value);
    return value;
  }

  /** Whether the element and its ancestors are rendered and not hidden, faded out or clipped away. */
  private rendered(element: Element): boolean {
    const known = this.shown.get(element);
    if (known !== undefined) return known;
    const style = this.styleOf(element);
    const parent = renderedParent(element);
    let value = parent ? this.rendered(parent) : true;
    if (value && style.display !== 'contents') {
      const rect = element.getBoundingClientRect();
      const clipsOverflow = style.overflow !== 'visible' || style.overflowX !== 'visible';
      value =
        element.getClientRects().length > 0 &&
        !clippedAway(style, style.position) &&
        !(clipsOverflow && (rect.width <= 1 || rect.height <= 1)) &&
        rect.right + window.scrollX > 0 &&
        rect.bottom + window.scrollY > 0;
    }
    this.shown.set(element, value);
    return value;
  }

  /** Whether a person can read the element's own text. */
  private readable(element: Element): boolean {
    if (!this.rendered(element)) return false;
    const style = this.styleOf(element);
    if (style.visibility !== 'visible' || this.opacityOf(element) < minOpacity) return false;
    if (parseFloat(style.fontSize) < minFontPx) return false;
    if (textHiddenBy(style, element.getBoundingClientRect())) return false;
    const colour = parseColour(style.color);
    const background = this.backgroundOf(element);
    if (!colour || background === null) return true;
    // A shadow or outline draws the glyphs in another colour.
    if (style.textShadow !== 'none' || parseFloat(style.getPropertyValue('-webkit-text-stroke-width')) > 0) return true;
    if (contrast(over(colour, background), background) >= minContrast) return true;
    // Its ancestors' background hides it; something laid under it that is not an ancestor (a hero
    // image or a dark box positioned behind the text) may still show it.
    return this.shownOverSomethingElse(element, colour);
  }

  /**
   * Whether an element under the text's centre that is not its ancestor draws something the text
   * stands out from: an image, a video, a canvas, an SVG, a background image, or a background
   * colour of enough contrast. Only points inside the viewport can be asked.
   */
  private shownOverSomethingElse(element: Element, colour: Rgba): boolean {
    const rect = element.getBoundingClientRect();
    const x = rect.left + rect.width / 2;
    const y = rect.top + rect.height / 2;
    if (x < 0 || y < 0 || x >= window.innerWidth || y >= window.innerHeight) return false;
    for (const under of document.elementsFromPoint(x, y)) {
      if (under === element || under.contains(element)) continue;
      if (element.contains(under)) continue;
      if (drawsPicture.has(under.localName)) return true;
      const style = this.styleOf(under);
      if (style.backgroundImage !== 'none') return true;
      const fill = parseColour(style.backgroundColor);
      if (!fill || fill[3] <= 0.5) continue;
      const box = over(fill, [255, 255, 255, 1]);
      if (contrast(over(colour, box), box) >= minContrast) return true;
    }
    return false;
  }

  private add(kind: 'seen' | 'unseen', value: string): void {
    const text = value.replace(/\s+/g, ' ').trim();
    if (!text || this[kind].length >= this.maxChars) return;
    this[kind] = `${this[kind]}${this[kind] ? ' ' : ''}${text}`.slice(0, this.maxChars);
  }

  read(root: Element): void {
    const stack: Node[] = [root];
    for (let steps = 0; stack.length > 0 && steps < maxSteps; steps++) {
      const node = stack.pop() as Node;
      if (node.nodeType === Node.TEXT_NODE) {
        const parent = renderedParent(node);
        if (parent) this.add(this.readable(parent) ? 'seen' : 'unseen', (node as Text).data);
        continue;
      }
      if (node.nodeType !== Node.ELEMENT_NODE) continue;
      const element = node as Element;
      if (skipped.has(element.localName)) continue;
      for (const name of unseenAttributes) {
        const value = element.getAttribute(name);
        if (value) this.add('unseen', value);
      }
      if (element.localName === 'input' && (element as HTMLInputElement).type === 'hidden') this.add('unseen', (element as HTMLInputElement).value);
      const children = renderedChildren(element);
      for (let position = children.length - 1; position >= 0; position--) stack.push(children[position] as Node);
    }
  }
}

/** The frame's text, split into what a person can read and what only a machine reads. */
export function textEvidence(request: TextEvidenceRequest): TextEvidenceAnswer {
  const reader = new EvidenceReader(request.maxChars);
  const root = document.body ?? document.documentElement;
  if (root) reader.read(root);
  return { seen: reader.seen, unseen: reader.unseen };
}
