// Runs in headless Chromium (the vitest `browser` project): the file input an element stands for, and the names of the files it holds.
import { afterEach, describe, expect, it } from 'vitest';
import { installRecorder } from '../recorder';
import { resolveElement } from '../registry';
import { fileNames, findFileInput, type FileInputAnswer } from './upload';
import { locate, otherDocument, place } from './test-page';

afterEach(() => {
  document.body.innerHTML = '';
});

/** The input an ok answer names. */
function inputOf(answer: FileInputAnswer, element: Element | undefined): Element | undefined {
  if (answer.status !== 'ok') return undefined;
  if (answer.targetId === null) return element;
  const found = resolveElement({ elementId: answer.targetId });
  return typeof found === 'string' ? undefined : found;
}

describe('findFileInput', () => {
  it('takes the file input itself, with its multiple and accept', () => {
    const { photo } = place('<input id="photo" type="file" multiple accept="image/*" aria-label="Photos">');
    expect(findFileInput(locate(photo))).toEqual({
      status: 'ok',
      targetId: null,
      via: 'self',
      multiple: true,
      accept: 'image/*',
      description: '<input> "Photos"',
    });
  });

  it('finds the input of a label, inside the element, and beside it, giving it an id of its own', () => {
    const { byFor, wrapping, button, inner } = place(
      '<label id="byFor" for="a">Upload</label><input id="a" type="file">' +
        '<label id="wrapping"><span id="inner">Pick</span><input id="b" type="file"></label>' +
        '<div id="button">Choose <input id="c" type="file"></div>' +
        '<div><div><button id="beside">Attach</button></div><input id="d" type="file"></div>',
    );
    const cases: [HTMLElement | undefined, string, string][] = [
      [byFor, 'label', 'a'],
      [inner, 'label', 'b'],
      [wrapping, 'label', 'b'],
      [button, 'inside', 'c'],
      [document.getElementById('beside') ?? undefined, 'ancestor', 'd'],
    ];
    for (const [element, via, id] of cases) {
      const answer = findFileInput(locate(element));
      expect(answer).toMatchObject({ status: 'ok', via });
      expect(inputOf(answer, element)).toBe(document.getElementById(id));
    }
  });

  it('looks into a closed shadow root the recorder saw', () => {
    installRecorder();
    const { widget } = place('<div id="widget"></div>');
    const root = widget!.attachShadow({ mode: 'closed' });
    root.innerHTML = '<input type="file">';
    const answer = findFileInput(locate(widget));
    expect(answer).toMatchObject({ status: 'ok', via: 'inside' });
    expect(inputOf(answer, widget)).toBe(root.querySelector('input'));
  });

  it('says there is none when no file input is within three levels, and names the element', () => {
    const { far } = place('<div><div><div><div><button id="far">Far away</button></div></div></div><input type="file"></div>');
    expect(findFileInput(locate(far))).toEqual({ status: 'none', description: '<button> "Far away"' });
  });

  it('answers stale for an element that is gone', () => {
    expect(findFileInput(otherDocument)).toMatchObject({ status: 'stale' });
  });
});

describe('fileNames', () => {
  it('reads the names of the files set on the input, and none on other elements', () => {
    const { photo, plain } = place('<input id="photo" type="file" multiple><div id="plain"></div>');
    const transfer = new DataTransfer();
    transfer.items.add(new File(['a'], 'a.png'));
    transfer.items.add(new File(['b'], 'b.txt'));
    (photo as HTMLInputElement).files = transfer.files;
    expect(fileNames(locate(photo))).toEqual({ status: 'ok', names: ['a.png', 'b.txt'] });
    expect(fileNames(locate(plain))).toEqual({ status: 'ok', names: [] });
  });

  it('finds the input by its id only, never by the selector of the element the model chose', () => {
    const { photo } = place('<input id="photo" type="file">');
    // An id of this document that the registry never gave out: the selector is never a fallback.
    const unknown = { elementId: `${locate(photo).elementId.split('-')[0]}-999999`, selector: '#photo' };
    expect(resolveElement(unknown)).toBe('removed');
    expect(fileNames(unknown)).toEqual({ status: 'stale', reason: 'it was removed from the page' });
  });
});
