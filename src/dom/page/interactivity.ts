// Which elements a person can act on, and how strongly each asks for it. Runs in the page.
// Native controls and ARIA widgets are controls by themselves; listeners and pointer cursors are
// weaker signals, which the walker weighs against what lies inside the element.

import { hasClickListener } from './recorder';

const nativeTags = new Set(['a', 'button', 'input', 'select', 'textarea', 'summary', 'option']);

/** ARIA roles of widgets a person operates (a control on its own). */
export const widgetRoles = new Set([
  'button',
  'link',
  'checkbox',
  'radio',
  'switch',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'option',
  'combobox',
  'textbox',
  'searchbox',
  'slider',
  'spinbutton',
  'treeitem',
  'gridcell',
  'row',
  'columnheader',
]);

/** ARIA roles of composite widgets: their items are the controls, so they gather no text of their own. */
export const containerRoles = new Set(['listbox', 'menu', 'menubar', 'tree', 'tablist', 'grid', 'radiogroup', 'toolbar', 'dialog', 'tabpanel']);

/** Selector of what is a control by itself, for counting the controls inside an element. */
export const controlSelector =
  'a[href],button,input:not([type=hidden]),select,textarea,summary,[contenteditable=""],[contenteditable=true],' +
  [...widgetRoles].map((role) => `[role=${role}]`).join(',');

/**
 * How an element asks to be acted on. `level` 2: on its own (indexed even inside another indexed
 * element); 1: by its pointer cursor only; 0: not. `weak`: the only signals are a listener, an
 * `onclick` or a cursor, which event delegation and analytics also produce.
 */
export interface Interactivity {
  readonly level: 0 | 1 | 2;
  readonly weak: boolean;
}

const none: Interactivity = { level: 0, weak: false };
const strong: Interactivity = { level: 2, weak: false };

/** An item of a list or menu: its siblings are items of the same kind (roving tabindex, CSS cursors on each item). */
function isListItem(element: Element, tag: string, sameKind: (sibling: Element) => boolean): boolean {
  if (tag === 'li' || tag === 'tr' || tag === 'dt' || tag === 'dd') return true;
  const parent = element.parentElement;
  if (!parent) return false;
  // Two more items of the same kind beside it: one alike sibling is a pair of controls, not a list.
  let alike = 0;
  let checked = 0;
  for (let sibling = parent.firstElementChild; sibling && checked < 24; sibling = sibling.nextElementSibling, checked++) {
    if (sibling !== element && sibling.localName === tag && sameKind(sibling) && ++alike >= 2) return true;
  }
  return false;
}

/** How strongly an element asks to be acted on (see {@link Interactivity}). */
export function interactivityOf(element: Element, tag: string, style: CSSStyleDeclaration, parentStyle: CSSStyleDeclaration | undefined): Interactivity {
  if (nativeTags.has(tag) && (tag !== 'a' || element.hasAttribute('href'))) {
    if (tag === 'input') return (element as HTMLInputElement).type === 'hidden' ? none : strong;
    if (tag === 'option') return element.parentElement?.localName === 'select' || element.parentElement?.localName === 'optgroup' ? none : strong;
    return strong;
  }
  const role = element.getAttribute('role');
  if (role && widgetRoles.has(role)) return strong;
  if (tag === 'label') return none; // a label is indexed only when it stands in for its control (labelStandsIn)
  if ((element as HTMLElement).isContentEditable && !element.parentElement?.isContentEditable) return strong;
  // The browser ignores a tabindex that is no integer (tabindex="", "none"), as if it were absent.
  const tabIndexAttribute = element.getAttribute('tabindex');
  const tabIndex = tabIndexAttribute === null ? Number.NaN : parseInt(tabIndexAttribute, 10);
  if (tabIndex >= 0) return strong;
  if (element.getAttribute('aria-haspopup') === 'true' || element.getAttribute('aria-haspopup') === 'menu') return strong;
  // A roving tabindex: the items of a menu or list take -1 and are focused by script.
  if (tabIndex === -1 && isListItem(element, tag, (sibling) => sibling.hasAttribute('tabindex'))) return strong;
  if (hasClickListener(element) || element.hasAttribute('onclick') || typeof (element as HTMLElement).onclick === 'function') return { level: 2, weak: true };
  // A pointer cursor the element sets itself (not inherited from a clickable parent).
  if (style.cursor === 'pointer' && (!parentStyle || parentStyle.cursor !== 'pointer')) return { level: 1, weak: true };
  return none;
}

/**
 * A pointer-cursor element inside an indexed one that is still a target of its own: an item of a
 * list or menu whose siblings are items too. A styled span inside a button is not.
 */
export function isOwnTarget(element: Element, tag: string): boolean {
  return isListItem(element, tag, (sibling) => window.getComputedStyle(sibling).cursor === 'pointer');
}

/** A label whose control cannot be clicked itself (a styled checkbox): the label stands for it. */
export function labelStandsIn(label: HTMLLabelElement): boolean {
  const control = label.control;
  if (!control) return false;
  const box = control.getBoundingClientRect();
  if (box.width <= 1 || box.height <= 1) return true;
  const style = window.getComputedStyle(control);
  return style.opacity === '0' || style.visibility === 'hidden';
}

/** Disabled for a person: the `disabled` state of form controls, or `aria-disabled`. */
export function isDisabled(element: Element, tag: string): boolean {
  if (element.getAttribute('aria-disabled') === 'true') return true;
  if (tag === 'button' || tag === 'input' || tag === 'select' || tag === 'textarea' || tag === 'option' || tag === 'fieldset') {
    return element.matches(':disabled');
  }
  return false;
}

/**
 * An element whose only signals are weak and that holds the page rather than being a control: the
 * document's roots, a wrapper that covers the whole viewport, or one holding several controls
 * (event delegation). It is never indexed, and its controls keep their own indices.
 */
export function isDelegationRoot(
  element: Element,
  tag: string,
  box: { top: number; bottom: number; left: number; right: number },
  viewportWidth: number,
  viewportHeight: number,
): boolean {
  if (tag === 'html' || tag === 'body' || element === document.scrollingElement) return true;
  if (box.left <= 1 && box.top <= 1 && box.right >= viewportWidth - 1 && box.bottom >= viewportHeight - 1) return true;
  const controls = element.querySelectorAll(controlSelector);
  return controls.length >= 2;
}
