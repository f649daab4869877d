// Page scripts of upload_file: the file input nearest the element the model chose (itself, its
// label's control, one inside it or beside it) and the names of the files it holds. Self-contained.

import { z } from 'zod';
import type { PageScript } from '../../browser/types';
import type { ElementArgument } from './element-script';

/**
 * The file input for an element. `via`: `self`, `label` (the control of the element's label),
 * `inside` (within the element) or `ancestor` (within one of its three nearest ancestors).
 */
export type FileInputAnswer =
  | { readonly status: 'stale'; readonly reason: string }
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

/** Validates what the page returned (the page controls the JSON it sends back). */
export const fileInputAnswerSchema: z.ZodType<FileInputAnswer> = z.discriminatedUnion('status', [
  z.object({ status: z.literal('stale'), reason: z.string().max(200) }),
  z.object({ status: z.literal('none'), description: z.string().max(500) }),
  z.object({
    status: z.literal('ok'),
    targetId: z.string().max(200).nullable(),
    via: z.enum(['self', 'label', 'inside', 'ancestor']),
    multiple: z.boolean(),
    accept: z.string().max(1000),
    description: z.string().max(500),
  }),
]);

/** The names of the files a file input holds. */
export type FileNamesAnswer = { readonly status: 'stale'; readonly reason: string } | { readonly status: 'ok'; readonly names: readonly string[] };

/** Validates what the page returned. */
export const fileNamesAnswerSchema: z.ZodType<FileNamesAnswer> = z.discriminatedUnion('status', [
  z.object({ status: z.literal('stale'), reason: z.string().max(200) }),
  z.object({ status: z.literal('ok'), names: z.array(z.string().max(1000)).max(1000) }),
]);

/* v8 ignore start -- page functions: they run inside the page, where Node's coverage cannot see them */
function runFindFileInput(argument: ElementArgument): FileInputAnswer {
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
  const collapse = (value: string): string => value.replace(/\s+/g, ' ').trim();
  const name = collapse(element.getAttribute('aria-label') || ((element as HTMLElement).innerText ?? element.textContent ?? '') || element.getAttribute('name') || '');
  const short = name.length > 60 ? `${name.slice(0, 60)}…` : name;
  const description = `<${element.localName}>${short ? ` ${JSON.stringify(short)}` : ''}`;
  const isFile = (target: Element | null | undefined): target is HTMLInputElement => target instanceof HTMLInputElement && target.type === 'file';
  const within = (root: Element): HTMLInputElement | null => {
    const found = root.querySelector('input[type=file]') ?? root.shadowRoot?.querySelector('input[type=file]');
    return isFile(found) ? found : null;
  };
  let input: HTMLInputElement | null = null;
  let via: 'self' | 'label' | 'inside' | 'ancestor' = 'self';
  if (isFile(element)) input = element;
  if (!input) {
    const label = element instanceof HTMLLabelElement ? element : element.closest('label');
    if (label && isFile(label.control)) {
      input = label.control;
      via = 'label';
    }
  }
  if (!input) {
    input = within(element);
    via = 'inside';
  }
  // Up to three levels, never the whole body: a file input elsewhere on the page is not this element's.
  for (let ancestor = element.parentElement, level = 0; !input && ancestor && ancestor !== document.body && level < 3; ancestor = ancestor.parentElement, level++) {
    input = within(ancestor);
    via = 'ancestor';
  }
  if (!input) return { status: 'none', description };
  let targetId: string | null = null;
  if (input !== element && state.ids && state.elements && state.next !== undefined) {
    targetId = state.ids.get(input) ?? `${state.token}-${state.next++}`;
    state.ids.set(input, targetId);
    state.elements.set(targetId, new WeakRef(input));
  }
  return { status: 'ok', targetId, via, multiple: input.multiple, accept: (input.getAttribute('accept') ?? '').slice(0, 1000), description };
}

function runFileNames(argument: ElementArgument): FileNamesAnswer {
  type State = { token?: string; elements?: Map<string, WeakRef<Element>> };
  const state = (window as unknown as Record<string, State | undefined>)['__plannavSnapshot'];
  const element = state?.token && argument.elementId.startsWith(`${state.token}-`) ? state.elements?.get(argument.elementId)?.deref() : undefined;
  if (!element || !element.isConnected) return { status: 'stale', reason: 'it was removed from the page' };
  const files = element instanceof HTMLInputElement && element.files ? [...element.files] : [];
  return { status: 'ok', names: files.slice(0, 1000).map((file) => file.name.slice(0, 1000)) };
}
/* v8 ignore stop */

/** Finds the file input nearest an element. */
export const findFileInputScript: PageScript<ElementArgument, FileInputAnswer> = {
  id: 'plannav.file-input@1',
  run: runFindFileInput,
};

/** Reads the names of the files a file input holds. */
export const fileNamesScript: PageScript<ElementArgument, FileNamesAnswer> = {
  id: 'plannav.file-names@1',
  run: runFileNames,
};
