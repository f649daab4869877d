// input_text waits for the page to react to typing, in real headless Chromium: suggestions that a
// plain input (no ARIA, no datalist) shows some time after the last keystroke are in the page
// when the action ends, and a page whose DOM never stops changing still ends the wait at its cap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inputTextAction, reactionWait } from '../../src/actions/builtin/input-text';
import { ActionRegistry } from '../../src/actions/registry';
import type { PageState } from '../../src/browser/page-state';
import { describePageChange, readBaseline } from '../../src/dom/page-changes';
import { RequestCancelledError } from '../../src/errors';
import { liveContext } from './action-helpers';
import { capture, indexWith, lineWith, startBrowser, type BrowserFixture } from './snapshot-helpers';

let fixture: BrowserFixture;
const registry = new ActionRegistry([inputTextAction]);

beforeAll(async () => {
  // The driver settles the page after typing, up to its bound; a bound shorter than the reaction
  // wait's first-change window leaves the rest of the window and the cap (counted from the
  // keystroke) to input_text's own wait.
  fixture = await startBrowser({ settle: { maxWaitMs: 400 } });
});

afterAll(async () => {
  await fixture?.close();
});

/** Evaluates an expression in the active page. */
function inPage<T>(expression: string): Promise<T> {
  return fixture.driver.page.evaluate<T>(expression);
}

/** The texts of the suggestion items the page shows now. */
function suggestionsShown(): Promise<string[]> {
  return inPage("[...document.querySelectorAll('.suggestions li')].map((item) => item.textContent)");
}

/** Runs input_text on the field whose line holds `field`; returns the result, how long it took and the state before. */
async function type(page: string, field: string, text: string, signal?: AbortSignal) {
  const state: PageState = await capture(fixture, page);
  const baseline = await readBaseline(fixture.driver, {});
  const started = Date.now();
  const result = await registry.run(
    'input_text',
    { index: indexWith(state.elementsText, field), text },
    liveContext(fixture, { state, ...(signal ? { signal } : {}) }),
  );
  return { state, baseline, result, elapsedMs: Date.now() - started };
}

/** The change the Navigator's probe reports after the action, over the top frame. */
async function changeAfter(baseline: Awaited<ReturnType<typeof readBaseline>>): Promise<string | undefined> {
  const [top] = await fixture.driver.frames();
  return (await describePageChange(fixture.driver, baseline, top ? [top.id] : [], {})).change;
}

/**
 * How long ago, by the page's clock, the suggestions of `field` appeared (the fixture notes it in `shownAt`). A wait
 * that ended on the page going quiet ends about one quiet window after them; one that ran to its cap ends the cap after
 * the last keystroke: 2.2 s after suggestions shown 300 ms after it, 1.9 s after those shown at 600 ms. The tests bound
 * it 700 ms under that, for the calls between the wait's end and this reading. Node's clock cannot tell the two apart on
 * a loaded machine: it also counts the typing, which there takes about as long as the wait.
 */
function sinceShown(field: string): Promise<number> {
  return inPage(`performance.now() - window.shownAt[${JSON.stringify(field)}]`);
}

describe('input_text waits for the page to react to typing', () => {
  it('ends with the suggestions a plain input shows 300 ms after the last keystroke in the page', async () => {
    const { baseline, result, elapsedMs } = await type('actions-suggest.html', 'name="from"', 'Paris');
    const shownAgo = await sinceShown('from');
    expect(result.error).toBeUndefined();
    expect(result.extractedContent).toBe('Typed "Paris" into element 1 (<input type=text> "From").');
    expect(await suggestionsShown()).toEqual(['Paris Nord station', 'Paris Est station', 'Paris Lyon station']);
    expect(elapsedMs).toBeGreaterThanOrEqual(300);
    expect(shownAgo).toBeLessThan(reactionWait.maxMs - 300 - 700);
    // The Navigator's probe sees them, so the step stops and the model reads them next.
    expect(await changeAfter(baseline)).toBe('3 new element(s) appeared');
    const next = await capture(fixture, undefined);
    expect(lineWith(next.elementsText, 'Paris Lyon station')).toBeDefined();
  });

  it('ends with the suggestions a plain input shows 600 ms after the last keystroke in the page', async () => {
    const { baseline, result, elapsedMs } = await type('actions-suggest.html', 'name="to"', 'Lyon');
    const shownAgo = await sinceShown('to');
    expect(result.error).toBeUndefined();
    expect(await suggestionsShown()).toEqual(['Paris Lyon station', 'Lyon Part-Dieu station']);
    expect(elapsedMs).toBeGreaterThanOrEqual(600);
    expect(shownAgo).toBeLessThan(reactionWait.maxMs - 600 - 700);
    expect(await changeAfter(baseline)).toBe('2 new element(s) appeared');
  });

  it('waits no longer than the first-change window when the page does not react', async () => {
    const { baseline, result, elapsedMs } = await type('actions-suggest.html', 'name="note"', 'hello');
    expect(result.extractedContent).toBe('Typed "hello" into element 3 (<input type=text> "Note").');
    // Ended by the first-change window, well before the cap (the margin absorbs a loaded machine).
    expect(elapsedMs).toBeGreaterThanOrEqual(reactionWait.firstChangeMs);
    expect(elapsedMs).toBeLessThan(reactionWait.maxMs - 300);
    expect(await suggestionsShown()).toEqual([]);
    expect(await changeAfter(baseline)).toBeUndefined();
  });

  it('ends within its cap on a page whose DOM changes every 50 ms forever, with the suggestions in the page', async () => {
    const { result, elapsedMs } = await type('actions-suggest-ticker.html', 'name="symbol"', 'acme');
    expect(result.error).toBeUndefined();
    // A page that never goes quiet is waited on to the cap, not taken as quiet after the first
    // change: longer than the first-change and quiet windows together. (The cap is measured in the
    // page, from the typing; Node's clock starts earlier or later by a loaded machine's delays.)
    expect(elapsedMs).toBeGreaterThan(reactionWait.firstChangeMs + 4 * reactionWait.quietMs);
    expect(elapsedMs).toBeLessThan(reactionWait.maxMs + 1500);
    expect(await suggestionsShown()).toEqual(['Acme Corporation (ACME)']);
  });

  it('ends the capped wait as soon as the task is cancelled', async () => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 1000);
    const started = Date.now();
    const outcome = await type('actions-suggest-ticker.html', 'name="symbol"', 'acme', controller.signal).then(
      () => 'resolved',
      (error: unknown) => error,
    );
    clearTimeout(timer);
    expect(RequestCancelledError.isInstance(outcome)).toBe(true);
    expect(Date.now() - started).toBeLessThan(1000 + 1000);
  });
});
