// What `npm test` runs (after ensure-deps): typecheck, lint, build, API report and docs check, vitest with coverage
// (unit, node, isolated and browser projects), and vitest on what ships (the package project). Ends with the durations, then exactly
// one line `Tests: N passed, M failed`; exits non-zero when anything failed.
//
// The stages run side by side where they do not depend on each other: typecheck-and-lint (one TypeScript program for
// both: scripts/lint.mjs --typecheck), build and the sources' tests at
// once; the API report and the package's tests as soon as the build is done (they read dist/ and the packed tarball).
// Each side stage's output is held and printed whole when it ends, so the logs do not interleave; the sources' vitest
// run streams as it runs.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { HEADLESS_SHELL } from './ensure-deps.mjs';

const MIN_SRC_LINE_COVERAGE = 90; // percent
const COVERAGE_SUMMARY = 'coverage/coverage-summary.json';
/** How many of the slowest test files the summary lists. */
const SLOWEST_FILES = 10;

// Counting: every vitest test counts once; each tooling stage (typecheck and lint, build, api report,
// coverage threshold) also counts as one test, so a failed or skipped stage shows up in `M failed`.
let passed = 0;
let failed = 0;
/** Each stage's wall time, in the order they ended. @type {{ title: string, ms: number, result: string }[]} */
const durations = [];
const startedAt = Date.now();
const seconds = (/** @type {number} */ ms) => `${(ms / 1000).toFixed(1)} s`;

const shell = process.platform === 'win32';

/**
 * Runs a command; resolves with whether it exited 0 and, unless `live`, its output (stdout and stderr in the order
 * they came). A live command writes straight to ours.
 */
function run(/** @type {string} */ cmd, /** @type {string[]} */ args, live = false, env = process.env) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'], shell, env });
    /** @type {Buffer[]} */
    const output = [];
    child.stdout?.on('data', (/** @type {Buffer} */ chunk) => output.push(chunk));
    child.stderr?.on('data', (/** @type {Buffer} */ chunk) => output.push(chunk));
    child.on('error', (error) => output.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code) => resolve({ ok: code === 0, output: Buffer.concat(output).toString('utf8') }));
  });
}

/**
 * Runs one tooling stage (an npm script) and counts it as one test; its output is printed under its header once it
 * ends. Resolves with whether it passed.
 */
async function stage(/** @type {string} */ title, /** @type {string} */ script) {
  const start = Date.now();
  /** @type {{ ok: boolean, output: string }} */
  let result;
  try {
    result = await run('npm', ['run', '--silent', script]);
  } catch (error) {
    result = { ok: false, output: String(error) };
  }
  const ms = Date.now() - start;
  console.log(`\n=== ${title} ===\n${result.output.trimEnd()}`);
  console.log(`--- ${title}: ${result.ok ? 'ok' : 'FAILED'} (${seconds(ms)})`);
  durations.push({ title, ms, result: result.ok ? 'ok' : 'FAILED' });
  if (result.ok) passed++;
  else failed++;
  return result.ok;
}

function skip(/** @type {string} */ title, /** @type {string} */ reason) {
  console.log(`\n=== ${title} ===\n--- ${title}: SKIPPED (${reason}), counted as failed`);
  durations.push({ title, ms: 0, result: 'SKIPPED' });
  failed++;
}

/** Each test file's time, from the file written by scripts/vitest-file-durations.mjs. */
function fileDurations(/** @type {string} */ durationsFile) {
  /** @type {{ name: string, project: string, ms: number }[]} */
  const files = existsSync(durationsFile) ? JSON.parse(readFileSync(durationsFile, 'utf8')) : [];
  return files;
}

/**
 * Runs vitest with `args` (projects, `--coverage`), adds its test counts, and resolves with its files' durations, or
 * undefined if it could not report. Two of these run side by side (the sources' projects and, after the build, the
 * package's), each with its own JSON report.
 */
