// Node's built-in modules for the parts of `plannav/testing` that need them (cassette files, the
// conformance kits' loopback server), reached at run time through `process.getBuiltinModule`, never
// by an import a bundler could see. So `plannav/testing` bundles for a page or an extension with a
// bundler's browser defaults (no externals, no polyfills), and ScriptedLLM and FakeBrowserDriver
// run there; under Node, Bun or Deno every part works as before.

/** The built-in modules used, by id, with their types. */
interface NodeBuiltins {
  'node:fs/promises': typeof import('node:fs/promises');
  'node:path': typeof import('node:path');
  'node:http': typeof import('node:http');
}

/** The part of Node's `process` read here. */
export interface NodeProcess {
  readonly versions?: { readonly node?: string | undefined } | undefined;
  readonly getBuiltinModule?: ((id: string) => unknown) | undefined;
}

/** This runtime's `process`: Node's (also Bun's and Deno's), or `undefined` in a page or a worker. */
function currentProcess(): NodeProcess | undefined {
  return (globalThis as { process?: NodeProcess }).process;
}

/** Whether `runtime` has Node's built-in modules. */
export function hasNodeBuiltins(runtime: NodeProcess | undefined = currentProcess()): boolean {
  return typeof runtime?.versions?.node === 'string';
}

/**
 * Node's built-in module `id`, or `undefined` where there is none (a page, a service worker).
 * Node 20.16 and later (and Bun and Deno) hand it over with `process.getBuiltinModule`; older Node
 * 20 releases load it with an `import()` whose specifier is a variable, which bundlers leave alone.
 */
export async function nodeBuiltin<K extends keyof NodeBuiltins>(
  id: K,
  runtime: NodeProcess | undefined = currentProcess(),
): Promise<NodeBuiltins[K] | undefined> {
  if (!runtime || !hasNodeBuiltins(runtime)) return undefined;
  if (typeof runtime.getBuiltinModule === 'function') return runtime.getBuiltinModule(id) as NodeBuiltins[K];
  return (await import(/* webpackIgnore: true */ /* @vite-ignore */ id)) as NodeBuiltins[K];
}
