// Waits for the page to react to typing: suggestions, a filtered list, a validation message that
// come some time after the last keystroke (debounced widgets). Runs in the page; only observes.

import { resolveElement, type ElementLocator } from '../registry';

/** What {@link awaitReaction} is asked: the field typed into, and its three bounds in milliseconds after the last keystroke. */
export interface ReactionRequest extends ElementLocator {
  /** How long after the last keystroke the first change may come; without one, the page did not react. */
  readonly firstChangeMs: number;
  /** How long the DOM must stay unchanged after a change before the reaction counts as done. */
  readonly quietMs: number;
  /** The most the wait lasts after the last keystroke, whatever the page keeps doing (a ticker, an animation in the DOM). */
  readonly maxMs: number;
}

/**
 * How the wait ended: `quiet` (the DOM changed, then stayed unchanged for `quietMs`), `unchanged`
 * (no change within `firstChangeMs`) or `busy` (still changing at `maxMs`).
 */
export interface ReactionAnswer {
  readonly outcome: 'quiet' | 'unchanged' | 'busy';
  /** Milliseconds the wait itself took. */
  readonly waitedMs: number;
}

/** When each watched field last had an input event, or was first watched, in `performance.now()` time. */
const typedAt = new WeakMap<Element, number>();

/**
 * Starts noting when the field gets input, before the driver types into it: the reaction's windows
 * then count from the last keystroke itself, not from the end of the driver's typing (drivers
 * wait for the element first and settle the page after). Returns false when the field is gone.
 */
export function watchTyping(locator: ElementLocator): boolean {
  const field = resolveElement(locator);
  if (typeof field === 'string') return false;
  if (!typedAt.has(field)) field.addEventListener('input', () => typedAt.set(field, performance.now()), { capture: true });
  typedAt.set(field, performance.now());
  return true;
}

/** The document and every shadow root the element sits in, innermost last. */
function rootsAround(element: Element | undefined): Node[] {
  const roots: Node[] = [document];
  // Bounded by the nesting of shadow trees, which a page cannot make endless.
  for (let root = element?.getRootNode(); root instanceof ShadowRoot && roots.length < 50; root = root.host.getRootNode()) roots.push(root);
  return roots;
}

/**
 * Resolves once the DOM changed and then stayed quiet, or when no change came in time. The windows
 * count from the field's last keystroke ({@link watchTyping}), else from this call. Changes of the
 * field itself do not count: they echo the typing (a framework writing the `value` attribute, the
 * text of an editable element), and would end the wait before the suggestions of a debounced
 * widget (jQuery UI waits 300 ms) arrive.
 */
export function awaitReaction(request: ReactionRequest): Promise<ReactionAnswer> {
  const found = resolveElement(request);
  const field = typeof found === 'string' ? undefined : found;
  const started = performance.now();
  const since = Math.min(started, (field && typedAt.get(field)) ?? started);
  const remaining = (bound: number): number => Math.max(0, since + bound - started);
  return new Promise((resolve) => {
    let firstTimer: ReturnType<typeof setTimeout> | undefined;
    let quietTimer: ReturnType<typeof setTimeout> | undefined;
    let capTimer: ReturnType<typeof setTimeout> | undefined;
    const observer = new MutationObserver((records) => {
      if (field && records.every((record) => field.contains(record.target))) return;
      clearTimeout(firstTimer);
      clearTimeout(quietTimer);
      quietTimer = setTimeout(() => finish('quiet'), Math.max(0, request.quietMs));
    });
    const finish = (outcome: ReactionAnswer['outcome']): void => {
      observer.disconnect();
      clearTimeout(firstTimer);
      clearTimeout(quietTimer);
      clearTimeout(capTimer);
      resolve({ outcome, waitedMs: Math.round(performance.now() - started) });
    };
    // A document observer does not see into shadow trees: the ones around the field (a web
    // component's suggestions sit beside its input) are observed too.
    for (const root of rootsAround(field)) observer.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
    firstTimer = setTimeout(() => finish('unchanged'), remaining(request.firstChangeMs));
    capTimer = setTimeout(() => finish('busy'), remaining(request.maxMs));
  });
}
