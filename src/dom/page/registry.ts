// The element registry of one document: every element the snapshot lists gets an id that stays
// its own while it lives, and actions find it again by that id. Runs in the page; the only place
// that turns an id back into an element.

/** The per-document state behind element ids. */
interface RegistryState {
  /** Tells documents apart: an id minted in one document never matches in another. */
  readonly token: string;
  next: number;
  readonly ids: WeakMap<Element, string>;
  /** Every element that got an id, by id, while it lives (dead entries are pruned). */
  readonly all: Map<string, WeakRef<Element>>;
  /** The ids the last snapshot listed: what the model has seen. */
  listed: Set<string>;
}

/** What {@link resolveElement} looks for: the snapshot's id (a selector may come along; it is not used). */
export interface ElementLocator {
  /** The snapshot's id of the element. */
  readonly elementId: string;
  /** A selector the driver kept; the registry finds elements by id only, so a removed element is never swapped for another. */
  readonly selector?: string | null | undefined;
}

/** Why an element could not be found: another document is loaded, or the element was removed. */
export type LookupFailure = 'document' | 'removed';

/** How many ids the registry keeps before it prunes the ones whose elements are gone. */
const pruneAbove = 20_000;

// Taken when the runtime loads: a page may seed or replace Math.random (visual tests, seeded
// PRNG libraries), which would give every document the same token.
const randomValues = typeof crypto !== 'undefined' && typeof crypto.getRandomValues === 'function' ? crypto.getRandomValues.bind(crypto) : undefined;

/** A token no other document of this browser is likely to share. */
export function newToken(): string {
  if (randomValues) return [...randomValues(new Uint32Array(2))].map((part) => part.toString(36)).join('');
  return Math.random().toString(36).slice(2, 10);
}

let state: RegistryState | undefined;

function registry(): RegistryState {
  state ??= { token: newToken(), next: 1, ids: new WeakMap(), all: new Map(), listed: new Set() };
  return state;
}

/** Starts a new snapshot: the ids it lists become the elements the model has seen. */
export function beginSnapshot(): void {
  const current = registry();
  current.listed = new Set();
  if (current.all.size > pruneAbove) {
    for (const [id, reference] of current.all) if (!reference.deref()?.isConnected) current.all.delete(id);
  }
}

/** The element's id, minted on first sight and kept while the element lives; the element is listed as seen. */
export function elementIdOf(element: Element): string {
  const current = registry();
  let id = current.ids.get(element);
  if (id === undefined) {
    id = `${current.token}-${current.next++}`;
    current.ids.set(element, id);
    current.all.set(id, new WeakRef(element));
  }
  current.listed.add(id);
  return id;
}

/** The elements of the last snapshot that still exist. */
export function knownElements(): Set<Element> {
  const current = registry();
  const known = new Set<Element>();
  for (const id of current.listed) {
    const element = current.all.get(id)?.deref();
    if (element) known.add(element);
  }
  return known;
}

/**
 * This document's token: it tells documents apart, so a reader that gets the same token before and
 * after its calls knows they all ran in one document (no navigation replaced it in between).
 */
export function documentToken(): string {
  return registry().token;
}

/** True when a snapshot ran in this document (ids of this document exist). */
export function hasSnapshot(): boolean {
  return state !== undefined && state.next > 1;
}

/**
 * The element behind an id this document gave out, or why there is none: another document is
 * loaded (the token differs), or the element was removed. Lookups go by id only: an element that
 * is gone is never swapped for another that a selector would now find.
 */
export function resolveElement(locator: ElementLocator): Element | LookupFailure {
  const current = registry();
  if (!locator.elementId.startsWith(`${current.token}-`)) return 'document';
  const element = current.all.get(locator.elementId)?.deref();
  return element && element.isConnected ? element : 'removed';
}

/** Words for a lookup failure, as the model reads them. */
export function lookupFailureReason(failure: LookupFailure): string {
  return failure === 'document' ? 'the page has loaded a new document since' : 'it was removed from the page';
}
