// Runs in headless Chromium (the vitest `browser` project): the visible text of a page as search_page reads it, matched and scrolled to.
import { afterEach, describe, expect, it } from 'vitest';
import { installRecorder } from '../recorder';
import { pageText, type PageTextRequest } from './page-text';
import { place } from './test-page';

afterEach(() => {
  document.body.innerHTML = '';
  window.scrollTo({ top: 0, behavior: 'instant' });
});

const search: PageTextRequest = {
  source: 'mug',
  flags: 'gim',
  mode: 'search',
  nth: 0,
  contextChars: 20,
  maxResults: 25,
  maxTextChars: 300_000,
  timeBudgetMs: 1500,
};

/** The page's text as the search reads it: every character, by matching all of it. */
function readText(): string {
  const [match] = pageText({ ...search, source: '[\\s\\S]+', maxResults: 1, contextChars: 0 }).matches;
  return match?.text ?? '';
}

describe('pageText, reading', () => {
  it('reads blocks on lines of their own and folds whitespace as the page shows it', () => {
    place('<h1>Mugs</h1><p>Blue   mug <b>$12</b></p><div>Red mug<br>sold out</div><table><tr><td>a</td><td>b</td></tr></table><pre>  two  spaces</pre>');
    expect(readText()).toBe('Mugs\nBlue mug $12\nRed mug\nsold out\na b\n  two  spaces\n');
  });

  it('leaves out hidden text and form fields', () => {
    place(
      '<p>Shown</p><p style="display: none">None</p><p style="visibility: hidden">Invisible</p><p hidden>Hidden</p>' +
        '<input value="typed"><textarea>area</textarea><select><option>Option</option></select><script>var x = 1;</script>' +
        '<div style="display: contents"><span>Contents</span></div><div style="display: contents; visibility: hidden"><span>Gone</span></div>',
    );
    expect(readText()).toBe('Shown\nContents\n');
  });

  it('reads shadow trees, open and closed, with what their slots show', () => {
    installRecorder();
    const { open, closed } = place('<div id="open"><span>slotted</span></div><div id="closed"></div>');
    open!.attachShadow({ mode: 'open' }).innerHTML = '<p>Open before <slot></slot> after</p>';
    closed!.attachShadow({ mode: 'closed' }).innerHTML = '<p>Closed root <slot>fallback</slot></p>';
    expect(readText()).toBe('Open before slotted after\nClosed root fallback\n');
  });

  it('stops at maxTextChars and says the text was cut', () => {
    place(`<p>${'word '.repeat(100)}</p>`);
    const answer = pageText({ ...search, source: 'word', maxTextChars: 52 });
    expect(answer).toMatchObject({ total: 10, truncated: true, incomplete: false });
  });
});

describe('pageText, matching', () => {
  it('lists matches with the text around them and counts all of them', () => {
    place('<p>A blue mug for tea.</p><p>Another MUG, red.</p><p>Mugs galore</p>');
    const answer = pageText({ ...search, maxResults: 2, contextChars: 6 });
    expect(answer.total).toBe(3);
    expect(answer.matches).toEqual(
      [
        { text: 'mug', before: ' blue ', after: ' for t' },
        { text: 'MUG', before: 'nother ', after: ', red.' },
      ].map((match) => ({ ...match, before: match.before.slice(-6) })),
    );
    expect(answer.scrolledTo).toBeNull();
  });

  it('steps over empty matches, and stops counting at its cap', () => {
    place(`<p>${'a'.repeat(10_005)}</p>`);
    expect(pageText({ ...search, source: 'b*' }).total).toBe(0);
    expect(pageText({ ...search, source: 'a', flags: 'm', maxResults: 0 })).toMatchObject({ total: 10_000, incomplete: true, matches: [] });
  });

  it('scrolls the nth match to the middle of the view and names its element', () => {
    place('<p>first target</p><div style="height: 4000px"></div><h2>second   target</h2><div style="height: 4000px"></div>');
    const answer = pageText({ ...search, source: 'target', mode: 'scroll', nth: 2 });
    expect(answer).toMatchObject({ total: 2, scrolledTo: '<h2>', matches: [] });
    const heading = document.querySelector('h2')!.getBoundingClientRect();
    expect(Math.abs(heading.top + heading.height / 2 - window.innerHeight / 2)).toBeLessThan(window.innerHeight / 4);
    expect(pageText({ ...search, source: 'target', mode: 'scroll', nth: 3 }).scrolledTo).toBeNull();
  });

  it('centres the match itself inside a tall element', () => {
    place(`<p style="white-space: pre-line">${'line\n'.repeat(400)}needle\n${'line\n'.repeat(400)}</p>`);
    const answer = pageText({ ...search, source: 'needle', mode: 'scroll', nth: 1 });
    expect(answer.scrolledTo).toBe('<p>');
    const range = document.createRange();
    const text = document.querySelector('p')!.firstChild!;
    const start = (text.textContent ?? '').indexOf('needle');
    range.setStart(text, start);
    range.setEnd(text, start + 6);
    const box = range.getBoundingClientRect();
    expect(box.top).toBeGreaterThan(window.innerHeight * 0.25);
    expect(box.bottom).toBeLessThan(window.innerHeight * 0.75);
  });
});
