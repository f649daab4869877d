// Page script of click_element: what the element is before it is clicked (a select whose options
// the model needs instead, a file input that needs upload_file) and how to name it. Self-contained.

import { z } from 'zod';
import type { PageScript } from '../../browser/types';
import type { ElementArgument } from './element-script';

/** What the element is, for the click: `select`, `file` (a file input or its label) or `other`. */
export type ClickTargetAnswer =
  | { readonly status: 'stale'; readonly reason: string }
  | { readonly status: 'ok'; readonly kind: 'select' | 'file' | 'other'; readonly description: string };

/** Validates what the page returned (the page controls the JSON it sends back). */
export const clickTargetAnswerSchema: z.ZodType<ClickTargetAnswer> = z.discriminatedUnion('status', [
  z.object({ status: z.literal('stale'), reason: z.string().max(200) }),
  z.object({ status: z.literal('ok'), kind: z.enum(['select', 'file', 'other']), description: z.string().max(500) }),
]);

/* v8 ignore start -- page functions: they run inside the page, where Node's coverage cannot see them */
function runClickTarget(argument: ElementArgument): ClickTargetAnswer {
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
  const collapse = (value: string): string => value.replace(/\s+/g, ' ').trim();
  const tag = element.localName;
  const type = element instanceof HTMLInputElement ? element.type : '';
  const control = tag === 'select' || tag === 'input' || tag === 'textarea';
  // A label's own words, without the text of the controls inside it (a select's options).
  const labelText = (): string => {
    const label = (element as HTMLInputElement).labels?.[0];
    if (!label) return '';
    const copy = label.cloneNode(true) as Element;
    for (const inner of copy.querySelectorAll('select, input, textarea, button, datalist')) inner.remove();
    return copy.textContent ?? '';
  };
  const name = collapse(
    element.getAttribute('aria-label') ||
      (control ? labelText() : ((element as HTMLElement).innerText ?? element.textContent ?? '')) ||
      element.getAttribute('title') ||
      element.getAttribute('alt') ||
      element.getAttribute('placeholder') ||
      element.getAttribute('name') ||
      (type === 'submit' || type === 'button' ? (element as HTMLInputElement).value : ''),
  );
  const short = name.length > 60 ? `${name.slice(0, 60)}…` : name;
  const description = `<${tag}${type ? ` type=${type}` : ''}>${short ? ` ${JSON.stringify(short)}` : ''}`;
  const isFile = (target: Element | null): boolean => target instanceof HTMLInputElement && target.type === 'file';
  let kind: 'select' | 'file' | 'other' = 'other';
  if (element instanceof HTMLSelectElement) kind = 'select';
  else if (isFile(element) || (element instanceof HTMLLabelElement && isFile(element.control))) kind = 'file';
  return { status: 'ok', kind, description };
}
/* v8 ignore stop */

/** Says what an element is before click_element clicks it. */
export const clickTargetScript: PageScript<ElementArgument, ClickTargetAnswer> = {
  id: 'plannav.click-target@1',
  run: runClickTarget,
};
