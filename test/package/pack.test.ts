// The packed tarball (test/package/packed-project.ts installs it with its peers in a throwaway project):
// "exports" names every entry, with "types" first, and points at packed files; every entry point loads
// from ESM (import) and CommonJS (require) with the same, non-empty export list. What npm shows and
// ships beside the code: no source map pointing at files left out, the repository's addresses, a
// README whose links work on npmjs.com, and the examples it names.
import { existsSync, readFileSync } from 'node:fs';
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

describe('what ships beside the code', () => {
  const installed = () => join(project.dir, 'node_modules', 'plannav');

  it('ships no source map and no reference to one', () => {
    // dist/ is plain unminified JavaScript, readable as it is; the maps were 65 % of the package and
    // named src/ files that are not packed (CHANGELOG, 0.1.0).
    expect(project.packedFiles.filter((file) => file.endsWith('.map'))).toEqual([]);
    const code = project.packedFiles.filter((file) => /\.(c|m)?js$/.test(file));
    expect(code.length).toBeGreaterThan(10);
    const pointing = code.filter((file) => /^\/\/# sourceMappingURL=/m.test(readFileSync(join(installed(), file), 'utf8')));
    expect(pointing, 'files whose sourceMappingURL names a map that is not packed').toEqual([]);
  });

  it('names its repository, home page and issue tracker', () => {
    const shipped = JSON.parse(readFileSync(join(installed(), 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(shipped.repository).toEqual({ type: 'git', url: expect.stringMatching(/^git\+https:\/\/github\.com\/[\w-]+\/[\w-]+\.git$/) });
    const repository = (shipped.repository as { url: string }).url.replace(/^git\+/, '').replace(/\.git$/, '');
    expect(shipped.homepage).toBe(`${repository}#readme`);
    expect(shipped.bugs).toEqual({ url: `${repository}/issues` });
  });

  it('has a README whose links all work on npmjs.com: absolute, or anchors, into files that exist', () => {
    const readme = readFileSync(join(installed(), 'README.md'), 'utf8');
    const repository = (pkg as { repository?: { url: string } }).repository?.url.replace(/^git\+/, '').replace(/\.git$/, '') ?? '(no repository)';
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] as string);
    expect(targets.length).toBeGreaterThan(0);
    expect(
      targets.filter((target) => !/^(https?:|mailto:|#)/.test(target)),
      'relative links, which npmjs.com cannot follow',
    ).toEqual([]);
    // A link into this repository names a file of it (on the main branch), so a rename breaks this test, not the link.
    const raw = repository.replace('https://github.com/', 'https://raw.githubusercontent.com/');
    const prefixes = [`${repository}/blob/main/`, `${repository}/raw/main/`, `${repository}/tree/main/`, `${raw}/main/`];
    for (const target of targets) {
      const prefix = prefixes.find((candidate) => target.startsWith(candidate));
      if (prefix) expect(existsSync(target.slice(prefix.length).split('#')[0] as string), target).toBe(true);
    }
  });

  it('ships the examples of your own driver and model client that the README points to', () => {
    expect(project.packedFiles).toEqual(expect.arrayContaining(['examples/custom-driver.ts', 'examples/custom-llm-client.ts']));
  });
});
