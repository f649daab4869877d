// Page scripts of the dropdown actions (and of input_text's suggestions): read the options of a
// native select, a datalist or an ARIA listbox/menu, and set a multiple select. Self-contained.

import { z } from 'zod';
import type { PageScript } from '../../browser/types';
import type { ElementArgument } from './element-script';

/** What the dropdown reader is asked. */
export interface DropdownArgument extends ElementArgument {
  /** Give each ARIA option a snapshot id, so the driver can click it. */
  readonly register: boolean;
  /** After a click that opened the list: also take any visible listbox or menu of the document, nearest first. */
  readonly anyVisible: boolean;
  /** For a datalist: only the suggestions that contain this text (what the field holds). */
  readonly filter: string | null;
}

/** One option as the page shows it. */
export interface DropdownOption {
  /** The option's text (a datalist option's value). */
  readonly text: string;
  /** A native option's value; null otherwise. */
  readonly value: string | null;
  readonly selected: boolean;
  readonly disabled: boolean;
  /** The optgroup or ARIA group it is in. */
  readonly group: string | null;
  /** The snapshot id of an ARIA option, when registration was asked for. */
  readonly elementId: string | null;
}

/**
 * What the element is as a dropdown. `kind`: `native` (a select), `datalist` (an input's
 * suggestions), `aria` (an open listbox or menu), `closed` (a trigger whose list is not showing:
 * click it to open), `none` (not a dropdown).
 */
export type DropdownAnswer =
  | { readonly status: 'stale'; readonly reason: string }
  | {
      readonly status: 'ok';
      readonly kind: 'native' | 'datalist' | 'aria' | 'closed' | 'none';
      /** Several options may be selected. */
      readonly multiple: boolean;
      /** The options, at most 500. */
      readonly options: readonly DropdownOption[];
      /** How many options there are in all. */
      readonly total: number;
      /** What the element shows now: its value, selected options or text. */
      readonly display: string;
      /** The element as `<tag role=…> "label"`. */
      readonly description: string;
      /** The element is the list itself or inside it (an option): what it shows is the options, not a choice. */
      readonly within: boolean;
    };

const optionSchema = z.object({
  text: z.string().max(2000),
  value: z.string().max(2000).nullable(),
  selected: z.boolean(),
  disabled: z.boolean(),
  group: z.string().max(2000).nullable(),
  elementId: z.string().max(200).nullable(),
});

/** Validates what the page returned (the page controls the JSON it sends back). */
export const dropdownAnswerSchema: z.ZodType<DropdownAnswer> = z.discriminatedUnion('status', [
  z.object({ status: z.literal('stale'), reason: z.string().max(200) }),
  z.object({
    status: z.literal('ok'),
    kind: z.enum(['native', 'datalist', 'aria', 'closed', 'none']),
    multiple: z.boolean(),
    options: z.array(optionSchema).max(500),
    total: z.number().int().nonnegative(),
    display: z.string().max(2000),
    description: z.string().max(500),
    within: z.boolean(),
  }),
]);

/** What the multiple-select setter is asked: the options to select, by position; the others are deselected. */
export interface SelectNativeArgument extends ElementArgument {
  readonly indices: readonly number[];
}

/** The selected options' texts after the change. */
export type SelectNativeAnswer = { readonly status: 'stale'; readonly reason: string } | { readonly status: 'ok'; readonly selected: readonly string[] };

/** Validates what the page returned. */
export const selectNativeAnswerSchema: z.ZodType<SelectNativeAnswer> = z.discriminatedUnion('status', [
  z.object({ status: z.literal('stale'), reason: z.string().max(200) }),
  z.object({ status: z.literal('ok'), selected: z.array(z.string().max(2000)).max(500) }),
]);

