// The walk over one frame's rendered tree (open and recorded closed shadow roots, slots) that
// finds what a person can see and act on, and the text around it. Runs in the page; one pass,
// reading each computed style at most once, pruning what lies outside the indexed region.

import type { SnapshotScriptOptions } from '../types';
import { intersects, isEmpty, meet, type Box } from './geometry';
import { containerRoles, interactivityOf, isDelegationRoot, isDisabled, isOwnTarget, labelStandsIn } from './interactivity';
import { isTopMost, type Occluder } from './occlusion';
import { shadowRootOf } from './recorder';
import { LineBuffer } from './text';
import { clippedAway, filteredAway, textHiddenBy } from './visibility';

/** An element the walk will list, while its text is gathered. */
export interface Draft {
  readonly element: Element;
  readonly tag: string;
  /** The nearest listed ancestor, for indentation. */
  readonly owner: Draft | undefined;
  /** Only weak signals (a listener, onclick, a cursor) made it a control. */
  readonly weak: boolean;
  /** It gathers the text of its subtree; containers (scroll boxes, menus, lists by role) do not. */
  readonly collects: boolean;
  readonly lines: LineBuffer;
  readonly box: Box;
  readonly clip: Box;
  readonly scroll: { readonly above: number; readonly below: number } | undefined;
  /** Listed elements inside it. */
  listedInside: number;
  /** Left out after the walk: covered by another layer, or a delegation wrapper with nothing of its own. */
  fate: 'kept' | 'covered' | 'dropped';
}

/** One entry of the walk's result, in document order. */
export type WalkEntry =
  { readonly kind: 'element'; readonly draft: Draft } | { readonly kind: 'text'; readonly text: string; readonly owner: Draft | undefined };

/** What an element passes to its children during the walk. */
interface Context {
  /** The area inside which a static or relative child can be seen (overflow clipping). */
  readonly clip: Box;
  /** The same for absolutely positioned children: the clip at the nearest positioned ancestor. */
  readonly absoluteClip: Box;
  /** The nearest listed ancestor. */
  readonly owner: Draft | undefined;
  /** The nearest listed ancestor that gathers text, if text goes to one. */
  readonly sink: Draft | undefined;
  /** An ancestor is visibility:hidden (children may override it). */
  readonly hidden: boolean;
  /** Inside an `inert` subtree or a disabled fieldset: nothing is listed. */
  readonly inert: boolean;
}

const skipTags = new Set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link', 'title', 'iframe', 'frame', 'object', 'embed', 'wbr']);
/** Tags that start a new line of text whatever their style says (most are display:block anyway). */
const blockTags = new Set([
  'div',
  'p',
  'li',
  'ul',
  'ol',
  'dl',
  'dt',
  'dd',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'section',
  'article',
  'aside',
  'header',
  'footer',
  'nav',
  'main',
  'form',
  'fieldset',
  'legend',
  'table',
  'tr',
  'caption',
  'thead',
  'tbody',
  'tfoot',
  'blockquote',
  'pre',
  'figure',
  'figcaption',
  'details',
  'summary',
  'address',
  'hr',
  'body',
  'dialog',
  'menu',
  'option',
]);
const inlineDisplays = new Set(['inline', 'inline-block', 'inline-flex', 'inline-grid', 'inline-table', 'contents', 'table-cell', 'ruby', 'ruby-text']);
/** Elements whose children are not text the page shows as such. */
export const textless = new Set(['input', 'select', 'textarea', 'img', 'svg', 'canvas', 'video', 'audio']);
const maxVisited = 200_000; // bounds the walk on pathological pages

/**
 * Something inside the element lies beyond its box (a positioned menu hanging from a row): its
 * scroll size, which counts its descendants' boxes, exceeds its own. Cheap: the layout is clean.
 */
function overflows(element: Element): boolean {
  return element.scrollHeight > element.clientHeight + 1 || element.scrollWidth > element.clientWidth + 1;
}

