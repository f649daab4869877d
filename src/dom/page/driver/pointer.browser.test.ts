// Runs in headless Chromium (the vitest `browser` project): where a pointer can reach an element, hit-tested with the
// browser's own elementFromPoint, and clicks dispatched in the page. Positions are fixed in CSS pixels near the top left.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { installRecorder } from '../recorder';
import { clickTarget, dispatchClick } from './pointer';

/** The style of an element fixed at the given edges, its border included in its size. */
const fixed = (left: number, top: number, width: number, height: number, extra = '') =>
  `position: fixed; left: ${left}px; top: ${top}px; width: ${width}px; height: ${height}px; box-sizing: border-box; margin: 0; ${extra}`;

function place(html: string): Record<string, HTMLElement> {
  document.body.innerHTML = html;
  const elements: Record<string, HTMLElement> = {};
  for (const element of document.body.querySelectorAll<HTMLElement>('[id]')) elements[element.id] = element;
  return elements;
}

beforeAll(() => {
  installRecorder();
});

afterEach(() => {
  document.body.innerHTML = '';
  window.scrollTo(0, 0);
});

describe('clickTarget', () => {
  it('gives the centre, relative to the padding box, of an element nothing covers', () => {
    const { button } = place(`<button id="button" style="${fixed(10, 20, 100, 40, 'border: 2px solid black; padding: 0;')}"></button>`);
    // The centre of the border box is (60, 40); the padding box starts 2 px inside it.
    expect(clickTarget(button!)).toEqual({ kind: 'centre', x: 48, y: 18, coveredBy: null });
  });

  it('answers disabled for a disabled control, and unseen for one that is not rendered', () => {
    const { disabled, hidden } = place(
      `<button id="disabled" disabled style="${fixed(0, 0, 50, 20)}">Off</button><button id="hidden" style="display: none;">Gone</button>`,
    );
    expect(clickTarget(disabled!)).toEqual({ kind: 'disabled' });
    expect(clickTarget(hidden!)).toEqual({ kind: 'unseen' });
  });

  it('scrolls an element below the fold into view first', () => {
    const { far } = place(
      `<div style="height: ${window.innerHeight * 3}px;"></div><button id="far" style="display: block; width: 80px; height: 30px;">Far</button>`,
    );
    const target = clickTarget(far!);
    expect(target.kind).toBe('centre');
    expect(window.scrollY).toBeGreaterThan(0);
    const box = far!.getBoundingClientRect();
    expect(box.top).toBeGreaterThanOrEqual(0);
    expect(box.bottom).toBeLessThanOrEqual(window.innerHeight);
  });

  it('gives a visible point beside a covered centre, naming what covers the centre', () => {
    const { button } = place(
      `<button id="button" style="${fixed(0, 0, 200, 40, 'padding: 0; border: 0;')}"></button><div id="badge" style="${fixed(80, 0, 40, 40, 'z-index: 1;')}"></div>`,
    );
    const target = clickTarget(button!);
    expect(target.kind).toBe('offset');
    if (target.kind !== 'offset') return;
    expect(target.coveredBy).toBe('div#badge');
    expect(document.elementFromPoint(target.x, target.y)).toBe(button);
  });

  it('answers covered with the outermost covering layer, by tag, id and classes', () => {
    const { button } = place(
      `<button id="button" style="${fixed(10, 10, 100, 40)}"></button>` +
        '<div class="cookie-banner consent dark" style="position: fixed; inset: 0; z-index: 5;"><p style="margin: 0; height: 100%;">We use cookies</p></div>',
    );
    expect(clickTarget(button!)).toEqual({ kind: 'covered', coveredBy: 'div.cookie-banner.consent' });
    const { other } = place(
      `<button id="other" style="${fixed(10, 10, 100, 40)}"></button><div id="wall" class="modal open" style="${fixed(0, 0, 300, 300, 'z-index: 5;')}"></div>`,
    );
    expect(clickTarget(other!)).toEqual({ kind: 'covered', coveredBy: 'div#wall.modal' });
  });

  it('counts a click on the element’s own label as reaching it (a styled checkbox under its label)', () => {
    const { box } = place(
      `<input id="box" type="checkbox" style="${fixed(10, 10, 20, 20)}"><label for="box" style="${fixed(0, 0, 100, 40, 'z-index: 1;')}">Agree</label>`,
    );
    expect(document.elementFromPoint(20, 20)?.localName).toBe('label');
    expect(clickTarget(box!).kind).toBe('centre');
  });

  it('reaches an element inside a closed shadow root the recorder saw', () => {
    const { host } = place(`<div id="host" style="${fixed(10, 10, 100, 40)}"></div>`);
    const root = host!.attachShadow({ mode: 'closed' });
    root.innerHTML = '<button style="display: block; width: 100px; height: 40px; margin: 0;">Inside</button>';
    expect(clickTarget(root.querySelector('button')!).kind).toBe('centre');
  });

  it('tries the next line of a link that wraps when its first line is covered', () => {
    const { link } = place('<p style="width: 60px; margin: 0; font: 16px/20px monospace;"><a id="link" href="#x">aaaa bbbb</a></p>');
    const [first, second] = [...link!.getClientRects()];
    expect(second).toBeDefined();
    document.body.insertAdjacentHTML('beforeend', `<div style="${fixed(0, first!.top, 300, first!.height, 'z-index: 1;')}"></div>`);
    const target = clickTarget(link!);
    expect(target.kind).toBe('offset');
    if (target.kind !== 'offset') return;
    const box = link!.getBoundingClientRect();
    expect(box.top + target.y).toBeGreaterThanOrEqual(second!.top);
  });
});

