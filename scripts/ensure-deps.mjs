// Installs what is missing on a fresh machine before `npm test` / `npm run demo`; fast no-op when all is there.
// Each step checks cheaply first and installs only when needed; add new steps at the bottom.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { lockfileProblems } from './lockfile.mjs';

const shell = process.platform === 'win32';
const readJson = (/** @type {string} */ file) => JSON.parse(readFileSync(file, 'utf8'));

/** How to bring package-lock.json back in line; said whenever it is missing or out of sync. */
const LOCKFILE_FIX =
  'Run `npm install` to update package-lock.json, then commit it: the set-up installs with `npm ci` only, which takes the lockfile as it is.';

/** Why package-lock.json does not match package.json, or undefined when it does. */
function lockfileProblem() {
  if (!existsSync('package-lock.json')) return 'package-lock.json is missing';
  const problems = lockfileProblems(readJson('package.json'), readJson('package-lock.json'));
  if (problems.length === 0) return undefined;
  const shown = problems.slice(0, 5).join('; ');
  return `package-lock.json is out of sync with package.json: ${shown}${problems.length > 5 ? ` (and ${problems.length - 5} more)` : ''}`;
}

/** Why node_modules does not match package-lock.json, or undefined when it does. */
function nodeModulesProblem() {
  if (!existsSync('node_modules')) return 'node_modules is missing';
  const lock = readJson('package-lock.json');
  for (const [dir, info] of Object.entries(lock.packages ?? {})) {
    if (!dir || info.optional || info.link || !info.version) continue;
    const pkgJson = `${dir}/package.json`;
    if (!existsSync(pkgJson)) return `${dir} is missing`;
    if (readJson(pkgJson).version !== info.version) return `${dir} is not at ${info.version}`;
  }
  return undefined;
}

/**
 * Installs exactly what package-lock.json says (`npm ci`) when node_modules differs from it. Never
 * `npm install`: that would rewrite the lockfile and test something other than what is committed.
 * Stops with what to do when the lockfile is missing or out of sync, or when `npm ci` fails.
 */
function ensureNodeModules() {
  const lockProblem = lockfileProblem();
  if (lockProblem) {
    console.error(`ensure-deps: ${lockProblem}. ${LOCKFILE_FIX}`);
    process.exit(1);
  }
  const problem = nodeModulesProblem();
  if (!problem) return;
  console.log(`ensure-deps: ${problem}: installing dependencies with npm ci`);
  const ci = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { stdio: 'inherit', shell });
  if (ci.status !== 0) {
    console.error(
      'ensure-deps: npm ci failed (its output is above). If it says package.json and package-lock.json are not in sync, ' +
        `the lockfile is out of date: ${LOCKFILE_FIX} Otherwise fix what it reports (network, disk, permissions) and run this again.`,
    );
    process.exit(1);
  }
}

/**
 * Where Linux installs Chromium-family browsers, most specific first. The same list as
 * `linuxChromiumCandidates` in src/chromium/find-chromium.ts (scripts cannot import TypeScript;
 * src/chromium/find-chromium.test.ts checks that the two are equal).
 */
export const linuxChromiumCandidates = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/snap/bin/chromium',
  '/opt/google/chrome/chrome',
];