/** The alt of an image shown to people (not hidden from assistive technology, not decorative). */
function imageText(element: Element): string {
  if (element.getAttribute('aria-hidden') === 'true') return '';
  const role = element.getAttribute('role');
  if (role === 'presentation' || role === 'none') return '';
  return (element.getAttribute('alt') ?? '').trim();
}
/** Descendants of one clipped-out element read for a positioned one, and such reads per walk. */
const positionedScanPerElement = 40;
const positionedScanBudget = 4000;
const infinite = 1e9;
const everywhere: Box = { top: -infinite, bottom: infinite, left: -infinite, right: infinite };

/** The walk over one frame; `run()` once, then read `entries`, `drafts` and the geometry. */
export class Walk {
  readonly entries: WalkEntry[] = [];
  readonly drafts: Draft[] = [];
  readonly viewport: Box;
  private readonly region: Box;
  private readonly wholePage: boolean;
  private readonly maxText: number;
  private readonly occluders: Occluder[] = [];
  private readonly mustVisit = new Set<Element>();
  /** Style reads left for finding positioned descendants of clipped-out elements. */
  private positionedScans = positionedScanBudget;
  private readonly pending = new LineBuffer();
  private pendingOwner: Draft | undefined;
  private visited = 0;

  constructor(options: SnapshotScriptOptions) {
    this.maxText = Math.max(8, options.maxTextLength);
    this.wholePage = options.viewportExpansion < 0;
    const expansion = Math.max(0, options.viewportExpansion);
    const width = window.innerWidth;
    const height = window.innerHeight;
    this.viewport = { top: 0, bottom: height, left: 0, right: width };
    // The region whose elements are listed, in this frame's viewport coordinates.
    let region: Box = this.wholePage
      ? { top: -window.scrollY - 1, bottom: infinite, left: -window.scrollX - 1, right: infinite }
      : { top: -expansion, bottom: height + expansion, left: 0, right: width };
    const clip = options.clip;
    if (clip && !this.wholePage) {
      region = meet(region, { top: clip.y, bottom: clip.y + clip.height, left: clip.x, right: clip.x + clip.width });
    }
    this.region = region;
  }

  /** Walks the frame's document, then hit-tests the elements something could cover. */
  run(): void {
    this.findHitPaths();
    // A modal dialog (showModal) makes the rest of the page inert behind its backdrop, which is a
    // pseudo-element: count the dialog as covering the whole viewport.
    try {
      const modal = document.querySelector(':modal');
      if (modal) this.occluders.push({ element: modal, box: { ...this.viewport } });
    } catch {
      // an engine without :modal: the hit tests of elements under the dialog box still apply
    }
    const start = document.body ?? document.documentElement;
    if (start) {
      this.walk(start, { clip: everywhere, absoluteClip: everywhere, owner: undefined, sink: undefined, hidden: false, inert: false }, undefined, everywhere);
    }
    this.flushText();
    this.markCovered();
  }

  /**
   * Hit paths: what the viewport shows at a grid of points, with its ancestors. Walking prunes
   * subtrees outside the region, except these, so fixed bars and overlays whose parents lie
   * elsewhere (a short header scrolled out of view long ago) are still reached.
   */
  private findHitPaths(): void {
    if (this.wholePage) return;
    const width = this.viewport.right;
    const height = this.viewport.bottom;
    const points: [number, number][] = [];
    for (let row = 0; row < 3; row++) {
      for (let column = 0; column < 2; column++) points.push([((column + 0.5) * width) / 2, ((row + 0.5) * height) / 3]);
    }
    for (const x of [8, 48, width / 2, width - 48, width - 8]) {
      for (const y of [8, height - 48, height - 8]) points.push([x, y]);
    }
    points.push([8, height / 2], [width - 8, height / 2]);
    for (const [x, y] of points) {
      if (x < 0 || y < 0 || x >= width || y >= height) continue;
      let hit: Element | null = document.elementFromPoint(x, y);
      while (hit && !this.mustVisit.has(hit)) {
        this.mustVisit.add(hit);
        hit = hit.parentElement ?? (hit.parentNode as ShadowRoot | null)?.host ?? null;
      }
    }
  }

  /**
   * Whether a clipped-out element holds an absolutely positioned or fixed descendant, which may be
   * placed elsewhere. Bounded: a few descendants per element and a budget per walk, so a long
   * scrolled list costs little.
   */
  private holdsPositioned(element: Element): boolean {
    const descendants = element.getElementsByTagName('*');
    const count = Math.min(descendants.length, positionedScanPerElement);
    for (let index = 0; index < count && this.positionedScans > 0; index++, this.positionedScans--) {
      const position = window.getComputedStyle(descendants[index] as Element).position;
      if (position === 'absolute' || position === 'fixed') return true;
    }
    return false;
  }

