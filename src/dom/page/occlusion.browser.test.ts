// Runs in headless Chromium (the vitest `browser` project): whether an element is what the viewport shows,
// hit-tested with the browser's own elementFromPoint. Positions are fixed in CSS pixels near the top left corner.
import { afterEach, describe, expect, it } from 'vitest';
import { boxOf, type Box } from './geometry';
import { isTopMost, type Occluder } from './occlusion';

const everywhere: Box = { top: -1e9, bottom: 1e9, left: -1e9, right: 1e9 };
const viewport = (): Box => ({ top: 0, bottom: window.innerHeight, left: 0, right: window.innerWidth });

/** A fixed-position div at the given edges. */
const at = (id: string, left: number, top: number, width: number, height: number, extra = '', inner = '') =>
  `<div id="${id}" style="position: fixed; left: ${left}px; top: ${top}px; width: ${width}px; height: ${height}px; ${extra}">${inner}</div>`;

function place(html: string): Record<string, HTMLElement> {
  document.body.innerHTML = html;
  const elements: Record<string, HTMLElement> = {};
  for (const element of document.body.querySelectorAll<HTMLElement>('[id]')) elements[element.id] = element;
  return elements;
}

const boxOfElement = (element: Element): Box => boxOf(element.getBoundingClientRect());
const occluder = (element: Element): Occluder => ({ element, box: boxOfElement(element) });
const topMost = (element: Element, occluders: Occluder[] = [], clip: Box = everywhere): boolean =>
  isTopMost(element, boxOfElement(element), clip, viewport(), occluders);

afterEach(() => {
  document.body.innerHTML = '';
});

describe('isTopMost', () => {
  it('is true for an element nothing lies on', () => {
    const { button } = place(at('button', 10, 10, 100, 40));
    expect(topMost(button!)).toBe(true);
  });

  it('is true when what the viewport shows is inside the element (its label, its icon)', () => {
    const { button } = place(at('button', 10, 10, 100, 40, '', '<span style="display: block; width: 100px; height: 40px;">Label</span>'));
    expect(document.elementFromPoint(60, 30)).not.toBe(button);
    expect(topMost(button!)).toBe(true);
  });

  it('is false under a layer that covers all of it, such as a cookie wall', () => {
    const { button, wall } = place(at('button', 10, 10, 100, 40) + at('wall', 0, 0, 300, 300, 'z-index: 1; background: white;'));
    expect(topMost(button!, [occluder(wall!)])).toBe(false);
    // Without the layer among the occluders, every hit point still lands on the wall.
    expect(topMost(button!)).toBe(false);
  });

  it('is true when only its centre is covered and a corner still shows', () => {
    const { button, badge } = place(at('button', 10, 10, 100, 40) + at('badge', 40, 15, 40, 30, 'z-index: 1;'));
    expect(document.elementFromPoint(60, 30)).toBe(badge);
    expect(topMost(button!, [occluder(badge!)])).toBe(true);
  });

  it('tests only the centre of an element of 8 pixels or less, so a covered centre is enough to lose', () => {
    const { dot, cover } = place(at('dot', 10, 10, 8, 8) + at('cover', 13, 13, 2, 2, 'z-index: 1;'));
    expect(topMost(dot!)).toBe(false);
    cover!.remove();
    expect(topMost(dot!)).toBe(true);
  });

  it('is true for an element outside the viewport or clipped away, which cannot be hit-tested', () => {
    const { below, wall } = place(at('below', 10, window.innerHeight + 50, 100, 40) + at('wall', 0, 0, 300, 300, 'z-index: 1;'));
    expect(topMost(below!, [occluder(wall!)])).toBe(true);
    const { button, cover } = place(at('button', 10, 10, 100, 40) + at('cover', 0, 0, 300, 300, 'z-index: 1;'));
    expect(topMost(button!, [occluder(cover!)], { top: 500, bottom: 600, left: 500, right: 600 })).toBe(true);
  });

  it('hit-tests an element in a shadow tree through its own root', () => {
    const { host } = place(at('host', 10, 10, 100, 40));
    const root = host!.attachShadow({ mode: 'open' });
    root.innerHTML = '<button style="display: block; width: 100px; height: 40px;">Inside</button>';
    const inside = root.querySelector('button')!;
    expect(topMost(inside)).toBe(true);
    const cover = document.createElement('div');
    cover.setAttribute('style', 'position: fixed; left: 0; top: 0; width: 300px; height: 300px; z-index: 1;');
    document.body.append(cover);
    expect(topMost(inside, [occluder(cover)])).toBe(false);
  });
});
