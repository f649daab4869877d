// The snapshot script as it was before the page runtime (one self-contained ~540-line function),
// kept only so that `npm run bench` can measure the old path beside the new one in the same run.
// Nothing in src/ uses it; delete it once the bench no longer compares the two.

import type { FrameSnapshot, SnapshotElement, SnapshotItem, SnapshotScriptOptions } from '../../src/dom/types';

/** A mutable element entry while the walk fills in its text. */
type Draft = { -readonly [K in keyof SnapshotElement]: SnapshotElement[K] } & { parts: string[] };

/** A rectangle as the walk uses it: edges, not sizes. */
type Box = { top: number; bottom: number; left: number; right: number };

/** What an element passes to its children during the walk. */
type Context = {
  /** The area inside which a static or relative child can be seen (overflow clipping). */
  clip: Box;
  /** The same for absolutely positioned children: the clip at the nearest positioned ancestor. */
  absoluteClip: Box;
  /** Number of indexed ancestors (indentation depth). */
  depth: number;
  /** The nearest indexed ancestor that collects text, if any. */
  sink: Draft | undefined;
  /** An ancestor is visibility:hidden (children may override it). */
  hidden: boolean;
  /** Inside an `inert` subtree or a disabled fieldset: nothing is indexed. */
  inert: boolean;
  /** Inside an indexed element: only distinct interactions get their own index. */
  insideIndexed: boolean;
};

