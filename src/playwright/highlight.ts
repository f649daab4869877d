// Draws index labels over the indexed elements of one frame for a screenshot, and removes them.
// Page functions: self-contained, they find elements through the snapshot's per-document map.

/** One element to outline: its snapshot id and the index the model knows it by. */
export interface HighlightTarget {
  readonly elementId: string;
  readonly index: number;
}

/** The id of the layer the boxes are drawn on; passed to the page functions, which cannot see module values. */
export const highlightLayerId = '__plannav-highlights';

/* v8 ignore start -- runs inside the page, where Node's coverage cannot see it */
/** Draws a fixed, click-through layer with one labelled box per element; returns how many it drew. */
export function drawHighlights({ layerId, targets }: { layerId: string; targets: readonly HighlightTarget[] }): number {
  document.getElementById(layerId)?.remove();
  const state = (window as unknown as Record<string, { elements?: Map<string, WeakRef<Element>> } | undefined>)['__plannavSnapshot'];
  const layer = document.createElement('div');
  layer.id = layerId;
  layer.setAttribute('style', 'position:fixed;inset:0;pointer-events:none;z-index:2147483647;');
  const colours = ['#e6194b', '#3cb44b', '#4363d8', '#f58231', '#911eb4', '#008080', '#9a6324', '#800000'];
  let drawn = 0;
  for (const target of targets) {
    const element = state?.elements?.get(target.elementId)?.deref();
    if (!element || !element.isConnected) continue;
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.height === 0 || box.bottom < 0 || box.top > window.innerHeight) continue;
    const colour = colours[target.index % colours.length] ?? '#e6194b';
    const outline = document.createElement('div');
    outline.setAttribute(
      'style',
      `position:fixed;left:${box.left}px;top:${box.top}px;width:${box.width}px;height:${box.height}px;border:2px solid ${colour};box-sizing:border-box;background:${colour}1a;`,
    );
    const label = document.createElement('div');
    label.textContent = String(target.index);
    const labelTop = box.height < 20 ? -16 : 0;
    label.setAttribute(
      'style',
      `position:absolute;right:0;top:${labelTop}px;background:${colour};color:#fff;font:bold 11px/14px sans-serif;padding:0 3px;border-radius:2px;`,
    );
    outline.appendChild(label);
    layer.appendChild(outline);
    drawn++;
  }
  (document.body ?? document.documentElement).appendChild(layer);
  return drawn;
}

/** Removes the layer drawHighlights added, if any. */
export function removeHighlights(layerId: string): void {
  document.getElementById(layerId)?.remove();
}

/* v8 ignore stop */
