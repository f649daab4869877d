// Runs in headless Chromium (the vitest `browser` project): key presses dispatched on the focused element with their
// default actions, and going back in history. Forms never submit for real: each test's submit listener prevents it.
import { afterEach, describe, expect, it } from 'vitest';
import { goBack, pressKeys } from './keys';

function place(html: string): Record<string, HTMLElement> {
  document.body.innerHTML = html;
  const elements: Record<string, HTMLElement> = {};
  for (const element of document.body.querySelectorAll<HTMLElement>('[id]')) elements[element.id] = element;
  return elements;
}

/** The keyboard events the element receives while `act` runs, as `type:key` with the modifiers held. */
function keyEventsDuring(element: Element, act: () => void): string[] {
  const seen: string[] = [];
  const record = (event: Event): void => {
    const key = event as KeyboardEvent;
    const held = [key.ctrlKey && 'Control', key.shiftKey && 'Shift', key.altKey && 'Alt', key.metaKey && 'Meta'].filter(Boolean).join('+');
    seen.push(`${key.type}:${key.key}${held ? ` (${held})` : ''}`);
  };
  for (const type of ['keydown', 'keypress', 'keyup']) element.addEventListener(type, record);
  act();
  for (const type of ['keydown', 'keypress', 'keyup']) element.removeEventListener(type, record);
  return seen;
}

afterEach(() => {
  (document.activeElement as HTMLElement | null)?.blur();
  document.body.innerHTML = '';
});

describe('pressKeys', () => {
  it('does nothing and returns false when nothing has the focus', () => {
    place('<input id="field">');
    expect(pressKeys({ keys: 'a' })).toBe(false);
    expect((document.getElementById('field') as HTMLInputElement).value).toBe('');
  });

  it('sends keydown, keypress and keyup for a printable key, keypress left out for others, with the modifiers held', () => {
    const { field } = place('<input id="field">');
    field!.focus();
    const events = keyEventsDuring(field!, () => expect(pressKeys({ keys: 'x Control+Shift+ArrowLeft' })).toBe(true));
    expect(events).toEqual(['keydown:x', 'keypress:x', 'keyup:x', 'keydown:ArrowLeft (Control+Shift)', 'keyup:ArrowLeft (Control+Shift)']);
  });

  it('types printable keys at the caret, replacing a selection, and fires input', () => {
    const { field } = place('<input id="field" value="ac">');
    const input = field as HTMLInputElement;
    input.focus();
    input.setSelectionRange(1, 1);
    let inputs = 0;
    input.addEventListener('input', () => inputs++);
    pressKeys({ keys: 'b' });
    expect(input.value).toBe('abc');
    expect(input.selectionStart).toBe(2);
    input.setSelectionRange(0, 3);
    pressKeys({ keys: 'X Y' });
    expect(input.value).toBe('XY');
    expect(inputs).toBe(3);
  });

  it('deletes the character before the caret, or the selection, with Backspace', () => {
    const { field } = place('<textarea id="field">hello</textarea>');
    const area = field as HTMLTextAreaElement;
    area.focus();
    area.setSelectionRange(5, 5);
    pressKeys({ keys: 'Backspace' });
    expect(area.value).toBe('hell');
    area.setSelectionRange(0, 2);
    pressKeys({ keys: 'Backspace' });
    expect(area.value).toBe('ll');
    area.setSelectionRange(0, 0);
    pressKeys({ keys: 'Backspace' });
    expect(area.value).toBe('ll');
  });

  it('selects all with Control+A or Meta+A, so the next key replaces the text', () => {
    const { field } = place('<input id="field" value="old text">');
    field!.focus();
    pressKeys({ keys: 'Control+A n' });
    expect((field as HTMLInputElement).value).toBe('n');
    pressKeys({ keys: 'Meta+a' });
    expect([(field as HTMLInputElement).selectionStart, (field as HTMLInputElement).selectionEnd]).toEqual([0, 1]);
  });

  it('types nothing for a key held with Control, and nothing when the page prevents the keydown', () => {
    const { field } = place('<input id="field">');
    field!.focus();
    pressKeys({ keys: 'Control+c' });
    expect((field as HTMLInputElement).value).toBe('');
    field!.addEventListener('keydown', (event) => event.preventDefault());
    const events = keyEventsDuring(field!, () => pressKeys({ keys: 'q' }));
    expect((field as HTMLInputElement).value).toBe('');
    expect(events).toEqual(['keydown:q', 'keyup:q']);
  });

  it('types into a number field, which has no selection', () => {
    const { count } = place('<input id="count" type="number">');
    count!.focus();
    pressKeys({ keys: '4 2' });
    expect((count as HTMLInputElement).value).toBe('42');
  });

  it('submits the form of a field with Enter', () => {
    const { form, field } = place('<form id="form"><input id="field" name="q"></form>');
    let submitted = 0;
    form!.addEventListener('submit', (event) => {
      event.preventDefault();
      submitted++;
    });
    field!.focus();
    pressKeys({ keys: 'Enter' });
    expect(submitted).toBe(1);
  });

  it('starts a new line in a textarea with Enter, and clicks a focused button or link', () => {
    const { area, button, link } = place('<textarea id="area">a</textarea><button id="button">Go</button><a id="link" href="#k">Link</a>');
    (area as HTMLTextAreaElement).focus();
    (area as HTMLTextAreaElement).setSelectionRange(1, 1);
    pressKeys({ keys: 'Enter b' });
    expect((area as HTMLTextAreaElement).value).toBe('a\nb');
    const clicks: string[] = [];
    button!.addEventListener('click', () => clicks.push('button'));
    link!.addEventListener('click', (event) => {
      event.preventDefault();
      clicks.push('link');
    });
    button!.focus();
    pressKeys({ keys: 'Enter' });
    link!.focus();
    pressKeys({ keys: 'Enter' });
    expect(clicks).toEqual(['button', 'link']);
  });

  it('moves the focus with Tab and Shift+Tab in document order, past disabled and unrendered controls, wrapping at the ends', () => {
    place(
      '<input id="first"><button disabled>Off</button><button style="display: none;">Hidden</button><a id="second" href="#s">Second</a><div id="third" tabindex="0">Third</div>',
    );
    document.getElementById('first')!.focus();
    const focusedAfter = (keys: string): string => {
      pressKeys({ keys });
      return document.activeElement?.id ?? '';
    };
    expect([
      focusedAfter('Tab'),
      focusedAfter('Tab'),
      focusedAfter('Tab'),
      focusedAfter('Shift+Tab'),
      focusedAfter('Shift+Tab'),
      focusedAfter('Shift+Tab'),
    ]).toEqual(['second', 'third', 'first', 'third', 'second', 'first']);
  });
});

describe('goBack', () => {
  it('goes back one entry in the document’s history and says there was one', async () => {
    const before = location.href;
    history.pushState({ step: 'forward' }, '', `${location.pathname}${location.search}#forward`);
    const popped = new Promise<unknown>((resolve) => window.addEventListener('popstate', (event) => resolve(event.state), { once: true }));
    expect(goBack()).toBe(true);
    await expect(popped).resolves.toBeNull();
    expect(location.href).toBe(before);
  });
});