  private addText(text: string, context: Context): void {
    if (context.sink) {
      context.sink.lines.add(text);
      return;
    }
    if (this.pendingOwner !== context.owner) this.flushText();
    this.pendingOwner = context.owner;
    this.pending.add(text);
  }

  /** Separates a box laid out beside the text before it (a table cell, an inline block, a flex item). */
  private space(context: Context): void {
    if (context.sink) context.sink.lines.space();
    else if (this.pendingOwner === context.owner) this.pending.space();
  }

  private lineBreak(context: Context): void {
    if (context.sink) context.sink.lines.lineBreak();
    else this.pending.lineBreak();
  }

  private flushText(): void {
    for (const text of this.pending.take(this.maxText)) this.entries.push({ kind: 'text', text, owner: this.pendingOwner });
  }

  private walkText(node: Text, parentBox: Box, context: Context): void {
    if (context.hidden) return;
    const raw = node.data;
    // Whitespace between inline elements is the page's own space between their words.
    if (!raw.trim()) {
      if (raw) this.space(context);
      return;
    }
    // Big parents (a body with bare text, a long article) are checked per text node.
    if (!this.wholePage && (parentBox.top < this.region.top || parentBox.bottom > this.region.bottom)) {
      const range = document.createRange();
      range.selectNodeContents(node);
      const rect = range.getBoundingClientRect();
      if (rect.width === 0 && rect.height === 0) return;
      if (!intersects({ top: rect.top, bottom: rect.bottom, left: rect.left, right: rect.right }, meet(this.region, context.clip))) return;
    }
    this.addText(raw, context);
  }

  private childrenOf(node: Element): NodeListOf<ChildNode> | Node[] {
    if (node instanceof HTMLSlotElement) {
      const assigned = node.assignedNodes({ flatten: true });
      return assigned.length > 0 ? assigned : node.childNodes;
    }
    return shadowRootOf(node)?.childNodes ?? node.childNodes;
  }

  private scrollAmounts(element: Element, overflowX: string, overflowY: string): { above: number; below: number } | undefined {
    const scrollY = overflowY === 'auto' || overflowY === 'scroll';
    const scrollX = overflowX === 'auto' || overflowX === 'scroll';
    if (!scrollY && !scrollX) return undefined;
    if (element === document.scrollingElement || element === document.body) return undefined;
    const below = element.scrollHeight - element.clientHeight - element.scrollTop;
    const right = element.scrollWidth - element.clientWidth - element.scrollLeft;
    if ((scrollY && (element.scrollTop > 2 || below > 2)) || (scrollX && (element.scrollLeft > 2 || right > 2))) {
      return { above: Math.round(element.scrollTop), below: Math.max(0, Math.round(below)) };
    }
    return undefined;
  }

