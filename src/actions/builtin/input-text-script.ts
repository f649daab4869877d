// Page scripts of input_text: what kind of field the element is (and the field it stands for, such
// as a label's control), whether it offers suggestions, and the value it holds after typing. Self-contained.

import { z } from 'zod';
import type { PageScript } from '../../browser/types';
import type { ElementArgument } from './element-script';

/**
 * What the element is as a field. `kind`: `value` (input or textarea), `content` (contenteditable),
 * `select`, `toggle` (checkbox, radio), `file`, `button` (an input button) or `none`.
 */
export type FieldAnswer =
  | { readonly status: 'stale'; readonly reason: string }
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

/** Validates what the page returned (the page controls the JSON it sends back). */
export const fieldAnswerSchema: z.ZodType<FieldAnswer> = z.discriminatedUnion('status', [
  z.object({ status: z.literal('stale'), reason: z.string().max(200) }),
  z.object({
    status: z.literal('ok'),
    kind: z.enum(['value', 'content', 'select', 'toggle', 'file', 'button', 'none']),
    type: z.string().max(40),
    tagName: z.string().max(40),
    description: z.string().max(500),
    targetId: z.string().max(200).nullable(),
    suggestions: z.boolean(),
    password: z.boolean(),
    readOnly: z.boolean(),
    disabled: z.boolean(),
    maxLength: z.number().int().nullable(),
  }),
]);

/** The field's value after typing; a password's only as a length, so it never leaves the page. */
export type FieldValueAnswer =
  | { readonly status: 'stale'; readonly reason: string }
  | { readonly status: 'ok'; readonly value: string | null; readonly length: number };

/** Validates what the page returned. */
export const fieldValueAnswerSchema: z.ZodType<FieldValueAnswer> = z.discriminatedUnion('status', [
  z.object({ status: z.literal('stale'), reason: z.string().max(200) }),
  z.object({ status: z.literal('ok'), value: z.string().max(100_000).nullable(), length: z.number().int().nonnegative() }),
]);