/* v8 ignore start -- page functions: they run inside the page, where Node's coverage cannot see them */
function runReadDropdown(argument: DropdownArgument): DropdownAnswer {
  type State = { token?: string; next?: number; ids?: WeakMap<Element, string>; elements?: Map<string, WeakRef<Element>> };
  const state = (window as unknown as Record<string, State | undefined>)['__plannavSnapshot'];
  const findElement = (): Element | string => {
    if (!state || !state.token || !argument.elementId.startsWith(`${state.token}-`)) return 'the page has loaded a new document since';
    const reference = state.elements?.get(argument.elementId);
    const element = reference?.deref();
    if (element && element.isConnected) return element;
    if (!reference && argument.selector) {
      try {
        const found = document.querySelector(argument.selector);
        if (found) return found;
      } catch {
        // an invalid selector is no fallback
      }
    }
    return 'it was removed from the page';
  };
  const found = findElement();
  if (typeof found === 'string') return { status: 'stale', reason: found };
  const element = found;
  const register = (target: Element): string | null => {
    if (!argument.register || !state || !state.ids || !state.elements || state.next === undefined) return null;
    let id = state.ids.get(target);
    if (id === undefined) {
      id = `${state.token}-${state.next++}`;
      state.ids.set(target, id);
    }
    state.elements.set(id, new WeakRef(target));
    return id;
  };
  const collapse = (value: string): string => value.replace(/\s+/g, ' ').trim();
  const cap = (value: string, limit: number): string => (value.length > limit ? `${value.slice(0, limit)}…` : value);
  const textOf = (target: Element): string => collapse((target as HTMLElement).innerText ?? target.textContent ?? '');
  const root = element.getRootNode() as Document | ShadowRoot;
  const byId = (id: string): Element | null => (typeof root.getElementById === 'function' ? root.getElementById(id) : null) ?? document.getElementById(id);
  const labelledBy = (target: Element): string =>
    (target.getAttribute('aria-labelledby') ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .slice(0, 5)
      .map((id) => (byId(id) ? textOf(byId(id) as Element) : ''))
      .join(' ');
  const role = element.getAttribute('role') ?? '';
  const tag = element.localName;
  // A label's own words, without the text of the controls inside it (a select's options).
  const labelText = (label: Element): string => {
    const copy = label.cloneNode(true) as Element;
    for (const control of copy.querySelectorAll('select, input, textarea, button, datalist')) control.remove();
    return collapse(copy.textContent ?? '');
  };
  const label = (): string => {
    const labels = (element as HTMLInputElement).labels;
    const named =
      element.getAttribute('aria-label') ||
      labelledBy(element) ||
      (labels && labels.length > 0 && labels[0] ? labelText(labels[0]) : '') ||
      element.getAttribute('placeholder') ||
      element.getAttribute('name') ||
      (tag === 'select' ? '' : textOf(element));
    return cap(collapse(named ?? ''), 60);
  };
  const name = label();
  // JSON quoting: a label or role with a quote in it cannot end early and go on as our words.
  const roleText = /^[a-z]{1,30}$/.test(role) ? role : JSON.stringify(role.slice(0, 40));
  const description = `<${tag}${role ? ` role=${roleText}` : ''}>${name ? ` ${JSON.stringify(name)}` : ''}`;
  const displayed = (target: Element): boolean => {
    const check = (target as Element & { checkVisibility?: (options: object) => boolean }).checkVisibility;
    if (check && !check.call(target, { checkVisibilityCSS: true })) return false;
    const box = target.getBoundingClientRect();
    return box.width >= 1 && box.height >= 1;
  };
  const visible = (target: Element): boolean => {
    const check = (target as Element & { checkVisibility?: (options: object) => boolean }).checkVisibility;
    if (check && !check.call(target, { checkOpacity: true, checkVisibilityCSS: true })) return false;
    return displayed(target);
  };
  const limit = 500;

  if (element instanceof HTMLSelectElement) {
    const all = [...element.options];
    const options = all.slice(0, limit).map((option) => {
      const group = option.parentElement instanceof HTMLOptGroupElement ? option.parentElement : null;
      return {
        text: collapse(option.label || option.text),
        value: option.value,
        selected: option.selected,
        disabled: option.disabled || Boolean(group?.disabled),
        group: group ? collapse(group.label) : null,
        elementId: null,
      };
    });
    const display = all.filter((option) => option.selected).map((option) => collapse(option.label || option.text)).join(', ');
    return { status: 'ok', kind: 'native', multiple: element.multiple, options, total: all.length, display: cap(display, 1000), description, within: false };
  }

  const value = element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement ? element.value : null;
  const display = cap(value ?? textOf(element), 1000);
  if (element instanceof HTMLInputElement && element.list) {
    const wanted = (argument.filter ?? '').toLowerCase();
    const all = [...element.list.options].filter(
      (option) => !option.disabled && (!wanted || option.value.toLowerCase().includes(wanted) || option.label.toLowerCase().includes(wanted)),
    );
    const options = all.slice(0, limit).map((option) => ({ text: option.value, value: null, selected: false, disabled: false, group: null, elementId: null }));
    return { status: 'ok', kind: 'datalist', multiple: false, options, total: all.length, display, description, within: false };
  }

  const popupSelector = '[role=listbox],[role=menu],[role=tree],[role=grid]';
  const optionSelector = '[role=option],[role=menuitem],[role=menuitemradio],[role=menuitemcheckbox],[role=treeitem]';
  const trigger =
    role === 'combobox' ||
    (element.hasAttribute('aria-haspopup') && element.getAttribute('aria-haspopup') !== 'false') ||
    element.hasAttribute('aria-expanded') ||
    element.hasAttribute('aria-autocomplete');
  const candidates: Element[] = [];
  const add = (candidate: Element | null | undefined): void => {
    if (candidate && !candidates.includes(candidate) && candidates.length < 50) candidates.push(candidate);
  };
  if (element.matches(popupSelector)) add(element);
  add(element.parentElement?.closest(popupSelector)); // an option, or something inside the list
  // The list the element names (aria-controls, aria-owns, its own or its combobox's), even when
  // the named element does not hold the list yet: then nothing else is guessed.
  let declared = false;
  for (const holder of [element, element.closest('[role=combobox]')]) {
    if (!holder) continue;
    for (const name of ['aria-controls', 'aria-owns']) {
      for (const id of (holder.getAttribute(name) ?? '').split(/\s+/).filter(Boolean).slice(0, 10)) {
        const target = byId(id);
        if (!target) continue;
        declared = true;
        add(target.matches(popupSelector) ? target : target.querySelector(popupSelector));
      }
    }
  }
  const active = element.getAttribute('aria-activedescendant');
  if (active) add(byId(active)?.closest(popupSelector));
  add(element.querySelector(popupSelector)); // a widget that holds its list
  if (trigger && !declared) {
    // A trigger beside its list without naming it (a button and a listbox in one wrapper).
    for (let container = element.parentElement, level = 0; container && container !== document.body && level < 2; container = container.parentElement, level++) {
      const lists = container.querySelectorAll(popupSelector);
      if (lists.length === 1) {
        add(lists[0]);
        break;
      }
      if (lists.length > 1) break;
    }
  }
  if (argument.anyVisible && !declared) {
    // A list that appeared somewhere after a click: only one the model has not seen (none of its
    // options is in the snapshot), nearest the element first.
    const known = (list: Element): boolean => {
      if (!state?.ids) return false;
      if (state.ids.has(list)) return true;
      for (const option of list.querySelectorAll(optionSelector)) if (state.ids.has(option)) return true;
      return false;
    };
    const box = element.getBoundingClientRect();
    const lists = [...document.querySelectorAll(popupSelector)].slice(0, 200).filter((list) => visible(list) && !known(list));
    const distance = (list: Element): number => Math.abs(list.getBoundingClientRect().top - box.bottom);
    lists.sort((a, b) => distance(a) - distance(b));
    for (const list of lists) add(list);
  }
  const optionsOf = (popup: Element): Element[] => [...popup.querySelectorAll(optionSelector)].filter(displayed);
  const popup = candidates.find((candidate) => visible(candidate) && optionsOf(candidate).length > 0);
  if (!popup) {
    const kind = candidates.length > 0 || trigger ? 'closed' : 'none';
    return { status: 'ok', kind, multiple: false, options: [], total: 0, display, description, within: false };
  }
  const all = optionsOf(popup);
  const groupName = (option: Element): string | null => {
    const group = option.parentElement?.closest('[role=group]');
    if (!group || !popup.contains(group)) return null;
    return collapse(group.getAttribute('aria-label') || labelledBy(group)) || null;
  };
  const options = all.slice(0, limit).map((option) => {
    const disabled = option.closest('[aria-disabled=true]');
    return {
      text: collapse(option.getAttribute('aria-label') || textOf(option)),
      value: null,
      selected: option.getAttribute('aria-selected') === 'true' || option.getAttribute('aria-checked') === 'true',
      disabled: Boolean(disabled && popup.contains(disabled)),
      group: groupName(option),
      elementId: register(option),
    };
  });
  const multiple = popup.getAttribute('aria-multiselectable') === 'true' || all.some((option) => option.getAttribute('role') === 'menuitemcheckbox');
  return { status: 'ok', kind: 'aria', multiple, options, total: all.length, display, description, within: popup.contains(element) };
}

function runSelectNative(argument: SelectNativeArgument): SelectNativeAnswer {
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
  if (!(element instanceof HTMLSelectElement)) return { status: 'ok', selected: [] };
  const options = [...element.options];
  options.forEach((option, position) => {
    option.selected = argument.indices.includes(position);
  });
  element.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  element.dispatchEvent(new Event('change', { bubbles: true }));
  return { status: 'ok', selected: options.filter((option) => option.selected).map((option) => (option.label || option.text).replace(/\s+/g, ' ').trim()) };
}
/* v8 ignore stop */

/** Reads the options of a select, a datalist or an ARIA listbox/menu (the element's own, or the one it controls). */
export const readDropdownScript: PageScript<DropdownArgument, DropdownAnswer> = {
  id: 'plannav.dropdown-read@1',
  run: runReadDropdown,
};

/** Selects exactly the given options of a multiple select and fires input and change. */
export const selectNativeScript: PageScript<SelectNativeArgument, SelectNativeAnswer> = {
  id: 'plannav.select-native@1',
  run: runSelectNative,
};
