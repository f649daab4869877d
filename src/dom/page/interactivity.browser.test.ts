// Runs in headless Chromium (the vitest `browser` project): which elements a person can act on, from real markup,
// computed styles and listeners seen by the recorder (installed before any test adds one).
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { boxOf } from './geometry';
import { controlSelector, interactivityOf, isDelegationRoot, isDisabled, isOwnTarget, labelStandsIn } from './interactivity';
import { installRecorder } from './recorder';

function place(html: string): Record<string, HTMLElement> {
  document.body.innerHTML = html;
  const elements: Record<string, HTMLElement> = {};
  for (const element of document.body.querySelectorAll<HTMLElement>('[id]')) elements[element.id] = element;
  return elements;
}

/** The element's interactivity, read with its own and its parent's computed style as the walk reads them. */
const interactivity = (element: Element) =>
  interactivityOf(
    element,
    element.localName,
    window.getComputedStyle(element),
    element.parentElement ? window.getComputedStyle(element.parentElement) : undefined,
  );

const strong = { level: 2, weak: false };
const none = { level: 0, weak: false };
const listening = { level: 2, weak: true };
const cursorOnly = { level: 1, weak: true };

beforeAll(() => {
  installRecorder();
});

afterEach(() => {
  document.body.innerHTML = '';
});

describe('interactivityOf', () => {
  it('makes native controls controls on their own', () => {
    const elements = place(
      '<a id="link" href="/next">Next</a><button id="button">Go</button><input id="text"><select id="select"><option id="choice">A</option></select>' +
        '<textarea id="area"></textarea><details><summary id="summary">More</summary></details>',
    );
    for (const id of ['link', 'button', 'text', 'select', 'area', 'summary']) expect(interactivity(elements[id]!), id).toEqual(strong);
  });

  it('leaves out a link without href, a hidden input, and the options inside a select', () => {
    const { anchor, hidden, choice, grouped } = place(
      '<a id="anchor">Anchor</a><input id="hidden" type="hidden" value="token"><select><option id="choice">A</option><optgroup><option id="grouped">B</option></optgroup></select>',
    );
    expect(interactivity(anchor!)).toEqual(none);
    expect(interactivity(hidden!)).toEqual(none);
    expect(interactivity(choice!)).toEqual(none);
    expect(interactivity(grouped!)).toEqual(none);
  });

  it('makes an option outside a select (a custom list built of options) a control', () => {
    const { list } = place('<div id="list"></div>');
    const option = document.createElement('option');
    option.textContent = 'Custom';
    list!.append(option);
    expect(interactivity(option)).toEqual(strong);
  });

  it('makes ARIA widget roles controls, and leaves other roles out', () => {
    const { button, tab, presentation, region } = place(
      '<div id="button" role="button">B</div><div id="tab" role="tab">T</div><div id="presentation" role="presentation">P</div><div id="region" role="region">R</div>',
    );
    expect(interactivity(button!)).toEqual(strong);
    expect(interactivity(tab!)).toEqual(strong);
    expect(interactivity(presentation!)).toEqual(none);
    expect(interactivity(region!)).toEqual(none);
  });

  it('never makes a label a control on its own, even with a listener and a pointer cursor', () => {
    const { label } = place('<label id="label" style="cursor: pointer;">Remember me <input type="checkbox"></label>');
    label!.addEventListener('click', () => {});
    expect(interactivity(label!)).toEqual(none);
  });

  it('makes the root of an editable region a control, not the elements inside it', () => {
    const { editor, paragraph } = place('<div id="editor" contenteditable="true"><p id="paragraph">Text</p></div>');
    expect(interactivity(editor!)).toEqual(strong);
    expect(interactivity(paragraph!)).toEqual(none);
  });

  it('makes a focusable tabindex a control, and tabindex="-1" alone not', () => {
    const { focusable, scripted } = place('<div id="focusable" tabindex="0">Card</div><div id="scripted" tabindex="-1">Panel</div>');
    expect(interactivity(focusable!)).toEqual(strong);
    expect(interactivity(scripted!)).toEqual(none);
  });

  it('makes the tabindex="-1" items of a roving-tabindex menu controls when three or more are alike, not a pair', () => {
    const menu = place('<div><span id="one" tabindex="-1">One</span><span tabindex="0">Two</span><span tabindex="-1">Three</span></div>');
    expect(interactivity(menu.one!)).toEqual(strong);
    const pair = place('<div><span id="one" tabindex="-1">One</span><span tabindex="-1">Two</span><b tabindex="-1">Other kind</b></div>');
    expect(interactivity(pair.one!)).toEqual(none);
  });

  it('makes a menu trigger (aria-haspopup true or menu) a control', () => {
    const { trigger, menu } = place('<span id="trigger" aria-haspopup="true">Account</span><span id="menu" aria-haspopup="menu">More</span>');
    expect(interactivity(trigger!)).toEqual(strong);
    expect(interactivity(menu!)).toEqual(strong);
  });

  it('makes a recorded click listener, an onclick attribute or an onclick property a weak control', () => {
    const { listener, attribute, property, plain } = place(
      '<div id="listener">L</div><div id="attribute" onclick="void 0">A</div><div id="property">P</div><div id="plain">Plain</div>',
    );
    listener!.addEventListener('pointerdown', () => {});
    property!.onclick = () => {};
    expect(interactivity(listener!)).toEqual(listening);
    expect(interactivity(attribute!)).toEqual(listening);
    expect(interactivity(property!)).toEqual(listening);
    expect(interactivity(plain!)).toEqual(none);
  });

  it('counts a pointer cursor the element sets itself, not one it inherits from its parent', () => {
    const { card, inner } = place('<div id="card" style="cursor: pointer;"><span id="inner">Title</span></div>');
    expect(window.getComputedStyle(inner!).cursor).toBe('pointer');
    expect(interactivity(card!)).toEqual(cursorOnly);
    expect(interactivity(inner!)).toEqual(none);
  });
});

