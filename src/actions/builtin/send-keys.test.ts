import { describe, expect, it } from 'vitest';
import { ActionError } from '../../errors';
import { parseKeys } from './send-keys';

describe('parseKeys', () => {
  it.each([
    ['Enter', ['Enter']],
    ['enter', ['Enter']],
    ['RETURN', ['Enter']],
    ['esc', ['Escape']],
    ['Control+a', ['Control+a']],
    ['ctrl+A', ['Control+A']],
    ['Ctrl+Shift+Tab', ['Control+Shift+Tab']],
    ['cmd+shift+p', ['Meta+Shift+p']],
    ['command+c', ['Meta+c']],
    ['option+left', ['Alt+ArrowLeft']],
    ['mod+s', ['ControlOrMeta+s']],
    ['Control+a Delete', ['Control+a', 'Delete']],
    ['ctrl+a   del  ', ['Control+a', 'Delete']],
    ['up down Up_Arrow arrow-down', ['ArrowUp', 'ArrowDown', 'ArrowUp', 'ArrowDown']],
    ['pgdn PageUp home END', ['PageDown', 'PageUp', 'Home', 'End']],
    ['backspace bksp ins space', ['Backspace', 'Backspace', 'Insert', 'Space']],
    ['f5 F12 f24', ['F5', 'F12', 'F24']],
    ['Shift+keya digit1 numpad7', ['Shift+KeyA', 'Digit1', 'Numpad7']],
    ['Control++', ['Control++']],
    ['+', ['+']],
    ['Shift+/', ['Shift+/']],
    ['é', ['é']],
  ])('%j presses %j', (keys, chords) => {
    expect(parseKeys(keys)).toEqual(chords);
  });

  it.each([
    ['hello', 'Unknown key "hello" in "hello"'],
    ['Control+foo', 'Unknown key "foo" in "Control+foo"'],
    ['f25', 'Unknown key "f25"'],
    ['   ', 'No keys given'],
    [Array.from({ length: 21 }, () => 'Tab').join(' '), 'At most 20 keys or chords at once, got 21'],
  ])('refuses %j', (keys, message) => {
    let caught: unknown;
    try {
      parseKeys(keys);
    } catch (error) {
      caught = error;
    }
    expect(ActionError.isInstance(caught)).toBe(true);
    expect((caught as Error).message).toContain(message);
    expect((caught as Error).message).toContain('To type text, use input_text.');
  });
});
