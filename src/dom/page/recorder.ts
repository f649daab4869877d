// Records what page scripts wire up that the DOM does not show: click listeners added (and removed)
// through addEventListener, and closed shadow roots. Runs in the page, ideally before its scripts.

/** Event types that make an element something to click. */
const clickTypes = new Set(['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'touchstart', 'touchend', 'dblclick']);

/** What the recorder keeps; shared by every runtime version installed in the same document. */
interface RecorderState {
  /** Per element: the click-type listeners it holds, by `type/capture`. */
  readonly listeners: WeakMap<EventTarget, Map<string, Set<unknown>>>;
  readonly closedRoots: WeakMap<Element, ShadowRoot>;
}

/** The window property holding the recorder; stable across runtime versions so the prototypes are patched once. */
const recorderKey = '__plannavRecorder@1';

/** The recorder this runtime installed or found; kept here, so a page that overwrites the global later changes nothing. */
let installed: RecorderState | undefined;

/** The shared recorder, if the global holds a real one: a page may predefine the global with anything. */
function recorderState(): RecorderState | undefined {
  if (installed) return installed;
  const value: unknown = (window as unknown as Record<string, unknown>)[recorderKey];
  const valid =
    typeof value === 'object' &&
    value !== null &&
    (value as RecorderState).listeners instanceof WeakMap &&
    (value as RecorderState).closedRoots instanceof WeakMap;
  return valid ? (value as RecorderState) : undefined;
}

const captureOf = (options: boolean | EventListenerOptions | undefined): boolean => (typeof options === 'boolean' ? options : Boolean(options?.capture));

/**
 * Patches `addEventListener`, `removeEventListener` and `attachShadow` of this document once.
 * Listeners and roots created before the install are not seen, so drivers run the runtime before
 * the page's scripts where they can. Returns false when the recorder was already installed.
 */
export function installRecorder(): boolean {
  const existing = recorderState();
  if (existing) {
    installed = existing;
    return false;
  }
  const recorded: RecorderState = { listeners: new WeakMap(), closedRoots: new WeakMap() };
  installed = recorded;
  try {
    Object.defineProperty(window, recorderKey, { value: recorded, enumerable: false, configurable: false, writable: false });
  } catch {
    // the page made the global unwritable: this runtime keeps its own recorder
  }
  const prototype = EventTarget.prototype;
  const originalAdd = prototype.addEventListener;
  const originalRemove = prototype.removeEventListener;
  const forget = (target: EventTarget, key: string, listener: unknown): void => {
    const byKey = recorded.listeners.get(target);
    const set = byKey?.get(key);
    if (!byKey || !set) return;
    set.delete(listener);
    if (set.size === 0) byKey.delete(key);
  };
  prototype.addEventListener = function addEventListener(
    this: EventTarget,
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | AddEventListenerOptions,
  ): void {
    const signal = typeof options === 'object' ? options.signal : undefined;
    // A signal that already aborted makes the browser attach nothing.
    if (listener && clickTypes.has(type) && this instanceof Element && !signal?.aborted) {
      const key = `${type}/${captureOf(options)}`;
      let byKey = recorded.listeners.get(this);
      if (!byKey) recorded.listeners.set(this, (byKey = new Map<string, Set<unknown>>()));
      let set = byKey.get(key);
      if (!set) byKey.set(key, (set = new Set()));
      const added = !set.has(listener);
      set.add(listener);
      signal?.addEventListener('abort', () => forget(this, key, listener), { once: true });
      // A once listener is gone after its first event (a listener already attached stays as it was).
      if (added && typeof options === 'object' && options.once) {
        originalAdd.call(this, type, () => forget(this, key, listener), { once: true, capture: captureOf(options) });
      }
    }
    originalAdd.call(this, type, listener, options);
  };
  prototype.removeEventListener = function removeEventListener(
    this: EventTarget,
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | EventListenerOptions,
  ): void {
    if (listener && clickTypes.has(type)) forget(this, `${type}/${captureOf(options)}`, listener);
    originalRemove.call(this, type, listener, options);
  };
  const originalAttach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function attachShadow(this: Element, init: ShadowRootInit): ShadowRoot {
    const root = originalAttach.call(this, init);
    // Open roots are reachable through element.shadowRoot; closed ones only through this map.
    if (init.mode === 'closed') recorded.closedRoots.set(this, root);
    return root;
  };
  return true;
}

/** True when page scripts gave the element a click-type listener that is still attached. */
export function hasClickListener(element: Element): boolean {
  const byKey = recorderState()?.listeners.get(element);
  return byKey !== undefined && byKey.size > 0;
}

/** The element's shadow root, open or (when the recorder saw it attached) closed. */
export function shadowRootOf(element: Element): ShadowRoot | null {
  return element.shadowRoot ?? recorderState()?.closedRoots.get(element) ?? null;
}

/** The element's parent across shadow boundaries (a shadow root's host). */
export function composedParent(node: Element): Element | null {
  return node.parentElement ?? (node.parentNode as ShadowRoot | null)?.host ?? null;
}
