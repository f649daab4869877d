// Runs in headless Chromium (the vitest `browser` project): what CSS hides although the element has a box,
// read from real computed styles. The elements are fixed in CSS pixels; nothing depends on the viewport size.
import { afterEach, describe, expect, it } from 'vitest';
import { clippedAway, filteredAway, textHiddenBy } from './visibility';

/** Puts `html` in the document and returns its element with the given id. */
function place(html: string, id = 'target'): HTMLElement {
  document.body.innerHTML = html;
  const element = document.getElementById(id);
  if (!element) throw new Error(`no element #${id} in ${html}`);
  return element;
}

const clipped = (element: Element): boolean => {
  const style = window.getComputedStyle(element);
  return clippedAway(style, style.position);
};

const textHidden = (element: Element): boolean => textHiddenBy(window.getComputedStyle(element), element.getBoundingClientRect());

afterEach(() => {
  document.body.innerHTML = '';
});

describe('clippedAway', () => {
  it('is false for an element with no clipping', () => {
    expect(clipped(place('<div id="target" style="width: 50px; height: 50px;">Shown</div>'))).toBe(false);
  });

  it('is true for clip-path inset(50%) and more, false below half', () => {
    expect(clipped(place('<div id="target" style="width: 50px; height: 50px; clip-path: inset(50%);">x</div>'))).toBe(true);
    expect(clipped(place('<div id="target" style="width: 50px; height: 50px; clip-path: inset(80%);">x</div>'))).toBe(true);
    expect(clipped(place('<div id="target" style="width: 50px; height: 50px; clip-path: inset(10%);">x</div>'))).toBe(false);
  });

  it('is false for a clip-path that is not an inset', () => {
    expect(clipped(place('<div id="target" style="width: 50px; height: 50px; clip-path: circle(40%);">x</div>'))).toBe(false);
  });

  it('is true for the screen-reader pattern clip: rect(0 0 0 0) on an absolutely positioned element', () => {
    expect(clipped(place('<span id="target" style="position: absolute; clip: rect(0 0 0 0);">Skip to content</span>'))).toBe(true);
    expect(clipped(place('<span id="target" style="position: fixed; clip: rect(1px, 1px, 1px, 1px);">Skip</span>'))).toBe(true);
  });

  it('is true for a clip rect one pixel wide or high, false for a clip rect that shows a real area', () => {
    expect(clipped(place('<span id="target" style="position: absolute; clip: rect(0px, 1px, 40px, 0px);">x</span>'))).toBe(true);
    expect(clipped(place('<span id="target" style="position: absolute; clip: rect(0px, 40px, 1px, 0px);">x</span>'))).toBe(true);
    expect(clipped(place('<span id="target" style="position: absolute; clip: rect(0px, 40px, 40px, 0px);">x</span>'))).toBe(false);
  });

  it('ignores clip on an element that is not absolutely positioned, as CSS does', () => {
    expect(clipped(place('<span id="target" style="position: relative; clip: rect(0 0 0 0);">x</span>'))).toBe(false);
  });
});

describe('textHiddenBy', () => {
  it('is false for ordinary text', () => {
    expect(textHidden(place('<p id="target">Read me</p>'))).toBe(false);
  });

  it('is true for a zero font size', () => {
    expect(textHidden(place('<p id="target" style="font-size: 0;">Hidden words</p>'))).toBe(true);
  });

  it('is true for the image-replacement indent far beyond the left edge, in pixels or as -100%', () => {
    expect(textHidden(place('<h1 id="target" style="text-indent: -9999px;">Logo</h1>'))).toBe(true);
    expect(textHidden(place('<h1 id="target" style="text-indent: -100%;">Logo</h1>'))).toBe(true);
  });

  it('is false for a small negative indent (a hanging indent) and for a positive one', () => {
    expect(textHidden(place('<p id="target" style="text-indent: -20px; padding-left: 20px;">Hanging</p>'))).toBe(false);
    expect(textHidden(place('<p id="target" style="text-indent: -50%;">Half</p>'))).toBe(false);
    expect(textHidden(place('<p id="target" style="text-indent: 2em;">Indented</p>'))).toBe(false);
  });

  it('counts where the element starts: an indent that only reaches -999 px from an element placed far right is not hidden', () => {
    const element = place('<p id="target" style="position: absolute; left: 2000px; width: 100px; text-indent: -1500px;">Far right</p>');
    expect(element.getBoundingClientRect().left).toBe(2000);
    expect(textHidden(element)).toBe(false);
  });
});

describe('text and layers hidden by colour, filters and transforms', () => {
  it('reads transparent text as hidden, unless a gradient or an outline draws it', () => {
    const host = document.createElement('div');
    document.body.append(host);
    const rect = host.getBoundingClientRect();
    const styled = (css: string): CSSStyleDeclaration => {
      host.setAttribute('style', css);
      return window.getComputedStyle(host);
    };
    expect(textHiddenBy(styled('color: transparent'), rect)).toBe(true);
    expect(textHiddenBy(styled('color: rgba(0, 0, 0, 0)'), rect)).toBe(true);
    expect(textHiddenBy(styled('color: rgba(0, 0, 0, 0.5)'), rect)).toBe(false);
    expect(textHiddenBy(styled('color: transparent; background: linear-gradient(red, blue); -webkit-background-clip: text; background-clip: text'), rect)).toBe(
      false,
    );
    expect(textHiddenBy(styled('color: transparent; text-shadow: 0 0 2px black'), rect)).toBe(false);
    host.remove();
  });

  it('reads a filter to opacity 0 as hidden, and other filters not', () => {
    const host = document.createElement('div');
    document.body.append(host);
    host.setAttribute('style', 'filter: opacity(0)');
    expect(filteredAway(window.getComputedStyle(host))).toBe(true);
    host.setAttribute('style', 'filter: blur(1px) opacity(0%)');
    expect(filteredAway(window.getComputedStyle(host))).toBe(true);
    host.setAttribute('style', 'filter: opacity(0.5)');
    expect(filteredAway(window.getComputedStyle(host))).toBe(false);
    host.remove();
  });
});
