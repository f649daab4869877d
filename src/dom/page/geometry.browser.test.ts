// Runs in headless Chromium (the vitest `browser` project): real elements, real CSS layout, measured with getBoundingClientRect.
// Element positions are fixed in CSS pixels so every expected edge is exact; nothing here may depend on the viewport size.
import { afterEach, describe, expect, it } from 'vitest';
import { area, boxOf, intersects, isEmpty, meet, type Box } from './geometry.js';

/** Puts `html` in the document and returns the box of each element with an id, measured by the browser. */
function layout(html: string): Record<string, Box> {
  document.body.innerHTML = html;
  const boxes: Record<string, Box> = {};
  for (const element of document.body.querySelectorAll('[id]')) boxes[element.id] = boxOf(element.getBoundingClientRect());
  return boxes;
}

/** A fixed-position div at the given edges, so its box does not depend on scrolling or the body's margin. */
const at = (id: string, left: number, top: number, width: number, height: number, extra = '') =>
  `<div id="${id}" style="position: fixed; left: ${left}px; top: ${top}px; width: ${width}px; height: ${height}px; ${extra}"></div>`;

afterEach(() => {
  document.body.innerHTML = '';
});

describe('boxOf', () => {
  it('gives the edges the browser laid the element out at', () => {
    const { card } = layout(at('card', 10, 20, 100, 50));
    expect(card).toEqual({ top: 20, bottom: 70, left: 10, right: 110 });
  });

  it('includes borders and padding, and the whole transformed extent', () => {
    const { padded, scaled } = layout(
      at('padded', 0, 0, 40, 40, 'padding: 5px; border: 2px solid black;') + at('scaled', 200, 200, 40, 20, 'transform: scale(2); transform-origin: 0 0;'),
    );
    expect(padded).toEqual({ top: 0, bottom: 54, left: 0, right: 54 });
    expect(scaled).toEqual({ top: 200, bottom: 240, left: 200, right: 280 });
  });

  it('gives an element that is not rendered an empty box with no area', () => {
    const { hidden } = layout(at('hidden', 30, 30, 100, 100, 'display: none;'));
    expect(hidden).toEqual({ top: 0, bottom: 0, left: 0, right: 0 });
    expect(isEmpty(hidden!)).toBe(true);
    expect(area(hidden!)).toBe(0);
  });
});

describe('intersects', () => {
  it('is true for overlapping elements, either way round', () => {
    const { a, b } = layout(at('a', 0, 0, 100, 100) + at('b', 50, 50, 100, 100));
    expect(intersects(a!, b!)).toBe(true);
    expect(intersects(b!, a!)).toBe(true);
  });

  it('is true for an element inside another', () => {
    const { outer, inner } = layout(at('outer', 0, 0, 200, 200) + at('inner', 50, 50, 10, 10));
    expect(intersects(outer!, inner!)).toBe(true);
  });

  it('is false for elements that only share an edge or a corner', () => {
    const { left, right, below, corner } = layout(
      at('left', 0, 0, 50, 50) + at('right', 50, 0, 50, 50) + at('below', 0, 50, 50, 50) + at('corner', 50, 50, 50, 50),
    );
    expect(intersects(left!, right!)).toBe(false);
    expect(intersects(left!, below!)).toBe(false);
    expect(intersects(left!, corner!)).toBe(false);
  });

  it('is false for elements apart on one axis only', () => {
    const { a, beside, under } = layout(at('a', 0, 0, 50, 50) + at('beside', 100, 10, 50, 50) + at('under', 10, 100, 50, 50));
    expect(intersects(a!, beside!)).toBe(false);
    expect(intersects(a!, under!)).toBe(false);
  });
});

describe('meet', () => {
  it('is the region two overlapping elements share, as the browser lays it out', () => {
    const { a, b, overlap } = layout(at('a', 0, 0, 100, 80) + at('b', 60, 30, 100, 100) + at('overlap', 60, 30, 40, 50));
    expect(meet(a!, b!)).toEqual(overlap);
    expect(meet(b!, a!)).toEqual(overlap);
    expect(area(meet(a!, b!))).toBe(40 * 50);
  });

  it('is the visible part of a child that its overflow-hidden parent clips', () => {
    const { clip, child } = layout(
      `<div id="clip" style="position: fixed; left: 0; top: 0; width: 100px; height: 100px; overflow: hidden;">
         <div id="child" style="margin-left: 70px; margin-top: 60px; width: 80px; height: 80px;"></div>
       </div>`,
    );
    expect(child).toEqual({ top: 60, bottom: 140, left: 70, right: 150 });
    expect(meet(clip!, child!)).toEqual({ top: 60, bottom: 100, left: 70, right: 100 });
    expect(area(meet(clip!, child!))).toBe(30 * 40);
  });

  it('is empty, with no area, for elements that do not overlap', () => {
    const { a, b } = layout(at('a', 0, 0, 50, 50) + at('b', 100, 100, 50, 50));
    const none = meet(a!, b!);
    expect(none).toEqual({ top: 100, bottom: 50, left: 100, right: 50 });
    expect(isEmpty(none)).toBe(true);
    expect(area(none)).toBe(0);
  });
});

describe('area and isEmpty', () => {
  it('gives width times height for a laid-out element', () => {
    const { card } = layout(at('card', 5, 5, 120, 30));
    expect(isEmpty(card!)).toBe(false);
    expect(area(card!)).toBe(3600);
  });

  it('treat a box one pixel wide as not empty', () => {
    const { line } = layout(at('line', 0, 0, 1, 40));
    expect(isEmpty(line!)).toBe(false);
    expect(area(line!)).toBe(40);
  });

  it('treat a sliver thinner than one pixel, or a zero-height element, as empty with no area', () => {
    const { thin, flat } = layout(at('thin', 0, 0, 0.5, 100) + at('flat', 0, 200, 100, 0));
    expect(thin!.right - thin!.left).toBe(0.5); // the browser keeps the half pixel; isEmpty decides it is nothing
    expect(isEmpty(thin!)).toBe(true);
    expect(area(thin!)).toBe(0);
    expect(isEmpty(flat!)).toBe(true);
    expect(area(flat!)).toBe(0);
  });
});
