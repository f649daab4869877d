// Vitest config: five projects. `unit`: the unit tests next to the code, and `node`: the e2e tests under test/, both in
// workers that keep their module cache between files; `isolated`: the few files that need a process of their own. `browser`:
// src/**/*.browser.test.ts, the page runtime, in headless Chromium. `package`: what ships, tested from dist/ and the packed
// tarball (test/package/, test/bundle/), so it needs a build first; scripts/test.mjs starts the other four at once and this
// one when the build is done. One v8 coverage report over every src file covers `unit`, `node`, `isolated` and `browser`. The type tests (test/types/*.test-d.ts) are no project here: `npm run typecheck` (tsc over
// tsconfig.json, which includes test/) compiles them, and a type that changes fails it; a vitest typecheck project
// would run tsc over the same program a second time.
import { availableParallelism } from 'node:os';
import { playwright } from '@vitest/browser-playwright';
import { configDefaults, defineConfig } from 'vitest/config';
import SlowestFirst from './scripts/test-sequencer.mjs';
import { pageChromium } from './test/helpers/page-chromium.js';

const BROWSER_TESTS = 'src/**/*.browser.test.ts';
/** Runs the file on Chromium's headless shell or on full Chromium (test/helpers/page-chromium.ts). */
const CHROMIUM_SETUP = 'test/helpers/chromium-setup.ts';
const PACKAGE_TESTS = ['test/package/**/*.test.ts', 'test/bundle/**/*.test.ts'];
/**
 * Test files that need a process of their own: they replace a module (`vi.mock`), or change the process itself (the
 * docs' blocks run in it, with its working folder and exit code).
 */
const ISOLATED_TESTS = ['src/node/run-gif.test.ts', 'test/providers/ai-sdk-v5.test.ts', 'test/providers/ai-sdk-v6.test.ts', 'test/docs/docs.test.ts'];

export default defineConfig({
  // `plannav` and `plannav/<entry>` in examples resolve to src/ (tsconfig.json paths), as under tsx,
  // so the demo's test runs the sources and counts for coverage.
  resolve: { tsconfigPaths: true },
  test: {
    // The page runtime's bundle (src/dom/page/generated/) is rebuilt before any test runs, so the
    // e2e tests never drive a stale copy of the page code.
    globalSetup: ['scripts/vitest-global-setup.mjs'],
    // Timeouts guard against hangs, never measure speed: on a loaded 2-core machine a full Chromium launch alone has
    // taken over 10 s (vitest's default for a hook) and a test of three launches over 30 s.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // One more file side by side than CPUs. The suite is bound by CPU (its browsers included: /proc/stat shows both
    // cores full for the whole run), so more files at once only share the same CPUs: at 2 × CPUs + 2 it was slower
    // than at CPUs + 2, and at CPUs + 2, beside the package project's files and tsc, a loaded machine ran tests past
    // their timeouts. The one file more keeps the CPUs busy while a file waits on a page, a timer or a child process.
    // `--maxWorkers=N` overrides it.
    maxWorkers: availableParallelism() + 1,
    reporters: ['default'],
    // The slowest files first (test/durations.json), so no long file runs alone at the end.
    sequence: { sequencer: SlowestFirst },
    projects: [
      {
        extends: true,
        test: {
          // The unit tests beside the code share their worker's module cache (\`isolate: false\`): importing the sources
          // again for each of about a hundred files cost half of their CPU time. They restore what they change (timers,
          // environment variables); the few that cannot share a process run in \`isolated\`.
          name: 'unit',
          include: ['src/**/*.test.ts'],
          exclude: [...configDefaults.exclude, BROWSER_TESTS, ...ISOLATED_TESTS],
          environment: 'node',
          pool: 'forks',
          isolate: false,
        },
      },
      {
        extends: true,
        // The e2e tests under test/, sharing their worker's module cache too (about a fifth of their CPU time).
        test: {
          name: 'node',
          include: ['test/**/*.test.ts'],
          setupFiles: [CHROMIUM_SETUP],
          exclude: [...configDefaults.exclude, ...PACKAGE_TESTS, ...ISOLATED_TESTS],
          environment: 'node',
          pool: 'forks',
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'isolated', include: ISOLATED_TESTS, environment: 'node', pool: 'forks', setupFiles: [CHROMIUM_SETUP] },
      },
      {
        extends: true,
        test: { name: 'package', include: PACKAGE_TESTS, environment: 'node', pool: 'forks' },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: [BROWSER_TESTS],
          browser: {
            enabled: true,
            headless: true,
            // A non-persistent Playwright launch starts from a fresh temporary profile each run.
            provider: playwright({
              launchOptions: {
                // The system Chromium, as for the e2e tests: the `playwright` package downloads no browser.
                // When none is found, Playwright looks for its own download and says how to get one. The page
                // runtime's tests test the page, not the browser: under `npm test` they run on the headless shell
                // (test/helpers/page-chromium.ts says why).
                executablePath: pageChromium(),
                args: [
                  '--no-sandbox', // containers and CI runners often forbid the sandbox's namespaces
                  '--disable-gpu',
                  '--disable-background-networking',
                  '--disable-component-update',
                  '--no-first-run',
                  '--disable-sync',
                ],
              },
            }),
            instances: [{ browser: 'chromium' }],
            // A picture of a failed layout test says less than its assertion message, and would litter the tree
            // (__screenshots__/ beside the test, .vitest-attachments/) with files nobody commits.
            screenshotFailures: false,
          },
        },
      },
    ],
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      exclude: ['src/**/*.test.ts', 'src/**/*.d.ts', 'src/dom/page/generated/**'],
      reporter: ['text-summary', 'json-summary'],
      reportsDirectory: 'coverage',
      reportOnFailure: true,
    },
  },
});
