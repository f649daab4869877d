// Where each child frame's content sits in its parent's viewport, and whether it can be seen at
// all. Drivers pass the frame elements they hold; the core offsets child frames with it. Runs in the page.

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
    for (let current: Element | null = element; current; current = current.parentElement ?? (current.parentNode as ShadowRoot | null)?.host ?? null) {
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
    if (typeof element.checkVisibility === 'function' && !element.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return null;
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
