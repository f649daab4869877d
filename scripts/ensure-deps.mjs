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

/** The browser tests (test/e2e) and `npm run bench` drive a system Chromium through playwright-core. */
function ensureChromium() {
  if (process.platform !== 'linux') return; // macOS / Windows: PlaywrightDriver finds Chrome where it is installed
  const candidates = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];
  const configured = process.env.PLANNAV_CHROMIUM_PATH ?? process.env.CHROME_PATH;
  if ((configured && existsSync(configured)) || candidates.some((path) => existsSync(path))) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot && existsSync('/etc/debian_version')) {
    console.log('ensure-deps: Chromium is missing: installing the Debian package `chromium`');
    const apt = (/** @type {string[]} */ args) => spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0;
    if (apt(['update']) && apt(['install', '-y', '--no-install-recommends', 'chromium'])) return;
    console.error('ensure-deps: apt-get could not install chromium; the browser tests will fail.');
    return;
  }
  console.error(
    'ensure-deps: no Chromium found (/usr/bin/chromium, chromium-browser, google-chrome). The browser tests need one: ' +
      'install it (Debian/Ubuntu: `sudo apt-get install chromium`) or set PLANNAV_CHROMIUM_PATH to its binary.',
  );
}

ensureChromium();
