// The script a driver installs in every document before the page's own scripts run, so the
// snapshot can see what they wire up: click listeners added by addEventListener (jQuery and
// most libraries go through it) and closed shadow roots. It must stay self-contained.

import type { PageScript } from '../browser/types';

/** Event types that make an element something to click. */
const clickTypes = ['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'touchstart', 'touchend', 'dblclick'];

/* v8 ignore start -- runs inside the page, where Node's coverage cannot see it */
function installRecorder(types: readonly string[]): boolean {
  // Runs in the page, before its scripts. Idempotent: a second install changes nothing.
  const host = window as unknown as Record<string, unknown>;
  if (host['__plannavListeners']) return false;
  const listened = new WeakSet<EventTarget>();
  const closedRoots = new WeakMap<Element, ShadowRoot>();
  const hidden = (name: string, value: unknown): void => {
    Object.defineProperty(window, name, { value, enumerable: false, configurable: false, writable: false });
  };
  hidden('__plannavListeners', listened);
  hidden('__plannavShadowRoots', closedRoots);
  const wanted = new Set(types);
  const originalAdd = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function addEventListener(
    this: EventTarget,
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | AddEventListenerOptions,
  ): void {
    if (listener && wanted.has(type) && this instanceof Element) listened.add(this);
    return originalAdd.call(this, type, listener, options);
  };
  const originalAttach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function attachShadow(this: Element, init: ShadowRootInit): ShadowRoot {
    const root = originalAttach.call(this, init);
    // The snapshot walks open roots through element.shadowRoot; closed ones only through this map.
    if (init.mode === 'closed') closedRoots.set(this, root);
    return root;
  };
  return true;
}

/* v8 ignore stop */
/**
 * Records, in each document, the elements that page scripts give click listeners and the closed
 * shadow roots they attach, so that {@link domSnapshotScript} counts those elements as interactive
 * and walks those roots. Drivers install it before page scripts run (Playwright's
 * `context.addInitScript`, Puppeteer's `evaluateOnNewDocument`) with {@link listenerRecorderArgument}.
 * @public
 */
export const listenerRecorderScript: PageScript<readonly string[], boolean> = {
  id: 'plannav.listener-recorder@1',
  run: installRecorder,
};

/** The argument {@link listenerRecorderScript} runs with: the event types that mean "clickable". @public */
export const listenerRecorderArgument: readonly string[] = clickTypes;
