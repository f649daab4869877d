// The element registry of one document: every element the snapshot lists gets an id that stays
// its own while it lives, and actions find it again by that id. Runs in the page; the only place
// that turns an id back into an element.

/** The per-document state behind element ids. */
interface RegistryState {
  /** Tells documents apart: an id minted in one document never matches in another. */
  readonly token: string;
  next: number;
  readonly ids: WeakMap<Element, string>;
  /** The elements of the last snapshot (and of lookups since), by id. */
  elements: Map<string, WeakRef<Element>>;
}

/** What {@link resolveElement} looks for: the snapshot's id and, as a fallback, its selector. */
export interface ElementLocator {
  /** The snapshot's id of the element. */
  readonly elementId: string;
  /** A selector that named the element, used only when the page lost the registry's map. */
  readonly selector?: string | null | undefined;
}

/** Why an element could not be found: another document is loaded, or the element was removed. */
export type LookupFailure = 'document' | 'removed';

let state: RegistryState | undefined;

function registry(): RegistryState {
  state ??= {
    token: Math.random().toString(36).slice(2, 8),
    next: 1,
    ids: new WeakMap(),
    elements: new Map(),
  };
  return state;
}

/** Starts a new snapshot: only the elements it lists (and later lookups) can be resolved by id. */
export function beginSnapshot(): void {
  registry().elements = new Map();
}

/** The element's id, minted on first sight and kept while the element lives; the element becomes resolvable. */
export function elementIdOf(element: Element): string {
  const current = registry();
  let id = current.ids.get(element);
  if (id === undefined) {
    id = `${current.token}-${current.next++}`;
    current.ids.set(element, id);
  }
  current.elements.set(id, new WeakRef(element));
  return id;
}

/** The elements of the last snapshot that still exist. */
export function knownElements(): Set<Element> {
  const known = new Set<Element>();
  for (const reference of registry().elements.values()) {
    const element = reference.deref();
    if (element) known.add(element);
  }
  return known;
}

/** True when a snapshot ran in this document (ids of this document exist). */
export function hasSnapshot(): boolean {
  return state !== undefined && state.next > 1;
}

/**
 * The element behind an id of the last snapshot, or why there is none. The selector stands in only
 * when this document never listed the id (the registry was lost); an element known to be removed
 * is never swapped for another that now matches.
 */
export function resolveElement(locator: ElementLocator): Element | LookupFailure {
  const current = registry();
  if (!locator.elementId.startsWith(`${current.token}-`)) return 'document';
  const reference = current.elements.get(locator.elementId);
  const element = reference?.deref();
  if (element && element.isConnected) return element;
  if (!reference && locator.selector) {
    try {
      const found = document.querySelector(locator.selector);
      if (found) return found;
    } catch {
      // an invalid selector is no fallback
    }
  }
  return 'removed';
}

/** Words for a lookup failure, as the model reads them. */
export function lookupFailureReason(failure: LookupFailure): string {
  return failure === 'document' ? 'the page has loaded a new document since' : 'it was removed from the page';
}
