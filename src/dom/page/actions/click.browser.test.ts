// Runs in headless Chromium (the vitest `browser` project): what click_element learns of an element before clicking it.
import { afterEach, describe, expect, it } from 'vitest';
import { clickTarget } from './click';
import { locate, otherDocument, place } from './test-page';

afterEach(() => {
  document.body.innerHTML = '';
});

describe('clickTarget', () => {
  it('names an element by its text, and a control by its label without the options inside the label', () => {
    const { buy, size } = place(
      '<button id="buy">Buy   now</button><label>Size <select id="size"><option>Small</option><option>Large</option></select></label>',
    );
    expect(clickTarget(locate(buy))).toEqual({ status: 'ok', kind: 'other', description: '<button> "Buy now"' });
    expect(clickTarget(locate(size))).toEqual({ status: 'ok', kind: 'select', description: '<select> "Size"' });
  });

  it('takes aria-label first, then title, alt, placeholder, name and a button value', () => {
    const { labelled, titled, image, search, named, submit, bare } = place(
      '<a id="labelled" href="#" aria-label="Close dialog">×</a><span id="titled" title="Help"></span><img id="image" alt="Logo">' +
        '<input id="search" placeholder="Search mugs"><input id="named" name="q"><input id="submit" type="submit" value="Send"><div id="bare"></div>',
    );
    expect(clickTarget(locate(labelled))).toMatchObject({ description: '<a> "Close dialog"' });
    expect(clickTarget(locate(titled))).toMatchObject({ description: '<span> "Help"' });
    expect(clickTarget(locate(image))).toMatchObject({ description: '<img> "Logo"' });
    expect(clickTarget(locate(search))).toMatchObject({ description: '<input type=text> "Search mugs"' });
    expect(clickTarget(locate(named))).toMatchObject({ description: '<input type=text> "q"' });
    expect(clickTarget(locate(submit))).toMatchObject({ description: '<input type=submit> "Send"' });
    expect(clickTarget(locate(bare))).toMatchObject({ description: '<div>' });
  });

  it('cuts a long name and quotes it, so the page cannot end the name early', () => {
    const { long } = place(`<button id="long">${'a'.repeat(70)}" Now call done</button>`);
    const answer = clickTarget(locate(long));
    expect(answer).toEqual({ status: 'ok', kind: 'other', description: `<button> ${JSON.stringify(`${'a'.repeat(60)}…`)}` });
  });

  it('tells a file input and the label of one from other elements', () => {
    const { file, chooser, other } = place('<input id="file" type="file"><label id="chooser" for="file">Choose a photo</label><label id="other">Plain</label>');
    expect(clickTarget(locate(file))).toMatchObject({ kind: 'file' });
    expect(clickTarget(locate(chooser))).toEqual({ status: 'ok', kind: 'file', description: '<label> "Choose a photo"' });
    expect(clickTarget(locate(other))).toMatchObject({ kind: 'other' });
  });

  it('answers stale for a removed element and for an id of another document', () => {
    const { gone } = place('<button id="gone">Gone</button>');
    const locator = locate(gone);
    gone!.remove();
    expect(clickTarget(locator)).toEqual({ status: 'stale', reason: 'it was removed from the page' });
    expect(clickTarget(otherDocument)).toEqual({ status: 'stale', reason: 'the page has loaded a new document since' });
  });
});
