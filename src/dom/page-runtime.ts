// The core's side of the page runtime: the install script every driver can run, and calls of
// the runtime's methods by name through `driver.evaluate`, installing the runtime on first use.

import type { BrowserDriver, CallOptions, PageScript } from '../browser/types';
import { BrowserError } from '../errors';
import { runtimeInstallSource, runtimeKey } from './page/generated/bundle';
import type { runtimeMethods } from './page/runtime';
import { pageTextRedactions, redactRuntimeAnswer, widenedArgument } from './page-text-redaction';

/** The runtime's methods, as the page defines them. */
type Methods = typeof runtimeMethods;
/** The name of a runtime method the core calls. */
export type RuntimeMethodName = keyof Methods;
/** The argument of a runtime method. */
export type RuntimeArgument<M extends RuntimeMethodName> = Parameters<Methods[M]>[0];
/** What a runtime method returns (after any promise resolves); the page controls it, so callers validate it. */
export type RuntimeResult<M extends RuntimeMethodName> = Awaited<ReturnType<Methods[M]>>;

/** What a call returns when the document has no runtime yet. */
const missingMarker = 'plannav:no-runtime';

/**
 * The page runtime: the one script plannav runs in each document (the snapshot, the element
 * registry, each action's page side). A driver installs it by evaluating `installSource` in a
 * document, best before the page's own scripts run (Playwright's `addInitScript`, Puppeteer's
 * `evaluateOnNewDocument`, `chrome.scripting.executeScript` at `document_start`), so that click
 * listeners the page adds are seen. Where a driver does not, the core installs it on first use
 * through `evaluate`, and listeners added before that are not seen.
 * @public
 */
export const pageRuntime: {
  /** The runtime's versioned global name on `window` (it carries a hash of the runtime's code). */
  readonly version: string;
  /** A self-contained expression that installs the runtime (idempotent) and evaluates to whether it did. */
  readonly installSource: string;
} = { version: runtimeKey, installSource: runtimeInstallSource };

/** Installs the runtime through `evaluate`, for documents that do not have it yet. */
const installScript: PageScript<null, boolean> = { id: 'plannav.runtime-install', source: `() => ${runtimeInstallSource}` };

const callScripts = new Map<string, PageScript<unknown, unknown>>();

/** The page script that calls one runtime method, or reports that the document has no runtime. */
function callScript(method: RuntimeMethodName): PageScript<unknown, unknown> {
  let script = callScripts.get(method);
  if (!script) {
    script = {
      id: `plannav.runtime/${method}`,
      source: `(argument) => { const runtime = globalThis[${JSON.stringify(runtimeKey)}]; return runtime ? runtime.call(${JSON.stringify(method)}, argument) : ${JSON.stringify(missingMarker)}; }`,
    };
    callScripts.set(method, script);
  }
  return script;
}

/** The id of the page script that calls a runtime method, for test drivers that answer scripts by id. */
export function runtimeScriptId(method: RuntimeMethodName): string {
  return callScript(method).id;
}

/**
 * Calls a runtime method in a frame of the active tab, installing the runtime first when the
 * document does not have it. The result comes from the page: validate it before use.
 * @throws `BrowserError` (recoverable) when the page keeps the runtime from being installed.
 */
export async function callRuntime<M extends RuntimeMethodName>(
  driver: Pick<BrowserDriver, 'evaluate'>,
  frameId: string,
  method: M,
  argument: RuntimeArgument<M>,
  options?: CallOptions,
): Promise<RuntimeResult<M>> {
  const script = callScript(method);
  // Page text enters Node here: with secrets bound to the driver, it is redacted before anything else reads it.
  const redactions = pageTextRedactions(driver);
  const margin = redactions.reduce((widest, redaction) => Math.max(widest, redaction.redactionMargin), 0);
  const asked = redactions.length > 0 ? (widenedArgument(method, argument, margin) as RuntimeArgument<M>) : argument;
  let result = await driver.evaluate(frameId, script, asked, options);
  if (result === missingMarker) {
    await driver.evaluate(frameId, installScript, null, options);
    result = await driver.evaluate(frameId, script, asked, options);
    if (result === missingMarker) {
      throw new BrowserError(`The page kept plannav's page runtime from being installed (method ${method}); read the page again.`, { retryable: true });
    }
  }
  for (const redaction of redactions) result = redactRuntimeAnswer(method, argument, result, redaction);
  return result as RuntimeResult<M>;
}

