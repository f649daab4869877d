// The functions the Playwright driver runs inside a page: DOM-quiet wait, timer probe, frame boxes,
// element lookup, scrolling, options, clicks. Each is self-contained: no imports, no module values.

/* v8 ignore start -- page functions: they run inside the page, where Node's coverage cannot see them */
/** Resolves in the page once the DOM has had no mutation for `quietMs`, or after `maxMs`. */
export function waitForDomQuiet({ quietMs, maxMs }: { quietMs: number; maxMs: number }): Promise<boolean> {
  return new Promise((resolve) => {
    let quietTimer: ReturnType<typeof setTimeout> | undefined;
    let capTimer: ReturnType<typeof setTimeout> | undefined;
    const observer = new MutationObserver(() => {
      clearTimeout(quietTimer);
      quietTimer = setTimeout(() => finish(true), quietMs);
    });
    const finish = (quiet: boolean): void => {
      observer.disconnect();
      clearTimeout(quietTimer);
      clearTimeout(capTimer);
      resolve(quiet);
    };
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    quietTimer = setTimeout(() => finish(true), quietMs);
    capTimer = setTimeout(() => finish(false), maxMs);
  });
}

/**
 * Starts the check of whether this document runs timers. With scripting on, the parser keeps the
 * content of a `<noscript>` as text, and timers run: `scripting-on`. Otherwise (scripting off, or
 * a document that is not HTML) it arms a 0 ms timer that {@link timerProbeFired} reads back.
 */
export function startTimerProbe(): 'scripting-on' | 'armed' {
  const probe = document.createElement('noscript');
  probe.innerHTML = '<i></i>';
  if (probe.firstChild?.nodeType === Node.TEXT_NODE) return 'scripting-on';
  const host = window as unknown as Record<string, boolean>;
  Object.defineProperty(host, '__plannavTimerProbe', { value: false, writable: true, configurable: true, enumerable: false });
  setTimeout(() => {
    host['__plannavTimerProbe'] = true;
  }, 0);
  return 'armed';
}

/** Whether the timer {@link startTimerProbe} armed has fired (it is then removed); null when this document armed none. */
export function timerProbeFired(): boolean | null {
  const host = window as unknown as Record<string, boolean | undefined>;
  if (!Object.prototype.hasOwnProperty.call(host, '__plannavTimerProbe')) return null;
  const fired = host['__plannavTimerProbe'] === true;
  delete host['__plannavTimerProbe'];
  return fired;
}

/**
 * The content box of each frame element in this frame's viewport, or null when the frame cannot
 * be seen: not rendered, transparent or hidden (itself or an ancestor), or covered where it is in
 * view (a modal dialog, an overlay). What cannot be seen is not snapshotted, like any element.
 */
export function frameContentBoxes(nodes: Node[]): ({ x: number; y: number; width: number; height: number } | null)[] {
  let modal: Element | null = null;
  try {
    modal = document.querySelector(':modal');
  } catch {
    // an engine without :modal
  }
  const transparent = (element: Element): boolean => {
    for (let current: Element | null = element; current; current = current.parentElement ?? ((current.parentNode as ShadowRoot | null)?.host ?? null)) {
      if (window.getComputedStyle(current).opacity === '0') return true;
    }
    return false;
  };
  const covered = (element: Element, box: DOMRect): boolean => {
    // Behind a modal dialog the rest of the page is inert, in view or not.
    if (modal && modal !== element && !modal.contains(element)) return true;
    const left = Math.max(0, box.left);
    const right = Math.min(window.innerWidth, box.right);
    const top = Math.max(0, box.top);
    const bottom = Math.min(window.innerHeight, box.bottom);
    if (right - left < 1 || bottom - top < 1) return false; // out of view: cannot hit-test
    const root = element.getRootNode() as Document | ShadowRoot;
    const tester = typeof root.elementFromPoint === 'function' ? root : document;
    const points: [number, number][] = [[(left + right) / 2, (top + bottom) / 2]];
    if (right - left > 8 && bottom - top > 8) points.push([left + 4, top + 4], [right - 4, top + 4], [left + 4, bottom - 4], [right - 4, bottom - 4]);
    return !points.some(([x, y]) => tester.elementFromPoint(x, y) === element);
  };
  return nodes.map((node) => {
    const element = node as Element;
    if (!element || !element.isConnected) return null;
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) return null;
    const style = window.getComputedStyle(element);
    if (style.visibility === 'hidden' || style.visibility === 'collapse' || style.display === 'none') return null;
    if (typeof element.checkVisibility === 'function' && !element.checkVisibility({ opacityProperty: true, visibilityProperty: true } as CheckVisibilityOptions)) return null;
    if (transparent(element) || covered(element, box)) return null;
    const paddingLeft = parseFloat(style.paddingLeft || '0');
    const paddingTop = parseFloat(style.paddingTop || '0');
    return {
      x: box.left + element.clientLeft + paddingLeft,
      y: box.top + element.clientTop + paddingTop,
      width: element.clientWidth - paddingLeft - parseFloat(style.paddingRight || '0'),
      height: element.clientHeight - paddingTop - parseFloat(style.paddingBottom || '0'),
    };
  });
}

