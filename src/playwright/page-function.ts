// Makes a function safe to send into a page. Playwright sends a function's source text; tools
// that run TypeScript (tsx, some bundlers with keepNames) insert calls to a `__name` helper that
// does not exist in the page, so every page function goes through here first.

const cache = new WeakMap<object, (argument: never) => unknown>();

/** A function's source as an expression (method shorthand such as `run(arg) { … }` is not one on its own). */
export function functionExpression(fn: (...args: never[]) => unknown): string {
  const source = fn.toString();
  return /^(async\s+)?(function\b|\(|[\w$]+\s*=>)/.test(source) ? source : `function ${source}`;
}

/** The same function, rebuilt from its source with a harmless `__name` in scope. Cached. */
export function portable<TFunction extends (...args: never[]) => unknown>(fn: TFunction): TFunction {
  const known = cache.get(fn);
  if (known) return known as unknown as TFunction;
  const expression = functionExpression(fn);
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- building a page function from our own source
  const rebuilt = new Function(`var __name = function (target) { return target; };\nreturn (${expression}).apply(this, arguments);`) as TFunction;
  cache.set(fn, rebuilt as (argument: never) => unknown);
  return rebuilt;
}

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
