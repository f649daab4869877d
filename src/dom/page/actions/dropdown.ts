// The page side of the dropdown actions (and of input_text's suggestions): reads the options of a
// native select, a datalist or an ARIA listbox/menu, and sets a multiple select. Clicks nothing.

import { elementIdOf, knownElements, type ElementLocator } from '../registry';
import { cap, collapse } from '../text';
import { findElement, isStale, type StaleAnswer } from './lookup';
import { describeElement, elementByIdNear, firstLabelText, shownText } from './naming';
import { controlledElements, optionSelector, popupSelector } from './popups';

/** What the dropdown reader is asked. */
export interface DropdownRequest extends ElementLocator {
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
  | StaleAnswer
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

/** What the multiple-select setter is asked: the options to select, by position; the others are deselected. */
export interface SelectNativeRequest extends ElementLocator {
  readonly indices: readonly number[];
}

/** The selected options' texts after the change. */
export type SelectNativeAnswer = StaleAnswer | { readonly status: 'ok'; readonly selected: readonly string[] };

/** Options listed at most. */
const limit = 500;

type CheckVisibility = (options: object) => boolean;

/** Laid out with a size: not display:none, not content-visibility hidden, at least a pixel wide and high. */
function displayed(target: Element): boolean {
  const check = (target as Element & { checkVisibility?: CheckVisibility }).checkVisibility;
  if (check && !check.call(target, { checkVisibilityCSS: true })) return false;
  const box = target.getBoundingClientRect();
  return box.width >= 1 && box.height >= 1;
}

/** Displayed and not transparent. */
function visible(target: Element): boolean {
  const check = (target as Element & { checkVisibility?: CheckVisibility }).checkVisibility;
  if (check && !check.call(target, { checkOpacity: true, checkVisibilityCSS: true })) return false;
  return displayed(target);
}

/** The text of the elements `aria-labelledby` names (at most five). */
function labelledBy(target: Element): string {
  return (target.getAttribute('aria-labelledby') ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 5)
    .map((id) => {
      const label = elementByIdNear(target, id);
      return label ? shownText(label) : '';
    })
    .join(' ');
}

/** The element as `<tag role=…> "label"`; a role the page wrote oddly is quoted. */
function describeDropdown(element: Element): string {
  const tag = element.localName;
  const role = element.getAttribute('role') ?? '';
  const name =
    element.getAttribute('aria-label') ||
    labelledBy(element) ||
    collapse(firstLabelText(element)) ||
    element.getAttribute('placeholder') ||
    element.getAttribute('name') ||
    (tag === 'select' ? '' : shownText(element));
  // JSON quoting: a label or role with a quote in it cannot end early and go on as our words.
  const roleText = /^[a-z]{1,30}$/.test(role) ? role : JSON.stringify(role.slice(0, 40));
  return describeElement(tag, role ? ` role=${roleText}` : '', name);
}

function readSelect(element: HTMLSelectElement, description: string): DropdownAnswer {
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
  const display = all
    .filter((option) => option.selected)
    .map((option) => collapse(option.label || option.text))
    .join(', ');
  return { status: 'ok', kind: 'native', multiple: element.multiple, options, total: all.length, display: cap(display, 1000), description, within: false };
}

function readDatalist(list: HTMLDataListElement, filter: string | null, display: string, description: string): DropdownAnswer {
  const wanted = (filter ?? '').toLowerCase();
  const all = [...list.options].filter(
    (option) => !option.disabled && (!wanted || option.value.toLowerCase().includes(wanted) || option.label.toLowerCase().includes(wanted)),
  );
  const options = all.slice(0, limit).map((option) => ({ text: option.value, value: null, selected: false, disabled: false, group: null, elementId: null }));
  return { status: 'ok', kind: 'datalist', multiple: false, options, total: all.length, display, description, within: false };
}

/** The lists that may belong to the element, likeliest first (at most 50). */
function candidateLists(element: Element, request: DropdownRequest, trigger: boolean): Element[] {
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
    for (const target of controlledElements(holder)) {
      declared = true;
      add(target.matches(popupSelector) ? target : target.querySelector(popupSelector));
    }
  }
  const active = element.getAttribute('aria-activedescendant');
  if (active) add(elementByIdNear(element, active)?.closest(popupSelector));
  add(element.querySelector(popupSelector)); // a widget that holds its list
  if (trigger && !declared) {
    // A trigger beside its list without naming it (a button and a listbox in one wrapper).
    for (
      let container = element.parentElement, level = 0;
      container && container !== document.body && level < 2;
      container = container.parentElement, level++
    ) {
      const lists = container.querySelectorAll(popupSelector);
      if (lists.length === 1) {
        add(lists[0]);
        break;
      }
      if (lists.length > 1) break;
    }
  }
  if (request.anyVisible && !declared) {
    // A list that appeared somewhere after a click: only one the model has not seen (none of its
    // options is in the snapshot), nearest the element first.
    const known = knownElements();
    const seen = (list: Element): boolean => known.has(list) || [...list.querySelectorAll(optionSelector)].some((option) => known.has(option));
    const box = element.getBoundingClientRect();
    const lists = [...document.querySelectorAll(popupSelector)].slice(0, 200).filter((list) => visible(list) && !seen(list));
    const distance = (list: Element): number => Math.abs(list.getBoundingClientRect().top - box.bottom);
    lists.sort((a, b) => distance(a) - distance(b));
    for (const list of lists) add(list);
  }
  return candidates;
}

/** Reads the options of a select, a datalist or an ARIA listbox/menu (the element's own, or the one it controls). */
export function readDropdown(request: DropdownRequest): DropdownAnswer {
  const element = findElement(request);
  if (isStale(element)) return element;
  const description = describeDropdown(element);
  if (element instanceof HTMLSelectElement) return readSelect(element, description);

  const value = element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement ? element.value : null;
  const display = cap(value ?? shownText(element), 1000);
  if (element instanceof HTMLInputElement && element.list) return readDatalist(element.list, request.filter, display, description);

  const trigger =
    element.getAttribute('role') === 'combobox' ||
    (element.hasAttribute('aria-haspopup') && element.getAttribute('aria-haspopup') !== 'false') ||
    element.hasAttribute('aria-expanded') ||
    element.hasAttribute('aria-autocomplete');
  const candidates = candidateLists(element, request, trigger);
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
      text: collapse(option.getAttribute('aria-label') || shownText(option)),
      value: null,
      selected: option.getAttribute('aria-selected') === 'true' || option.getAttribute('aria-checked') === 'true',
      disabled: Boolean(disabled && popup.contains(disabled)),
      group: groupName(option),
      elementId: request.register ? elementIdOf(option) : null,
    };
  });
  const multiple = popup.getAttribute('aria-multiselectable') === 'true' || all.some((option) => option.getAttribute('role') === 'menuitemcheckbox');
  return { status: 'ok', kind: 'aria', multiple, options, total: all.length, display, description, within: popup.contains(element) };
}

/** Selects exactly the given options of a multiple select and fires input and change. */
export function selectNative(request: SelectNativeRequest): SelectNativeAnswer {
  const element = findElement(request);
  if (isStale(element)) return element;
  if (!(element instanceof HTMLSelectElement)) return { status: 'ok', selected: [] };
  const options = [...element.options];
  options.forEach((option, position) => {
    option.selected = request.indices.includes(position);
  });
  element.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  element.dispatchEvent(new Event('change', { bubbles: true }));
  return { status: 'ok', selected: options.filter((option) => option.selected).map((option) => collapse(option.label || option.text)) };
}
