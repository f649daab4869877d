// The page-runtime calls both Chromium drivers make the same way: evaluations with a JSON envelope,
// installing the runtime, looking an element up by its ref. Generic over the library's frame type.

import type { BrowserDriver, ElementRef, PageScript } from '../browser/types';
import { elementLookupExpression, pageRuntime, pageScriptExpression, readPageScriptResult } from '../dom/page-runtime';

/** A handle to a page value, as Playwright's and Puppeteer's `JSHandle` both are. */
export interface RuntimeHandle<E> {
  asElement(): E | null;
  jsonValue(): Promise<unknown>;
  dispose(): Promise<void>;
}

/** What these calls need of a frame: Playwright's and Puppeteer's `Frame` both have it. */
export interface RuntimeFrame<E = unknown> {
  evaluate(expression: string): Promise<unknown>;
  evaluateHandle(expression: string): Promise<RuntimeHandle<E>>;
}

/** Runs a page script in a frame and returns its value (validated by the caller). */
export async function evaluateInFrame<TArg, TResult>(frame: RuntimeFrame, script: PageScript<TArg, TResult>, argument: TArg): Promise<TResult> {
  const json: unknown = await frame.evaluate(pageScriptExpression(script, argument));
  return readPageScriptResult<TResult>(json, script.id);
}

/** `evaluate` bound to one frame (the frame id is not used), for the core's runtime calls made outside a driver call. */
export function frameEvaluator(frame: RuntimeFrame): Pick<BrowserDriver, 'evaluate'> {
  return { evaluate: (_frameId, script, argument) => evaluateInFrame(frame, script, argument) };
}

/** Installs the runtime in a frame's current document (idempotent); false when the frame cannot run it now. */
export async function installRuntime(frame: RuntimeFrame): Promise<boolean> {
  return frame.evaluate(pageRuntime.installSource).then(
    () => true,
    () => false,
  );
}

/** The element behind a snapshot ref as a handle, or why there is none (`document`, `removed`). */
export async function lookUpElement<E>(frame: RuntimeFrame<E>, ref: ElementRef): Promise<E | 'document' | 'removed'> {
  const handle = await frame.evaluateHandle(elementLookupExpression(ref));
  const element = handle.asElement();
  if (element) return element;
  const reason = String(await handle.jsonValue().catch(() => 'removed'));
  void handle.dispose().catch(() => undefined);
  // A document that never got the runtime ran no snapshot: the ref is of another document.
  return reason === 'document' || reason === 'no-runtime' ? 'document' : 'removed';
}
