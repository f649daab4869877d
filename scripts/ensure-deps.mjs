// Installs what is missing on a fresh machine before `npm test` / `npm run demo`; fast no-op when all is there.
// Each step checks cheaply first and installs only when needed; add new steps at the bottom.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

const shell = process.platform === 'win32';
const readJson = (/** @type {string} */ file) => JSON.parse(readFileSync(file, 'utf8'));

/** Why node_modules does not match package.json + package-lock.json, or undefined when it does. */
function nodeModulesProblem() {
  if (!existsSync('package-lock.json')) return 'package-lock.json is missing';
  if (!existsSync('node_modules')) return 'node_modules is missing';
  const lock = readJson('package-lock.json');
  const manifest = readJson('package.json');
  const root = lock.packages?.[''] ?? {};
  for (const field of ['dependencies', 'devDependencies', 'peerDependencies']) {
    for (const [name, range] of Object.entries(manifest[field] ?? {})) {
      if (root[field]?.[name] !== range) return `package-lock.json is out of date for ${name}`;
    }
  }
  for (const [dir, info] of Object.entries(lock.packages ?? {})) {
    if (!dir || info.optional || info.link || !info.version) continue;
    const pkgJson = `${dir}/package.json`;
    if (!existsSync(pkgJson)) return `${dir} is missing`;
    if (readJson(pkgJson).version !== info.version) return `${dir} is not at ${info.version}`;
  }
  return undefined;
}

/** npm ci (exact lockfile install); npm install when ci is not possible, e.g. the lockfile is out of date. */
function ensureNodeModules() {
  const problem = nodeModulesProblem();
  if (!problem) return;
  console.log(`ensure-deps: ${problem}: installing dependencies`);
  const npm = (/** @type {string[]} */ args) =>
    spawnSync('npm', [...args, '--no-audit', '--no-fund'], { stdio: 'inherit', shell }).status === 0;
  if (!npm(['ci']) && !npm(['install'])) {
    console.error('ensure-deps: npm install failed');
    process.exit(1);
  }
}

ensureNodeModules();
