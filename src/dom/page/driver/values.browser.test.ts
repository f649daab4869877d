// Runs in headless Chromium (the vitest `browser` project): filling fields and choosing options as the page's own
// scripts would see it, events included. A framework's value tracker is imitated by an own `value` property.
import { afterEach, describe, expect, it } from 'vitest';
import { chooseOption, fillField, findOption, setFormattedValue } from './values';

function place(html: string): Record<string, HTMLElement> {
  document.body.innerHTML = html;
  const elements: Record<string, HTMLElement> = {};
  for (const element of document.body.querySelectorAll<HTMLElement>('[id]')) elements[element.id] = element;
  return elements;
}

/** The types of the events (input, change) the element fires while `act` runs, with whether they bubble. */
function eventsDuring(element: Element, act: () => unknown): string[] {
  const seen: string[] = [];
  const record = (event: Event): void => {
    seen.push(
      `${event.type}${event.bubbles ? '' : ' (not bubbling)'}${event instanceof InputEvent && event.inputType ? ` ${event.inputType} ${event.data}` : ''}`,
    );
  };
  document.addEventListener('input', record);
  document.addEventListener('change', record);
  element.addEventListener('change', record);
  act();
  document.removeEventListener('input', record);
  document.removeEventListener('change', record);
  element.removeEventListener('change', record);
  return seen;
}

/**
 * Gives the field an own `value` property, as React's value tracker does: it remembers what was set through the
 * element and passes it on. A setter through the prototype bypasses it, so the framework sees a change.
 */
function trackValue(field: HTMLInputElement | HTMLTextAreaElement): { tracked: () => string } {
  const prototype = Object.getPrototypeOf(field) as object;
  const descriptor = Object.getOwnPropertyDescriptor(prototype, 'value')!;
  let tracked = field.value;
  Object.defineProperty(field, 'value', {
    configurable: true,
    get() {
      return descriptor.get!.call(this);
    },
    set(value: string) {
      tracked = value;
      descriptor.set!.call(this, value);
    },
  });
  return { tracked: () => tracked };
}

afterEach(() => {
  document.body.innerHTML = '';
});

describe('findOption', () => {
  const select =
    '<select id="select"><option value="r">Red wine</option><option value="red">Red</option><option value="gb" label="Great Britain">UK</option><option value="de">  Germany </option></select>';

  it('prefers the exact label over a label that only contains the words', () => {
    const { select: element } = place(select);
    expect(findOption(element!, 'Red')).toEqual({ index: 1 });
    expect(findOption(element!, ' Red wine ')).toEqual({ index: 0 });
  });

  it('matches a label whatever its case and spacing, then a value, then a label containing the words', () => {
    const { select: element } = place(select);
    expect(findOption(element!, 'germany')).toEqual({ index: 3 });
    expect(findOption(element!, 'GB')).toEqual({ index: 2 });
    expect(findOption(element!, 'great')).toEqual({ index: 2 });
    expect(findOption(element!, 'wine')).toEqual({ index: 0 });
  });

  it('uses an option’s label attribute rather than its text', () => {
    const { select: element } = place(select);
    expect(findOption(element!, 'Great Britain')).toEqual({ index: 2 });
  });

  it('gives the labels to choose from when nothing matches, and none for an element that is no select', () => {
    const { select: element, other } = place(`${select}<div id="other"></div>`);
    expect(findOption(element!, 'Blue')).toEqual({ labels: ['Red wine', 'Red', 'Great Britain', 'Germany'] });
    expect(findOption(other!, 'Red')).toEqual({ labels: [] });
  });
});