/** Finds an element of the snapshot in its document: by id through the weak map, else by selector in the same document. */
export function findSnapshotElement({ elementId, selector }: { elementId: string; selector: string | null }): Element | string {
  const state = (window as unknown as Record<string, { token?: string; elements?: Map<string, WeakRef<Element>> } | undefined>)['__plannavSnapshot'];
  if (!state || !state.token || !elementId.startsWith(`${state.token}-`)) return 'document';
  const reference = state.elements?.get(elementId);
  const element = reference?.deref();
  if (element && element.isConnected) return element;
  // Only when the page lost our map (a script replaced it) does the selector stand in; an element
  // known to be removed is never swapped for another that now matches.
  if (!reference && selector) {
    try {
      const found = document.querySelector(selector);
      if (found) return found;
    } catch {
      // an invalid selector is no fallback
    }
  }
  return 'removed';
}

/** Scrolls the page, or an element, by pixels or to a percentage; returns the new scroll top. */
export function scrollInPage(
  element: Element | null,
  { deltaY, toPercent }: { deltaY: number | null; toPercent: number | null },
): number {
  const target = element ?? document.scrollingElement ?? document.documentElement;
  const viewport = element ? element.clientHeight : window.innerHeight;
  const range = Math.max(0, target.scrollHeight - viewport);
  const top = toPercent !== null ? (range * toPercent) / 100 : target.scrollTop + (deltaY ?? viewport * 0.8);
  if (element) element.scrollTo({ top, behavior: 'instant' });
  else window.scrollTo({ top, behavior: 'instant' });
  return target.scrollTop;
}

/** The option of a select matching a label or value, or the list of labels when none matches. */
export function findOption(element: Element, wanted: string): { index: number } | { labels: string[] } {
  if (!(element instanceof HTMLSelectElement)) return { labels: [] };
  const clean = (value: string): string => value.replace(/\s+/g, ' ').trim().toLowerCase();
  const target = clean(wanted);
  const options = [...element.options];
  let index = options.findIndex((option) => (option.label || option.text).trim() === wanted.trim());
  if (index === -1) index = options.findIndex((option) => clean(option.label || option.text) === target);
  if (index === -1) index = options.findIndex((option) => clean(option.value) === target);
  if (index === -1) index = options.findIndex((option) => clean(option.label || option.text).includes(target));
  return index === -1 ? { labels: options.map((option) => option.label || option.text) } : { index };
}

/** Where a click must land, relative to the element's padding box, or why no point of it can be clicked. */
export type ClickTarget =
  | { kind: 'centre' | 'offset'; x: number; y: number; coveredBy: string | null }
  | { kind: 'covered'; coveredBy: string | null }
  | { kind: 'unseen' }
  | { kind: 'disabled' };

/**
 * Scrolls the element into view and hit-tests it (through open and recorded closed shadow roots):
 * its centre when that is the element, else the visible point of it nearest the centre, else
 * `covered` with what lies on top (a name such as `div.cookie-banner`). Hit-testing first spares
 * the wait for actionability that a covered element would time out on.
 */
