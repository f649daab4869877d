// Finds the elements of a cached action on the page as it is now, with the replay matcher and a
// stricter bar than replay's: a cache hit acts with no model to notice a mistake, so anything short
// of the same element, plainly, is a miss. Pure: no browser, no I/O.

import type { PageState } from '../browser/page-state';
import { testIdAttributes } from '../dom/page/fingerprint';
import type { ElementFingerprint } from '../history/types';
import { matchElement, type MatchCandidate } from '../replay/match';
import { similarity, stableAttributes } from '../replay/similarity';
import type { CachedAction } from './cache-entry';
import { textAbove } from './page-signature';

/** The lowest score at which an element the matcher healed (not found by a stable attribute) is taken on a hit. */
const hitScore = 0.8;
/** How alike a name, or the text above an element, must be to count as the same. */
const sameWords = 0.85;
/** The attributes that say which element it is: one that changed makes it another element. */
const identifyingAttributes = ['id', 'name', 'href', 'type', 'for', ...testIdAttributes];

/** Where the action's elements are now: the index of each, by parameter, or why they cannot be taken. */
export type Relocation = { readonly found: true; readonly indexes: Readonly<Record<string, number>> } | { readonly found: false; readonly reason: string };

/**
 * Finds each element of `action` among `candidates` (the current page's indexed elements with
 * their fingerprints). An element is taken only when the matcher finds it (exactly, or healed with a
 * high score), it is visible and enabled, its tag, role, identifying attributes (id, test id, name,
 * href, type) and name are those recorded, it belongs to the same record (the matcher's rule) and,
 * when the page names no record for it, the page text just above it still says the same. Two
 * parameters never get one element.
 */
export function relocate(action: CachedAction, state: PageState, candidates: readonly MatchCandidate[], pageMoved: boolean): Relocation {
  const indexes: Record<string, number> = {};
  for (const [parameter, recorded] of Object.entries(action.elements)) {
    const found = relocateOne(recorded, action.context[parameter] ?? '', state, candidates, pageMoved);
    if ('reason' in found) return { found: false, reason: `${parameter}: ${found.reason}` };
    if (Object.values(indexes).includes(found.index)) return { found: false, reason: `${parameter}: the same element as another parameter` };
    indexes[parameter] = found.index;
  }
  return { found: true, indexes };
}

function relocateOne(
  recorded: ElementFingerprint,
  context: string,
  state: PageState,
  candidates: readonly MatchCandidate[],
  pageMoved: boolean,
): { readonly index: number } | { readonly reason: string } {
  const match = matchElement(recorded, candidates, { pageMoved });
  if (match.kind === 'none') return { reason: match.reason };
  const print = candidates.find((candidate) => candidate.index === match.index)?.fingerprint;
  if (!print) return { reason: `element ${match.index} has no fingerprint` };
  if (match.kind === 'healed' && match.score < hitScore) return { reason: `the closest element, ${match.index}, scores ${match.score}, below ${hitScore}` };
  if (!print.box || print.box.width === 0 || print.box.height === 0) return { reason: `element ${match.index} is not visible` };
  if (print.disabled) return { reason: `element ${match.index} is disabled` };
  // What identifies it must be unchanged: an id, a test id, a field's name, a link's target. An
  // element that only looks like it (a healed match) is left to the model.
  const changed = changedIdentity(recorded, print);
  if (changed) return { reason: `element ${match.index} is another element: ${changed}` };
  // With no record of its own (a card, a row: the matcher checks that), nothing in the fingerprint
  // tells this element from the same control elsewhere: what the page says just above it must be what it said.
  if (recorded.record?.scope !== 'item') {
    const now = textAbove(state.elementsText, match.index);
    if (now !== context && similarity(now, context) < sameWords) {
      return { reason: `the text above element ${match.index} changed from ${JSON.stringify(context)} to ${JSON.stringify(now)}` };
    }
  }
  return { index: match.index };
}

/** What makes `now` another element than `recorded`, in words, or `undefined` when nothing does. */
function changedIdentity(recorded: ElementFingerprint, now: ElementFingerprint): string | undefined {
  if (recorded.tagName !== now.tagName) return `its tag is ${now.tagName}, not ${recorded.tagName}`;
  if ((recorded.role ?? '') !== (now.role ?? '')) return `its role is ${now.role ?? 'none'}, not ${recorded.role ?? 'none'}`;
  const before = stableAttributes(recorded.attributes);
  const after = stableAttributes(now.attributes);
  for (const attribute of identifyingAttributes) {
    if (before.get(attribute) !== after.get(attribute)) {
      return `its ${attribute} is ${JSON.stringify(after.get(attribute) ?? null)}, not ${JSON.stringify(before.get(attribute) ?? null)}`;
    }
  }
  const recordedName = recorded.name || recorded.text;
  const name = now.name || now.text;
  // A field found by its `name` may be relabelled; any other element is known by its name.
  const field = recorded.attributes.name !== undefined && ['input', 'select', 'textarea'].includes(recorded.tagName);
  if (!field && recordedName !== name && similarity(recordedName, name) < sameWords)
    return `its name is ${JSON.stringify(name)}, not ${JSON.stringify(recordedName)}`;
  return undefined;
}
