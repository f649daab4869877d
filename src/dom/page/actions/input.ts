// The page side of input_text: what kind of field the element is (and the field it stands for,
// such as a label's control), whether it offers suggestions, and the value it holds after typing.

import { elementIdOf, type ElementLocator } from '../registry';
import { findElement, isStale, type StaleAnswer } from './lookup';
import { describeElement, firstLabelText } from './naming';
import { controlledElements, popupSelector } from './popups';

/**
 * What the element is as a field. `kind`: `value` (input or textarea), `content` (contenteditable),
 * `select`, `toggle` (checkbox, radio), `file`, `button` (an input button) or `none`.
 */
export type FieldAnswer =
  | StaleAnswer
  | {
      readonly status: 'ok';
      readonly kind: 'value' | 'content' | 'select' | 'toggle' | 'file' | 'button' | 'none';
      /** The input's type (`text`, `date`, …), else the tag name. */
      readonly type: string;
      readonly tagName: string;
      /** The element as `<tag type=…> "label"`. */
      readonly description: string;
      /** The snapshot id of the field the element stands for (a label's control, a wrapper's only input); null when it is the element. */
      readonly targetId: string | null;
      /** The field offers suggestions: a datalist, `aria-autocomplete`, a combobox, a controlled listbox. */
      readonly suggestions: boolean;
      readonly password: boolean;
      readonly readOnly: boolean;
      readonly disabled: boolean;
      /** The `maxlength`, when set. */
      readonly maxLength: number | null;
    };

/** The field's value after typing; a password's only as a length, so it never leaves the page. */
export type FieldValueAnswer = StaleAnswer | { readonly status: 'ok'; readonly value: string | null; readonly length: number };

/** Input types that take typed text. */
const textTypes = new Set([
  '',
  'text',
  'search',
  'email',
  'url',
  'tel',
  'password',
  'number',
  'date',
  'time',
  'datetime-local',
  'month',
  'week',
  'range',
  'color',
]);

function editable(target: Element): boolean {
  return (
    (target instanceof HTMLInputElement && textTypes.has(target.type)) ||
    target instanceof HTMLTextAreaElement ||
    (target as Partial<HTMLElement>).isContentEditable === true
  );
}

/** The field the element stands for: a label's control, or the only field inside a wrapper (a combobox around its input). */
function fieldFor(element: Element): Element {
  if (element instanceof HTMLLabelElement && element.control) return element.control;
  if (editable(element) || element instanceof HTMLInputElement || element instanceof HTMLSelectElement) return element;
  const inside = [...element.querySelectorAll('input, textarea, [contenteditable=""], [contenteditable=true]')].filter(editable);
  return inside.length === 1 && inside[0] ? inside[0] : element;
}

/** The holder names a list (by aria-controls or aria-owns) that is, or holds, a listbox or menu. */
function controlsList(holder: Element | null): boolean {
  if (!holder) return false;
  return controlledElements(holder).some((target) => target.matches(popupSelector) || target.querySelector('[role=listbox]') !== null);
}

function offersSuggestions(field: Element): boolean {
  const autocomplete = (field.getAttribute('aria-autocomplete') ?? '').toLowerCase();
  const combobox = field.closest('[role=combobox]');
  return (
    (field instanceof HTMLInputElement && field.list !== null) ||
    autocomplete === 'list' ||
    autocomplete === 'both' ||
    field.getAttribute('role') === 'combobox' ||
    combobox !== null ||
    /^(listbox|true)$/.test(field.getAttribute('aria-haspopup') ?? '') ||
    controlsList(field) ||
    controlsList(combobox)
  );
}

/** Says what kind of field the element is, before input_text types into it. */
export function inspectField(locator: ElementLocator): FieldAnswer {
  const element = findElement(locator);
  if (isStale(element)) return element;
  const field = fieldFor(element);
  // The driver types into the field itself: it gets an id of its own.
  const targetId = field !== element ? elementIdOf(field) : null;
  const input = field instanceof HTMLInputElement ? field : null;
  const type = input ? input.type : field.localName;
  let kind: Extract<FieldAnswer, { status: 'ok' }>['kind'] = 'none';
  if (field instanceof HTMLSelectElement) kind = 'select';
  else if (input && (type === 'checkbox' || type === 'radio')) kind = 'toggle';
  else if (input && type === 'file') kind = 'file';
  else if (input && !textTypes.has(type)) kind = 'button';
  else if (input || field instanceof HTMLTextAreaElement) kind = 'value';
  else if ((field as HTMLElement).isContentEditable) kind = 'content';
  const name =
    field.getAttribute('aria-label') ||
    firstLabelText(field) ||
    field.getAttribute('placeholder') ||
    field.getAttribute('name') ||
    field.getAttribute('title') ||
    '';
  const textField = input ?? (field instanceof HTMLTextAreaElement ? field : null);
  return {
    status: 'ok',
    kind,
    type,
    tagName: field.localName,
    description: describeElement(field.localName, input ? ` type=${type}` : '', name),
    targetId,
    suggestions: offersSuggestions(field),
    password: type === 'password',
    readOnly: Boolean(textField?.readOnly) || field.getAttribute('aria-readonly') === 'true',
    disabled: field.matches(':disabled') || field.getAttribute('aria-disabled') === 'true',
    maxLength: textField && textField.maxLength >= 0 ? textField.maxLength : null,
  };
}

/** Reads the value a field holds after typing. */
export function fieldValue(locator: ElementLocator): FieldValueAnswer {
  const element = findElement(locator);
  if (isStale(element)) return element;
  const value =
    element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement
      ? element.value
      : ((element as HTMLElement).innerText ?? element.textContent ?? '');
  const secret = element instanceof HTMLInputElement && element.type === 'password';
  return { status: 'ok', value: secret ? null : value.slice(0, 100_000), length: value.length };
}