export function clickTarget(element: Element): ClickTarget {
  if (element.matches(':disabled')) return { kind: 'disabled' };
  const closedRoots = (window as unknown as Record<string, WeakMap<Element, ShadowRoot> | undefined>)['__plannavShadowRoots'];
  const parentOf = (node: Element): Element | null => node.parentElement ?? ((node.parentNode as ShadowRoot | null)?.host ?? null);
  const visibleRects = (): DOMRect[] =>
    [...element.getClientRects()].filter((rect) => rect.width >= 1 && rect.height >= 1 && rect.right > 0 && rect.bottom > 0 && rect.left < window.innerWidth && rect.top < window.innerHeight);
  let rects = visibleRects();
  if (rects.length === 0) {
    element.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    rects = visibleRects();
  }
  if (rects.length === 0) return { kind: 'unseen' };
  const hitAt = (x: number, y: number): Element | null => {
    let hit = document.elementFromPoint(x, y);
    for (let depth = 0; hit && depth < 32; depth++) {
      const root = hit.shadowRoot ?? closedRoots?.get(hit);
      const deeper = root?.elementFromPoint(x, y);
      if (!deeper || deeper === hit) break;
      hit = deeper;
    }
    return hit;
  };
  const reaches = (hit: Element | null): boolean => {
    for (let node = hit, depth = 0; node && depth < 256; node = parentOf(node), depth++) {
      if (node === element) return true;
      // A click on the element's label reaches the element.
      if (node instanceof HTMLLabelElement && node.control === element) return true;
    }
    return false;
  };
  const contains = (outer: Element, inner: Element): boolean => {
    for (let node: Element | null = inner, depth = 0; node && depth < 256; node = parentOf(node), depth++) if (node === outer) return true;
    return false;
  };
  /** The outermost box of the covering layer that does not hold the element, named by tag, id or classes. */
  const describe = (hit: Element | null): string | null => {
    if (!hit) return null;
    let layer = hit;
    for (let parent = parentOf(layer); parent && parent !== document.body && parent !== document.documentElement && !contains(parent, element); parent = parentOf(parent)) layer = parent;
    const id = layer.id ? `#${layer.id}` : '';
    const classes = [...layer.classList].slice(0, id ? 1 : 2).map((name) => `.${name}`).join('');
    return `${layer.localName}${id}${classes}`.slice(0, 80);
  };
  const box = element.getBoundingClientRect();
  const style = window.getComputedStyle(element);
  const borderLeft = parseInt(style.borderLeftWidth || '0', 10) || 0;
  const borderTop = parseInt(style.borderTopWidth || '0', 10) || 0;
  const relative = (x: number, y: number): { x: number; y: number } => ({ x: x - box.left - borderLeft, y: y - box.top - borderTop });
  let coveredBy: string | null = null;
  for (const rect of rects.slice(0, 4)) {
    const left = Math.max(0, rect.left);
    const right = Math.min(window.innerWidth, rect.right);
    const top = Math.max(0, rect.top);
    const bottom = Math.min(window.innerHeight, rect.bottom);
    const centre = { x: (left + right) / 2, y: (top + bottom) / 2 };
    const centreHit = hitAt(centre.x, centre.y);
    if (reaches(centreHit)) return { kind: rect === rects[0] ? 'centre' : 'offset', ...relative(centre.x, centre.y), coveredBy };
    coveredBy ??= describe(centreHit);
    // Other points of a grid over the visible part, nearest the centre first, a pixel inside the edges.
    const fractions = [0.5, 0.3, 0.7, 0.15, 0.85, 0.03, 0.97];
    const points: { x: number; y: number }[] = [];
    for (const fx of fractions) {
      for (const fy of fractions) {
        const x = Math.min(right - 1, Math.max(left + 1, left + (right - left) * fx));
        const y = Math.min(bottom - 1, Math.max(top + 1, top + (bottom - top) * fy));
        points.push({ x, y });
      }
    }
    points.sort((a, b) => Math.hypot(a.x - centre.x, a.y - centre.y) - Math.hypot(b.x - centre.x, b.y - centre.y));
    for (const point of points) if (reaches(hitAt(point.x, point.y))) return { kind: 'offset', ...relative(point.x, point.y), coveredBy };
  }
  return { kind: 'covered', coveredBy };
}

/** A click dispatched in the page, for an element no mouse can reach; handlers run as for a real click. */
export function dispatchClick(element: Element, { button, modifiers }: { button: 'left' | 'right' | 'middle'; modifiers: string[] }): void {
  const init: MouseEventInit = {
    bubbles: true,
    cancelable: true,
    composed: true,
    button: button === 'left' ? 0 : button === 'middle' ? 1 : 2,
    altKey: modifiers.includes('Alt'),
    ctrlKey: modifiers.includes('Control'),
    metaKey: modifiers.includes('Meta'),
    shiftKey: modifiers.includes('Shift'),
  };
  if (button === 'right') element.dispatchEvent(new MouseEvent('contextmenu', init));
  else if (button === 'middle') element.dispatchEvent(new MouseEvent('auxclick', init));
  else if (modifiers.length === 0 && element instanceof HTMLElement) element.click();
  else element.dispatchEvent(new MouseEvent('click', init));
}

/**
 * Sets the value of an input whose value has a machine format (date, time, month, week, range,
 * colour) through the prototype's setter, so frameworks that track the value (React) see the
 * change, then fires input and change. Returns the value the input kept, or null for other elements.
 */
export function setFormattedValue(element: Element, value: string): string | null {
  const formatted = new Set(['date', 'time', 'datetime-local', 'month', 'week', 'range', 'color']);
  if (!(element instanceof HTMLInputElement) || !formatted.has(element.type)) return null;
  element.focus();
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set;
  if (setter) setter.call(element, value);
  else element.value = value;
  element.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  element.dispatchEvent(new Event('change', { bubbles: true }));
  return element.value;
}

/* v8 ignore stop */
