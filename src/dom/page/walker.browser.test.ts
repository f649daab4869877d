// Runs in headless Chromium (the vitest `browser` project): the walk over the rendered tree, run directly, for what
// decides the indexed region and the clipping; the snapshot's tests cover what the model reads of it.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SnapshotScriptOptions } from '../types';
import { installRecorder } from './recorder';
import { Walk } from './walker';

const options = (overrides: Partial<SnapshotScriptOptions> = {}): SnapshotScriptOptions => ({
  viewportExpansion: 0,
  includeAttributes: [],
  maxTextLength: 100,
  ...overrides,
});

/** Puts `html` in the document and walks it. */
function walkOf(html: string, overrides: Partial<SnapshotScriptOptions> = {}, before?: () => void): Walk {
  document.body.innerHTML = html;
  before?.();
  const walk = new Walk(options(overrides));
  walk.run();
  return walk;
}

/** The text content of each element the walk listed and kept (not covered), in document order. */
const kept = (walk: Walk): string[] => walk.drafts.filter((draft) => draft.fate === 'kept').map((draft) => draft.element.textContent ?? '');

/** The walk's free text entries (text outside any collecting element). */
const texts = (walk: Walk): string[] => walk.entries.flatMap((entry) => (entry.kind === 'text' ? [entry.text] : []));

beforeAll(() => {
  installRecorder();
});

afterEach(() => {
  document.body.innerHTML = '';
  window.scrollTo(0, 0);
});

describe('Walk: the indexed region', () => {
  it('measures the viewport of this frame', () => {
    const walk = walkOf('');
    expect(walk.viewport).toEqual({ top: 0, bottom: window.innerHeight, left: 0, right: window.innerWidth });
  });

  it('lists a control that only partly reaches into the viewport, and not one just below it', () => {
    const height = window.innerHeight;
    const walk = walkOf(
      `<button style="position: absolute; top: ${height - 10}px; height: 30px;">Partly</button><button style="position: absolute; top: ${height + 1}px;">Below</button>`,
    );
    expect(kept(walk)).toEqual(['Partly']);
  });

  it('leaves out what lies above the viewport once the page is scrolled, and sees it with a whole-page walk', () => {
    document.body.innerHTML = '<button>First</button><div style="height: 3000px;"></div>';
    window.scrollTo(0, 1000);
    const viewportWalk = new Walk(options());
    viewportWalk.run();
    expect(kept(viewportWalk)).toEqual([]);
    const wholePage = new Walk(options({ viewportExpansion: -1 }));
    wholePage.run();
    expect(kept(wholePage)).toEqual(['First']);
  });

  it('never lists what lies beyond the left edge of the document, even in a whole-page walk', () => {
    const walk = walkOf('<button style="position: absolute; left: -500px; top: 0;">Off left</button><button>On page</button>', { viewportExpansion: -1 });
    expect(kept(walk)).toEqual(['On page']);
  });

  it('keeps to the part of the frame a clip names (the part of a child frame the top page shows)', () => {
    const walk = walkOf(
      '<button style="position: absolute; left: 0; top: 0; width: 100px; height: 30px;">Inside</button>' +
        '<button style="position: absolute; left: 0; top: 200px; width: 100px; height: 30px;">Outside</button>',
      { clip: { x: 0, y: 0, width: 200, height: 100 } },
    );
    expect(kept(walk)).toEqual(['Inside']);
  });

  it('checks the text of a parent taller than the region per text node', () => {
    const walk = walkOf(`<div>Top words<div style="height: ${window.innerHeight * 3}px;"></div>Bottom words</div>`);
    expect(texts(walk)).toEqual(['Top words']);
  });

  it('reaches a fixed bar whose short parent was scrolled far out of view', () => {
    document.body.innerHTML =
      '<header style="height: 40px;"><nav style="position: fixed; left: 0; right: 0; bottom: 0; height: 60px; background: white;"><button style="width: 100%; height: 60px;">Checkout</button></nav></header>' +
      '<div style="height: 5000px;"></div>';
    window.scrollTo(0, 3000);
    const walk = new Walk(options());
    walk.run();
    expect(kept(walk)).toEqual(['Checkout']);
  });
});

