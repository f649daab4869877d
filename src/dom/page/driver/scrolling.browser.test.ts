// Runs in headless Chromium (the vitest `browser` project): scrolling this test page and a scroll box, by pixels or
// to a percentage. Distances are derived from the viewport vitest gives, never assumed.
import { afterEach, describe, expect, it } from 'vitest';
import { scrollInPage } from './scrolling';

const pageHeight = (): number => window.innerHeight * 4;

function tallPage(): void {
  document.body.innerHTML = `<div style="height: ${pageHeight()}px;"></div>`;
}

function scrollBox(): HTMLElement {
  document.body.innerHTML = '<div id="box" style="height: 200px; overflow-y: auto;"><div style="height: 1200px;"></div></div>';
  return document.getElementById('box')!;
}

afterEach(() => {
  document.body.innerHTML = '';
  window.scrollTo(0, 0);
});

describe('scrollInPage: the page', () => {
  it('scrolls by the pixels asked for and returns the new scroll top', () => {
    tallPage();
    expect(scrollInPage(null, { deltaY: 300, toPercent: null })).toBe(300);
    expect(window.scrollY).toBe(300);
    expect(scrollInPage(null, { deltaY: -100, toPercent: null })).toBe(200);
  });

  it('scrolls by 80% of the viewport when no distance is given', () => {
    tallPage();
    const top = scrollInPage(null, { deltaY: null, toPercent: null });
    expect(Math.abs(top - window.innerHeight * 0.8)).toBeLessThan(1); // the browser may round a fractional scroll position
  });

  it('scrolls to a percentage of the scrollable range, 100 being the bottom', () => {
    tallPage();
    const range = pageHeight() - window.innerHeight;
    expect(scrollInPage(null, { deltaY: null, toPercent: 100 })).toBe(range);
    expect(Math.abs(scrollInPage(null, { deltaY: null, toPercent: 50 }) - range / 2)).toBeLessThan(1);
    expect(scrollInPage(null, { deltaY: 999, toPercent: 0 })).toBe(0); // the percentage wins over a distance
  });

  it('stops at the ends of the page', () => {
    tallPage();
    expect(scrollInPage(null, { deltaY: -500, toPercent: null })).toBe(0);
    expect(scrollInPage(null, { deltaY: pageHeight() * 2, toPercent: null })).toBe(pageHeight() - window.innerHeight);
  });
});

describe('scrollInPage: an element', () => {
  it('scrolls the element by pixels, by 80% of its own height when no distance is given, and leaves the page still', () => {
    const box = scrollBox();
    expect(scrollInPage(box, { deltaY: 100, toPercent: null })).toBe(100);
    expect(scrollInPage(box, { deltaY: null, toPercent: null })).toBe(260);
    expect(box.scrollTop).toBe(260);
    expect(window.scrollY).toBe(0);
  });

  it('scrolls the element to a percentage of its own range', () => {
    const box = scrollBox();
    expect(scrollInPage(box, { deltaY: null, toPercent: 100 })).toBe(1000);
    expect(scrollInPage(box, { deltaY: null, toPercent: 25 })).toBe(250);
  });
});
