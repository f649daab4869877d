// Runs in headless Chromium (the vitest `browser` project): the driver methods by snapshot id, for drivers that only
// evaluate scripts. Elements get their ids from the registry, as a snapshot gives them.
import { afterEach, describe, expect, it } from 'vitest';
import { beginSnapshot, elementIdOf } from '../registry';
import { drawHighlights, removeHighlights } from './highlight';
import { driverMethods, elementMethods } from './index';
import { goBack, pressKeys } from './keys';
import { clickTarget, installPressWatch } from './pointer';

/** Puts `html` in the document and gives each element with an id a snapshot id; returns the locators by id. */
function listed(html: string): Record<string, { elementId: string; selector: null }> {
  document.body.innerHTML = html;
  beginSnapshot();
  const locators: Record<string, { elementId: string; selector: null }> = {};
  for (const element of document.body.querySelectorAll('[id]')) locators[element.id] = { elementId: elementIdOf(element), selector: null };
  return locators;
}

afterEach(() => {
  document.body.innerHTML = '';
  window.scrollTo(0, 0);
});

describe('driverMethods', () => {
  it('answers gone with the reason for an element that was removed or belongs to another document', () => {
    const { save } = listed('<button id="save">Save</button>');
    document.getElementById('save')!.remove();
    expect(driverMethods.clickPoint(save!)).toEqual({ gone: 'removed' });
    expect(driverMethods.fill({ locator: { elementId: 'zzzzzz-1' }, text: 'x' })).toEqual({ gone: 'document' });
    expect(driverMethods.select({ locator: save!, label: 'A' })).toEqual({ gone: 'removed' });
    expect(driverMethods.dispatchClick({ locator: save!, button: 'left', modifiers: [] })).toEqual({ gone: 'removed' });
    expect(driverMethods.scroll({ locator: save!, deltaY: 10, toPercent: null })).toEqual({ gone: 'removed' });
  });

  it('gives the click point in this frame’s viewport: the padding-box point moved by the box and its border', () => {
    const { save } = listed(
      '<button id="save" style="position: fixed; left: 10px; top: 20px; width: 100px; height: 40px; border: 3px solid; box-sizing: border-box; padding: 0;">Save</button>',
    );
    expect(driverMethods.clickPoint(save!)).toEqual({ kind: 'centre', x: 60, y: 40, coveredBy: null });
  });

  it('passes on a click target that has no point (covered, disabled)', () => {
    const { under, off } = listed(
      '<button id="under" style="position: fixed; left: 0; top: 0; width: 50px; height: 20px;">Under</button><button id="off" disabled>Off</button>' +
        '<div class="wall" style="position: fixed; inset: 0; z-index: 9;"></div>',
    );
    expect(driverMethods.clickPoint(under!)).toEqual({ kind: 'covered', coveredBy: 'div.wall' });
    expect(driverMethods.clickPoint(off!)).toEqual({ kind: 'disabled' });
  });

  it('dispatches a click by id', () => {
    const { save } = listed('<button id="save">Save</button>');
    let clicks = 0;
    document.getElementById('save')!.addEventListener('click', () => clicks++);
    expect(driverMethods.dispatchClick({ locator: save!, button: 'left', modifiers: [] })).toBe(true);
    expect(clicks).toBe(1);
  });

  it('fills a formatted input through its format, other fields as typing would, and keeps nothing for a button', () => {
    const { date, name, go } = listed('<input id="date" type="date"><input id="name"><button id="go">Go</button>');
    expect(driverMethods.fill({ locator: date!, text: '2025-01-31' })).toEqual({ kept: '2025-01-31' });
    expect(driverMethods.fill({ locator: name!, text: 'Ada' })).toEqual({ kept: 'Ada' });
    expect(driverMethods.fill({ locator: go!, text: 'x' })).toEqual({ kept: null });
  });

  it('selects an option by its label and returns the values, or the labels to choose from', () => {
    const { size } = listed('<select id="size"><option value="s">Small</option><option value="l">Large</option></select>');
    expect(driverMethods.select({ locator: size!, label: 'large' })).toEqual({ values: ['l'] });
    expect((document.getElementById('size') as HTMLSelectElement).value).toBe('l');
    expect(driverMethods.select({ locator: size!, label: 'Huge' })).toEqual({ labels: ['Small', 'Large'] });
  });

  it('scrolls the page without a locator and an element with one', () => {
    const { box } = listed(
      `<div id="box" style="height: 100px; overflow: auto;"><div style="height: 500px;"></div></div><div style="height: ${window.innerHeight * 3}px;"></div>`,
    );
    expect(driverMethods.scroll({ locator: null, deltaY: 150, toPercent: null })).toEqual({ top: 150 });
    expect(window.scrollY).toBe(150);
    expect(driverMethods.scroll({ locator: box!, deltaY: null, toPercent: 100 })).toEqual({ top: 400 });
  });

  it('offers highlighting, keys and history as they are', () => {
    expect(driverMethods.highlight).toBe(drawHighlights);
    expect(driverMethods.removeHighlight).toBe(removeHighlights);
    expect(driverMethods.pressKeys).toBe(pressKeys);
    expect(driverMethods.goBack).toBe(goBack);
  });
});

describe('elementMethods', () => {
  it('are the page-side functions for an element a driver holds; asking for a click target arms the press watch', () => {
    installPressWatch();
    document.body.innerHTML = '<button>Go</button><a href="#x">Elsewhere</a>';
    const button = document.querySelector('button')!;
    const link = document.querySelector('a')!;
    expect(elementMethods.clickTarget(button)).toEqual(clickTarget(button));
    // Armed on the button: a press a script makes does not count, and a question about another element has no answer.
    button.dispatchEvent(new MouseEvent('mousedown', { bubbles: true, composed: true }));
    expect(elementMethods.pressArrived(button)).not.toBe(true);
    expect(elementMethods.pressArrived(link)).toBeNull();
    // This document was loaded before the watch came (as a page a driver attached to): it cannot say no press came.
    expect(elementMethods.pressArrived(button)).toBeNull();
    document.body.innerHTML = '<select><option value="a">A</option><option value="b">B</option></select>';
    const select = document.querySelector('select')!;
    const found = elementMethods.findOption(select, 'B');
    expect(found).toEqual({ index: 1 });
    expect(elementMethods.chooseOption(select, 1)).toEqual(['b']);
  });
});
