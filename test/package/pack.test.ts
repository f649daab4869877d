// The packed tarball (test/package/packed-project.ts installs it with its peers in a throwaway project):
// "exports" names every entry, with "types" first, and points at packed files; every entry point loads
// from ESM (import) and CommonJS (require) with the same, non-empty export list.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { entries, specifierOf } from '../../scripts/entries.mjs';
import pkg from '../../package.json' with { type: 'json' };
import { nodeBinary, nodeRequiresEsm, nodeVersion, packedProject, run, writeFiles, type PackedProject } from './packed-project';

const specifiers = entries.map(specifierOf);
let project: PackedProject;

/** Runs `code` as file `name` in the project's pack/ folder. */
function runScript(name: string, code: string, nodeArgs: string[] = []) {
  const dir = join(project.dir, 'pack');
  writeFiles(dir, { [name]: code });
  return run(nodeBinary, [...nodeArgs, name], dir);
}

/** Runs `code` (which prints {specifier: sorted export names}) as file `name` and returns what it printed. */
function exportsFrom(name: string, code: string, nodeArgs: string[] = []): Record<string, string[]> {
  const result = runScript(name, code, nodeArgs);
  expect(result.status, `${name} failed:\n${result.stderr}`).toBe(0);
  return JSON.parse(result.stdout) as Record<string, string[]>;
}

beforeAll(async () => {
  project = await packedProject();
}, 300_000);

describe(`packed package, under Node ${nodeVersion}`, { timeout: 120_000 }, () => {
  it('exports every entry, with "types" first in each condition, and packs the files they point to', () => {
    const exportsMap = pkg.exports as Record<string, unknown>;
    for (const entry of entries) expect(exportsMap, `exports["${entry.subpath}"]`).toHaveProperty([entry.subpath]);
    const check = (node: unknown, where: string) => {
      if (typeof node === 'string') expect(project.packedFiles, `${where} -> ${node}`).toContain(node.replace(/^\.\//, ''));
      if (typeof node !== 'object' || node === null) return;
      const keys = Object.keys(node);
      if (keys.includes('types')) expect(keys[0], `"types" must come first in ${where}`).toBe('types');
      for (const [key, value] of Object.entries(node)) check(value, `${where}.${key}`);
    };
    check(exportsMap, 'exports');
  });

  it('gives the same non-empty exports from import and require', () => {
    const esm = exportsFrom(
      'check.mjs',
      `const out = {};
for (const s of ${JSON.stringify(specifiers)}) out[s] = Object.keys(await import(s)).sort();
console.log(JSON.stringify(out));`,
    );
    // Node >= 20.19 and 22.12 can require() ES modules; switch that off to behave like every Node 20.x and 22.x.
    const flag = run(nodeBinary, ['-p', "process.allowedNodeEnvironmentFlags.has('--experimental-require-module')"], project.dir);
    const noRequireEsm = flag.stdout.trim() === 'true' ? ['--no-experimental-require-module'] : [];
    const requireAll = (list: string[]) => `const out = {};
for (const s of ${JSON.stringify(list)}) out[s] = Object.keys(require(s)).sort();
console.log(JSON.stringify(out));`;
    // ai v7 is ESM-only: plannav/ai-sdk's CommonJS build loads it only where require() takes ES modules.
    const needsRequireEsm = ['plannav/ai-sdk'];
    const cjs = exportsFrom('check.cjs', requireAll(specifiers.filter((s) => !needsRequireEsm.includes(s))), noRequireEsm);
    if (nodeRequiresEsm) Object.assign(cjs, exportsFrom('check-esm-peers.cjs', requireAll(needsRequireEsm)));
    else expect(runScript('check-esm-peers.cjs', requireAll(needsRequireEsm)).stderr).toContain('ERR_REQUIRE_ESM');
    for (const s of specifiers) expect(esm[s], `exports of ${s}`).not.toEqual([]);
    expect(cjs).toEqual(nodeRequiresEsm ? esm : Object.fromEntries(Object.entries(esm).filter(([s]) => !needsRequireEsm.includes(s))));
  });
});