describe('Walk: clipping', () => {
  it('clips children to an overflow-hidden parent, but not an absolutely positioned child whose containing block lies outside it', () => {
    const walk = walkOf(
      '<div style="position: relative; width: 300px;">' +
        '<div style="overflow: hidden; height: 40px;"><button style="display: block; height: 40px;">Seen</button><button style="display: block; height: 40px;">Clipped</button>' +
        '<button style="position: absolute; top: 100px; left: 0;">Escapes</button></div></div>',
    );
    expect(kept(walk)).toEqual(['Seen', 'Escapes']);
  });

  it('clips an absolutely positioned child to a positioned overflow-hidden parent', () => {
    const walk = walkOf(
      '<div style="position: relative; overflow: hidden; width: 300px; height: 40px;"><button style="position: absolute; top: 100px; left: 0;">Clipped</button><button>Seen</button></div>',
    );
    expect(kept(walk)).toEqual(['Seen']);
  });

  it('never clips a fixed element to the overflow of its parents', () => {
    const walk = walkOf(
      '<div style="overflow: hidden; height: 10px; width: 10px;"><button style="position: fixed; left: 100px; top: 100px;">Floating</button></div>',
    );
    expect(kept(walk)).toEqual(['Floating']);
  });

  it('leaves out a control of one pixel or less (a tracking link, a collapsed bar)', () => {
    const walk = walkOf(
      '<a href="#t" style="display: inline-block; width: 1px; height: 1px;"></a><a href="#bar" style="display: block; width: 200px; height: 1px;"></a><a href="#ok">Visible link</a>',
    );
    expect(kept(walk)).toEqual(['Visible link']);
  });
});

describe('Walk: drafts', () => {
  it('lets containers (scroll boxes, composite widgets) hand their text to the page instead of collecting it', () => {
    const walk = walkOf(
      '<div role="menu" tabindex="0"><span>Menu caption</span><div role="menuitem">Open</div></div>' +
        '<div style="height: 40px; overflow: auto;"><p style="height: 100px;">Scrolled text</p></div>',
    );
    const collecting = walk.drafts.map((draft) => [draft.element.getAttribute('role') ?? draft.tag, draft.collects]);
    expect(collecting).toEqual([
      ['menu', false],
      ['menuitem', true],
      ['div', false],
    ]);
    expect(texts(walk)).toEqual(['Menu caption', 'Scrolled text']);
  });

  it('counts the listed elements inside each draft and links each to its owner', () => {
    const walk = walkOf('<div id="bar" style="width: 300px;">Bar <button>One</button><a href="#2">Two</a></div>', {}, () => {
      document.getElementById('bar')!.addEventListener('click', () => {});
    });
    // Two controls inside make the bar a delegation root, so it is not listed; the controls have no owner.
    expect(walk.drafts.map((draft) => [draft.tag, draft.owner?.tag, draft.listedInside])).toEqual([
      ['button', undefined, 0],
      ['a', undefined, 0],
    ]);
    const card = walkOf('<div id="card" style="width: 300px;">Card <button>Only</button></div>', {}, () => {
      document.getElementById('card')!.addEventListener('click', () => {});
    });
    expect(card.drafts.map((draft) => [draft.tag, draft.owner?.tag, draft.listedInside, draft.weak])).toEqual([
      ['div', undefined, 1, true],
      ['button', 'div', 0, false],
    ]);
  });

  it('marks a control under a covering layer as covered, and leaves the one beside the layer kept', () => {
    const walk = walkOf(
      '<button style="position: absolute; left: 0; top: 0; width: 80px; height: 30px;">Under</button>' +
        '<button style="position: absolute; left: 200px; top: 0; width: 80px; height: 30px;">Beside</button>' +
        '<div style="position: fixed; left: 0; top: 0; width: 150px; height: 100px; z-index: 3; background: white;"></div>',
    );
    expect(walk.drafts.map((draft) => [draft.element.textContent, draft.fate])).toEqual([
      ['Under', 'covered'],
      ['Beside', 'kept'],
    ]);
  });
});
