// Checks the built core entry (dist/index.js, dist/index.cjs and every chunk they pull in), plannav/driver and
// plannav/provider import no Node builtin and no package besides the allowed runtime dependencies. Needs dist/:
// scripts/test.mjs builds first.
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { bundledInCjs } from '../../scripts/entries.mjs';
import pkg from '../../package.json' with { type: 'json' };

// The core may use its dependencies and zod; the optional peers (playwright-core, ai) belong to adapters.
const runtimeDeps = [...Object.keys(pkg.dependencies ?? {}), 'zod'];
const esmOnlyDepsOfDeps = bundledInCjs.filter((name) => !runtimeDeps.includes(name));

// Start file -> packages it (and its chunks) may import. CJS must have bundled the ESM-only ones.
// plannav/driver and plannav/provider run wherever the core does (a driver over chrome.debugger, a client in a page).
const cases = ['index', 'driver', 'provider'].flatMap((name) => [
  { start: `dist/${name}.js`, allowed: [...runtimeDeps, ...esmOnlyDepsOfDeps] },
  { start: `dist/${name}.cjs`, allowed: runtimeDeps.filter((dependency) => !bundledInCjs.includes(dependency)) },
]);

const isBuiltin = (spec: string) => spec.startsWith('node:') || builtinModules.includes(spec) || builtinModules.includes(spec.split('/')[0]!);
const packageName = (spec: string) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');

/** Every bare import of `start` and the relative files it imports, transitively, as "file: specifier". */
function bareImports(start: string): { file: string; spec: string }[] {
  const found: { file: string; spec: string }[] = [];
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const { fileName: spec } of ts.preProcessFile(source, true, true).importedFiles) {
      if (spec.startsWith('.')) visit(join(dirname(file), spec));
      else found.push({ file: relative('.', file), spec });
    }
  };
  visit(start);
  return found;
}

describe('built core entry imports', () => {
  for (const { start, allowed } of cases) {
    it(`${start} imports no Node builtin and only ${allowed.join(', ')}`, () => {
      expect(existsSync(start), `${start} is missing: run npm run build first`).toBe(true);
      const bad = bareImports(start)
        .filter(({ spec }) => isBuiltin(spec) || !allowed.includes(packageName(spec)))
        .map(({ file, spec }) => `${file} imports ${spec}`);
      expect(bad).toEqual([]);
    });
  }
});
