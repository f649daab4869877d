// The page side of extract_content: one frame's content as small, clean HTML (what a reader sees;
// no script, style or hidden text) for the markdown converter in Node. Reads only.

import { cap } from '../text';
import { clippedAway, textHiddenBy } from '../visibility';
import { renderedChildren } from './rendered-tree';

/** What the core asks of {@link extractHtml}. */
export interface ExtractHtmlOptions {
  /** Stop writing HTML past this many characters (and say so with `truncated`). */
  readonly maxChars: number;
  /** Stop the walk after this many nodes (and say so with `truncated`). */
  readonly maxNodes: number;
}

/** One frame's content as {@link extractHtml} returns it. */
export interface ExtractHtmlResult {
  /** The frame document's URL. */
  readonly url: string;
  /** The frame document's title. */
  readonly title: string;
  /**
   * The content as HTML of a small vocabulary: headings, paragraphs, lists, tables, links with
   * absolute `href`, images with their alt text, emphasis and code; form fields as bracketed text.
   */
  readonly html: string;
  /** The page was longer than `maxChars` or `maxNodes`: the end is missing. */
  readonly truncated: boolean;
}

const skipTags = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'canvas',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'video',
  'audio',
  'source',
  'track',
  'head',
  'meta',
  'link',
  'title',
  'base',
  'map',
  'area',
  'wbr',
]);
/** Tags written as they are. */
const sameTags = new Set([
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'p',
  'blockquote',
  'pre',
  'ul',
  'ol',
  'li',
  'table',
  'caption',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'th',
  'td',
  'strong',
  'em',
  'code',
  'del',
]);
/** Tags written as another one. */
const renamed: Readonly<Record<string, string>> = {
  b: 'strong',
  i: 'em',
  s: 'del',
  strike: 'del',
  kbd: 'code',
  samp: 'code',
  tt: 'code',
  var: 'em',
  dd: 'p',
  figcaption: 'p',
  address: 'p',
  menu: 'ul',
  dir: 'ul',
};
/** Blocks whose text is a caption for what follows: written as a bold paragraph. */
const boldBlocks = new Set(['dt', 'summary', 'legend']);
/** Inside a table cell (one markdown line) these end with a line break… */
const blockInCell = new Set([
  'p',
  'div',
  'li',
  'tr',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'blockquote',
  'pre',
  'dt',
  'dd',
  'summary',
  'legend',
  'caption',
  'figcaption',
]);
/** …and these vanish. */
const wrapperInCell = new Set(['table', 'thead', 'tbody', 'tfoot', 'ul', 'ol', 'dl', 'menu', 'dir', 'figure', 'details', 'fieldset']);
const linkSchemes = new Set(['http:', 'https:', 'mailto:', 'tel:', 'ftp:']);
const textInputs = new Set(['text', 'search', 'email', 'number', 'tel', 'url', 'date', 'datetime-local', 'month', 'week', 'time', 'color', 'range', '']);

