// The page side of upload_file: the file input nearest the element the model chose (itself, its
// label's control, one inside it or beside it) and the names of the files it holds. Sets no file.

import { elementIdOf, type ElementLocator } from '../registry';
import { shadowRootOf } from '../recorder';
import { findElement, isStale, type StaleAnswer } from './lookup';
import { describeElement } from './naming';

/**
 * The file input for an element. `via`: `self`, `label` (the control of the element's label),
 * `inside` (within the element) or `ancestor` (within one of its three nearest ancestors).
 */
export type FileInputAnswer =
  | StaleAnswer
  | { readonly status: 'none'; readonly description: string }
  | {
      readonly status: 'ok';
      /** The snapshot id of the file input, when it is not the element itself. */
      readonly targetId: string | null;
      readonly via: 'self' | 'label' | 'inside' | 'ancestor';
      readonly multiple: boolean;
      /** The `accept` attribute, empty when absent. */
      readonly accept: string;
      /** The element the model chose, as `<tag> "label"`. */
      readonly description: string;
    };

/** The names of the files a file input holds. */
export type FileNamesAnswer = StaleAnswer | { readonly status: 'ok'; readonly names: readonly string[] };

function isFileInput(target: Element | null | undefined): target is HTMLInputElement {
  return target instanceof HTMLInputElement && target.type === 'file';
}

/** A file input inside the element or its shadow tree. */
function fileInputWithin(root: Element): HTMLInputElement | null {
  const found = root.querySelector('input[type=file]') ?? shadowRootOf(root)?.querySelector('input[type=file]');
  return isFileInput(found) ? found : null;
}

/** The file input the element stands for, and how it was found. */
function nearestFileInput(element: Element): { input: HTMLInputElement; via: 'self' | 'label' | 'inside' | 'ancestor' } | undefined {
  if (isFileInput(element)) return { input: element, via: 'self' };
  const label = element instanceof HTMLLabelElement ? element : element.closest('label');
  if (label && isFileInput(label.control)) return { input: label.control, via: 'label' };
  const inside = fileInputWithin(element);
  if (inside) return { input: inside, via: 'inside' };
  // Up to three levels, never the whole body: a file input elsewhere on the page is not this element's.
  for (let ancestor = element.parentElement, level = 0; ancestor && ancestor !== document.body && level < 3; ancestor = ancestor.parentElement, level++) {
    const input = fileInputWithin(ancestor);
    if (input) return { input, via: 'ancestor' };
  }
  return undefined;
}

/** Finds the file input nearest an element. */
export function findFileInput(locator: ElementLocator): FileInputAnswer {
  const element = findElement(locator);
  if (isStale(element)) return element;
  const name = element.getAttribute('aria-label') || ((element as HTMLElement).innerText ?? element.textContent ?? '') || element.getAttribute('name') || '';
  const description = describeElement(element.localName, '', name);
  const found = nearestFileInput(element);
  if (!found) return { status: 'none', description };
  const { input, via } = found;
  // The driver sets the files on the input itself: it gets an id of its own.
  const targetId = input !== element ? elementIdOf(input) : null;
  return { status: 'ok', targetId, via, multiple: input.multiple, accept: (input.getAttribute('accept') ?? '').slice(0, 1000), description };
}

/** Reads the names of the files a file input holds. */
export function fileNames(locator: ElementLocator): FileNamesAnswer {
  // By id only: the locator may carry the selector of the element the model chose, not of this input.
  const element = findElement({ elementId: locator.elementId });
  if (isStale(element)) return element;
  const files = element instanceof HTMLInputElement && element.files ? [...element.files] : [];
  return { status: 'ok', names: files.slice(0, 1000).map((file) => file.name.slice(0, 1000)) };
}
