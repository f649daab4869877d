// Reads, just before an action runs, what the element it targets would do: the link it follows,
// the form it sends and where, a download. Through the page runtime's element lookup; never acts.

import { z } from 'zod';
import type { ElementRef, PageScript, ResolvedBrowserDriver } from '../browser/types';
import { pageRuntime } from '../dom/page-runtime';
import { isFatalError } from '../errors';
import type { ActionTarget } from '../security/sensitive-actions';

interface TargetArgument {
  readonly elementId: string;
  readonly selector: string | null;
}

// Reads attributes rather than properties: a form's `action` and `method` properties are
// shadowed by fields named `action` or `method` (DOM clobbering), which a page controls.
const targetScript: PageScript<TargetArgument, unknown> = {
  id: 'plannav.action-target',
  source: `(argument) => {
  const runtime = globalThis[${JSON.stringify(pageRuntime.version)}];
  if (!runtime) return null;
  const element = runtime.element(argument);
  if (!(element instanceof Element)) return null;
  const absolute = (value) => { try { return new URL(value, document.baseURI).href; } catch { return undefined; } };
  const link = element.closest('a[href], area[href]');
  const control = element.closest('button, input');
  let submits = false;
  if (control) {
    const type = (control.getAttribute('type') || '').toLowerCase();
    submits = control.tagName === 'BUTTON' ? type === '' || type === 'submit' : type === 'submit' || type === 'image';
  }
  const owner = control || (element.matches('select, textarea') ? element : null);
  const formId = owner && owner.getAttribute('form');
  const form = (formId && document.getElementById(formId)) || element.closest('form');
  const isForm = form && form.tagName === 'FORM';
  const fromButton = (name) => (submits && control.hasAttribute('form' + name) ? control.getAttribute('form' + name) : null);
  const action = isForm ? absolute(fromButton('action') ?? (form.getAttribute('action') || document.URL)) : undefined;
  const method = isForm ? (fromButton('method') ?? form.getAttribute('method') ?? 'get').toLowerCase() : undefined;
  const text = (element.innerText || element.getAttribute('value') || element.getAttribute('aria-label') || element.getAttribute('title') || '').replace(/\\s+/g, ' ').trim();
  return {
    tagName: element.tagName.toLowerCase(),
    href: link ? absolute(link.getAttribute('href')) : undefined,
    download: link ? link.hasAttribute('download') : false,
    submits: submits && Boolean(isForm),
    formAction: action,
    formMethod: method,
    label: text.slice(0, 100),
  };
}`,
};

const targetSchema = z
  .object({
    tagName: z.string().max(100),
    href: z.string().max(8000).optional(),
    download: z.boolean().optional(),
    submits: z.boolean().optional(),
    formAction: z.string().max(8000).optional(),
    formMethod: z.string().max(20).optional(),
    label: z.string().max(200).optional(),
  })
  .nullable();

/**
 * What the element `ref` would do when clicked or typed into, or undefined when the page cannot
 * tell (a driver that cannot run the script, an element gone): the action then runs and reports
 * its own failure.
 */
export async function readActionTarget(driver: ResolvedBrowserDriver, ref: ElementRef, signal: AbortSignal): Promise<ActionTarget | undefined> {
  try {
    const raw = await driver.evaluate(ref.frameId, targetScript, { elementId: ref.elementId, selector: ref.selector ?? null }, { signal });
    const parsed = targetSchema.safeParse(raw);
    return parsed.success && parsed.data ? parsed.data : undefined;
  } catch (error) {
    if (signal.aborted || isFatalError(error)) throw error;
    return undefined;
  }
}