/**
 * Makes a page script of your own from a function: the function is sent to the page as its
 * source text, so it must be self-contained (no closure over Node values, no imports). Helpers
 * that TypeScript runners insert (such as esbuild's `__name`) are given a harmless stand-in.
 * @example
 * ```ts
 * const heading = definePageScript('my-app.heading', () => document.querySelector('h1')?.textContent ?? '');
 * const text = await driver.evaluate(frameId, heading, undefined);
 * ```
 * @public
 */
export function definePageScript<TArg, TResult>(id: string, run: (arg: TArg) => TResult | Promise<TResult>): PageScript<TArg, TResult> {
  const source = run.toString().trim();
  // An arrow or function expression is sent as it is; anything else is a method of an object
  // literal (`run(arg) {…}`, `async load() {…}`, `'count-words'() {…}`), sent inside one.
  const expression =
    /^(async\b\s*)?(function\b|\(|[\w$]+\s*=>)/.test(source) && !/^async\s*[\w$]+\s*\(/.test(source) ? source : `Object.values({ ${source} })[0]`;
  return { id, source: `(() => { var __name = (target) => target; return (${expression}); })()` };
}

/**
 * The expression a driver evaluates to run `script` with `argument` in a document: it awaits the
 * script's value and evaluates to it as JSON text in an envelope (a string crosses any protocol
 * faster than an object tree). Read the text back with {@link readPageScriptResult}.
 * @example
 * ```ts
 * // A driver over the Chrome DevTools Protocol:
 * const { result } = await cdp.send('Runtime.evaluate', { expression: pageScriptExpression(script, arg), awaitPromise: true, returnByValue: true, contextId });
 * return readPageScriptResult(result.value, script.id);
 * ```
 * @public
 */
export function pageScriptExpression(script: PageScript<unknown, unknown>, argument: unknown): string {
  const json = argument === undefined ? 'undefined' : JSON.stringify(argument);
  // JSON has no undefined: a script that returns nothing says so in the envelope.
  return `(async () => { const value = await (${script.source})(${json}); return JSON.stringify(value === undefined ? { undefined: true } : { value }); })()`;
}

/**
 * The value inside what {@link pageScriptExpression} evaluated to. The page can tamper with what
 * comes back (it controls `JSON.stringify`), so callers validate the value.
 * @throws `BrowserError` (recoverable) when the text is not the envelope.
 * @public
 */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- public: the caller names the type it then validates (see above)
export function readPageScriptResult<TResult = unknown>(json: unknown, scriptId: string): TResult {
  let envelope: unknown;
  try {
    envelope = typeof json === 'string' ? JSON.parse(json) : undefined;
  } catch {
    envelope = undefined;
  }
  if (typeof envelope === 'object' && envelope !== null && 'undefined' in envelope && !('value' in envelope)) return undefined as TResult;
  if (typeof envelope !== 'object' || envelope === null || !('value' in envelope)) {
    throw new BrowserError(`The page returned a malformed result for ${scriptId}.`, { retryable: true });
  }
  return (envelope as { value: TResult }).value;
}

/**
 * An expression that evaluates, in the element's document, to the element of the last snapshot
 * behind `ref`, or to a string when there is none: `'document'` (another document is loaded),
 * `'removed'` (the element is gone) or `'no-runtime'` (the runtime is not installed, so no
 * snapshot ran in this document). Drivers that hold element handles evaluate it to get one
 * (Playwright's `frame.evaluateHandle`, Puppeteer's `frame.evaluateHandle`).
 * @public
 */
export function elementLookupExpression(ref: { readonly elementId: string; readonly selector?: string | undefined }): string {
  const locator = JSON.stringify({ elementId: ref.elementId, selector: ref.selector ?? null });
  return `(() => { const runtime = globalThis[${JSON.stringify(runtimeKey)}]; return runtime ? runtime.element(${locator}) : 'no-runtime'; })()`;
}