/* v8 ignore start -- runs inside the page, where Node's coverage cannot see it */
function runSnapshot(options: SnapshotScriptOptions): FrameSnapshot {
  // Everything below runs in the page. Per-document state lives on window so element ids survive
  // between calls; the token tells documents apart, so an id never matches in another document.
  type State = { token: string; next: number; ids: WeakMap<Element, string>; elements: Map<string, WeakRef<Element>> };
  const host = window as unknown as Record<string, unknown>;
  const state = (host['__plannavSnapshot'] as State | undefined) ?? {
    token: Math.random().toString(36).slice(2, 8),
    next: 1,
    ids: new WeakMap<Element, string>(),
    elements: new Map<string, WeakRef<Element>>(),
  };
  host['__plannavSnapshot'] = state;
  state.elements = new Map();
  // Filled by the listener recorder (listener-script.ts) when the driver installed it before page scripts.
  const listened = host['__plannavListeners'] as WeakSet<EventTarget> | undefined;
  const closedRoots = host['__plannavShadowRoots'] as WeakMap<Element, ShadowRoot> | undefined;

  const maxText = Math.max(8, options.maxTextLength);
  const include = new Set(options.includeAttributes);
  const wholePage = options.viewportExpansion < 0;
  const expansion = Math.max(0, options.viewportExpansion);
  const viewportWidth = window.innerWidth;
  const viewportHeight = window.innerHeight;
  const viewport: Box = { top: 0, bottom: viewportHeight, left: 0, right: viewportWidth };
  const infinite = 1e9;
  // The region whose elements are indexed, in this frame's viewport coordinates.
  let region: Box = wholePage
    ? { top: -window.scrollY - 1, bottom: infinite, left: -window.scrollX - 1, right: infinite }
    : { top: -expansion, bottom: viewportHeight + expansion, left: 0, right: viewportWidth };
  const clip = options.clip;
  if (clip && !wholePage) {
    region = {
      top: Math.max(region.top, clip.y),
      bottom: Math.min(region.bottom, clip.y + clip.height),
      left: Math.max(region.left, clip.x),
      right: Math.min(region.right, clip.x + clip.width),
    };
  }
  const everywhere: Box = { top: -infinite, bottom: infinite, left: -infinite, right: infinite };

  const nativeTags = new Set(['a', 'button', 'input', 'select', 'textarea', 'summary', 'option']);
  const widgetRoles = new Set([
    'button',
    'link',
    'checkbox',
    'radio',
    'switch',
    'tab',
    'menuitem',
    'menuitemcheckbox',
    'menuitemradio',
    'option',
    'combobox',
    'textbox',
    'searchbox',
    'slider',
    'spinbutton',
    'treeitem',
    'gridcell',
    'row',
    'columnheader',
  ]);
  const containerRoles = new Set(['listbox', 'menu', 'menubar', 'tree', 'tablist', 'grid', 'radiogroup', 'toolbar', 'dialog', 'tabpanel']);
  const skipTags = new Set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link', 'title', 'iframe', 'frame', 'object', 'embed', 'br', 'wbr']);
  // Tags that start a new line of text (the usual display:block ones), without reading styles.
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
    'td',
    'th',
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
    'label',
    'option',
  ]);
  const textless = new Set(['input', 'select', 'textarea', 'img', 'svg', 'canvas', 'video', 'audio']);
  const valueless = new Set(['checkbox', 'radio', 'submit', 'button', 'reset', 'image', 'hidden', 'password']);

  const collapse = (value: string): string => value.replace(/\s+/g, ' ').trim();
  const cap = (value: string, limit = maxText): string => (value.length > limit ? `${value.slice(0, limit)}…` : value);
  const intersects = (a: Box, b: Box): boolean => a.left < b.right && a.right > b.left && a.top < b.bottom && a.bottom > b.top;
  const meet = (a: Box, b: Box): Box => ({
    top: Math.max(a.top, b.top),
    bottom: Math.min(a.bottom, b.bottom),
    left: Math.max(a.left, b.left),
    right: Math.min(a.right, b.right),
  });

  const idOf = (element: Element): string => {
    let id = state.ids.get(element);
    if (id === undefined) {
      id = `${state.token}-${state.next++}`;
      state.ids.set(element, id);
    }
    state.elements.set(id, new WeakRef(element));
    return id;
  };

  /** A selector that names the element itself (id, name, test id), never a position that another element could take. */
  const selectorOf = (element: Element): string | undefined => {
    const quoted = (value: string): string => `"${value.replace(/["\\]/g, '\\$&')}"`;
    const tag = element.localName;
    if (element.id) return `${tag}[id=${quoted(element.id)}]`;
    const name = element.getAttribute('name');
    if (name && document.getElementsByName(name).length === 1) return `${tag}[name=${quoted(name)}]`;
    const testId = element.getAttribute('data-testid');
    if (testId) return `${tag}[data-testid=${quoted(testId)}]`;
    return undefined;
  };

  /** A short word from an id, class or file name, for controls that show only an icon. */
  const iconHint = (element: Element): string => {
    const named = element.querySelector('[aria-label],[title],img[alt],svg title');
    if (named) {
      const label =
        named.getAttribute('aria-label') ||
        named.getAttribute('title') ||
        named.getAttribute('alt') ||
        (named.tagName.toLowerCase() === 'title' ? named.textContent : '');
      if (label && label.trim()) return cap(collapse(label), 40);
    }
    const words: string[] = [];
    const take = (value: string | null | undefined): void => {
      if (!value) return;
      for (const word of value.split(/[\s_]+/)) {
        const cleaned = word.replace(/^(fa[srlbd]?|bi|glyphicon|material-icons|icon|ico|mdi|ti|la|svg|btn|button)-/i, '').replace(/[^a-z0-9-]/gi, '');
        if (cleaned.length > 1 && !/^(fa|icon|btn|button|js|is|has|active|ui|sm|lg|xs|md|[a-z]\d*|\d+)$/i.test(cleaned) && !words.includes(cleaned)) {
          words.push(cleaned);
        }
      }
    };
    take(element.id);
    take(element.getAttribute('class'));
    for (const child of element.querySelectorAll('i,span,svg,use,img')) {
      if (words.length >= 3) break;
      take(child.getAttribute('class'));
      const source = child.getAttribute('src') || child.getAttribute('href') || child.getAttribute('xlink:href');
      if (source)
        take(
          source
            .split(/[/#?]/)
            .filter(Boolean)
            .pop()
            ?.replace(/\.\w+$/, ''),
        );
      take(child.getAttribute('data-icon'));
    }
    return cap(words.slice(0, 3).join(' '), 40);
  };

  /** How strongly an element asks to be clicked: 2 on its own, 1 only by its pointer cursor, 0 not. */
  const interactivity = (element: Element, tag: string, style: CSSStyleDeclaration, parentStyle: CSSStyleDeclaration | undefined): number => {
    if (nativeTags.has(tag) && (tag !== 'a' || element.hasAttribute('href'))) {
      if (tag === 'input') return (element as HTMLInputElement).type === 'hidden' ? 0 : 2;
      if (tag === 'option') return element.parentElement?.tagName === 'SELECT' || element.parentElement?.tagName === 'OPTGROUP' ? 0 : 2;
      return 2;
    }
    const role = element.getAttribute('role');
    if (role && widgetRoles.has(role)) return 2;
    if (tag === 'label') return 0; // handled by labelTarget: a label is indexed only when its control is not
    if ((element as HTMLElement).isContentEditable && !element.parentElement?.isContentEditable) return 2;
    if (listened?.has(element) || element.hasAttribute('onclick') || typeof (element as HTMLElement).onclick === 'function') return 2;
    const tabIndex = element.getAttribute('tabindex');
    if (tabIndex !== null && Number(tabIndex) >= 0) return 2;
    if (element.getAttribute('aria-haspopup') === 'true' || element.getAttribute('aria-haspopup') === 'menu') return 2;
    // A pointer cursor the element sets itself (not inherited from a clickable parent).
    if (style.cursor === 'pointer' && (!parentStyle || parentStyle.cursor !== 'pointer')) return 1;
    return 0;
  };

  /** A label whose control cannot be clicked itself (a styled checkbox): the label stands for it. */
  const labelStandsIn = (label: HTMLLabelElement): boolean => {
    const control = label.control;
    if (!control) return false;
    const box = control.getBoundingClientRect();
    if (box.width <= 1 || box.height <= 1) return true;
    const style = window.getComputedStyle(control);
    return style.opacity === '0' || style.visibility === 'hidden';
  };

  const isDisabled = (element: Element, tag: string): boolean => {
    if (element.getAttribute('aria-disabled') === 'true') return true;
    if (tag === 'button' || tag === 'input' || tag === 'select' || tag === 'textarea' || tag === 'option' || tag === 'fieldset') {
      return element.matches(':disabled');
    }
    return false;
  };

  /** True when the element, or something inside it, is what the viewport shows at its position. */
  const isTopMost = (element: Element, box: Box, clip: Box): boolean => {
    const visible = meet(meet(box, viewport), clip);
    if (visible.right - visible.left < 1 || visible.bottom - visible.top < 1) return true; // outside the viewport: cannot hit-test
    const root = element.getRootNode() as Document | ShadowRoot;
    const hitTester = typeof root.elementFromPoint === 'function' ? root : document;
    const width = visible.right - visible.left;
    const height = visible.bottom - visible.top;
    const points: [number, number][] = [[visible.left + width / 2, visible.top + height / 2]];
    if (width > 8 && height > 8) {
      points.push(
        [visible.left + 4, visible.top + 4],
        [visible.right - 4, visible.bottom - 4],
        [visible.left + 4, visible.bottom - 4],
        [visible.right - 4, visible.top + 4],
      );
    }
    for (const [x, y] of points) {
      const hit = hitTester.elementFromPoint(x, y);
      if (hit && (hit === element || element.contains(hit))) return true;
      // Under a layer that covers the whole element (a modal, a cookie wall): no other point can win.
      if (
        hit &&
        occluders.some(
          (occluder) =>
            (occluder.element === hit || occluder.element.contains(hit)) &&
            occluder.box.top <= visible.top &&
            occluder.box.bottom >= visible.bottom &&
            occluder.box.left <= visible.left &&
            occluder.box.right >= visible.right,
        )
      ) {
        return false;
      }
    }
    return false;
  };

  const hrefOf = (element: Element): string | undefined => {
    const raw = element.getAttribute('href');
    if (raw === null) return undefined;
    if (/^\s*javascript:/i.test(raw)) return undefined;
    const absolute = (element as HTMLAnchorElement).href || raw;
    const origin = location.origin;
    const here = location.href.split('#')[0] ?? '';
    const short =
      absolute.startsWith(`${here}#`) && here
        ? absolute.slice(here.length)
        : origin && origin !== 'null' && absolute.startsWith(`${origin}/`)
          ? absolute.slice(origin.length)
          : absolute;
    return cap(collapse(short), Math.min(maxText, 80));
  };

  /** The element's whitelisted attributes and live state (values, checked, selected, expanded). */
  const attributesOf = (element: Element, tag: string): Record<string, string> => {
    const attributes: Record<string, string> = {};
    // A password field shows only what cannot carry its value, whatever includeAttributes asks
    // for: a page may mirror what was typed into aria-valuetext, title or a data attribute.
    if (tag === 'input' && (element as HTMLInputElement).type === 'password') {
      attributes.type = 'password';
      for (const name of ['name', 'placeholder', 'aria-label']) {
        const value = include.has(name) ? element.getAttribute(name) : null;
        if (value !== null && value.trim()) attributes[name] = cap(collapse(value));
      }
      return attributes;
    }
    for (const name of include) {
      if (name === 'value' || name === 'checked' || name === 'selected' || name === 'href') continue;
      if (name === 'type' && tag !== 'input') continue;
      const value = element.getAttribute(name);
      if (value === null || !value.trim()) continue;
      if (name === 'role' && value === tag) continue;
      attributes[name] = cap(collapse(value));
    }
    if (include.has('href')) {
      const href = hrefOf(element);
      if (href) attributes.href = href;
    }
    if (tag === 'input') {
      const input = element as HTMLInputElement;
      const type = input.type;
      if (type === 'checkbox' || type === 'radio') {
        if (input.checked && include.has('checked')) attributes.checked = '';
      } else if (type === 'file') {
        if (input.files && input.files.length > 0 && include.has('value'))
          attributes.value = cap(collapse([...input.files].map((file) => file.name).join(', ')));
      } else if (!valueless.has(type) && input.value && include.has('value')) {
        attributes.value = cap(collapse(input.value));
      } else if ((type === 'submit' || type === 'button' || type === 'reset') && input.value) {
        attributes.value = cap(collapse(input.value));
      }
      if (type === 'range' || type === 'number') {
        if (input.min.trim()) attributes.min = cap(collapse(input.min), 40);
        if (input.max.trim()) attributes.max = cap(collapse(input.max), 40);
      }
    } else if (tag === 'textarea') {
      const value = (element as HTMLTextAreaElement).value;
      if (value && include.has('value')) attributes.value = cap(collapse(value));
    } else if (tag === 'select') {
      const select = element as HTMLSelectElement;
      const chosen = [...select.selectedOptions].map((option) => collapse(option.label || option.text));
      if (chosen.length > 0 && include.has('selected')) attributes.selected = cap(chosen.join(', '));
      const labels: string[] = [];
      let more = 0;
      for (const option of select.options) {
        if (option.disabled) continue;
        if (labels.length < 12) labels.push(cap(collapse(option.label || option.text), 30));
        else more++;
      }
      attributes.options = labels.join('|') + (more > 0 ? `|…${more} more` : '');
    } else if (tag === 'summary') {
      const details = element.parentElement;
      if (details && details.tagName === 'DETAILS') attributes.expanded = (details as HTMLDetailsElement).open ? 'true' : 'false';
    } else if (tag === 'option') {
      if ((element as HTMLOptionElement).selected && include.has('selected')) attributes.selected = '';
    }
    if (tag === 'label') {
      const control = (element as HTMLLabelElement).control;
      if (control instanceof HTMLInputElement && (control.type === 'checkbox' || control.type === 'radio')) {
        attributes.type = control.type;
        if (control.checked && include.has('checked')) attributes.checked = '';
      }
    }
    return attributes;
  };

  const items: SnapshotItem[] = [];
  let pending: string[] = [];
  let pendingDepth = 0;
  const flush = (): void => {
    if (pending.length === 0) return;
    const text = collapse(pending.join(' '));
    pending = [];
    if (text) items.push({ kind: 'text', text: cap(text), depth: pendingDepth });
  };
  const addText = (text: string, context: Context): void => {
    if (context.sink) {
      context.sink.parts.push(text);
      return;
    }
    if (pending.length > 0 && pendingDepth !== context.depth) flush();
    pendingDepth = context.depth;
    pending.push(text);
  };

  const drafts: Draft[] = [];
  const candidates: { draft: Draft; element: Element; box: Box; clip: Box; position: number }[] = [];
  const occluders: { element: Element; box: Box }[] = [];
  let visited = 0;
  const maxVisited = 200_000; // bounds the walk on pathological pages

  const rendersChildrenOf = (node: Node): NodeListOf<ChildNode> | Node[] => {
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

  /** Clipped to nothing: clip-path inset(50%) or more, or clip: rect() of no width or height on a positioned element. */
  const clippedAway = (style: CSSStyleDeclaration, position: string): boolean => {
    const clipPath = style.clipPath;
    if (clipPath && clipPath !== 'none') {
      const inset = /^inset\(\s*([\d.]+)%/.exec(clipPath);
      if (inset && Number(inset[1]) >= 50) return true;
    }
    if (position === 'absolute' || position === 'fixed') {
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- pages still hide text with clip: rect()
      const clipRect = style.clip;
      const edges = clipRect && clipRect !== 'auto' ? /^rect\(\s*([-\d.]+)px,?\s*([-\d.]+)px,?\s*([-\d.]+)px,?\s*([-\d.]+)px\s*\)$/.exec(clipRect) : null;
      if (edges && (Number(edges[2]) - Number(edges[4]) <= 1 || Number(edges[3]) - Number(edges[1]) <= 1)) return true;
    }
    return false;
  };

  /** The element's own text cannot be read: a zero font size, or indented far beyond the left edge (the image-replacement trick). */
  const textHiddenBy = (style: CSSStyleDeclaration, rect: DOMRect): boolean => {
    if (parseFloat(style.fontSize) === 0) return true;
    const indent = style.textIndent;
    const amount = parseFloat(indent);
    if (!Number.isFinite(amount) || amount >= 0) return false;
    if (indent.endsWith('%')) return amount <= -100;
    return rect.left + window.scrollX + amount <= -999;
  };

  const walkText = (node: Text, parentBox: Box, context: Context): void => {
    if (context.hidden) return;
    const raw = node.data;
    if (!raw.trim()) return;
    // Big parents (a body with bare text, a long article) are checked per text node.
    if (!wholePage && (parentBox.top < region.top || parentBox.bottom > region.bottom)) {
      const range = document.createRange();
      range.selectNodeContents(node);
      const rect = range.getBoundingClientRect();
      if (rect.width === 0 && rect.height === 0) return;
      if (!intersects({ top: rect.top, bottom: rect.bottom, left: rect.left, right: rect.right }, meet(region, context.clip))) return;
    }
    addText(raw, context);
  };

  const walk = (element: Element, context: Context, parentStyle: CSSStyleDeclaration | undefined, parentBox: Box): void => {
    if (++visited > maxVisited) return;
    const tag = element.localName;
    if (skipTags.has(tag)) return;
    const onPath = mustVisit.has(element);
    const rect = element.getBoundingClientRect();
    const hasSize = rect.width > 0 && rect.height > 0;
    // Outside the indexed region: what could escape it (fixed bars, overlays) is on a hit path.
    // Checked before the computed style, which is the costly part of a visit. In whole-page mode
    // the region still ends at the document's left and top edges: what lies beyond cannot be seen.
    if (hasSize && !onPath && (rect.bottom <= region.top || rect.top >= region.bottom || rect.right <= region.left || rect.left >= region.right)) return;
    // Each computed property is read at most once, and only when it can change the outcome:
    // reading computed style is most of the cost of a visit.
    const style = window.getComputedStyle(element);
    const display = hasSize ? '' : style.display;
    if (display === 'none') return;
    const contents = display === 'contents';
    const overflowX = style.overflowX;
    const overflowY = style.overflowY;
    const overflowClips = overflowX !== 'visible' || overflowY !== 'visible';
    const position = style.position;
    const ownClip = position === 'fixed' ? everywhere : position === 'absolute' ? context.absoluteClip : context.clip;
    const box: Box = contents ? parentBox : { top: rect.top, bottom: rect.bottom, left: rect.left, right: rect.right };
    if (!onPath && (style.opacity === '0' || clippedAway(style, position))) return;
    if (!contents && !onPath) {
      // Visually hidden (the 1-pixel screen-reader pattern, a collapsed section) or clipped away.
      if (overflowClips && (rect.width <= 1 || rect.height <= 1)) return;
      if (hasSize && ownClip !== everywhere && !intersects(box, ownClip)) return;
      // Laid out to nothing by content-visibility or a closed <details>: nothing inside shows.
      if (!hasSize && typeof element.checkVisibility === 'function' && !element.checkVisibility()) return;
    }
    // What may cover other elements: fixed and sticky bars, stacked absolute layers (menus,
    // popovers), modal dialogs. Candidates under one of these are hit-tested after the walk.
    if (hasSize && (position === 'fixed' || position === 'sticky' || (position === 'absolute' && style.zIndex !== 'auto')) && intersects(box, viewport)) {
      occluders.push({ element, box });
    }
    const visibility = style.visibility;
    const hidden = visibility === 'hidden' || visibility === 'collapse' ? true : visibility === 'visible' ? false : context.hidden;

    const inert = context.inert || element.hasAttribute('inert');
    const inRegion = !contents && hasSize && intersects(box, meet(region, ownClip));
    let draft: Draft | undefined;
    const block = !contents && blockTags.has(tag);
    if (block) flush();

    let scroll: { above: number; below: number } | undefined;
    const scrollY = overflowY === 'auto' || overflowY === 'scroll';
    const scrollX = overflowX === 'auto' || overflowX === 'scroll';
    if ((scrollY || scrollX) && element !== document.scrollingElement && element !== document.body && hasSize) {
      const below = element.scrollHeight - element.clientHeight - element.scrollTop;
      const right = element.scrollWidth - element.clientWidth - element.scrollLeft;
      if ((scrollY && (element.scrollTop > 2 || below > 2)) || (scrollX && (element.scrollLeft > 2 || right > 2))) {
        scroll = { above: Math.round(element.scrollTop), below: Math.max(0, Math.round(below)) };
      }
    }

    if (inRegion && !hidden && !inert) {
      let level = interactivity(element, tag, style, parentStyle);
      if (tag === 'label' && labelStandsIn(element as HTMLLabelElement)) level = 2;
      if (scroll && level === 0) level = 2;
      const wanted = level === 2 || (level === 1 && !context.insideIndexed);
      if (wanted && !isDisabled(element, tag)) {
        draft = {
          kind: 'element',
          elementId: idOf(element),
          tagName: tag,
          attributes: attributesOf(element, tag),
          text: '',
          depth: context.depth,
          selector: selectorOf(element),
          scroll,
          parts: [],
        };
        if (!draft.scroll) delete draft.scroll;
        if (!draft.selector) delete draft.selector;
        flush();
        candidates.push({ draft, element, box, clip: ownClip, position: items.length });
        items.push(draft);
        drafts.push(draft);
      }
    }

    if (textless.has(tag)) return;
    const role = element.getAttribute('role');
    const collects = draft !== undefined && !draft.scroll && !(role && containerRoles.has(role)) && tag !== 'details';
    const childClip = overflowClips && !contents ? meet(ownClip, box) : ownClip;
    const childContext: Context = {
      clip: childClip,
      absoluteClip: position !== 'static' ? childClip : context.absoluteClip,
      depth: draft ? context.depth + 1 : context.depth,
      sink: draft ? (collects ? draft : undefined) : context.sink,
      hidden,
      inert: inert || (tag === 'fieldset' && element.matches(':disabled')),
      insideIndexed: context.insideIndexed || draft !== undefined,
    };
    const closedDetails = tag === 'details' && !(element as HTMLDetailsElement).open;
    let ownTextHidden: boolean | undefined; // read only for elements with text of their own
    for (const child of rendersChildrenOf(element)) {
      if (closedDetails && (child.nodeType !== 1 || (child as Element).localName !== 'summary')) continue;
      if (child.nodeType === 3) {
        ownTextHidden ??= textHiddenBy(style, rect);
        if (!ownTextHidden) walkText(child as Text, box, childContext);
      } else if (child.nodeType === 1) walk(child as Element, childContext, style, box);
    }
    if (block) flush();
  };

  // Hit paths: what the viewport shows at a grid of points, with its ancestors. Walking prunes
  // subtrees outside the indexed region, except these, so fixed bars and overlays whose parents
  // lie elsewhere are still reached.
  // Points along the edges find fixed bars, cookie banners and chat buttons whose ancestors
  // (a short header) scrolled out of view long ago.
  const mustVisit = new Set<Element>();
  if (!wholePage) {
    const points: [number, number][] = [];
    for (let row = 0; row < 3; row++) {
      for (let column = 0; column < 2; column++) points.push([((column + 0.5) * viewportWidth) / 2, ((row + 0.5) * viewportHeight) / 3]);
    }
    for (const x of [8, 48, viewportWidth / 2, viewportWidth - 48, viewportWidth - 8]) {
      for (const y of [8, viewportHeight - 48, viewportHeight - 8]) points.push([x, y]);
    }
    points.push([8, viewportHeight / 2], [viewportWidth - 8, viewportHeight / 2]);
    for (const [x, y] of points) {
      if (x < 0 || y < 0 || x >= viewportWidth || y >= viewportHeight) continue;
      let hit: Element | null = document.elementFromPoint(x, y);
      while (hit && !mustVisit.has(hit)) {
        mustVisit.add(hit);
        hit = hit.parentElement ?? (hit.parentNode as ShadowRoot | null)?.host ?? null;
      }
    }
  }

  // A modal dialog (showModal) makes the rest of the page inert behind its backdrop, which is a
  // pseudo-element: count the dialog as covering the whole viewport.
  try {
    const modal = document.querySelector(':modal');
    if (modal) occluders.push({ element: modal, box: { ...viewport } });
  } catch {
    // an engine without :modal: the hit tests of elements under the dialog box still apply
  }

  const start = document.body ?? document.documentElement;
  if (start) {
    walk(
      start,
      { clip: everywhere, absoluteClip: everywhere, depth: 0, sink: undefined, hidden: false, inert: false, insideIndexed: false },
      undefined,
      everywhere,
    );
  }
  flush();

  // Top-most check, only where something could cover the element: hit-testing costs up to a
  // fraction of a millisecond per call on heavy pages, so elements clear of every overlay skip it.
  const covered = new Set<Draft>();
  for (const candidate of candidates) {
    const visible = meet(meet(candidate.box, viewport), candidate.clip);
    if (visible.right - visible.left < 1 || visible.bottom - visible.top < 1) continue;
    const threatened = occluders.some(
      (occluder) => intersects(occluder.box, visible) && !occluder.element.contains(candidate.element) && !candidate.element.contains(occluder.element),
    );
    if (threatened && !isTopMost(candidate.element, candidate.box, candidate.clip)) covered.add(candidate.draft);
  }
  if (covered.size > 0) {
    // A covered element loses its index; its text stays, as plain text.
    for (const candidate of candidates) {
      if (!covered.has(candidate.draft)) continue;
      const text = cap(collapse(candidate.draft.parts.join(' ')));
      items[candidate.position] = { kind: 'text', text, depth: candidate.draft.depth };
      if (!text) items[candidate.position] = { kind: 'text', text: '', depth: -1 };
    }
  }

  for (const draft of drafts) {
    if (covered.has(draft)) continue;
    let text = cap(collapse(draft.parts.join(' ')));
    const attributes = draft.attributes as Record<string, string>;
    for (const name of ['aria-label', 'title', 'placeholder', 'alt']) if (attributes[name] === text) delete attributes[name];
    if (
      !text &&
      !textless.has(draft.tagName) &&
      !attributes['aria-label'] &&
      !attributes.title &&
      !attributes.alt &&
      !attributes.placeholder &&
      !attributes.value
    ) {
      const element = state.elements.get(draft.elementId)?.deref();
      const hint = element ? iconHint(element) : '';
      if (hint) attributes.hint = hint;
    }
    if (draft.tagName === 'textarea' || draft.tagName === 'select') text = '';
    draft.text = text;
    delete (draft as Partial<Draft>).parts;
  }

  const visibleItems = covered.size > 0 ? items.filter((item) => item.kind === 'element' || item.text !== '') : items;
  const scroller = document.scrollingElement ?? document.documentElement;
  const scrollHeight = scroller ? scroller.scrollHeight : viewportHeight;
  return {
    url: location.href,
    title: document.title,
    items: visibleItems,
    pixelsAbove: Math.max(0, Math.round(window.scrollY)),
    pixelsBelow: Math.max(0, Math.round(scrollHeight - window.scrollY - viewportHeight)),
    viewport: { width: viewportWidth, height: viewportHeight },
  };
}

/* v8 ignore stop */
/** The old snapshot function; evaluate it in a page with Playwright's `frame.evaluate(legacySnapshot, options)`. */
export const legacySnapshot: (options: SnapshotScriptOptions) => FrameSnapshot = runSnapshot;