/** The ID and ID_LIKE words of /etc/os-release, such as ['ubuntu', 'debian']. */
function osIds() {
  try {
    const release = readFileSync('/etc/os-release', 'utf8');
    return [...release.matchAll(/^(?:ID|ID_LIKE)=(.*)$/gm)].flatMap((match) => (match[1] ?? '').replace(/["']/g, '').split(/\s+/)).filter(Boolean);
  } catch {
    return [];
  }
}

/** Runs apt-get non-interactively with its output shown; true when it succeeded. */
const runApt = (/** @type {string[]} */ args) =>
  spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0;

/**
 * @typedef {object} MachineEnvironment
 * @property {NodeJS.Platform} [platform]
 * @property {NodeJS.ProcessEnv} [env]
 * @property {(path: string) => boolean} [exists]
 * @property {boolean} [isRoot]
 * @property {string[]} [os] the words of /etc/os-release ID and ID_LIKE
 * @property {(args: string[]) => boolean} [apt] runs apt-get, true when it succeeded
 * @property {(message: string) => void} [log]
 * @property {(message: string) => void} [error]
 */

/**
 * The machine as the checks below see it: each member from `environment`, else from this process and this system.
 * `debian` is true on Debian and on distributions built on it (Ubuntu included: `ubuntu` tells them apart).
 * @param {MachineEnvironment} environment
 */
function machineOf(environment) {
  const platform = environment.platform ?? process.platform;
  const os = environment.os ?? osIds();
  return {
    platform,
    env: environment.env ?? process.env,
    exists: environment.exists ?? existsSync,
    log: environment.log ?? ((/** @type {string} */ message) => console.log(message)),
    error: environment.error ?? ((/** @type {string} */ message) => console.error(message)),
    isRoot: environment.isRoot ?? (typeof process.getuid === 'function' && process.getuid() === 0),
    debian: platform === 'linux' && (os.includes('debian') || (environment.os === undefined && existsSync('/etc/debian_version'))),
    ubuntu: os.includes('ubuntu'),
    apt: environment.apt ?? runApt,
  };
}

/**
 * The browser tests (test/e2e) and `npm run bench` drive a system Chromium through playwright-core.
 * Installs Debian's `chromium` when none is found and that is possible (root on Debian).
 * @param {MachineEnvironment} [environment] the machine, replaceable for tests
 * @returns {number} the exit code: 0 when a browser is there, was installed or the check is skipped (PLANNAV_SKIP_BROWSER=1); 1 otherwise
 */
export function ensureChromium(environment = {}) {
  const { platform, env, exists, log, error, isRoot, debian, ubuntu, apt } = machineOf(environment);
  if (platform !== 'linux') return 0; // macOS / Windows: PlaywrightDriver finds Chrome where it is installed
  const configured = env.PLANNAV_CHROMIUM_PATH ?? env.CHROME_PATH;
  const found = () => (configured !== undefined && configured !== '' && exists(configured)) || linuxChromiumCandidates.some((path) => exists(path));
  if (found()) return 0;
  if (env.PLANNAV_SKIP_BROWSER === '1') {
    log('ensure-deps: no Chromium found; PLANNAV_SKIP_BROWSER=1, so the browser check is skipped (the browser tests will fail).');
    return 0;
  }
  // Ubuntu's `chromium` package only installs the snap, which does not run in containers.
  let why;
  if (!debian || ubuntu)
    why = ubuntu
      ? 'this is Ubuntu, whose `chromium` package is a snap that does not work in containers'
      : 'this is not Debian, so it was not installed automatically';
  else if (!isRoot) why = 'installing it needs root (run `sudo apt-get install chromium`)';
  else {
    log('ensure-deps: Chromium is missing: installing the Debian package `chromium`');
    if (apt(['update']) && apt(['install', '-y', '--no-install-recommends', 'chromium']) && found()) return 0;
    why = 'apt-get could not install the Debian package `chromium`';
  }
  error(
    `ensure-deps: no Chromium found (looked at ${configured ? `${configured}, ` : ''}${linuxChromiumCandidates.join(', ')}), and ${why}. ` +
      'The browser tests and `npm run bench` need one: on Debian, `sudo apt-get install chromium`; on Ubuntu the `chromium` package is a snap, ' +
      'which does not work in containers, so install Google Chrome from its .deb or use a Debian-based image. ' +
      'Or set PLANNAV_CHROMIUM_PATH to a Chromium or Chrome binary. Set PLANNAV_SKIP_BROWSER=1 to skip this check.',
  );
  return 1;
}

/** Where Debian's `chromium-headless-shell` package installs its binary. */
export const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';

/**
 * `npm test` runs the tests of pages and of the loop on Chromium's headless shell (the same Chromium without the
 * desktop browser around it, at about a third of the CPU; test/helpers/page-chromium.ts), and the others on full
 * Chromium. Installs Debian's `chromium-headless-shell` when it is missing and that is possible (root on Debian).
 * Never fails the set-up: without it those tests run on full Chromium, only slower. scripts/test.mjs picks it up.
 * @param {MachineEnvironment} [environment] the machine, replaceable for tests
 * @returns {boolean} whether the headless shell is there
 */
export function ensureHeadlessShell(environment = {}) {
  const { platform, env, exists, log, isRoot, debian, ubuntu, apt } = machineOf(environment);
  if (platform !== 'linux') return false;
  if (exists(HEADLESS_SHELL)) return true;
  // A browser of the user's choice is what the tests run on (scripts/test.mjs), and a skipped browser check means no apt.
  if (env.PLANNAV_CHROMIUM_PATH || env.PLANNAV_SKIP_BROWSER === '1') return false;
  if (!debian || ubuntu || !isRoot) {
    log(`ensure-deps: ${HEADLESS_SHELL} is missing, so the browser tests run on full Chromium (slower; on Debian: apt-get install chromium-headless-shell).`);
    return false;
  }
  log('ensure-deps: the browser tests run on Chromium\u2019s headless shell: installing the Debian package `chromium-headless-shell`');
  // Same version as `chromium`: both come from the same Debian source package, so update once more only when needed.
  if (
    (apt(['install', '-y', '--no-install-recommends', 'chromium-headless-shell']) ||
      (apt(['update']) && apt(['install', '-y', '--no-install-recommends', 'chromium-headless-shell']))) &&
    exists(HEADLESS_SHELL)
  )
    return true;
  log('ensure-deps: apt-get could not install `chromium-headless-shell`, so the browser tests run on full Chromium (slower).');
  return false;
}

/**
 * The `redis-server` binary the tests start: PLANNAV_REDIS_SERVER when set, else the first one on PATH.
 * test/helpers/redis-server.ts starts the same one this finds.
 * @param {NodeJS.ProcessEnv} [env]
 * @param {(path: string) => boolean} [exists]
 * @returns {string | undefined} its path, or undefined when there is none
 */
export function findRedisServer(env = process.env, exists = existsSync) {
  const configured = env.PLANNAV_REDIS_SERVER;
  if (configured !== undefined && configured !== '') return exists(configured) ? configured : undefined;
  const directories = (env.PATH ?? '').split(delimiter).filter(Boolean);
  return directories.map((directory) => join(directory, 'redis-server')).find((path) => exists(path));
}

/**
 * The tests of the BullMQ collection (issue 14) start a real `redis-server` on 127.0.0.1. Installs the Debian
 * package `redis-server` when none is found and that is possible (root on Debian or Ubuntu, whose package is a
 * plain .deb). Only the test set-up calls this: the demo does not need Redis.
 * @param {MachineEnvironment} [environment] the machine, replaceable for tests
 * @returns {number} the exit code: 0 when redis-server is there, was installed or the check is skipped (PLANNAV_SKIP_REDIS=1); 1 otherwise
 */
export function ensureRedis(environment = {}) {
  const { platform, env, exists, log, error, isRoot, debian, apt } = machineOf(environment);
  const found = () => findRedisServer(env, exists) !== undefined;
  if (found()) return 0;
  if (env.PLANNAV_REDIS_SERVER) {
    // A binary of the user's choice: installing another one would not be used.
    error(
      `ensure-deps: PLANNAV_REDIS_SERVER is ${env.PLANNAV_REDIS_SERVER}, which does not exist. Point it at a redis-server binary, or unset it to use the one on PATH.`,
    );
    return 1;
  }
  if (env.PLANNAV_SKIP_REDIS === '1') {
    log('ensure-deps: no redis-server found; PLANNAV_SKIP_REDIS=1, so the Redis check is skipped (the Redis tests will fail).');
    return 0;
  }
  let why;
  if (!debian) why = platform === 'linux' ? 'this is not Debian, so it was not installed automatically' : `it is not installed automatically on ${platform}`;
  else if (!isRoot) why = 'installing it needs root (run `sudo apt-get install redis-server`)';
  else {
    log('ensure-deps: redis-server is missing: installing the Debian package `redis-server`');
    if (apt(['update']) && apt(['install', '-y', '--no-install-recommends', 'redis-server']) && found()) return 0;
    why = 'apt-get could not install the Debian package `redis-server`';
  }
  error(
    `ensure-deps: no redis-server found on PATH, and ${why}. ` +
      'The Redis tests (BullMQ collection) start one on 127.0.0.1: on Debian or Ubuntu, `sudo apt-get install redis-server`; ' +
      'on macOS, `brew install redis`. Or set PLANNAV_REDIS_SERVER to a redis-server binary. Set PLANNAV_SKIP_REDIS=1 to skip this check.',
  );
  return 1;
}

/**
 * Whether this is the tests' set-up, which also needs Redis and the headless shell: `npm test` (npm names the script
 * in npm_lifecycle_event) or an explicit `--redis`; `npm run demo` and `npm run bench` need neither.
 */
const isTestSetUp = () => process.argv.includes('--redis') || process.env.npm_lifecycle_event === 'test';

/** True when this file is the script node runs, not a module a test imports. */
function isMain() {
  try {
    return Boolean(process.argv[1]) && import.meta.url === pathToFileURL(realpathSync(process.argv[1] ?? '')).href;
  } catch {
    return false;
  }
}

if (isMain()) {
  ensureNodeModules();
  const code = ensureChromium();
  if (code !== 0) process.exit(code);
  if (isTestSetUp()) {
    const redisCode = ensureRedis();
    if (redisCode !== 0) process.exit(redisCode);
    ensureHeadlessShell();
  }
}