async function vitest(/** @type {string[]} */ args, live = true) {
  const dir = mkdtempSync(join(tmpdir(), 'plannav-vitest-'));
  const jsonFile = join(dir, 'results.json');
  const durationsFile = join(dir, 'file-durations.json');
  try {
    const { ok, output } = await run(
      'npm',
      [
        'exec',
        '--no',
        '--',
        'vitest',
        'run',
        '--passWithNoTests',
        '--reporter=default',
        '--reporter=json',
        `--outputFile.json=${jsonFile}`,
        '--reporter=./scripts/vitest-file-durations.mjs',
        ...args,
      ],
      live,
      { ...process.env, PLANNAV_FILE_DURATIONS: durationsFile },
    );
    if (!live) console.log(output.trimEnd());
    if (!existsSync(jsonFile)) {
      console.log('vitest wrote no JSON results');
      return undefined;
    }
    /** @type {{ numPassedTests: number, numFailedTests: number, testResults: { name: string, status: string, startTime: number, endTime: number, assertionResults: { status: string }[] }[] }} */
    const results = JSON.parse(readFileSync(jsonFile, 'utf8'));
    // A test file that fails to load has no failed test but must still count as a failure; so must a file that ran
    // no test at all: when Chromium cannot start, vitest lists each browser test file as passed with no tests.
    const broken = results.testResults.filter(
      (/** @type {any} */ f) =>
        f.assertionResults.length === 0 || (f.status === 'failed' && !f.assertionResults.some((/** @type {any} */ t) => t.status === 'failed')),
    );
    for (const file of broken) console.log(`vitest: ${file.name} ${file.status === 'failed' ? 'failed to run' : 'ran no test'}, counted as one failed test`);
    const brokenFiles = broken.length;
    passed += results.numPassedTests;
    failed += results.numFailedTests + brokenFiles;
    // vitest can fail without a failing test (e.g. unhandled errors): count that once.
    if (!ok && results.numFailedTests + brokenFiles === 0) failed++;
    return fileDurations(durationsFile);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Writes test/durations.json, which scripts/test-sequencer.mjs reads to start the slowest files first. */
function writeDurations(/** @type {{ name: string, ms: number }[]} */ files) {
  const file = 'test/durations.json';
  const { about } = JSON.parse(readFileSync(file, 'utf8'));
  /** @type {Record<string, number>} */
  const seconds = {};
  for (const { name, ms } of [...files].sort((a, b) => b.ms - a.ms)) if (ms >= 3000) seconds[name] ??= Math.round(ms / 1000);
  writeFileSync(file, `${JSON.stringify({ about, seconds }, null, 2)}\n`);
  console.log(`${file}: ${Object.keys(seconds).length} files of 3 s or more written`);
}

function coverage() {
  if (!existsSync(COVERAGE_SUMMARY)) {
    console.log(`${COVERAGE_SUMMARY} is missing`);
    return false;
  }
  const { lines } = JSON.parse(readFileSync(COVERAGE_SUMMARY, 'utf8')).total;
  const pct = lines.total === 0 ? 100 : lines.pct;
  console.log(`src line coverage: ${pct}% (${lines.covered}/${lines.total} lines), required: ${MIN_SRC_LINE_COVERAGE}%`);
  return pct >= MIN_SRC_LINE_COVERAGE;
}

/** Runs one vitest run as a stage of its own, timed; resolves with its files' durations ([] if it did not report). */
async function tests(/** @type {string} */ title, /** @type {string[]} */ args, live = true) {
  console.log(`\n=== ${title}${live ? '' : ' (printed when it ends)'} ===`);
  const start = Date.now();
  /** @type {{ name: string, project: string, ms: number }[] | undefined} */
  let files;
  try {
    files = await vitest(args, live);
  } catch (error) {
    console.error(error);
  }
  durations.push({ title, ms: Date.now() - start, result: files ? 'reported' : 'FAILED' });
  if (!files) failed++; // vitest itself
  return files;
}

/** The sources' tests (unit, node, isolated and browser projects) with coverage, then the coverage threshold. */
async function sourceTests() {
  rmSync(COVERAGE_SUMMARY, { force: true });
  const files = await tests('tests (vitest --coverage: unit, node, isolated, browser)', [
    '--coverage',
    '--project=unit',
    '--project=node',
    '--project=isolated',
    '--project=browser',
  ]);
  if (files) {
    const ok = coverage();
    console.log(`--- coverage threshold: ${ok ? 'ok' : 'FAILED'}`);
    if (ok) passed++;
    else failed++;
  } else {
    skip('coverage threshold', 'vitest did not report');
  }
  return files ?? [];
}

/**
 * The browser tests run on Chromium's headless shell when scripts/ensure-deps.mjs could install it: the same Chromium
 * without the desktop browser around it, at about a third of the CPU (docs/development.md has the figures). The files
 * that test what the browser itself does (FULL_CHROMIUM_TESTS, test/helpers/page-chromium.ts) run on full Chromium, as
 * users do; with PLANNAV_CHROMIUM_PATH set, every test runs on that browser.
 */
function chooseHeadlessShell() {
  if (process.env.PLANNAV_CHROMIUM_PATH) return `every browser test runs on ${process.env.PLANNAV_CHROMIUM_PATH} (PLANNAV_CHROMIUM_PATH)`;
  if (process.platform !== 'linux' || !existsSync(HEADLESS_SHELL)) return 'every browser test runs on full Chromium (chromium-headless-shell is not installed)';
  process.env.PLANNAV_TEST_HEADLESS_SHELL = HEADLESS_SHELL;
  return `the browser tests run on ${HEADLESS_SHELL}, those of FULL_CHROMIUM_TESTS (test/helpers/page-chromium.ts) on full Chromium`;
}
console.log(`Browsers: ${chooseHeadlessShell()}`);

// Every stage below bundles the page runtime first (typecheck, lint and build each need it); doing it once here, before
// they start side by side, means none of them rewrites the generated file while another reads it.
if (spawnSync(process.execPath, ['scripts/build-page-runtime.mjs'], { stdio: 'inherit' }).status !== 0) {
  console.log('Building the page runtime failed: the stages below report what that breaks.');
}

// The sources' tests start at once, beside typecheck, lint and build; what ships (the package project: dist/ and the
// packed tarball) is tested once the build is done, beside the API report.
const buildAndAfter = stage('build (tsup)', 'build').then(async (built) => {
  if (!built) {
    skip('API report and docs (api-extractor, api-documenter)', 'build failed');
    skip('package tests (test/package, test/bundle)', 'build failed');
    return [];
  }
  const [, files] = await Promise.all([
    stage('API report and docs (api-extractor, api-documenter)', 'api'),
    // Beside the sources' tests, which take longer: as many files at once as CPUs is enough, and keeps the load down.
    tests('package tests (vitest: package)', ['--project=package', `--maxWorkers=${availableParallelism()}`], false),
  ]);
  return files ?? [];
});
const [, sourceFiles, packageFiles] = await Promise.all([
  stage('typecheck and lint (tsc, eslint on the same program, prettier)', 'check'),
  sourceTests(),
  buildAndAfter,
]);
const slowest = [...sourceFiles, ...packageFiles]
  .sort((a, b) => b.ms - a.ms)
  .slice(0, SLOWEST_FILES)
  .map((file) => `  ${seconds(file.ms).padStart(8)}  ${file.name}${file.project === 'node' ? '' : ` (${file.project})`}`);

console.log('\n=== durations ===');
for (const { title, ms, result } of durations) console.log(`  ${seconds(ms).padStart(8)}  ${title} (${result})`);
console.log(`  ${seconds(Date.now() - startedAt).padStart(8)}  total (the stages overlap)`);
if (slowest.length) console.log(`slowest test files:\n${slowest.join('\n')}`);

if (process.env.PLANNAV_UPDATE_DURATIONS === '1') writeDurations([...sourceFiles, ...packageFiles]);

console.log(`\nTests: ${passed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
