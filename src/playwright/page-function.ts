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
  cache.set(fn, rebuilt);
  return rebuilt;
}