describe('setFormattedValue', () => {
  it('sets a date through the prototype, past a framework’s tracker, and fires input and change', () => {
    const { date } = place('<input id="date" type="date">');
    const tracker = trackValue(date as HTMLInputElement);
    const events = eventsDuring(date!, () => expect(setFormattedValue(date!, '2024-05-01')).toBe('2024-05-01'));
    expect((date as HTMLInputElement).value).toBe('2024-05-01');
    expect(tracker.tracked()).toBe('');
    expect(events).toEqual(['input', 'change', 'change']);
    expect(document.activeElement).toBe(date);
  });

  it('returns the value the input kept: nothing for an impossible date, the bound for a range, lower case for a colour', () => {
    const { date, range, colour } = place('<input id="date" type="date"><input id="range" type="range" min="0" max="10"><input id="colour" type="color">');
    expect(setFormattedValue(date!, '2024-13-45')).toBe('');
    expect(setFormattedValue(range!, '25')).toBe('10');
    expect(setFormattedValue(colour!, '#FF8800')).toBe('#ff8800');
  });

  it('handles time, month, week and datetime-local', () => {
    const { time, month, week, local } = place(
      '<input id="time" type="time"><input id="month" type="month"><input id="week" type="week"><input id="local" type="datetime-local">',
    );
    expect(setFormattedValue(time!, '09:30')).toBe('09:30');
    expect(setFormattedValue(month!, '2024-02')).toBe('2024-02');
    expect(setFormattedValue(week!, '2024-W07')).toBe('2024-W07');
    expect(setFormattedValue(local!, '2024-02-03T04:05')).toBe('2024-02-03T04:05');
  });

  it('leaves every other element alone and returns null', () => {
    const { text, area } = place('<input id="text" value="kept"><textarea id="area"></textarea>');
    expect(eventsDuring(text!, () => expect(setFormattedValue(text!, '2024-05-01')).toBeNull())).toEqual([]);
    expect(setFormattedValue(area!, 'x')).toBeNull();
    expect((text as HTMLInputElement).value).toBe('kept');
  });
});

describe('fillField', () => {
  it('replaces the text of an input past a framework’s tracker, focused, with the events typing fires', () => {
    const { field } = place('<input id="field" value="old">');
    const tracker = trackValue(field as HTMLInputElement);
    const events = eventsDuring(field!, () => expect(fillField(field!, 'new text')).toBe('new text'));
    expect(tracker.tracked()).toBe('old');
    expect(events).toEqual(['input insertText new text', 'change', 'change']);
    expect(document.activeElement).toBe(field);
  });

  it('returns what the field kept: a maxlength cuts nothing set by script, a number input drops what is no number', () => {
    const { short, count } = place('<input id="short" maxlength="3"><input id="count" type="number">');
    expect(fillField(short!, 'abcdef')).toBe('abcdef');
    expect(fillField(count!, 'twelve')).toBe('');
    expect(fillField(count!, '12')).toBe('12');
  });

  it('fills a textarea, newlines kept', () => {
    const { area } = place('<textarea id="area"></textarea>');
    expect(fillField(area!, 'line one\nline two')).toBe('line one\nline two');
  });

  it('replaces the text of an editable element and fires input', () => {
    const { editor } = place('<div id="editor" contenteditable="true"><p>Old <b>draft</b></p></div>');
    const events = eventsDuring(editor!, () => expect(fillField(editor!, 'Fresh')).toBe('Fresh'));
    expect(editor!.innerHTML).toBe('Fresh');
    expect(events).toEqual(['input insertText Fresh']);
  });

  it('returns null for an element that takes no text', () => {
    const { button } = place('<button id="button">Go</button>');
    expect(fillField(button!, 'text')).toBeNull();
    expect(button!.textContent).toBe('Go');
  });
});

describe('chooseOption', () => {
  it('selects the option at the index, fires input and change, and returns the selected values', () => {
    const { select } = place('<select id="select"><option value="s">Small</option><option value="m">Medium</option></select>');
    const events = eventsDuring(select!, () => expect(chooseOption(select!, 1)).toEqual(['m']));
    expect((select as HTMLSelectElement).selectedIndex).toBe(1);
    expect(events).toEqual(['input', 'change', 'change']);
    expect(document.activeElement).toBe(select);
  });

  it('leaves only that option selected in a multiple select', () => {
    const { select } = place(
      '<select id="select" multiple><option value="a" selected>A</option><option value="b" selected>B</option><option value="c">C</option></select>',
    );
    expect(chooseOption(select!, 2)).toEqual(['c']);
  });

  it('returns no values for an element that is no select', () => {
    const { div } = place('<div id="div"></div>');
    expect(chooseOption(div!, 0)).toEqual([]);
  });
});
