// Defects the page runtime once had, written as the modules should behave; all are fixed now, so each
// test guards its fix against coming back (each names the module and the defect). Runs in headless
// Chromium (the vitest `browser` project), like the other page tests.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultIncludeAttributes } from '../page-state-reader';
import type { FrameSnapshot, SnapshotElement } from '../types';
import { hrefOf, selectorOf } from './attributes';
import { pressKeys } from './driver/keys';
import { iconHint } from './hints';
import { interactivityOf } from './interactivity';
import { hasClickListener, installRecorder } from './recorder';
import { takeSnapshot } from './snapshot';
import { clippedAway } from './visibility';

const options = { viewportExpansion: 0, includeAttributes: defaultIncludeAttributes, maxTextLength: 100 };

function snapshotOf(html: string): FrameSnapshot {
  document.body.innerHTML = html;
  return takeSnapshot(options);
}

const listedTexts = (snapshot: FrameSnapshot): string[] =>
  snapshot.items.filter((item): item is SnapshotElement => item.kind === 'element').map((item) => item.text);

beforeAll(() => {
  installRecorder();
});

afterEach(() => {
  (document.activeElement as HTMLElement | null)?.blur();
  document.body.innerHTML = '';
});

describe('walker.ts', () => {
  it('DEFECT: lists no control of a transparent (opacity: 0) layer, even one the hit-test grid lands on', () => {
    const snapshot = snapshotOf(
      '<div style="position: fixed; inset: 0; opacity: 0; z-index: 5;"><button style="width: 100%; height: 100%;">Invisible</button></div>',
    );
    expect(listedTexts(snapshot)).not.toContain('Invisible');
  });

  it('DEFECT: lists a styled checkbox once, as its label, even when its transparent input lies under a hit-test point', () => {
    // The walk hit-tests the point (8, 8) among others; an opacity: 0 input there is on a hit path and escapes the opacity check.
    const snapshot = snapshotOf(
      '<label><input type="checkbox" style="opacity: 0; position: absolute; left: 0; top: 0; width: 20px; height: 20px; margin: 0;">' +
        '<span style="display: inline-block; padding: 20px 40px;">Keep me signed in</span></label>',
    );
    expect(snapshot.items.filter((item) => item.kind === 'element').map((item) => item.tagName)).toEqual(['label']);
  });

  it('DEFECT: lists the controls in the first legend of a disabled fieldset, which HTML leaves enabled', () => {
    const snapshot = snapshotOf('<fieldset disabled><legend><button>Enable editing</button></legend><button>Save</button></fieldset>');
    const legendButton = document.querySelector('legend button')!;
    expect(legendButton.matches(':disabled')).toBe(false);
    expect(listedTexts(snapshot)).toEqual(['Enable editing']);
  });

  it('DEFECT: lists nothing inside content-visibility: hidden (or hidden="until-found"), which the browser does not render', () => {
    const snapshot = snapshotOf(
      '<div style="content-visibility: hidden;"><button>Skipped</button></div><div hidden="until-found"><button>Found later</button></div><button>Shown</button>',
    );
    expect(document.querySelector('button')!.checkVisibility()).toBe(false);
    expect(listedTexts(snapshot)).toEqual(['Shown']);
  });
});

describe('visibility.ts', () => {
  const clipPathHides = (clipPath: string): boolean => {
    document.body.innerHTML = `<div style="width: 100px; height: 100px; clip-path: ${clipPath};">x</div>`;
    const style = window.getComputedStyle(document.body.firstElementChild!);
    return clippedAway(style, style.position);
  };

  it('DEFECT: reads every edge of clip-path: inset(): a top inset of 60% leaves the bottom 40% visible', () => {
    expect(clipPathHides('inset(60% 0 0 0)')).toBe(false);
  });

  it('DEFECT: reads every edge of clip-path: inset(): insets that meet (0 0 100% 0, 0 50% 0 50%) hide everything', () => {
    expect(clipPathHides('inset(0 0 100% 0)')).toBe(true);
    expect(clipPathHides('inset(0 50% 0 50%)')).toBe(true);
  });
});

describe('snapshot.ts', () => {
  it('DEFECT: never puts hidden text into a name computed from content that mixes it with an image alt', () => {
    const snapshot = snapshotOf(
      '<button><span style="font-size: 0;">Secret one</span><img alt="Close"></button>' +
        '<button><span style="position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);">Secret two</span><img alt="trash"></button>',
    );
    expect(JSON.stringify(snapshot)).not.toContain('Secret');
  });
});

describe('recorder.ts', () => {
  it('DEFECT: forgets a { once: true } click listener after it ran, as the browser does', () => {
    document.body.innerHTML = '<div id="once">Once</div>';
    const element = document.getElementById('once')!;
    let calls = 0;
    element.addEventListener('click', () => calls++, { once: true });
    element.click();
    element.click();
    expect(calls).toBe(1);
    expect(hasClickListener(element)).toBe(false);
  });

  it('DEFECT: does not record a listener added with an AbortSignal that already aborted, which the browser never attaches', () => {
    document.body.innerHTML = '<div id="late">Late</div>';
    const element = document.getElementById('late')!;
    const controller = new AbortController();
    controller.abort();
    let calls = 0;
    element.addEventListener('click', () => calls++, { signal: controller.signal });
    element.click();
    expect(calls).toBe(0);
    expect(hasClickListener(element)).toBe(false);
  });
});

describe('attributes.ts', () => {
  it('DEFECT: never gives a selector that finds another element: test ids and ids repeated in a list are not unique', () => {
    document.body.innerHTML =
      '<button data-testid="add-to-cart">Add A</button><button data-testid="add-to-cart">Add B</button><button id="dup">One</button><button id="dup">Two</button>';
    for (const element of document.querySelectorAll('button')) {
      const selector = selectorOf(element);
      if (selector !== undefined) expect(document.querySelector(selector), `${selector} of ${element.textContent}`).toBe(element);
    }
  });

  it('DEFECT: gives the target of an SVG link instead of throwing (its href property is an SVGAnimatedString)', () => {
    document.body.innerHTML = '<svg><a href="/chart/2024"><text>2024</text></a></svg>';
    expect(hrefOf(document.querySelector('svg a')!)).toBe('/chart/2024');
  });
});

describe('interactivity.ts', () => {
  it('DEFECT: does not take an empty tabindex for a focusable one: the browser treats tabindex="" as absent', () => {
    document.body.innerHTML = '<div tabindex="">Panel</div>';
    const panel = document.body.firstElementChild as HTMLElement;
    expect(panel.tabIndex).toBe(-1);
    expect(interactivityOf(panel, 'div', window.getComputedStyle(panel), undefined).level).toBe(0);
  });
});

describe('hints.ts', () => {
  it('DEFECT: reads the file name of an icon whose URL carries a query string (cache busting)', () => {
    document.body.innerHTML = '<button><img src="/icons/shopping-cart.svg?v=3"></button>';
    expect(iconHint(document.body.firstElementChild!)).toBe('shopping-cart');
  });
});

describe('driver/keys.ts', () => {
  it('DEFECT: moves the focus from an element outside the tab order (tabindex="-1") to its neighbours in document order', () => {
    document.body.innerHTML = '<button id="a">A</button><div id="item" tabindex="-1">Item</div><button id="b">B</button><button id="c">C</button>';
    const item = document.getElementById('item')!;
    item.focus();
    pressKeys({ keys: 'Tab' });
    expect(document.activeElement?.id).toBe('b');
    item.focus();
    pressKeys({ keys: 'Shift+Tab' });
    expect(document.activeElement?.id).toBe('a');
  });
});
