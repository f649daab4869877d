// package-lock.json must match package.json, so that `npm ci` (the only install the set-up runs,
// scripts/ensure-deps.mjs) works on a fresh clone. Checked twice: by scripts/lockfile.mjs (ranges,
// and every dependency, optional ones included, present) and by npm itself (`npm ci --dry-run`, offline,
// on a copy of the two files). Each check is also shown to fail on a copy broken on purpose.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lockfileProblems } from '../../scripts/lockfile.mjs';

type Lock = { packages: Record<string, { optionalDependencies?: Record<string, string> }> };
const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as Record<string, Record<string, string>>;
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as Lock;
const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** Runs `npm ci --dry-run` on a fresh folder holding only these two files; resolves nothing over the network. */
function npmCiDryRun(packageJson: unknown, packageLock: unknown): { ok: boolean; output: string } {
  const folder = mkdtempSync(join(tmpdir(), 'plannav-lockfile-'));
  folders.push(folder);
  writeFileSync(join(folder, 'package.json'), JSON.stringify(packageJson, null, 2));
  writeFileSync(join(folder, 'package-lock.json'), JSON.stringify(packageLock, null, 2));
  const result = spawnSync('npm', ['ci', '--dry-run', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: folder,
    encoding: 'utf8',
    shell: process.platform === 'win32',
  });
  return { ok: result.status === 0, output: `${result.stdout}\n${result.stderr}` };
}

/** Runs scripts/ensure-deps.mjs in a fresh folder with these two files and no node_modules. */
function ensureDeps(packageJson: unknown, packageLock: unknown): { status: number | null; output: string } {
  const folder = mkdtempSync(join(tmpdir(), 'plannav-ensure-deps-'));
  folders.push(folder);
  mkdirSync(join(folder, 'scripts'));
  for (const script of ['ensure-deps.mjs', 'lockfile.mjs']) copyFileSync(join('scripts', script), join(folder, 'scripts', script));
  writeFileSync(join(folder, 'package.json'), JSON.stringify(packageJson, null, 2));
  writeFileSync(join(folder, 'package-lock.json'), JSON.stringify(packageLock, null, 2));
  const result = spawnSync(process.execPath, ['scripts/ensure-deps.mjs'], { cwd: folder, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}

/** A lockfile entry that is some package's optional dependency (a platform binary such as @esbuild/linux-x64). */
function anOptionalDependencyEntry(): { path: string; name: string } {
  for (const entry of Object.values(lock.packages)) {
    for (const name of Object.keys(entry.optionalDependencies ?? {})) {
      if (lock.packages[`node_modules/${name}`]) return { path: `node_modules/${name}`, name };
    }
  }
  throw new Error('package-lock.json has no optional dependency to remove; pick another way to break the copy');
}

describe('package-lock.json', { timeout: 60_000 }, () => {
  it('matches package.json: every range, and an entry for every dependency', () => {
    const problems = lockfileProblems(manifest, lock);
    expect(problems, 'package-lock.json is out of sync with package.json: run `npm install`, then commit package-lock.json').toEqual([]);
  });

  it('installs with `npm ci` as it is (npm\u2019s own check, offline)', () => {
    const { ok, output } = npmCiDryRun(manifest, lock);
    expect(ok, `npm ci --dry-run failed; run \`npm install\`, then commit package-lock.json:\n${output}`).toBe(true);
  });

  it('is caught when an optional dependency is missing from it', () => {
    const broken = structuredClone(lock);
    const { path, name } = anOptionalDependencyEntry();
    delete broken.packages[path];
    expect(lockfileProblems(manifest, broken).join('\n')).toContain(`"${name}" (optional dependency of`);
  });

  it('is caught when package.json gains a dependency the lockfile lacks, by both checks', () => {
    const changed = { ...manifest, devDependencies: { ...manifest.devDependencies, 'is-number': '^7.0.0' } };
    expect(lockfileProblems(changed, lock)).toEqual(['devDependencies "is-number": "^7.0.0" in package.json is not in package-lock.json']);
    expect(npmCiDryRun(changed, lock).ok).toBe(false);
  });

  it('out of sync, stops the set-up (ensure-deps) before any install, saying how to fix it', () => {
    const changed = { ...manifest, devDependencies: { ...manifest.devDependencies, 'is-number': '^7.0.0' } };
    const { status, output } = ensureDeps(changed, lock);
    expect(status).toBe(1);
    expect(output).toContain('package-lock.json is out of sync with package.json: devDependencies "is-number"');
    expect(output).toContain('Run `npm install` to update package-lock.json, then commit it');
    expect(output).not.toContain('installing dependencies');
  });

  it('is caught when a range in package.json changes or a dependency is dropped', () => {
    const { zod: _zod, ...peersWithoutZod } = manifest.peerDependencies ?? {};
    const changed = { ...manifest, devDependencies: { ...manifest.devDependencies, ai: '*' }, peerDependencies: peersWithoutZod };
    expect(lockfileProblems(changed, lock)).toEqual([
      `devDependencies "ai" is "*" in package.json but "${manifest.devDependencies?.ai}" in package-lock.json`,
      'peerDependencies "zod" is in package-lock.json but no longer in package.json',
    ]);
  });
});
