// The page scripts the driver conformance kit runs through `evaluate` to look at (and change) its
// fixture pages: what the page's listeners saw, where its iframes are, its scroll positions. Each
// is self-contained, as every page script must be; none belongs to the core's runtime.

import { definePageScript } from '../dom/page-runtime';

/** What the fixture pages' own listeners recorded (see `recorder` in the pages module). */
export interface PageRecord {
  readonly clicks: number;
  readonly coveredClicks: number;
  readonly inputs: readonly string[];
  readonly submits: number;
  readonly submitted: string | null;
}

/** The content box of an iframe in the top frame's viewport, measured in the page. */
export interface IframeBox {
  readonly id: string;
  readonly rendered: boolean;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** The JSON argument of {@link echoScript}: strings with quotes and non-ASCII, numbers, null, nesting. */
export interface EchoArgument {
  readonly text: string;
  readonly count: number;
  readonly list: readonly (number | string | null)[];
  readonly nested: { readonly flag: boolean };
}

/** What the page's own listeners recorded, or null on a page without a recorder. */
export const pageRecordScript = definePageScript('plannav.conformance/page-record', (): PageRecord | null => {
  const record = (window as unknown as { conformance?: PageRecord }).conformance;
  return record ?? null;
});

/** The URL and title of the document the script ran in. */
export const locationScript = definePageScript('plannav.conformance/location', () => ({ href: location.href, title: document.title }));

/** Its JSON argument back, with values computed from it in the page. */
export const echoScript = definePageScript('plannav.conformance/echo', (argument: EchoArgument) => ({
  echoed: argument,
  doubled: argument.count * 2,
  joined: argument.list.map(String).join('|'),
  title: document.title,
}));

/** A value that arrives after `ms` milliseconds: the driver must await the promise. */
export const delayedScript = definePageScript('plannav.conformance/delayed', async (ms: number) => {
  await new Promise((resolve) => setTimeout(resolve, ms));
  return { waited: ms, title: document.title };
});

/** The content box of each iframe of the document, as frames() must report its offset. */
export const iframeBoxesScript = definePageScript('plannav.conformance/iframe-boxes', (): IframeBox[] =>
  [...document.querySelectorAll('iframe')].map((frame) => {
    const box = frame.getBoundingClientRect();
    const style = window.getComputedStyle(frame);
    const paddingLeft = parseFloat(style.paddingLeft || '0');
    const paddingTop = parseFloat(style.paddingTop || '0');
    return {
      id: frame.id,
      rendered: box.width > 0 && box.height > 0,
      x: box.left + frame.clientLeft + paddingLeft,
      y: box.top + frame.clientTop + paddingTop,
      width: frame.clientWidth,
      height: frame.clientHeight,
    };
  }),
);

/** Removes the elements with these ids; returns how many there were. */
export const removeElementsScript = definePageScript('plannav.conformance/remove-elements', (ids: readonly string[]) => {
  let removed = 0;
  for (const id of ids) {
    const element = document.getElementById(id);
    if (element) {
      element.remove();
      removed++;
    }
  }
  return removed;
});

/** Puts a fixed overlay over the whole viewport, as a cookie wall does. */
export const coverPageScript = definePageScript('plannav.conformance/cover-page', () => {
  const overlay = document.createElement('div');
  overlay.id = 'overlay';
  overlay.className = 'cookie-wall';
  overlay.textContent = 'Accept our cookies';
  overlay.style.cssText = 'position:fixed;inset:0;z-index:1000;background:rgba(0,0,0,0.5)';
  document.body.append(overlay);
  return true;
});

/** Focuses the element with this id; returns whether it has the focus. */
export const focusScript = definePageScript('plannav.conformance/focus', (id: string) => {
  const element = document.getElementById(id);
  element?.focus();
  return document.activeElement === element && element !== null;
});

/** The values of the controls page's name input and colour select. */
export const controlValuesScript = definePageScript('plannav.conformance/control-values', () => ({
  name: (document.getElementById('name') as HTMLInputElement | null)?.value ?? null,
  colour: (document.getElementById('colour') as HTMLSelectElement | null)?.value ?? null,
}));

/** How far the page and the scroll box are scrolled. */
export const scrollPositionsScript = definePageScript('plannav.conformance/scroll-positions', () => ({
  page: window.scrollY,
  box: document.getElementById('box')?.scrollTop ?? null,
}));

/** The viewport in CSS pixels, and the device pixel ratio. */
export const viewportScript = definePageScript('plannav.conformance/viewport', () => ({
  width: window.innerWidth,
  height: window.innerHeight,
  devicePixelRatio: window.devicePixelRatio,
}));

/** Changes the DOM every 25 ms for as long as the document lives, as a ticker or a clock does. */
export const mutateForeverScript = definePageScript('plannav.conformance/mutate-forever', () => {
  const ticker = document.createElement('div');
  ticker.id = 'ticker';
  document.body.append(ticker);
  let count = 0;
  setInterval(() => {
    count++;
    ticker.textContent = `Tick ${count}`;
    ticker.setAttribute('data-count', String(count));
  }, 25);
  return true;
});
