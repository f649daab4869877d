// Index labels drawn over the listed elements for a screenshot (set-of-mark images for vision
// models), and their removal. Runs in the page; finds elements through the registry.

import { resolveElement } from '../registry';

/** One element to outline: its snapshot id and the index the model knows it by. */
export interface HighlightTarget {
  readonly elementId: string;
  readonly index: number;
}

/** The id of the layer the boxes are drawn on. */
const layerId = '__plannav-highlights';
const colours = ['#e6194b', '#3cb44b', '#4363d8', '#f58231', '#911eb4', '#008080', '#9a6324', '#800000'];

/** Draws a fixed, click-through layer with one labelled box per element; returns how many it drew. */
export function drawHighlights({ targets }: { readonly targets: readonly HighlightTarget[] }): number {
  document.getElementById(layerId)?.remove();
  const layer = document.createElement('div');
  layer.id = layerId;
  layer.setAttribute('style', 'position:fixed;inset:0;pointer-events:none;z-index:2147483647;');
  let drawn = 0;
  for (const target of targets) {
    const element = resolveElement({ elementId: target.elementId });
    if (typeof element === 'string') continue;
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
    label.setAttribute(
      'style',
      `position:absolute;right:0;top:${box.height < 20 ? -16 : 0}px;background:${colour};color:#fff;font:bold 11px/14px sans-serif;padding:0 3px;border-radius:2px;`,
    );
    outline.appendChild(label);
    layer.appendChild(outline);
    drawn++;
  }
  (document.body ?? document.documentElement).appendChild(layer);
  return drawn;
}

/** Removes the layer {@link drawHighlights} added, if any. */
export function removeHighlights(): boolean {
  const layer = document.getElementById(layerId);
  layer?.remove();
  return layer !== null;
}