describe('dispatchClick', () => {
  /** The events of the given types the element receives while `act` runs. */
  function eventsDuring(element: Element, types: string[], act: () => void): MouseEvent[] {
    const seen: MouseEvent[] = [];
    const record = (event: Event): void => {
      seen.push(event as MouseEvent);
    };
    for (const type of types) element.addEventListener(type, record);
    act();
    for (const type of types) element.removeEventListener(type, record);
    return seen;
  }

  it('clicks with the left button as element.click() does: handlers run, default actions follow', () => {
    const { box } = place('<input id="box" type="checkbox">');
    const events = eventsDuring(box!, ['click'], () => dispatchClick(box!, { button: 'left', modifiers: [] }));
    expect(events.map((event) => [event.type, event.button, event.ctrlKey])).toEqual([['click', 0, false]]);
    expect((box as HTMLInputElement).checked).toBe(true);
  });

  it('holds the modifiers named for a left click', () => {
    const { link } = place('<a id="link">Open</a>');
    const events = eventsDuring(link!, ['click'], () => dispatchClick(link!, { button: 'left', modifiers: ['Control', 'Shift'] }));
    expect(events.map((event) => [event.type, event.ctrlKey, event.shiftKey, event.altKey, event.metaKey, event.bubbles])).toEqual([
      ['click', true, true, false, false, true],
    ]);
  });

  it('sends contextmenu for the right button and auxclick for the middle one', () => {
    const { area } = place('<div id="area">Area</div>');
    const events = eventsDuring(area!, ['click', 'contextmenu', 'auxclick'], () => {
      dispatchClick(area!, { button: 'right', modifiers: [] });
      dispatchClick(area!, { button: 'middle', modifiers: ['Alt'] });
    });
    expect(events.map((event) => [event.type, event.button, event.altKey])).toEqual([
      ['contextmenu', 2, false],
      ['auxclick', 1, true],
    ]);
  });

  it('dispatches a click event on an SVG element, which has no click()', () => {
    document.body.innerHTML = '<svg width="50" height="50"><circle id="dot" r="10" cx="20" cy="20"></circle></svg>';
    const dot = document.getElementById('dot')!;
    const events = eventsDuring(dot, ['click'], () => dispatchClick(dot, { button: 'left', modifiers: [] }));
    expect(events.map((event) => event.type)).toEqual(['click']);
  });
});
