// Build config: every entry of scripts/entries.mjs -> dist/<name>.js (ESM) + dist/<name>.cjs (CJS) + .d.ts/.d.cts.
// ESM-only dependencies (p-retry) are bundled into the CJS output only, so require('plannav') works on all Node 20.x.
// A second build makes the `plannav` command: dist/cli.js (and dist/ui-command.js, dist/mcp-command.js), ESM only, no types.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { defineConfig, type Options } from 'tsup';
import { bundledInCjs, entries, specifierOf } from './scripts/entries.mjs';

/** The command's files, beside the library's; the library build's clean must leave them. */
const commandEntries: Record<string, string> = {
  cli: 'src/cli/main.ts',
  // Loaded by `plannav ui` and `plannav mcp` when asked for (src/cli/dispatch.ts); built once their sources exist.
  ...(existsSync('src/ui/command.ts') ? { 'ui-command': 'src/ui/command.ts' } : {}),
  ...(existsSync('src/mcp/command.ts') ? { 'mcp-command': 'src/mcp/command.ts' } : {}),
};

/** The source file of each public entry point -> its package specifier ('plannav', 'plannav/playwright', …). */
const entrySpecifiers = new Map(entries.map((entry) => [resolve(entry.src), specifierOf(entry)]));

/**
 * The command imports the library through its entry points' sources (src/index.ts,
 * src/playwright/index.ts, …); in the built command each such import becomes the package's own
 * specifier (`plannav`, `plannav/playwright`), which Node resolves to dist/ through the package's
 * "exports". So the command holds no second copy of the library (one `Executor`, one set of error classes).
 */
const libraryThroughItsEntries: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'library-through-its-entries',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (!args.importer) return undefined;
      const base = resolve(dirname(args.importer), args.path);
      for (const candidate of [base, `${base}.ts`, join(base, 'index.ts')]) {
        const specifier = entrySpecifiers.get(candidate);
        if (specifier) return { path: specifier, external: true };
      }
      return undefined;
    });
  },
};

export default defineConfig([
  {
    entry: Object.fromEntries(entries.map((e) => [e.name, e.src])),
    format: ['esm', 'cjs'], // "type": "module" -> .js for ESM, .cjs for CJS
    dts: false, // the third build below
    tsconfig: 'tsconfig.build.json',
    // No source maps: dist/ is unminified and reads as the sources do, and the maps were 65 % of the
    // package while naming src/ files it does not ship (CHANGELOG, what ships).
    sourcemap: false,
    // Everything but the command's files and the types, which the other two builds write at the same time
    // (scripts/emit-declarations.mjs removes the old types first).
    clean: [...Object.keys(commandEntries).map((name) => `!${name}.js`), '!*.d.ts', '!*.d.cts'],
    target: 'node20',
    platform: 'node',
    treeshake: true,
    // Code shared by entries goes to chunk-*.js / chunk-*.cjs (CJS too, so that e.g. `instanceof PlannavError`
    // holds across plannav and plannav/testing when loaded with require).
    splitting: true,
    external: ['zod', 'eventemitter3'],
    // Not externalized by tsup (so bundled) ...
    noExternal: bundledInCjs,
    // ... except in the ESM build, where esbuild's own `external` keeps them as imports.
    esbuildOptions(options, { format }) {
      if (format === 'esm') options.external = [...(options.external ?? []), ...bundledInCjs];
    },
  },
  {
    // The `plannav` command ("bin" in package.json): ESM with its shebang, no API and no types.
    entry: commandEntries,
    format: ['esm'],
    dts: false,
    tsconfig: 'tsconfig.build.json',
    sourcemap: false,
    clean: false,
    target: 'node20',
    platform: 'node',
    // One file per command module (no shared chunks beside the library's).
    splitting: false,
    external: ['zod', 'eventemitter3', ...bundledInCjs],
    esbuildPlugins: [libraryThroughItsEntries],
  },
  {
    // The types: .d.ts next to .js, .d.cts next to .cjs, bundled per entry from the declarations tsc wrote into
    // .tmp/dts (scripts/emit-declarations.mjs, run first by `npm run build`).
    entry: Object.fromEntries(entries.map((e) => [e.name, e.src.replace(/^src\//, '.tmp/dts/').replace(/\.ts$/, '.d.ts')])),
    format: ['esm', 'cjs'],
    dts: { only: true },
    tsconfig: 'tsconfig.build.json',
    clean: false,
    external: ['zod', 'eventemitter3'],
  },
]);
