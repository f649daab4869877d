// The page side of click_element: what the element is before it is clicked (a select whose options
// the model needs instead, a file input that needs upload_file) and how to name it. Never clicks.

import type { ElementLocator } from '../registry';
import { findElement, isStale, type StaleAnswer } from './lookup';
import { describeElement, firstLabelText } from './naming';

/** What the element is, for the click: `select`, `file` (a file input or its label) or `other`. */
export type ClickTargetAnswer = StaleAnswer | { readonly status: 'ok'; readonly kind: 'select' | 'file' | 'other'; readonly description: string };

function isFileInput(target: Element | null): boolean {
  return target instanceof HTMLInputElement && target.type === 'file';
}

/** Says what the element is and names it as `<tag type=…> "name"`. */
export function clickTarget(locator: ElementLocator): ClickTargetAnswer {
  const element = findElement(locator);
  if (isStale(element)) return element;
  const tag = element.localName;
  const type = element instanceof HTMLInputElement ? element.type : '';
  const control = tag === 'select' || tag === 'input' || tag === 'textarea';
  const name =
    element.getAttribute('aria-label') ||
    (control ? firstLabelText(element) : ((element as HTMLElement).innerText ?? element.textContent ?? '')) ||
    element.getAttribute('title') ||
    element.getAttribute('alt') ||
    element.getAttribute('placeholder') ||
    element.getAttribute('name') ||
    (type === 'submit' || type === 'button' ? (element as HTMLInputElement).value : '');
  let kind: 'select' | 'file' | 'other' = 'other';
  if (element instanceof HTMLSelectElement) kind = 'select';
  else if (isFileInput(element) || (element instanceof HTMLLabelElement && isFileInput(element.control))) kind = 'file';
  return { status: 'ok', kind, description: describeElement(tag, type ? ` type=${type}` : '', name) };
}
