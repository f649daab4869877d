// The page side of checking where a click landed: a watch armed before the click that records the
// targets of the press, the release and the click, and the verdict read after it. Never clicks.

import { waitForStableBox } from '../driver/pointer';
import type { ElementLocator } from '../registry';
import { composedParent, shadowRootOf } from '../recorder';
import { findElement, isStale, type StaleAnswer } from './lookup';
import { describeElement, shownText } from './naming';

/** Where a click's events went: `landed` unless they surely missed the element. */
export type ClickLanding =
  | { readonly status: 'unwatched' }
  | {
      readonly status: 'ok';
      /** The click reached the element (or cannot be told apart from one that did). */
      readonly landed: boolean;
      /** What the press, the release and the click hit when it was not the element, as `<tag> "name"`. */
      readonly press: string | null;
      readonly release: string | null;
      readonly click: string | null;
    };

type Phase = 'press' | 'release' | 'click';

const phases: Record<string, Phase> = {
  pointerdown: 'press',
  mousedown: 'press',
  pointerup: 'release',
  mouseup: 'release',
  click: 'click',
  auxclick: 'click',
  contextmenu: 'click',
};

/** One event of the watch: whether it reached the element, and what it hit. */
interface Seen {
  readonly phase: Phase;
  readonly reached: boolean;
  readonly target: Element | null;
}

interface Watch {
  readonly element: Element;
  readonly seen: Seen[];
  readonly stop: () => void;
}

/** The watch of this document; one click at a time is checked. */
let current: Watch | undefined;
/** Bounds what a page that fires events in a loop can make the watch keep. */
const maxSeen = 64;

/** True when `inner` is `outer` or lies inside it, across shadow boundaries. */
function within(outer: Element, inner: Element): boolean {
  for (let node: Element | null = inner, depth = 0; node && depth < 256; node = composedParent(node), depth++) if (node === outer) return true;
  return false;
}

/**
 * Whether the event reached the element. An event seen from the window is retargeted to the host
 * of a closed shadow root, so a host whose hidden tree holds the element cannot be told apart
 * from the element itself: that counts as reached, since a miss must be certain to be reported.
 */
function reaches(event: Event, element: Element): boolean {
  if (event.composedPath().includes(element)) return true;
  const target = event.target instanceof Element ? event.target : null;
  if (!target) return false;
  if (within(element, target)) return true;
  const hidden = shadowRootOf(target);
  return hidden !== null && hidden.mode === 'closed' && within(target, element);
}

/** Arms the watch on the element before a click; a watch armed before it is dropped. */
export function watchClick(locator: ElementLocator): { readonly status: 'ok' } | StaleAnswer {
  const element = findElement(locator);
  if (isStale(element)) return element;
  current?.stop();
  const seen: Seen[] = [];
  const listener = (event: Event): void => {
    const phase = phases[event.type];
    if (!phase || seen.length >= maxSeen) return;
    seen.push({ phase, reached: reaches(event, element), target: event.target instanceof Element ? event.target : null });
  };
  const types = Object.keys(phases);
  for (const type of types) window.addEventListener(type, listener, { capture: true });
  const watch: Watch = {
    element,
    seen,
    stop: () => {
      for (const type of types) window.removeEventListener(type, listener, { capture: true });
      if (current === watch) current = undefined;
    },
  };
  current = watch;
  return { status: 'ok' };
}

/** A target as results name it; the document's roots by their tag alone (their text is the whole page). */
function describeTarget(target: Element | null): string | null {
  if (!target) return null;
  const root = target === document.body || target === document.documentElement;
  return describeElement(target.localName, '', root ? '' : target.getAttribute('aria-label') || shownText(target));
}

/**
 * Reads and disarms the watch. The click missed when no click event reached the element while
 * one went elsewhere, unless the press reached it and it is gone or hidden since (a menu item
 * that acts on the press and closes its menu). `unwatched`: this document holds no watch (the
 * click loaded another one).
 */
export function clickLanding(): ClickLanding {
  const watch = current;
  if (!watch) return { status: 'unwatched' };
  watch.stop();
  const { element, seen } = watch;
  const clicks = seen.filter((event) => event.phase === 'click');
  const pressed = seen.some((event) => event.phase === 'press' && event.reached);
  const rect = element.getBoundingClientRect();
  const goneSincePress = pressed && (!element.isConnected || rect.width < 1 || rect.height < 1);
  const landed = clicks.length === 0 || clicks.some((event) => event.reached) || goneSincePress;
  const missed = (phase: Phase): string | null => {
    const events = seen.filter((event) => event.phase === phase);
    const last = events[events.length - 1];
    return last && !last.reached ? describeTarget(last.target) : null;
  };
  return { status: 'ok', landed, press: missed('press'), release: missed('release'), click: missed('click') };
}

/** Waits, at most `maxMs`, for the element's box to have a size and stay put; says whether it did. */
export async function awaitStableBox({
  locator,
  maxMs,
}: {
  locator: ElementLocator;
  maxMs: number;
}): Promise<{ readonly status: 'ok'; readonly stable: boolean } | StaleAnswer> {
  const element = findElement(locator);
  if (isStale(element)) return element;
  return { status: 'ok', stable: await waitForStableBox(element, maxMs) };
}
