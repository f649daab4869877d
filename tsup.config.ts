// Build config: every entry of scripts/entries.mjs -> dist/<name>.js (ESM) + dist/<name>.cjs (CJS) + .d.ts/.d.cts.
// ESM-only dependencies (p-retry) are bundled into the CJS output only, so require('plannav') works on all Node 20.x.
import { defineConfig } from 'tsup';
import { bundledInCjs, entries } from './scripts/entries.mjs';

export default defineConfig({
  entry: Object.fromEntries(entries.map((e) => [e.name, e.src])),
  format: ['esm', 'cjs'], // "type": "module" -> .js for ESM, .cjs for CJS
  dts: true, // .d.ts next to .js, .d.cts next to .cjs
  tsconfig: 'tsconfig.build.json',
  // No source maps: dist/ is unminified and reads as the sources do, and the maps were 65 % of the
  // package while naming src/ files it does not ship (CHANGELOG, what ships).
  sourcemap: false,
  clean: true,
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
});
