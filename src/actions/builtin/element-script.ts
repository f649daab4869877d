// What the element actions share on the Node side: running their page scripts with the task's
// signal, checking the answers (the page controls what comes back), and the stale-element error.

import type { z } from 'zod';
import type { ElementRef, PageScript } from '../../browser/types';
import { ActionError, BrowserError } from '../../errors';
import type { ActionContext } from '../types';

/** What every element page script is given: the element the model meant. */
export interface ElementArgument {
  /** The snapshot's id of the element. */
  readonly elementId: string;
  /** Its selector, used only when the page lost the snapshot's element map. */
  readonly selector: string | null;
}

/** The argument that finds `ref` in its page. */
export function elementArgument(ref: ElementRef): ElementArgument {
  return { elementId: ref.elementId, selector: ref.selector ?? null };
}

/** The recoverable error for an element the model saw that has gone since. */
export function staleElementError(action: string, ref: ElementRef, reason?: string): ActionError {
  const why = reason ? ` (${reason})` : '';
  return new ActionError(action, `Element ${ref.index} is no longer on the page${why}: the page changed since you read it. Read the page again and use the new index.`);
}

/**
 * Runs a page script in the element's frame and parses its answer with `schema`.
 * @throws `BrowserError` (recoverable) when the answer is malformed.
 */
export async function runElementScript<TArg, TResult>(
  context: ActionContext,
  frameId: string,
  script: PageScript<TArg, unknown>,
  argument: TArg,
  schema: z.ZodType<TResult>,
): Promise<TResult> {
  const raw = await context.driver.evaluate(frameId, script, argument, { signal: context.signal });
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new BrowserError(`The page returned a malformed answer to ${script.id}; read the page again.`, { retryable: true });
  return parsed.data;
}

/** Puts a value in quotes for the model, on one line and capped. */
export function quoted(value: string, limit = 100): string {
  const line = value.replace(/\s+/g, ' ').trim();
  return JSON.stringify(line.length > limit ? `${line.slice(0, limit)}…` : line);
}
