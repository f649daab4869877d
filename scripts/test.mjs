// What `npm test` runs (after ensure-deps): typecheck, lint, build, API report and docs check, vitest with coverage (node and browser projects).
// Ends with exactly one line `Tests: N passed, M failed`; exits non-zero when anything failed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MIN_SRC_LINE_COVERAGE = 90; // percent
const COVERAGE_SUMMARY = 'coverage/coverage-summary.json';

// Counting: every vitest test counts once; each tooling stage (typecheck, lint, build, api report,
// coverage threshold) also counts as one test, so a failed or skipped stage shows up in `M failed`.
let passed = 0;
let failed = 0;

const shell = process.platform === 'win32';
/** Runs a command with inherited output; true when it exits 0. */
const run = (/** @type {string} */ cmd, /** @type {string[]} */ args) => spawnSync(cmd, args, { stdio: 'inherit', shell }).status === 0;

/** Runs one tooling stage under a header and counts it as one test. */
function stage(/** @type {string} */ title, /** @type {() => boolean} */ body) {
  console.log(`\n=== ${title} ===`);
  let ok = false;
  try {
    ok = body();
  } catch (error) {
    console.error(error);
  }
  if (ok) passed++;
  else failed++;
  console.log(`--- ${title}: ${ok ? 'ok' : 'FAILED'}`);
  return ok;
}

function skip(/** @type {string} */ title, /** @type {string} */ reason) {
  console.log(`\n=== ${title} ===\n--- ${title}: SKIPPED (${reason}), counted as failed`);
  failed++;
}

/**
 * Runs vitest with coverage (on `filters`, all tests if none) over both projects, node and browser, which report
 * into one JSON file and one coverage summary; adds its test counts. False if it could not report.
 */
function vitest(/** @type {string[]} */ filters) {
  const dir = mkdtempSync(join(tmpdir(), 'plannav-vitest-'));
  const jsonFile = join(dir, 'results.json');
  rmSync(COVERAGE_SUMMARY, { force: true });
  try {
    const ok = run('npm', [
      'exec',
      '--no',
      '--',
      'vitest',
      'run',
      '--coverage',
      '--passWithNoTests',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${jsonFile}`,
      ...filters,
    ]);
    if (!existsSync(jsonFile)) {
      console.log('vitest wrote no JSON results');
      return false;
    }
    /** @type {{ numPassedTests: number, numFailedTests: number, testResults: { name: string, status: string, assertionResults: { status: string }[] }[] }} */
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
    return true;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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

stage('typecheck (tsc --noEmit)', () => run('npm', ['run', '--silent', 'typecheck']));
stage('lint (eslint + prettier)', () => run('npm', ['run', '--silent', 'lint']));
const built = stage('build (tsup)', () => run('npm', ['run', '--silent', 'build']));
if (built) stage('API report and docs (api-extractor, api-documenter)', () => run('npm', ['run', '--silent', 'api']));
else skip('API report and docs (api-extractor, api-documenter)', 'build failed');

// test/package/* need dist/: after a failed build only the unit tests under src/ run.
if (!built) skip('package tests (test/package)', 'build failed');
console.log('\n=== tests (vitest --coverage) ===');
let reported = false;
try {
  reported = vitest(built ? [] : ['src/']);
} catch (error) {
  console.error(error);
}
if (reported) stage('coverage threshold', coverage);
else {
  failed++; // vitest itself
  skip('coverage threshold', 'vitest did not report');
}

console.log(`\nTests: ${passed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
