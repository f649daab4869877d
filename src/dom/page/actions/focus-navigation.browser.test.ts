// Runs in headless Chromium (the vitest `browser` project): the small page methods of send_keys and go_back, and the action method table.
import { afterEach, describe, expect, it } from 'vitest';
import { hasFocus } from './focus';
import { actionMethods } from './index';
import { canGoBack } from './navigation';
import { place } from './test-page';

afterEach(() => {
  document.body.innerHTML = '';
});

describe('hasFocus', () => {
  it('is false while the document itself has the focus, true once an element has it', () => {
    const { field } = place('<input id="field">');
    (document.activeElement as HTMLElement | null)?.blur();
    expect(hasFocus()).toBe(false);
    field!.focus();
    expect(hasFocus()).toBe(true);
  });
});

describe('canGoBack', () => {
  it('answers from the Navigation API where there is one, else says it cannot tell once there is history', () => {
    const navigation = (window as unknown as { navigation?: { canGoBack: boolean } }).navigation;
    expect(canGoBack()).toBe(navigation ? navigation.canGoBack : history.length > 1 ? null : false);
  });
});

describe('actionMethods', () => {
  it('offers every action method by name', () => {
    expect(Object.keys(actionMethods).sort()).toEqual(
      [
        'awaitReaction',
        'awaitStableBox',
        'clickLanding',
        'canGoBack',
        'clickTarget',
        'extractHtml',
        'fieldValue',
        'fileNames',
        'findFileInput',
        'hasFocus',
        'inspectField',
        'nextLinks',
        'pageText',
        'textEvidence',
        'readDropdown',
        'scrollFrameIntoView',
        'scrollTarget',
        'selectNative',
        'textShown',
        'watchClick',
        'watchTyping',
      ].sort(),
    );
  });
});
