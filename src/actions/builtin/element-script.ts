// What the element actions share on the Node side: calling their page-runtime methods with the
// task's signal, checking the answers (the page controls what comes back), the stale-element
// error, and telling whether an action moved the browser to another page or tab.

import { z } from 'zod';
import type { ElementRef } from '../../browser/types';
import { readBaseline, type PageBaseline } from '../../dom/page-changes';
import { callRuntime, runtimeScriptId, type RuntimeArgument, type RuntimeMethodName } from '../../dom/page-runtime';
import { ActionError, BrowserError } from '../../errors';
import type { ActionContext } from '../types';

/** What every element method of the page runtime is given: the element the model meant. */
export interface ElementArgument {
  /** The snapshot's id of the element. */
  readonly elementId: string;
  /** Its selector, used only when the page lost the snapshot's element map. */
  readonly selector: string | null;
}

/** Validates the answer of an element method whose element has gone (the page controls the JSON it sends back). */
export const staleAnswerSchema = z.object({ status: z.literal('stale'), reason: z.string().max(200) });

/** The argument that finds `ref` in its page. */
export function elementArgument(ref: ElementRef): ElementArgument {
  return { elementId: ref.elementId, selector: ref.selector ?? null };
}

/** The recoverable error for an element the model saw that has gone since. */
export function staleElementError(action: string, ref: ElementRef, reason?: string): ActionError {
  const why = reason ? ` (${reason})` : '';
  return new ActionError(
    action,
    `Element ${ref.index} is no longer on the page${why}: the page changed since you read it. Read the page again and use the new index.`,
  );
}

/**
 * Calls a page-runtime method in the element's frame and parses its answer with `schema`.
 * @throws `BrowserError` (recoverable) when the answer is malformed.
 */
export async function runElementScript<M extends RuntimeMethodName, TResult>(
  context: ActionContext,
  frameId: string,
  method: M,
  argument: RuntimeArgument<M>,
  schema: z.ZodType<TResult>,
): Promise<TResult> {
  const raw = await callRuntime(context.driver, frameId, method, argument, { signal: context.signal });
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new BrowserError(`The page returned a malformed answer to ${runtimeScriptId(method)}; read the page again.`, { retryable: true });
  return parsed.data;
}

/** Puts a value in quotes for the model, on one line and capped. */
export function quoted(value: string, limit = 100): string {
  const line = value.replace(/\s+/g, ' ').trim();
  return JSON.stringify(line.length > limit ? `${line.slice(0, limit)}…` : line);
}

/** Reads where the browser is now: the active tab, its URL and every open tab (the Navigator's own reading). */
export function whereabouts(context: ActionContext): Promise<PageBaseline> {
  return readBaseline(context.driver, { signal: context.signal });
}

/**
 * What changed between two readings, in words for the model, and whether the rest of the step
 * must stop (another tab, a tab opened or closed, another document; a jump to an anchor is none).
 */
export function describeMove(before: PageBaseline, after: PageBaseline): { readonly text: string; readonly moved: boolean } {
  if (after.tabId !== before.tabId) {
    const opened = !before.tabIds.includes(after.tabId);
    return {
      text: opened
        ? ` It opened a new tab (${after.tabId}, ${after.url}), which is now the active tab.`
        : ` The active tab is now ${after.tabId} (${after.url}).`,
      moved: true,
    };
  }
  const closed = before.tabIds.filter((id) => !after.tabIds.includes(id));
  const opened = after.tabIds.filter((id) => !before.tabIds.includes(id));
  if (after.url !== before.url) {
    const sameDocument = after.url.split('#')[0] === before.url.split('#')[0];
    return {
      text: sameDocument ? ` The URL is now ${after.url} (same page).` : ` The page navigated to ${after.url}.`,
      moved: !sameDocument || opened.length + closed.length > 0,
    };
  }
  if (opened.length > 0) return { text: ` A new tab opened in the background (${opened.join(', ')}).`, moved: true };
  if (closed.length > 0) return { text: ` Tab ${closed.join(', ')} closed.`, moved: true };
  return { text: '', moved: false };
}
