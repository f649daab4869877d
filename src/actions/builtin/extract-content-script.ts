// The page script of `extract_content`: one frame's content as small, clean HTML (what a reader
// sees, no script, style or hidden text). It must stay self-contained (drivers serialise `run`).

import type { PageScript } from '../../browser/types';

/** What the core asks of {@link extractHtmlScript}. */
export interface ExtractHtmlOptions {
  /** Stop writing HTML past this many characters (and say so with `truncated`). */
  readonly maxChars: number;
  /** Stop the walk after this many nodes (and say so with `truncated`). */
  readonly maxNodes: number;
}

/** One frame's content as {@link extractHtmlScript} returns it. */
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

/* v8 ignore start -- runs inside the page, where Node's coverage cannot see it */
function runExtractHtml(options: ExtractHtmlOptions): ExtractHtmlResult {
  const maxChars = Math.max(1000, options.maxChars);
  const maxNodes = Math.max(100, options.maxNodes);
  const closedRoots = (window as unknown as Record<string, unknown>)['__plannavShadowRoots'] as WeakMap<Element, ShadowRoot> | undefined;

  const out: string[] = [];
  let length = 0;
  let truncated = false;
  let visited = 0;
  let lastEmitted = '';

  const emit = (piece: string): void => {
    if (truncated || !piece) return;
    if (length + piece.length > maxChars) {
      truncated = true;
      return;
    }
    out.push(piece);
    length += piece.length;
    lastEmitted = piece;
  };
  /** Takes back the line breaks and spaces just written (a cell's last block needs no break). */
  const dropTrailingBreak = (): void => {
    while (out.length > 0 && (lastEmitted === '<br>' || lastEmitted === ' ')) {
      out.pop();
      length -= lastEmitted.length;
      lastEmitted = out[out.length - 1] ?? '';
    }
  };
  const escapeText = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const escapeAttribute = (text: string): string => escapeText(text).replace(/"/g, '&quot;');
  const collapse = (text: string): string => text.replace(/\s+/g, ' ');
  const cap = (text: string, limit: number): string => (text.length > limit ? `${text.slice(0, limit)}…` : text);
  const fieldText = (text: string): string => escapeText(cap(collapse(text).trim(), 300));

  const skipTags = new Set([
    'script', 'style', 'noscript', 'template', 'svg', 'math', 'canvas', 'iframe', 'frame', 'frameset', 'object', 'embed',
    'video', 'audio', 'source', 'track', 'head', 'meta', 'link', 'title', 'base', 'map', 'area', 'wbr',
  ]);
  // Tags written as they are, and tags written as another one.
  const sameTags = new Set([
    'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'blockquote', 'pre', 'ul', 'ol', 'li', 'table', 'caption', 'thead', 'tbody',
    'tfoot', 'tr', 'th', 'td', 'strong', 'em', 'code', 'del',
  ]);
  const renamed: Record<string, string> = {
    b: 'strong', i: 'em', s: 'del', strike: 'del', kbd: 'code', samp: 'code', tt: 'code', var: 'em', dd: 'p', figcaption: 'p',
    address: 'p', menu: 'ul', dir: 'ul',
  };
  // Blocks whose text is a caption for what follows: written as a bold paragraph.
  const boldBlocks = new Set(['dt', 'summary', 'legend']);
  // Inside a table cell (one markdown line) these end with a line break, and these others vanish.
  const blockInCell = new Set(['p', 'div', 'li', 'tr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'dt', 'dd', 'summary', 'legend', 'caption', 'figcaption']);
  const wrapperInCell = new Set(['table', 'thead', 'tbody', 'tfoot', 'ul', 'ol', 'dl', 'menu', 'dir', 'figure', 'details', 'fieldset']);
  const linkSchemes = new Set(['http:', 'https:', 'mailto:', 'tel:', 'ftp:']);
  const textInputs = new Set([
    'text', 'search', 'email', 'number', 'tel', 'url', 'date', 'datetime-local', 'month', 'week', 'time', 'color', 'range', '',
  ]);

  const here = location.href.split('#')[0];
  /** The absolute URL of a link or image; none for script links and for jumps within this document. */
  const absoluteUrl = (value: string): string | undefined => {
    try {
      const url = new URL(value, document.baseURI);
      if (!linkSchemes.has(url.protocol)) return undefined;
      if (url.hash && url.href.split('#')[0] === here) return undefined;
      return url.href;
    } catch {
      return undefined;
    }
  };

  /** Clipped to nothing: clip-path inset(50%) or more, or clip: rect() of no width or height. */
  const clippedAway = (style: CSSStyleDeclaration, position: string): boolean => {
    const clipPath = style.clipPath;
    if (clipPath && clipPath !== 'none') {
      const inset = /^inset\(\s*([\d.]+)%/.exec(clipPath);
      if (inset && Number(inset[1]) >= 50) return true;
    }
    if (position === 'absolute' || position === 'fixed') {
      const clipRect = style.clip;
      const edges = clipRect && clipRect !== 'auto' ? /^rect\(\s*([-\d.]+)px,?\s*([-\d.]+)px,?\s*([-\d.]+)px,?\s*([-\d.]+)px\s*\)$/.exec(clipRect) : null;
      if (edges && (Number(edges[2]) - Number(edges[4]) <= 1 || Number(edges[3]) - Number(edges[1]) <= 1)) return true;
    }
    return false;
  };

  /** The element's own text cannot be read: hidden, a zero font size, or indented far beyond the left edge. */
  const ownTextHidden = (style: CSSStyleDeclaration, rect: DOMRect): boolean => {
    if (style.visibility === 'hidden' || style.visibility === 'collapse') return true;
    if (parseFloat(style.fontSize) === 0) return true;
    const indent = style.textIndent;
    const amount = parseFloat(indent);
    if (!Number.isFinite(amount) || amount >= 0) return false;
    if (indent.endsWith('%')) return amount <= -100;
    return rect.left + window.scrollX + amount <= -999;
  };

  /** The nodes rendered as the element's children: its shadow tree, or what a slot shows. */
  const childrenOf = (node: Node): ArrayLike<Node> => {
    if (node instanceof HTMLSlotElement) {
      const assigned = node.assignedNodes({ flatten: true });
      return assigned.length > 0 ? assigned : node.childNodes;
    }
    if (node instanceof Element) {
      const shadow = node.shadowRoot ?? closedRoots?.get(node);
      if (shadow) return shadow.childNodes;
    }
    return node.childNodes;
  };

  type Context = { pre: boolean; cell: boolean; textHidden: boolean };

  const walkChildren = (node: Node, context: Context): void => {
    const children = childrenOf(node);
    for (let index = 0; index < children.length && !truncated; index++) walkNode(children[index] as Node, context);
  };

  const writeField = (element: Element, tag: string): void => {
    if (tag === 'select') {
      const select = element as HTMLSelectElement;
      const chosen = Array.from(select.selectedOptions, (option) => fieldText(option.text)).filter(Boolean);
      const all = Array.from(select.options).slice(0, 50).map((option) => fieldText(option.text)).filter(Boolean);
      const more = select.options.length > 50 ? ` / … ${select.options.length} in all` : '';
      emit(` (selected: ${chosen.join(', ') || 'none'}; options: ${all.join(' / ')}${more}) `);
      return;
    }
    if (tag === 'textarea') {
      const value = (element as HTMLTextAreaElement).value;
      if (value.trim()) emit(` (field: ${fieldText(value)}) `);
      return;
    }
    const input = element as HTMLInputElement;
    const type = (input.getAttribute('type') ?? '').toLowerCase();
    if (type === 'checkbox' || type === 'radio') emit(input.checked ? ' (checked) ' : ' (not checked) ');
    else if (type === 'submit' || type === 'button' || type === 'reset') emit(` ${fieldText(input.value)} `);
    else if (type === 'image') emit(` ${fieldText(input.alt)} `);
    else if (textInputs.has(type) && input.value.trim()) emit(` (field: ${fieldText(input.value)}) `);
    // hidden, password and file inputs show nothing worth extracting.
  };

  const walkNode = (node: Node, context: Context): void => {
    if (++visited > maxNodes) {
      truncated = true;
      return;
    }
    if (node.nodeType === Node.TEXT_NODE) {
      if (context.textHidden) return;
      const data = (node as Text).data;
      if (context.pre) emit(escapeText(data));
      else if (data.trim()) emit(escapeText(collapse(data)));
      else if (lastEmitted !== ' ') emit(' ');
      return;
    }
    if (!(node instanceof Element)) {
      if (node.nodeType === Node.DOCUMENT_FRAGMENT_NODE) walkChildren(node, context);
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

    if (tag === 'details' && !(element as HTMLDetailsElement).open) {
      // A closed <details> shows only its summary (its content is not laid out).
      const summary = Array.from(element.children).find((child) => child.localName === 'summary');
      if (summary) walkNode(summary, childContext);
      return;
    }
    if (tag === 'br') {
      emit('<br>');
      return;
    }
    if (tag === 'hr') {
      if (!context.cell) emit('<hr>');
      return;
    }
    if (tag === 'img') {
      const alt = collapse(element.getAttribute('alt') ?? '').trim();
      if (!alt || childContext.textHidden) return;
      const image = element as HTMLImageElement;
      const source = absoluteUrl(image.currentSrc || image.src);
      emit(source ? `<img alt="${escapeAttribute(cap(alt, 300))}" src="${escapeAttribute(source)}">` : ` ${escapeText(cap(alt, 300))} `);
      return;
    }
    if (tag === 'input' || tag === 'select' || tag === 'textarea') {
      if (!childContext.textHidden) writeField(element, tag);
      return;
    }
    if (tag === 'a') {
      const href = element.getAttribute('href');
      const url = href === null ? undefined : absoluteUrl(href);
      emit(url ? `<a href="${escapeAttribute(url)}">` : '');
      walkChildren(element, childContext);
      emit(url ? '</a>' : '');
      return;
    }
    if (context.pre) {
      walkChildren(element, childContext);
      return;
    }
    if (context.cell) {
      // Markdown table cells hold one line: a table or list inside one is flattened.
      if (tag === 'td' || tag === 'th') {
        walkChildren(element, childContext);
        dropTrailingBreak();
        emit(' ');
        return;
      }
      if (wrapperInCell.has(tag)) {
        walkChildren(element, childContext);
        return;
      }
      if (blockInCell.has(tag)) {
        if (tag === 'li') emit('• ');
        walkChildren(element, childContext);
        if (lastEmitted !== '<br>') emit('<br>');
        return;
      }
    }
    if (tag === 'td' || tag === 'th') {
      const span = Number(element.getAttribute('colspan') ?? '1');
      emit(span > 1 && span <= 100 ? `<${tag} colspan="${span}">` : `<${tag}>`);
      walkChildren(element, { ...childContext, cell: true });
      dropTrailingBreak();
      emit(`</${tag}>`);
      return;
    }
    if (tag === 'ol') {
      const start = Number(element.getAttribute('start') ?? '1');
      emit(Number.isInteger(start) && start !== 1 ? `<ol start="${start}">` : '<ol>');
      walkChildren(element, childContext);
      emit('</ol>');
      return;
    }
    const name = sameTags.has(tag) ? tag : renamed[tag];
    if (name) {
      emit(`<${name}>`);
      walkChildren(element, childContext);
      emit(`</${name}>`);
      return;
    }
    if (boldBlocks.has(tag)) {
      emit('<p><strong>');
      walkChildren(element, childContext);
      emit('</strong></p>');
      return;
    }
    // Any other element: a block when it is laid out as one, else nothing but its content.
    const block = !contents && !display.startsWith('inline') && !context.cell;
    if (block) emit('<div>');
    walkChildren(element, childContext);
    if (block) emit('</div>');
  };

  const root = document.body ?? document.documentElement;
  if (root) walkNode(root, { pre: false, cell: false, textHidden: false });
  return { url: location.href, title: document.title, html: out.join(''), truncated };
}
/* v8 ignore stop */

/**
 * The page script of `extract_content`: the frame's visible content as small, clean HTML for the
 * markdown converter. Scripts, styles, SVG, canvas, media, frames and hidden content (display,
 * visibility, opacity, aria-hidden, clipped or placed off the page) are left out; links keep
 * absolute URLs, images their alt text; open and closed shadow roots are walked.
 */
export const extractHtmlScript: PageScript<ExtractHtmlOptions, ExtractHtmlResult> = {
  id: 'plannav.extract-html@1',
  run: runExtractHtml,
};
