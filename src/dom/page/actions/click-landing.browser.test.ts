// Runs in headless Chromium (the vitest `browser` project): the watch that tells where a click's
// events landed, and the wait for a box still growing into place.
import { afterEach, describe, expect, it } from 'vitest';
import { awaitStableBox, clickLanding, watchClick } from './click-landing';
import { locate, otherDocument, place } from './test-page';

afterEach(() => {
  clickLanding(); // disarms a watch a failed test left
  document.body.innerHTML = '';
});

const mouse = (target: Element, type: string): boolean => target.dispatchEvent(new MouseEvent(type, { bubbles: true, composed: true, cancelable: true }));

describe('watchClick and clickLanding', () => {
  it('counts a click on the element or inside it as landed', () => {
    const { icon, inner } = place('<div id="post">Post <span id="icon" title="Like"><b id="inner">♥</b></span></div>');
    expect(watchClick(locate(icon))).toEqual({ status: 'ok' });
    mouse(inner!, 'mousedown');
    mouse(inner!, 'mouseup');
    mouse(inner!, 'click');
    expect(clickLanding()).toEqual({ status: 'ok', landed: true, press: null, release: null, click: null });
  });

  it('names where the press, the release and the click went when the click missed', () => {
    const { post, icon } = place('<div id="post"><p>Mira: lunch</p><span id="icon">♥</span></div><div id="layer" aria-label="Drag layer"></div>');
    watchClick(locate(icon));
    mouse(post!, 'mousedown');
    mouse(document.getElementById('layer')!, 'mouseup');
    mouse(post!, 'click');
    expect(clickLanding()).toEqual({
      status: 'ok',
      landed: false,
      press: '<div> "Mira: lunch ♥"',
      release: '<div> "Drag layer"',
      click: '<div> "Mira: lunch ♥"',
    });
  });

  it('takes a press on an element that is gone before the release as its click (a menu item acting on the press)', () => {
    const { item } = place('<ul id="menu"><li id="item">Archive</li></ul>');
    watchClick(locate(item));
    mouse(item!, 'mousedown');
    item!.remove();
    mouse(document.body, 'mouseup');
    mouse(document.body, 'click');
    expect(clickLanding()).toMatchObject({ status: 'ok', landed: true });
  });

  it('leaves the verdict open when no click was seen, and answers unwatched once read or in a new document', () => {
    const { button } = place('<button id="button">Go</button>');
    watchClick(locate(button));
    expect(clickLanding()).toMatchObject({ status: 'ok', landed: true });
    expect(clickLanding()).toEqual({ status: 'unwatched' });
    mouse(button!, 'click'); // the watch is off: nothing is recorded
    expect(clickLanding()).toEqual({ status: 'unwatched' });
  });

  it('answers stale for an element of another document', () => {
    expect(watchClick(otherDocument)).toEqual({ status: 'stale', reason: 'the page has loaded a new document since' });
  });
});

describe('awaitStableBox', () => {
  it('waits for a box that starts 0 px wide to grow and stay put', async () => {
    const { icon } = place('<span id="icon" style="display:inline-block;height:20px;width:0"></span>');
    setTimeout(() => (icon!.style.width = '10px'), 60);
    setTimeout(() => (icon!.style.width = '20px'), 120);
    expect(await awaitStableBox({ locator: locate(icon), maxMs: 2000 })).toEqual({ status: 'ok', stable: true });
    expect(icon!.getBoundingClientRect().width).toBe(20);
  });

  it('gives up at its bound on a box that never settles', async () => {
    const { icon } = place('<span id="icon" style="display:inline-block;height:20px;width:0"></span>');
    let width = 0;
    const timer = setInterval(() => (icon!.style.width = `${(width = (width + 1) % 30)}px`), 10);
    try {
      expect(await awaitStableBox({ locator: locate(icon), maxMs: 200 })).toEqual({ status: 'ok', stable: false });
    } finally {
      clearInterval(timer);
    }
  });
});
