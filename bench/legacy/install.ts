// How the Playwright driver ran page scripts before the page runtime: each function installed once
// per document under its id, then called by id with its result sent back as JSON text. Kept only
// so that the bench runs the old snapshot path as it ran; nothing in src/ uses it.

import { functionExpression } from '../../src/playwright/page-function';

/**
 * A page expression that stores `fn` under `id` in the document's script registry (a hidden
 * property of window), so later calls send only the id and the argument, not the source.
 */
export function installExpression(id: string, fn: (...args: never[]) => unknown): string {
  return `(() => {
  if (!Object.prototype.hasOwnProperty.call(window, '__plannavScripts')) {
    Object.defineProperty(window, '__plannavScripts', { value: Object.create(null), enumerable: false });
  }
  var __name = function (target) { return target; };
  window.__plannavScripts[${JSON.stringify(id)}] = (${functionExpression(fn)});
  return true;
})()`;
}

/* v8 ignore start -- runs inside the page */
/**
 * Runs a script installed by {@link installExpression} and returns its result as JSON text (a
 * string crosses the protocol much faster than an object tree); `null` when the document does
 * not have the script yet.
 */
export function runInstalled({ id, arg }: { id: string; arg: unknown }): string | null {
  const registry = (window as unknown as Record<string, Record<string, (argument: unknown) => unknown> | undefined>)['__plannavScripts'];
  const run = registry?.[id];
  if (!run) return null;
  return JSON.stringify({ value: run(arg) });
}
/* v8 ignore stop */