/* v8 ignore start -- page functions: they run inside the page, where Node's coverage cannot see them */
function runInspectField(argument: ElementArgument): FieldAnswer {
  type State = { token?: string; next?: number; ids?: WeakMap<Element, string>; elements?: Map<string, WeakRef<Element>> };
  const state = (window as unknown as Record<string, State | undefined>)['__plannavSnapshot'];
  if (!state || !state.token || !argument.elementId.startsWith(`${state.token}-`)) return { status: 'stale', reason: 'the page has loaded a new document since' };
  const reference = state.elements?.get(argument.elementId);
  let element = reference?.deref() ?? null;
  if ((!element || !element.isConnected) && !reference && argument.selector) {
    try {
      element = document.querySelector(argument.selector);
    } catch {
      element = null;
    }
  }
  if (!element || !element.isConnected) return { status: 'stale', reason: 'it was removed from the page' };
  const textTypes = new Set(['', 'text', 'search', 'email', 'url', 'tel', 'password', 'number', 'date', 'time', 'datetime-local', 'month', 'week', 'range', 'color']);
  const editable = (target: Element): boolean =>
    (target instanceof HTMLInputElement && textTypes.has(target.type)) || target instanceof HTMLTextAreaElement || (target as HTMLElement).isContentEditable === true;
  // The field the element stands for: a label's control, or the only field inside a wrapper (a combobox around its input).
  let field: Element = element;
  if (element instanceof HTMLLabelElement && element.control) field = element.control;
  else if (!editable(element) && !(element instanceof HTMLInputElement) && !(element instanceof HTMLSelectElement)) {
    const inside = [...element.querySelectorAll('input, textarea, [contenteditable=""], [contenteditable=true]')].filter(editable);
    if (inside.length === 1 && inside[0]) field = inside[0];
  }
  let targetId: string | null = null;
  if (field !== element && state.ids && state.elements && state.next !== undefined) {
    targetId = state.ids.get(field) ?? `${state.token}-${state.next++}`;
    state.ids.set(field, targetId);
    state.elements.set(targetId, new WeakRef(field));
  }
  const input = field instanceof HTMLInputElement ? field : null;
  const type = input ? input.type : field.localName;
  let kind: 'value' | 'content' | 'select' | 'toggle' | 'file' | 'button' | 'none' = 'none';
  if (field instanceof HTMLSelectElement) kind = 'select';
  else if (input && (type === 'checkbox' || type === 'radio')) kind = 'toggle';
  else if (input && type === 'file') kind = 'file';
  else if (input && !textTypes.has(type)) kind = 'button';
  else if (input || field instanceof HTMLTextAreaElement) kind = 'value';
  else if ((field as HTMLElement).isContentEditable) kind = 'content';

  const root = field.getRootNode() as Document | ShadowRoot;
  const byId = (id: string): Element | null => (typeof root.getElementById === 'function' ? root.getElementById(id) : null) ?? document.getElementById(id);
  const controlsList = (holder: Element | null): boolean => {
    if (!holder) return false;
    for (const name of ['aria-controls', 'aria-owns']) {
      for (const id of (holder.getAttribute(name) ?? '').split(/\s+/).filter(Boolean).slice(0, 10)) {
        const target = byId(id);
        if (target && (target.matches('[role=listbox],[role=menu],[role=tree],[role=grid]') || target.querySelector('[role=listbox]'))) return true;
      }
    }
    return false;
  };
  const autocomplete = (field.getAttribute('aria-autocomplete') ?? '').toLowerCase();
  const suggestions =
    Boolean(input?.list) ||
    autocomplete === 'list' ||
    autocomplete === 'both' ||
    field.getAttribute('role') === 'combobox' ||
    Boolean(field.closest('[role=combobox]')) ||
    /^(listbox|true)$/.test(field.getAttribute('aria-haspopup') ?? '') ||
    controlsList(field) ||
    controlsList(field.closest('[role=combobox]'));

  const collapse = (value: string): string => value.replace(/\s+/g, ' ').trim();
  // A label's own words, without the text of the controls inside it.
  const labelText = (label: Element): string => {
    const copy = label.cloneNode(true) as Element;
    for (const control of copy.querySelectorAll('select, input, textarea, button, datalist')) control.remove();
    return copy.textContent ?? '';
  };
  const labels = (field as HTMLInputElement).labels;
  const name = collapse(
    field.getAttribute('aria-label') ||
      (labels && labels[0] ? labelText(labels[0]) : '') ||
      field.getAttribute('placeholder') ||
      field.getAttribute('name') ||
      field.getAttribute('title') ||
      '',
  );
  const short = name.length > 60 ? `${name.slice(0, 60)}…` : name;
  const description = `<${field.localName}${input ? ` type=${type}` : ''}>${short ? ` ${JSON.stringify(short)}` : ''}`;
  const textField = input ?? (field instanceof HTMLTextAreaElement ? field : null);
  return {
    status: 'ok',
    kind,
    type,
    tagName: field.localName,
    description,
    targetId,
    suggestions,
    password: type === 'password',
    readOnly: Boolean(textField?.readOnly) || field.getAttribute('aria-readonly') === 'true',
    disabled: field.matches(':disabled') || field.getAttribute('aria-disabled') === 'true',
    maxLength: textField && textField.maxLength >= 0 ? textField.maxLength : null,
  };
}

function runFieldValue(argument: ElementArgument): FieldValueAnswer {
  type State = { token?: string; elements?: Map<string, WeakRef<Element>> };
  const state = (window as unknown as Record<string, State | undefined>)['__plannavSnapshot'];
  if (!state || !state.token || !argument.elementId.startsWith(`${state.token}-`)) return { status: 'stale', reason: 'the page has loaded a new document since' };
  const reference = state.elements?.get(argument.elementId);
  let element = reference?.deref() ?? null;
  if ((!element || !element.isConnected) && !reference && argument.selector) {
    try {
      element = document.querySelector(argument.selector);
    } catch {
      element = null;
    }
  }
  if (!element || !element.isConnected) return { status: 'stale', reason: 'it was removed from the page' };
  const value =
    element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement
      ? element.value
      : ((element as HTMLElement).innerText ?? element.textContent ?? '');
  const secret = element instanceof HTMLInputElement && element.type === 'password';
  return { status: 'ok', value: secret ? null : value.slice(0, 100_000), length: value.length };
}
/* v8 ignore stop */

/** Says what kind of field an element is, before input_text types into it. */
export const inspectFieldScript: PageScript<ElementArgument, FieldAnswer> = {
  id: 'plannav.field-inspect@1',
  run: runInspectField,
};

/** Reads the value a field holds after typing. */
export const fieldValueScript: PageScript<ElementArgument, FieldValueAnswer> = {
  id: 'plannav.field-value@1',
  run: runFieldValue,
};
