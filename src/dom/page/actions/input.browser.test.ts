// Runs in headless Chromium (the vitest `browser` project): what input_text learns of a field, and the value it kept.
import { afterEach, describe, expect, it } from 'vitest';
import { resolveElement } from '../registry';
import { fieldValue, inspectField } from './input';
import { locate, otherDocument, place } from './test-page';

afterEach(() => {
  document.body.innerHTML = '';
});

/** The ok answer of inspectField, or a failed expectation. */
function field(element: HTMLElement | undefined) {
  const answer = inspectField(locate(element));
  if (answer.status !== 'ok') throw new Error(`stale: ${answer.reason}`);
  return answer;
}

describe('inspectField', () => {
  it('tells the kinds of field apart', () => {
    const elements = place(
      '<input id="text"><textarea id="area"></textarea><div id="editor" contenteditable="true"></div><select id="choice"></select>' +
        '<input id="check" type="checkbox"><input id="upload" type="file"><input id="send" type="submit"><div id="plain"></div><input id="when" type="date">',
    );
    const kinds = Object.fromEntries(Object.entries(elements).map(([id, element]) => [id, field(element).kind]));
    expect(kinds).toEqual({
      text: 'value',
      area: 'value',
      editor: 'content',
      choice: 'select',
      check: 'toggle',
      upload: 'file',
      send: 'button',
      plain: 'none',
      when: 'value',
    });
    expect(field(elements.when)).toMatchObject({ type: 'date', tagName: 'input' });
    expect(field(elements.area)).toMatchObject({ type: 'textarea', tagName: 'textarea', description: '<textarea>' });
  });

  it('stands a label and a wrapper with one field for that field, which gets an id of its own', () => {
    const { label, wrapper, crowded } = place(
      '<label id="label" for="email">Email</label><input id="email">' +
        '<div id="wrapper" role="combobox"><span>Find</span><input aria-label="Find"></div>' +
        '<div id="crowded"><input><input></div>',
    );
    const byLabel = field(label);
    expect(byLabel).toMatchObject({ kind: 'value', description: '<input type=text> "Email"' });
    expect(resolveElement({ elementId: byLabel.targetId ?? '' })).toBe(document.getElementById('email'));
    const byWrapper = field(wrapper);
    expect(byWrapper).toMatchObject({ kind: 'value', description: '<input type=text> "Find"', suggestions: true });
    expect(resolveElement({ elementId: byWrapper.targetId ?? '' })).toBe(wrapper!.querySelector('input'));
    expect(field(crowded)).toMatchObject({ kind: 'none', targetId: null });
  });

  it('sees the suggestions a datalist, a combobox or a controlled list offers', () => {
    const elements = place(
      '<input id="listed" list="cities"><datalist id="cities"><option value="Paris"></datalist>' +
        '<input id="autocomplete" aria-autocomplete="list"><input id="both" aria-autocomplete="both"><input id="combo" role="combobox">' +
        '<input id="popup" aria-haspopup="listbox"><input id="controls" aria-controls="list"><ul id="list" role="listbox"></ul>' +
        '<input id="owns" aria-owns="holder"><div id="holder"><div role="listbox"></div></div>' +
        '<input id="elsewhere" aria-controls="panel"><div id="panel"></div><input id="plain">',
    );
    const offered = Object.fromEntries(
      ['listed', 'autocomplete', 'both', 'combo', 'popup', 'controls', 'owns', 'elsewhere', 'plain'].map((id) => [id, field(elements[id]).suggestions]),
    );
    expect(offered).toEqual({
      listed: true,
      autocomplete: true,
      both: true,
      combo: true,
      popup: true,
      controls: true,
      owns: true,
      elsewhere: false,
      plain: false,
    });
  });

  it('reports passwords, read-only and disabled fields and the maxlength', () => {
    const { secret, fixed, ariaFixed, off, ariaOff, short } = place(
      '<input id="secret" type="password"><input id="fixed" readonly><div id="ariaFixed" contenteditable="true" aria-readonly="true"></div>' +
        '<input id="off" disabled><input id="ariaOff" aria-disabled="true"><textarea id="short" maxlength="5"></textarea>',
    );
    expect(field(secret)).toMatchObject({ password: true, readOnly: false, disabled: false, maxLength: null });
    expect(field(fixed)).toMatchObject({ readOnly: true });
    expect(field(ariaFixed)).toMatchObject({ kind: 'content', readOnly: true });
    expect(field(off)).toMatchObject({ disabled: true });
    expect(field(ariaOff)).toMatchObject({ disabled: true });
    expect(field(short)).toMatchObject({ maxLength: 5 });
  });

  it('names the field by aria-label, its label, placeholder, name, then title', () => {
    const { a, b, c, d, e } = place(
      '<input id="a" aria-label="First" placeholder="x"><label>Second <input id="b"> <button>no</button></label>' +
        '<input id="c" placeholder="Third" name="x"><input id="d" name="fourth" title="x"><input id="e" title="Fifth">',
    );
    expect([a, b, c, d, e].map((element) => field(element).description)).toEqual([
      '<input type=text> "First"',
      '<input type=text> "Second"',
      '<input type=text> "Third"',
      '<input type=text> "fourth"',
      '<input type=text> "Fifth"',
    ]);
  });

  it('answers stale for an element that is gone', () => {
    expect(inspectField(otherDocument)).toEqual({ status: 'stale', reason: 'the page has loaded a new document since' });
  });
});

describe('fieldValue', () => {
  it('reads a value, the text of an editable element, and a password only as its length', () => {
    const { text, area, editor, secret } = place(
      '<input id="text"><textarea id="area"></textarea><div id="editor" contenteditable="true"></div><input id="secret" type="password">',
    );
    (text as HTMLInputElement).value = 'mug';
    (area as HTMLTextAreaElement).value = 'two\nlines';
    editor!.textContent = 'Hello';
    (secret as HTMLInputElement).value = 'hunter2';
    expect(fieldValue(locate(text))).toEqual({ status: 'ok', value: 'mug', length: 3 });
    expect(fieldValue(locate(area))).toEqual({ status: 'ok', value: 'two\nlines', length: 9 });
    expect(fieldValue(locate(editor))).toEqual({ status: 'ok', value: 'Hello', length: 5 });
    expect(fieldValue(locate(secret))).toEqual({ status: 'ok', value: null, length: 7 });
  });

  it('answers stale for a removed field', () => {
    const { text } = place('<input id="text">');
    const locator = locate(text);
    text!.remove();
    expect(fieldValue(locator)).toEqual({ status: 'stale', reason: 'it was removed from the page' });
  });
});