describe('isOwnTarget', () => {
  it('is true for list items and table rows whatever their siblings', () => {
    const { item, row } = place('<ul><li id="item">Only</li></ul><table><tr id="row"><td>Cell</td></tr></table>');
    expect(isOwnTarget(item!, 'li')).toBe(true);
    expect(isOwnTarget(row!, 'tr')).toBe(true);
  });

  it('is true for an element with at least two siblings of its kind that also show a pointer cursor', () => {
    const { first } = place(
      '<div style="cursor: default;"><span id="first" style="cursor: pointer;">A</span><span style="cursor: pointer;">B</span><span style="cursor: pointer;">C</span></div>',
    );
    expect(isOwnTarget(first!, 'span')).toBe(true);
  });

  it('is false for a styled part of a control: one alike sibling or none', () => {
    const { icon } = place('<button><span id="icon" style="cursor: pointer;">★</span><span style="cursor: pointer;">Save</span><span>Plain</span></button>');
    expect(isOwnTarget(icon!, 'span')).toBe(false);
    expect(isOwnTarget(document.createElement('span'), 'span')).toBe(false);
  });
});

describe('labelStandsIn', () => {
  it('is true when the labelled control is transparent, hidden or of no size (a styled checkbox)', () => {
    const elements = place(
      '<label id="transparent" for="a">A</label><input id="a" type="checkbox" style="opacity: 0;">' +
        '<label id="hidden" for="b">B</label><input id="b" type="checkbox" style="visibility: hidden;">' +
        '<label id="tiny"><input type="checkbox" style="width: 1px; height: 1px; margin: 0;"> C</label>',
    );
    expect(labelStandsIn(elements.transparent as HTMLLabelElement)).toBe(true);
    expect(labelStandsIn(elements.hidden as HTMLLabelElement)).toBe(true);
    expect(labelStandsIn(elements.tiny as HTMLLabelElement)).toBe(true);
  });

  it('is false when the control can be clicked itself, or when the label labels nothing', () => {
    const { visible, orphan } = place('<label id="visible" for="c">C</label><input id="c" type="checkbox"><label id="orphan">Nothing</label>');
    expect(labelStandsIn(visible as HTMLLabelElement)).toBe(false);
    expect(labelStandsIn(orphan as HTMLLabelElement)).toBe(false);
  });
});

describe('isDisabled', () => {
  it('is true for disabled form controls, those of a disabled fieldset and options of a disabled group', () => {
    const { button, field, choice } = place(
      '<button id="button" disabled>Go</button><fieldset disabled><input id="field"></fieldset><select><optgroup disabled><option id="choice">A</option></optgroup></select>',
    );
    expect(isDisabled(button!, 'button')).toBe(true);
    expect(isDisabled(field!, 'input')).toBe(true);
    expect(isDisabled(choice!, 'option')).toBe(true);
  });

  it('is true for aria-disabled="true" on any element, false for aria-disabled="false"', () => {
    const { custom, enabled } = place(
      '<div id="custom" role="button" aria-disabled="true">Go</div><div id="enabled" role="button" aria-disabled="false">Go</div>',
    );
    expect(isDisabled(custom!, 'div')).toBe(true);
    expect(isDisabled(enabled!, 'div')).toBe(false);
  });

  it('is false for enabled controls and for elements that cannot be disabled (a link with a disabled attribute)', () => {
    const { button, link } = place('<button id="button">Go</button><a id="link" href="#x" disabled>Link</a>');
    expect(isDisabled(button!, 'button')).toBe(false);
    expect(isDisabled(link!, 'a')).toBe(false);
  });
});

describe('isDelegationRoot', () => {
  const rootOf = (element: Element): boolean =>
    isDelegationRoot(element, element.localName, boxOf(element.getBoundingClientRect()), window.innerWidth, window.innerHeight);

  it('is true for the document roots', () => {
    expect(rootOf(document.documentElement)).toBe(true);
    expect(rootOf(document.body)).toBe(true);
  });

  it('is true for a wrapper that covers the whole viewport, even with no control inside', () => {
    const { wrapper } = place('<div id="wrapper" style="position: fixed; inset: 0;">Page</div>');
    expect(rootOf(wrapper!)).toBe(true);
  });

  it('is true for an element holding two controls or more, false for a card around one', () => {
    const { list, card } = place(
      '<div id="list" style="width: 200px;"><a href="#1">One</a><span role="button">Two</span></div><div id="card" style="width: 200px;"><a href="#1">Only</a> text</div>',
    );
    expect(rootOf(list!)).toBe(true);
    expect(rootOf(card!)).toBe(false);
  });

  it('counts controls with the selector of what is a control by itself', () => {
    const { box } = place(
      '<div id="box"><input type="hidden"><a>no href</a><a href="#">link</a><div contenteditable="true"></div><div role="slider"></div></div>',
    );
    expect([...box!.querySelectorAll(controlSelector)].map((element) => element.localName + (element.getAttribute('role') ?? ''))).toEqual([
      'a',
      'div',
      'divslider',
    ]);
  });
});
