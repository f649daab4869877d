// Finding a recorded element on the page as it is now: by its fingerprint, exactly or by a scored
// match, waiting as a Playwright locator does for it to be there, visible, enabled and still.

import type { PageState } from '../browser/page-state';
import type { ResolvedBrowserDriver } from '../browser/types';
import { readFingerprints } from '../dom/fingerprint';
import type { ElementFingerprint } from '../history/types';
import { sleep } from '../util/abort';
import { matchElement, type ScoredMatch } from './match';
import { comparable, elementPollMs, moved, sameBox, stableCheckMs, type LocatedElement, type RecordedAction, type SiteMove } from './recording';

/** What the search needs of the replay: its browser, signal, settle-then-read and options. */
export interface ElementSearch {
  readonly driver: ResolvedBrowserDriver;
  readonly signal: AbortSignal;
  readPage(): Promise<PageState>;
  readonly elementTimeoutMs: number;
  readonly matchThreshold: number | undefined;
  readonly origins: SiteMove | undefined;
}

/**
 * Finds the recorded element on the page, waiting as a Playwright locator does: the page is
 * read again until the element is there, visible, enabled and still, or `elementTimeoutMs`
 * passed. A scored match is taken only once a second reading agrees, so that an element the
 * page is still putting in place is not passed over for a look-alike. After a step that failed,
 * the browser must be on the page the recording acted on, or the element's page (its heading)
 * must be the recorded one.
 */
export async function locateElement(
  page: ElementSearch,
  recorded: RecordedAction,
  offTrack: boolean,
): Promise<LocatedElement | { reason: string; best?: ScoredMatch | undefined; state: PageState }> {
  const fingerprint = recorded.action.fingerprint;
  const deadline = Date.now() + page.elementTimeoutMs;
  const recordedUrl = recorded.step.browser ? (moved(recorded.step.browser.url, page.origins) as string) : undefined;
  let previous: LocatedElement | undefined;
  for (let attempt = 0; ; attempt++) {
    const state = await page.readPage();
    const pageMoved = recordedUrl !== undefined && comparable(state.url, false) !== comparable(recordedUrl, false);
    let blocked: { reason: string; best?: ScoredMatch | undefined } | undefined;
    if (pageMoved && offTrack && !fingerprint?.record) {
      blocked = { reason: `the browser is at ${state.url}, not on the page the recording acted on (${recordedUrl ?? ''}), after a step that failed` };
    } else {
      const found = await findElement(page, fingerprint, state, pageMoved);
      if ('reason' in found) blocked = found;
      else {
        const print = found.fingerprint;
        const hidden = !print?.box || print.box.width === 0 || print.box.height === 0;
        if (hidden) blocked = { reason: `element ${found.index} ${JSON.stringify(print?.name ?? '')} is not visible` };
        else if (print?.disabled) blocked = { reason: `element ${found.index} ${JSON.stringify(print.name || print.text)} is disabled` };
        else {
          // Indices change from one reading to the next: the same element is at the same path, in the same box.
          const still = previous !== undefined && previous.fingerprint?.xpath === print.xpath && sameBox(previous.fingerprint.box, print.box);
          if (still || (found.status === 'exact' && (await holdsStill(page, found, state)))) return found;
          previous = found;
          blocked = { reason: `element ${found.index} ${JSON.stringify(print.name || print.text)} is not stable yet` };
        }
      }
    }
    if (Date.now() >= deadline) {
      if (previous && blocked.reason.endsWith('is not stable yet')) return previous; // the best there is once the time is up
      const waited = attempt > 0 ? ` (waited ${page.elementTimeoutMs} ms)` : '';
      return { ...blocked, reason: `${blocked.reason}${waited}`, state };
    }
    await sleep(Math.min(elementPollMs, Math.max(0, deadline - Date.now())), page.signal);
  }
}

/** Whether a found element's box stays the same over a short while: not moving into place. */
async function holdsStill(page: ElementSearch, found: LocatedElement, state: PageState): Promise<boolean> {
  const ref = state.elements.get(found.index);
  if (!ref || !found.fingerprint?.box) return false;
  await sleep(stableCheckMs, page.signal);
  const [again] = await readFingerprints(page.driver, [ref], { signal: page.signal });
  return again !== undefined && sameBox(found.fingerprint.box, again.box) && again.disabled !== true;
}

/** The recorded element on the page now, or why it cannot be found. */
async function findElement(
  page: ElementSearch,
  fingerprint: ElementFingerprint | undefined,
  state: PageState,
  pageMoved: boolean,
): Promise<LocatedElement | { reason: string; best?: ScoredMatch | undefined }> {
  if (!fingerprint) return { reason: 'the recording has no fingerprint of the element (a history of version 1, or the page could not be read then)' };
  const refs = [...state.elements.values()];
  const prints = await readFingerprints(page.driver, refs, { signal: page.signal });
  const candidates = refs.flatMap((ref, position) => {
    const print = prints[position];
    return print ? [{ index: ref.index, fingerprint: print }] : [];
  });
  const found = matchElement(fingerprint, candidates, { threshold: page.matchThreshold, pageMoved });
  const printOf = (index: number): ElementFingerprint | undefined => candidates.find((candidate) => candidate.index === index)?.fingerprint;
  if (found.kind === 'exact') return { index: found.index, status: 'exact', fingerprint: printOf(found.index), candidates, state };
  if (found.kind === 'healed') {
    return { index: found.index, status: 'healed', score: found.score, differences: found.differences, fingerprint: printOf(found.index), candidates, state };
  }
  const best = found.best && found.best.differences.length > 0 ? ` (what differs on element ${found.best.index}: ${found.best.differences.join('; ')})` : '';
  return {
    reason: `the recorded ${fingerprint.role ?? fingerprint.tagName} ${JSON.stringify(fingerprint.name || fingerprint.text)} was not found: ${found.reason}${best}`,
    best: found.best,
  };
}
