// Runs in headless Chromium (the vitest `browser` project): what scrolls for an element or the page, measured and moved, and frames brought into view.
import { afterEach, describe, expect, it } from 'vitest';
import { scrollFrameIntoView, scrollTarget } from './scroll';
import { locate, otherDocument, place } from './test-page';

afterEach(() => {
  document.body.innerHTML = '';
  window.scrollTo({ top: 0, behavior: 'instant' });
});

const list = '<div id="list" class="panel wide" style="height: 100px; overflow: auto"><div id="item" style="height: 500px">Item</div></div>';

describe('scrollTarget', () => {
  it('measures an element that scrolls, and the scroll area around an element inside it', () => {
    const { list: box, item } = place(list);
    expect(scrollTarget({ ...locate(box), scroll: null })).toEqual({
      status: 'ok',
      kind: 'element',
      top: 0,
      scrollHeight: 500,
      viewport: 100,
      label: '<div#list>',
    });
    box!.removeAttribute('id');
    expect(scrollTarget({ ...locate(item), scroll: null })).toMatchObject({ kind: 'ancestor', label: '<div.panel>' });
  });

  it('finds the scroll area around an element of a shadow tree, through its host', () => {
    const { host } = place('<div id="list" style="height: 100px; overflow: auto"><div id="host"></div></div>');
    const root = host!.attachShadow({ mode: 'open' });
    root.innerHTML = '<p style="height: 500px">In the shadow</p>';
    expect(scrollTarget({ ...locate(root.querySelector('p')!), scroll: null })).toMatchObject({ kind: 'ancestor', label: '<div#list>' });
  });

  it('scrolls the target by pixels, by one of its heights, and to a percentage', () => {
    const { list: box } = place(list);
    const locator = locate(box);
    expect(scrollTarget({ ...locator, scroll: { toPercent: null, deltaY: 50 } })).toMatchObject({ top: 50 });
    expect(scrollTarget({ ...locator, scroll: { toPercent: null, deltaY: null } })).toMatchObject({ top: 150 });
    expect(scrollTarget({ ...locator, scroll: { toPercent: 100, deltaY: null } })).toMatchObject({ top: 400 });
  });

  it('measures the document for an element outside any scroll area, and scrolls it', () => {
    const { tall } = place('<div id="tall" style="height: 5000px">Tall</div>');
    expect(scrollTarget({ ...locate(tall), scroll: null })).toMatchObject({ kind: 'document', top: 0, label: '' });
    const moved = scrollTarget({ elementId: null, selector: null, scroll: { toPercent: null, deltaY: 300 } });
    expect(moved).toMatchObject({ kind: 'document', top: 300, viewport: window.innerHeight });
    expect(window.scrollY).toBe(300);
  });

  it('takes the main scroll area of a page whose document does not scroll', () => {
    place(`<div id="app" style="position: fixed; inset: 0; overflow: auto"><div style="height: 3000px">App</div></div>`);
    expect(scrollTarget({ elementId: null, selector: null, scroll: null })).toMatchObject({ kind: 'ancestor', label: '<div#app>', scrollHeight: 3000 });
  });

  it('answers stale for an element that is gone', () => {
    expect(scrollTarget({ elementId: otherDocument.elementId, selector: null, scroll: null })).toEqual({
      status: 'stale',
      reason: 'the page has loaded a new document since',
    });
  });
});

describe('scrollFrameIntoView', () => {
  it('brings the frame with the given content box to the middle of the view, also inside a shadow root', () => {
    const { host } = place('<div style="height: 3000px"></div><div id="host"></div><div style="height: 3000px"></div>');
    const root = host!.attachShadow({ mode: 'open' });
    root.innerHTML = '<iframe style="width: 200px; height: 100px; border: 2px solid; padding: 3px"></iframe>';
    const frame = root.querySelector('iframe')!;
    const rect = frame.getBoundingClientRect();
    const box = { x: rect.left + 2 + 3, y: rect.top + 2 + 3, width: 200, height: 100 };
    expect(scrollFrameIntoView({ ...box, x: box.x + 50 })).toBe(false);
    expect(window.scrollY).toBe(0);
    expect(scrollFrameIntoView(box)).toBe(true);
    expect(window.scrollY).toBeGreaterThan(2000);
    expect(scrollFrameIntoView({ x: frame.getBoundingClientRect().left + 5, y: frame.getBoundingClientRect().top + 5, width: null, height: null })).toBe(true);
  });
});