const escapeText = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttribute = (text: string): string => escapeText(text).replace(/"/g, '&quot;');
/** Folds whitespace as HTML shows it (without trimming: the spaces between inline runs matter). */
const fold = (text: string): string => text.replace(/\s+/g, ' ');
const fieldText = (text: string): string => escapeText(cap(fold(text).trim(), 300));

/** The absolute URL of a link or image; none for script links and for jumps within this document. */
function absoluteUrl(value: string): string | undefined {
  try {
    const url = new URL(value, document.baseURI);
    if (!linkSchemes.has(url.protocol)) return undefined;
    if (url.hash && url.href.split('#')[0] === location.href.split('#')[0]) return undefined;
    return url.href;
  } catch {
    return undefined;
  }
}

/** The element's own text cannot be read: hidden, a zero font size, or indented far beyond the left edge. */
function ownTextHidden(style: CSSStyleDeclaration, rect: DOMRect): boolean {
  return style.visibility === 'hidden' || style.visibility === 'collapse' || textHiddenBy(style, rect);
}

/** What an element passes to its children. */
interface Context {
  readonly pre: boolean;
  readonly cell: boolean;
  readonly textHidden: boolean;
}

/** Writes one frame's HTML, bounded by characters and nodes. */
class HtmlWriter {
  truncated = false;
  private readonly out: string[] = [];
  private length = 0;
  private visited = 0;
  private lastEmitted = '';

  constructor(
    private readonly maxChars: number,
    private readonly maxNodes: number,
  ) {}

  get html(): string {
    return this.out.join('');
  }

  private emit(piece: string): void {
    if (this.truncated || !piece) return;
    if (this.length + piece.length > this.maxChars) {
      this.truncated = true;
      return;
    }
    this.out.push(piece);
    this.length += piece.length;
    this.lastEmitted = piece;
  }

  /** Takes back the line breaks and spaces just written (a cell's last block needs no break). */
  private dropTrailingBreak(): void {
    while (this.out.length > 0 && (this.lastEmitted === '<br>' || this.lastEmitted === ' ')) {
      this.out.pop();
      this.length -= this.lastEmitted.length;
      this.lastEmitted = this.out[this.out.length - 1] ?? '';
    }
  }

  private walkChildren(node: Node, context: Context): void {
    const children = renderedChildren(node);
    for (let index = 0; index < children.length && !this.truncated; index++) this.walk(children[index] as Node, context);
  }

  private writeField(element: Element, tag: string): void {
    if (tag === 'select') {
      const select = element as HTMLSelectElement;
      const chosen = Array.from(select.selectedOptions, (option) => fieldText(option.text)).filter(Boolean);
      const all = Array.from(select.options)
        .slice(0, 50)
        .map((option) => fieldText(option.text))
        .filter(Boolean);
      const more = select.options.length > 50 ? ` / … ${select.options.length} in all` : '';
      this.emit(` (selected: ${chosen.join(', ') || 'none'}; options: ${all.join(' / ')}${more}) `);
      return;
    }
    if (tag === 'textarea') {
      const value = (element as HTMLTextAreaElement).value;
      if (value.trim()) this.emit(` (field: ${fieldText(value)}) `);
      return;
    }
    const input = element as HTMLInputElement;
    const type = (input.getAttribute('type') ?? '').toLowerCase();
    if (type === 'checkbox' || type === 'radio') this.emit(input.checked ? ' (checked) ' : ' (not checked) ');
    else if (type === 'submit' || type === 'button' || type === 'reset') this.emit(` ${fieldText(input.value)} `);
    else if (type === 'image') this.emit(` ${fieldText(input.alt)} `);
    else if (textInputs.has(type) && input.value.trim()) this.emit(` (field: ${fieldText(input.value)}) `);
    // hidden, password and file inputs show nothing worth extracting.
  }

  /** Writes a node and what it renders. */
  walk(node: Node, context: Context): void {
    if (++this.visited > this.maxNodes) {
      this.truncated = true;
      return;
    }
    if (node.nodeType === Node.TEXT_NODE) {
      if (context.textHidden) return;
      const data = (node as Text).data;
      if (context.pre) this.emit(escapeText(data));
      else if (data.trim()) this.emit(escapeText(fold(data)));
      else if (this.lastEmitted !== ' ') this.emit(' ');
      return;
    }
    if (!(node instanceof Element)) {
      if (node.nodeType === Node.DOCUMENT_FRAGMENT_NODE) this.walkChildren(node, context);
      return;
    }
    const element = node;
    const tag = element.localName;
    if (skipTags.has(tag) || element.namespaceURI !== 'http://www.w3.org/1999/xhtml') return;
    if (element.getAttribute('aria-hidden') === 'true') return;
    if (tag === 'input' && (element as HTMLInputElement).type === 'hidden') return;

    const style = window.getComputedStyle(element);
    const display = style.display;
    if (display === 'none' || style.opacity === '0') return;
    const position = style.position;
    if (clippedAway(style, position)) return;
    const contents = display === 'contents';
    const rect = element.getBoundingClientRect();
    if (!contents) {
      const hasSize = rect.width > 0 && rect.height > 0;
      const overflowClips = style.overflowX !== 'visible' || style.overflowY !== 'visible';
      // The 1-pixel screen-reader pattern, a collapsed section.
      if (overflowClips && (rect.width <= 1 || rect.height <= 1)) return;
      // Laid out to nothing by content-visibility or a closed <details>.
      if (!hasSize && typeof element.checkVisibility === 'function' && !element.checkVisibility()) return;
      // Placed beyond the document's left or top edge, where no one can scroll to it.
      if (hasSize && (position === 'absolute' || position === 'fixed') && (rect.right + window.scrollX <= 0 || rect.bottom + window.scrollY <= 0)) return;
    }
    const childContext: Context = { pre: context.pre || tag === 'pre', cell: context.cell, textHidden: ownTextHidden(style, rect) };
    this.writeElement(element, tag, display, contents, context, childContext);
  }

  private writeElement(element: Element, tag: string, display: string, contents: boolean, context: Context, childContext: Context): void {
    if (tag === 'details' && !(element as HTMLDetailsElement).open) {
      // A closed <details> shows only its summary (its content is not laid out).
      const summary = Array.from(element.children).find((child) => child.localName === 'summary');
      if (summary) this.walk(summary, childContext);
      return;
    }
    if (tag === 'br') {
      this.emit('<br>');
      return;
    }
    if (tag === 'hr') {
      if (!context.cell) this.emit('<hr>');
      return;
    }
    if (tag === 'img') {
      const alt = fold(element.getAttribute('alt') ?? '').trim();
      if (!alt || childContext.textHidden) return;
      const image = element as HTMLImageElement;
      const source = absoluteUrl(image.currentSrc || image.src);
      this.emit(source ? `<img alt="${escapeAttribute(cap(alt, 300))}" src="${escapeAttribute(source)}">` : ` ${escapeText(cap(alt, 300))} `);
      return;
    }
    if (tag === 'input' || tag === 'select' || tag === 'textarea') {
      if (!childContext.textHidden) this.writeField(element, tag);
      return;
    }
    if (tag === 'a') {
      const href = element.getAttribute('href');
      const url = href === null ? undefined : absoluteUrl(href);
      this.emit(url ? `<a href="${escapeAttribute(url)}">` : '');
      this.walkChildren(element, childContext);
      this.emit(url ? '</a>' : '');
      return;
    }
    if (context.pre) {
      this.walkChildren(element, childContext);
      return;
    }
    if (context.cell) {
      // Markdown table cells hold one line: a table or list inside one is flattened.
      if (tag === 'td' || tag === 'th') {
        this.walkChildren(element, childContext);
        this.dropTrailingBreak();
        this.emit(' ');
        return;
      }
      if (wrapperInCell.has(tag)) {
        this.walkChildren(element, childContext);
        return;
      }
      if (blockInCell.has(tag)) {
        if (tag === 'li') this.emit('• ');
        this.walkChildren(element, childContext);
        if (this.lastEmitted !== '<br>') this.emit('<br>');
        return;
      }
    }
    if (tag === 'td' || tag === 'th') {
      const span = Number(element.getAttribute('colspan') ?? '1');
      this.emit(span > 1 && span <= 100 ? `<${tag} colspan="${span}">` : `<${tag}>`);
      this.walkChildren(element, { ...childContext, cell: true });
      this.dropTrailingBreak();
      this.emit(`</${tag}>`);
      return;
    }
    if (tag === 'ol') {
      const start = Number(element.getAttribute('start') ?? '1');
      this.emit(Number.isInteger(start) && start !== 1 ? `<ol start="${start}">` : '<ol>');
      this.walkChildren(element, childContext);
      this.emit('</ol>');
      return;
    }
    const name = sameTags.has(tag) ? tag : renamed[tag];
    if (name) {
      this.emit(`<${name}>`);
      this.walkChildren(element, childContext);
      this.emit(`</${name}>`);
      return;
    }
    if (boldBlocks.has(tag)) {
      this.emit('<p><strong>');
      this.walkChildren(element, childContext);
      this.emit('</strong></p>');
      return;
    }
    // Any other element: a block when it is laid out as one, else nothing but its content.
    const block = !contents && !display.startsWith('inline') && !context.cell;
    if (block) this.emit('<div>');
    this.walkChildren(element, childContext);
    if (block) this.emit('</div>');
  }
}

/**
 * The frame's visible content as small, clean HTML. Scripts, styles, SVG, canvas, media, frames
 * and hidden content (display, visibility, opacity, aria-hidden, clipped or placed off the page)
 * are left out; links keep absolute URLs, images their alt text; open and closed shadow roots are walked.
 */
export function extractHtml(options: ExtractHtmlOptions): ExtractHtmlResult {
  const writer = new HtmlWriter(Math.max(1000, options.maxChars), Math.max(100, options.maxNodes));
  const root = document.body ?? document.documentElement;
  if (root) writer.walk(root, { pre: false, cell: false, textHidden: false });
  return { url: location.href, title: document.title, html: writer.html, truncated: writer.truncated };
}
