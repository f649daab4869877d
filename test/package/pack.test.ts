// Packs plannav with `npm pack`, installs the tarball (+ its peers) in a throwaway project and loads every entry
// point from ESM (import) and CommonJS (require): both must give the same, non-empty export list.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entries, specifierOf } from '../../scripts/entries.mjs';
import pkg from '../../package.json' with { type: 'json' };

const shell = process.platform === 'win32';
const tmp = mkdtempSync(join(tmpdir(), 'plannav-pack-'));
const specifiers = entries.map(specifierOf);
let packedFiles: string[] = [];

/** Runs a command in `cwd` and returns its stdout. */
const sh = (cmd: string, args: string[], cwd: string) =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', shell, stdio: ['ignore', 'pipe', 'pipe'] });

/** Runs `code` in the throwaway project as file `name` and returns {specifier: sorted export names}. */
function exportsFrom(name: string, code: string, nodeArgs: string[] = []): Record<string, string[]> {
  writeFileSync(join(tmp, 'project', name), code);
  return JSON.parse(sh(process.execPath, [...nodeArgs, name], join(tmp, 'project')));
}

beforeAll(() => {
  expect(existsSync('dist/index.js'), 'dist/ is missing: run npm run build first').toBe(true);
  // --ignore-scripts: no prepack rebuild of dist/ while other test files read it.
  const [packed] = JSON.parse(sh('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], resolve('.')));
  packedFiles = packed.files.map((f: { path: string }) => f.path);
  const project = join(tmp, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'plannav-pack-test', private: true }));
  // The peers, optional ones included, at the versions this repository tests with: every entry must load.
  const peers = Object.keys(pkg.peerDependencies).map((name) => `${name}@${(pkg.devDependencies as Record<string, string>)[name]}`);
  sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(tmp, packed.filename), ...peers], project);
}, 120_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('packed package', { timeout: 120_000 }, () => {
  it('exports every entry, with "types" first in each condition, and packs the files they point to', () => {
    const exportsMap = pkg.exports as Record<string, unknown>;
    for (const entry of entries) expect(exportsMap, `exports["${entry.subpath}"]`).toHaveProperty([entry.subpath]);
    const check = (node: unknown, where: string) => {
      if (typeof node === 'string') expect(packedFiles, `${where} -> ${node}`).toContain(node.replace(/^\.\//, ''));
      if (typeof node !== 'object' || node === null) return;
      const keys = Object.keys(node);
      if (keys.includes('types')) expect(keys[0], `"types" must come first in ${where}`).toBe('types');
      for (const [key, value] of Object.entries(node)) check(value, `${where}.${key}`);
    };
    check(exportsMap, 'exports');
  });

  it('gives the same non-empty exports from import and require', () => {
    const esm = exportsFrom('check.mjs', `const out = {};
for (const s of ${JSON.stringify(specifiers)}) out[s] = Object.keys(await import(s)).sort();
console.log(JSON.stringify(out));`);
    // Node >= 20.19 can require() ES modules; switch that off to behave like every Node 20.x.
    const noRequireEsm = process.allowedNodeEnvironmentFlags.has('--experimental-require-module')
      ? ['--no-experimental-require-module'] : [];
    const requireAll = (list: string[]) => `const out = {};
for (const s of ${JSON.stringify(list)}) out[s] = Object.keys(require(s)).sort();
console.log(JSON.stringify(out));`;
    // ai v7 is ESM-only: plannav/ai-sdk's CommonJS build loads it only where require() takes ES modules.
    const needsRequireEsm = ['plannav/ai-sdk'];
    const cjs = {
      ...exportsFrom('check.cjs', requireAll(specifiers.filter((s) => !needsRequireEsm.includes(s))), noRequireEsm),
      ...exportsFrom('check-esm-peers.cjs', requireAll(needsRequireEsm)),
    };
    for (const s of specifiers) expect(esm[s], `exports of ${s}`).not.toEqual([]);
    expect(cjs).toEqual(esm);
  });
});