  /**
   * `row`: the parent lays its children out side by side (a flex row, a grid); it holds the
   * bottom edge of the row so far, so a child starts a new line only where the row wraps.
   */
  private walk(element: Element, context: Context, parentStyle: CSSStyleDeclaration | undefined, parentBox: Box, row?: { bottom: number }): void {
    if (++this.visited > maxVisited) return;
    const tag = element.localName;
    if (tag === 'br') {
      this.lineBreak(context);
      return;
    }
    if (skipTags.has(tag)) return;
    const region = this.region;
    const onPath = this.mustVisit.has(element);
    const rect = element.getBoundingClientRect();
    const hasSize = rect.width > 0 && rect.height > 0;
    // Outside the region: what could escape it (fixed bars, overlays) is on a hit path. Checked
    // before the computed style, which is the costly part of a visit. In whole-page mode the
    // region still ends at the document's left and top edges: what lies beyond cannot be seen.
    let outside = hasSize && !onPath && (rect.bottom <= region.top || rect.top >= region.bottom || rect.right <= region.left || rect.left >= region.right);
    // Out of sight, its own text and box are not read; what overflows it (a positioned menu
    // hanging from a row) may still show, so its children are walked when something does.
    if (outside && !overflows(element)) return;
    const style = window.getComputedStyle(element);
    const display = style.display;
    if (display === 'none') return;
    const contents = display === 'contents';
    const overflowX = style.overflowX;
    const overflowY = style.overflowY;
    const overflowClips = overflowX !== 'visible' || overflowY !== 'visible';
    const position = style.position;
    const ownClip = position === 'fixed' ? everywhere : position === 'absolute' ? context.absoluteClip : context.clip;
    const box: Box = contents ? parentBox : { top: rect.top, bottom: rect.bottom, left: rect.left, right: rect.right };
    // Transparent or clipped to nothing, on a hit path or not: elementFromPoint still hits an opacity: 0 layer.
    if (style.opacity === '0' || clippedAway(style, position) || filteredAway(style)) return;
    // Scaled to nothing (transform: scale(0)): the layout keeps its size, the screen shows none of it.
    if (!hasSize && !contents && element instanceof HTMLElement && (element.offsetWidth > 0 || element.offsetHeight > 0)) return;
    if (!contents && !onPath) {
      // Visually hidden (the 1-pixel screen-reader pattern, a collapsed section) or clipped away.
      if (overflowClips && (rect.width <= 1 || rect.height <= 1)) return;
      if (hasSize && ownClip !== everywhere && !intersects(box, ownClip)) {
        // Scrolled or clipped out of its box: gone, unless something of it hangs out of it (its
        // overflow, or a positioned menu placed by the box itself, which its overflow does not count).
        if (!overflows(element) && !this.holdsPositioned(element)) return;
        outside = true;
      }
      // Laid out to nothing by content-visibility or a closed <details>: nothing inside shows.
      if (!hasSize && typeof element.checkVisibility === 'function' && !element.checkVisibility()) return;
    }
    // Out of sight and clipping its overflow: nothing inside it can show but what is fixed, which hit paths reach.
    if (outside && overflowClips) return;
    if (hasSize && (position === 'fixed' || position === 'sticky' || (position === 'absolute' && style.zIndex !== 'auto')) && intersects(box, this.viewport)) {
      this.occluders.push({ element, box });
    }
    const visibility = style.visibility;
    const hidden = visibility === 'hidden' || visibility === 'collapse' ? true : visibility === 'visible' ? false : context.hidden;
    const inert = context.inert || element.hasAttribute('inert');
    const inRegion = !outside && !contents && hasSize && intersects(box, meet(region, ownClip));
    // A block starts its own line, except beside its siblings in a row (flex items are blocks by
    // CSS, yet a product's name, colour and price in a flex row read as one line).
    let block = !contents && (blockTags.has(tag) || !inlineDisplays.has(display));
    if (row && !contents && hasSize) {
      if (block && rect.top < row.bottom - 1) block = false;
      row.bottom = Math.max(row.bottom, rect.bottom);
    }
    // Boxes laid out side by side (cells, inline blocks, flex items) are separate words; inline
    // text joins as the page writes it.
    const spaced = !block && !contents && display !== 'inline';
    if (block) this.lineBreak(context);
    else if (spaced) this.space(context);

    const scroll = hasSize ? this.scrollAmounts(element, overflowX, overflowY) : undefined;
    const role = element.getAttribute('role');
    let draft: Draft | undefined;
    if (inRegion && !hidden && !inert) draft = this.consider(element, tag, role, style, parentStyle, box, ownClip, scroll, context);

    if (textless.has(tag)) {
      // An image that is not a control says what it shows by its alt (a "vegan" badge by a dish).
      if (tag === 'img' && !draft && inRegion && !hidden) {
        const alt = imageText(element);
        if (alt) {
          this.space(context);
          this.addText(alt, context);
          this.space(context);
        }
      }
      return;
    }
    if (draft && !draft.collects) this.flushText();
    const childClip = overflowClips && !contents ? meet(ownClip, box) : ownClip;
    const disabledFieldset = tag === 'fieldset' && element.matches(':disabled');
    const childContext: Context = {
      clip: childClip,
      absoluteClip: position !== 'static' ? childClip : context.absoluteClip,
      owner: draft ?? context.owner,
      sink: draft ? (draft.collects ? draft : undefined) : context.sink,
      hidden,
      inert: inert || disabledFieldset,
    };
    // HTML leaves the controls in the first legend of a disabled fieldset enabled.
    const enabledLegend = disabledFieldset ? [...element.children].find((child) => child.localName === 'legend') : undefined;
    const legendContext: Context = { ...childContext, inert };
    const closedDetails = tag === 'details' && !(element as HTMLDetailsElement).open;
    let ownTextHidden: boolean | undefined; // read only for elements with text of their own
    // content-visibility: hidden (hidden="until-found" too) renders none of the contents, though script still gets their boxes.
    const contentsSkipped = style.contentVisibility === 'hidden';
    const lays = display === 'flex' || display === 'inline-flex' ? !style.flexDirection.startsWith('column') : display === 'grid' || display === 'inline-grid';
    const childRow = lays ? { bottom: -infinite } : undefined;
    for (const child of contentsSkipped ? [] : this.childrenOf(element)) {
      if (closedDetails && (child.nodeType !== 1 || (child as Element).localName !== 'summary')) continue;
      if (child.nodeType === 3) {
        if (outside) continue;
        ownTextHidden ??= textHiddenBy(style, rect);
        if (!ownTextHidden) this.walkText(child as Text, box, childContext);
      } else if (child.nodeType === 1) {
        this.walk(child as Element, child === enabledLegend ? legendContext : childContext, style, box, childRow);
      }
    }
    if (draft && !draft.collects) this.flushText();
    // In a row, the next sibling decides whether a new line starts.
    if (block && !row) this.lineBreak(context);
    else if (spaced) this.space(context);
  }

