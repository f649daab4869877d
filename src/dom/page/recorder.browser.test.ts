// Runs in headless Chromium (the vitest `browser` project): the recorder of click listeners and closed shadow roots.
// It patches this test document's prototypes once, in the first test; the tests after it rely on that and run in order.
import { afterEach, describe, expect, it } from 'vitest';
import { composedParent, hasClickListener, installRecorder, shadowRootOf } from './recorder';

/** Puts `html` in the document and returns its elements with an id, by id. */
function place(html: string): Record<string, HTMLElement> {
  document.body.innerHTML = html;
  const elements: Record<string, HTMLElement> = {};
  for (const element of document.body.querySelectorAll<HTMLElement>('[id]')) elements[element.id] = element;
  return elements;
}

afterEach(() => {
  document.body.innerHTML = '';
});

describe('installRecorder', () => {
  // First in the file: the recorder is not installed yet.
  it('installs once, and sees only what is wired up after it', () => {
    const { early, late } = place('<div id="early"></div><div id="late"></div>');
    early!.addEventListener('click', () => {});
    const earlyRoot = early!.attachShadow({ mode: 'closed' });
    expect(installRecorder()).toBe(true);
    expect(installRecorder()).toBe(false);
    late!.addEventListener('click', () => {});
    expect(hasClickListener(early!)).toBe(false);
    expect(shadowRootOf(early!)).toBeNull();
    expect(earlyRoot.mode).toBe('closed');
    expect(hasClickListener(late!)).toBe(true);
  });

  it('keeps its state on a window property that page scripts neither enumerate nor replace', () => {
    expect(Object.keys(window)).not.toContain('__plannavRecorder@1');
    const descriptor = Object.getOwnPropertyDescriptor(window, '__plannavRecorder@1');
    expect(descriptor?.writable).toBe(false);
    expect(descriptor?.configurable).toBe(false);
  });
});

describe('hasClickListener', () => {
  it('sees every click-type event, and no other', () => {
    const types = ['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'touchstart', 'touchend', 'dblclick'];
    for (const type of types) {
      const element = document.createElement('div');
      element.addEventListener(type, () => {});
      expect(hasClickListener(element), type).toBe(true);
    }
    for (const type of ['keydown', 'mouseover', 'focus', 'input', 'scroll']) {
      const element = document.createElement('div');
      element.addEventListener(type, () => {});
      expect(hasClickListener(element), type).toBe(false);
    }
  });

  it('is false for an element without listeners, and ignores a null listener', () => {
    const { plain } = place('<div id="plain"></div>');
    plain!.addEventListener('click', null as unknown as EventListener); // the DOM accepts null; its type does not
    expect(hasClickListener(plain!)).toBe(false);
  });

  it('still lets the page listener run: clicking calls it', () => {
    const { button } = place('<div id="button"></div>');
    let clicks = 0;
    button!.addEventListener('click', () => clicks++);
    button!.click();
    expect(clicks).toBe(1);
  });

  it('forgets a listener that removeEventListener takes off, and the page listener no longer runs', () => {
    const { item } = place('<div id="item"></div>');
    let clicks = 0;
    const listener = (): void => {
      clicks++;
    };
    item!.addEventListener('click', listener);
    item!.removeEventListener('click', listener);
    item!.click();
    expect(clicks).toBe(0);
    expect(hasClickListener(item!)).toBe(false);
  });

  it('keeps a listener when the removal names another phase, as the browser does', () => {
    const { item } = place('<div id="item"></div>');
    const listener = (): void => {};
    item!.addEventListener('mousedown', listener, { capture: true });
    item!.removeEventListener('mousedown', listener);
    expect(hasClickListener(item!)).toBe(true);
    item!.removeEventListener('mousedown', listener, { capture: true });
    expect(hasClickListener(item!)).toBe(false);
    item!.addEventListener('mouseup', listener, true);
    item!.removeEventListener('mouseup', listener, true);
    expect(hasClickListener(item!)).toBe(false);
  });

  it('stays true while one of several listeners is left', () => {
    const { item } = place('<div id="item"></div>');
    const first = (): void => {};
    const second = { handleEvent: (): void => {} };
    item!.addEventListener('click', first);
    item!.addEventListener('pointerdown', second);
    item!.removeEventListener('click', first);
    expect(hasClickListener(item!)).toBe(true);
    item!.removeEventListener('pointerdown', second);
    expect(hasClickListener(item!)).toBe(false);
  });

  it('forgets a listener whose AbortSignal aborts', () => {
    const { item } = place('<div id="item"></div>');
    const controller = new AbortController();
    let clicks = 0;
    item!.addEventListener('click', () => clicks++, { signal: controller.signal });
    expect(hasClickListener(item!)).toBe(true);
    controller.abort();
    item!.click();
    expect(clicks).toBe(0);
    expect(hasClickListener(item!)).toBe(false);
  });

  it('records listeners on elements only, not on the document or the window', () => {
    const listener = (): void => {};
    document.addEventListener('click', listener);
    window.addEventListener('click', listener);
    expect(hasClickListener(document.documentElement)).toBe(false);
    expect(hasClickListener(document.body)).toBe(false);
    document.removeEventListener('click', listener);
    window.removeEventListener('click', listener);
  });
});

describe('shadowRootOf', () => {
  it('finds an open root through the element and a closed one through the recorder', () => {
    const { open, closed, none } = place('<div id="open"></div><div id="closed"></div><div id="none"></div>');
    const openRoot = open!.attachShadow({ mode: 'open' });
    const closedRoot = closed!.attachShadow({ mode: 'closed' });
    expect(closed!.shadowRoot).toBeNull();
    expect(shadowRootOf(open!)).toBe(openRoot);
    expect(shadowRootOf(closed!)).toBe(closedRoot);
    expect(shadowRootOf(none!)).toBeNull();
  });
});

describe('composedParent', () => {
  it('is the parent element, the host for the top of a shadow tree, and null at the document root or when detached', () => {
    const { host, child } = place('<div id="host"></div><p><span id="child"></span></p>');
    const root = host!.attachShadow({ mode: 'closed' });
    root.innerHTML = '<button>Inside</button>';
    const inside = root.querySelector('button')!;
    expect(composedParent(child!)).toBe(child!.parentElement);
    expect(composedParent(inside)).toBe(host);
    expect(composedParent(document.documentElement)).toBeNull();
    expect(composedParent(document.createElement('div'))).toBeNull();
  });
});