  /** Lists the element when a person can act on it here; returns its draft. */
  private consider(
    element: Element,
    tag: string,
    role: string | null,
    style: CSSStyleDeclaration,
    parentStyle: CSSStyleDeclaration | undefined,
    box: Box,
    clip: Box,
    scroll: { above: number; below: number } | undefined,
    context: Context,
  ): Draft | undefined {
    let { level, weak } = interactivityOf(element, tag, style, parentStyle);
    if (tag === 'label' && labelStandsIn(element as HTMLLabelElement)) {
      level = 2;
      weak = false;
    }
    // The document's roots are never controls (event delegation, analytics), unless editable.
    if ((tag === 'html' || tag === 'body') && !(element as HTMLElement).isContentEditable) level = 0;
    if (scroll && (level === 0 || weak)) {
      level = 2;
      weak = false;
    }
    if (level === 0) return undefined;
    // A sliver of a pixel (a tracking link, a collapsed bar) is nothing a person can click.
    if (box.right - box.left <= 1 || box.bottom - box.top <= 1) return undefined;
    // A pointer cursor inside a listed control is part of it, unless it marks an item of a list.
    if (level === 1 && context.sink && !isOwnTarget(element, tag)) return undefined;
    if (weak && isDelegationRoot(element, tag, box, this.viewport.right, this.viewport.bottom)) return undefined;
    if (isDisabled(element, tag)) return undefined;
    const collects = !scroll && !(role !== null && containerRoles.has(role)) && tag !== 'details';
    // Text before the element belongs before it; the element's own text goes to its lines.
    if (!context.sink) this.flushText();
    const draft: Draft = { element, tag, owner: context.owner, weak, collects, lines: new LineBuffer(), box, clip, scroll, listedInside: 0, fate: 'kept' };
    for (let owner = context.owner; owner; owner = owner.owner) owner.listedInside++;
    this.entries.push({ kind: 'element', draft });
    this.drafts.push(draft);
    return draft;
  }

  /**
   * Top-most check, only where something could cover the element: hit-testing costs up to a
   * fraction of a millisecond per call on heavy pages, so elements clear of every overlay skip it.
   */
  private markCovered(): void {
    for (const draft of this.drafts) {
      const visible = meet(meet(draft.box, this.viewport), draft.clip);
      if (isEmpty(visible)) continue;
      const threatened = this.occluders.some(
        (occluder) => intersects(occluder.box, visible) && !occluder.element.contains(draft.element) && !draft.element.contains(occluder.element),
      );
      if (threatened && !isTopMost(draft.element, draft.box, draft.clip, this.viewport, this.occluders)) draft.fate = 'covered';
    }
  }
}
