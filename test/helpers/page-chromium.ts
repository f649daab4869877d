// Which Chromium the browser tests run on under `npm test`: Chromium's headless shell for the tests of pages, the view,
// the loop and the package's front doors, and full Chromium for the tests of what the browser itself does.
//
// The headless shell is the same Chromium (Blink, V8, the DevTools protocol) without the desktop browser around it, and
// needs about a third of the CPU. It is not full Chromium in what the browser itself does: it has no PDF viewer and no
// profile lock, runs speculation rules, sends WebSockets past a `--proxy-pac-url`, reports some new tabs otherwise,
// and its processes differ (docs/development.md lists what failed on it). So the files that test any of that, the
// URL policy's guards and the drivers' own tests run on full Chromium, as users do.
//
// scripts/test.mjs sets PLANNAV_TEST_HEADLESS_SHELL when the shell is installed and PLANNAV_CHROMIUM_PATH is not set
// (a browser of the user's choice runs every test). test/helpers/chromium-setup.ts, a set-up file of the `node` and
// `isolated` projects, then points PLANNAV_CHROMIUM_PATH (what the drivers' own search reads first, and what the
// processes a test starts inherit) at the shell for each file not listed below.
import { findChromium } from '../../src/chromium/find-chromium.js';

/** The test files that run on full Chromium: they test what the browser itself does, or the guards that rely on it. */
export const FULL_CHROMIUM_TESTS: readonly string[] = [
  // The URL policy's guards: speculation rules, WebSockets through the PAC proxy, popups, data: URLs, egress.
  'test/e2e/navigation-guard.test.ts',
  'test/e2e/puppeteer-navigation-guard.test.ts',
  'test/e2e/request-guard.test.ts',
  'test/e2e/webrtc-guard.test.ts',
  'test/e2e/guard-between-tasks.test.ts',
  'test/e2e/refused-navigation.test.ts',
  'test/e2e/secrets-canary.test.ts',
  // The browser's own features: the PDF viewer, profiles, downloads, new tabs and popups, a tab closing mid-load.
  'test/e2e/pdf.test.ts',
  'test/e2e/profile.test.ts',
  'test/e2e/downloads.test.ts',
  'test/e2e/actions-elements.test.ts',
  'test/e2e/attached-drivers.test.ts',
  'test/e2e/goto-closing-tab.test.ts',
  'test/e2e/standalone-navigation.test.ts',
  'test/front/ui.test.ts',
  // The browser's processes: killed while a call runs, closed while dying. (The pool's and the killed browser's cases of
  // browser-pool.test.ts and browser-gone.test.ts run on full Chromium through onFullChromium, the rest of them on the
  // shell.)
  'test/e2e/driver-kill.test.ts',
  'test/e2e/close-while-dying.test.ts',
  // The drivers' own tests (a click's new tab: on the shell both drivers reported it late, in CI). The demo runs on
  // full Chromium from the packed package (cli-bin.test.ts).
  'test/e2e/playwright-driver.test.ts',
  'test/e2e/puppeteer-driver.test.ts',
];

/**
 * Runs `body` on full Chromium in a file that runs on the headless shell: for the one case of a file that tests what the
 * browser itself does (its processes, a profile lock, a popup), where the rest of the file tests what plannav does with
 * any Chromium. Wrap the test's function: `it('…', onFullChromium(async () => { … }))`. Launches inside `body`, and the
 * processes it starts, find full Chromium; the file's own shell is back once `body` ends. The tests of a file run one by
 * one in their worker, so no other test sees the change. Without the shell (PLANNAV_TEST_HEADLESS_SHELL unset) it is
 * `body` itself.
 */
export function onFullChromium<A extends unknown[]>(body: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args) => {
    const shell = process.env.PLANNAV_TEST_HEADLESS_SHELL;
    if (!shell || process.env.PLANNAV_CHROMIUM_PATH !== shell) return body(...args);
    delete process.env.PLANNAV_CHROMIUM_PATH;
    try {
      await body(...args);
    } finally {
      process.env.PLANNAV_CHROMIUM_PATH = shell;
    }
  };
}

/** The binary for a launch in a file that tests pages and the loop; `undefined` lets the driver find one. */
export function pageChromium(): string | undefined {
  return process.env.PLANNAV_TEST_HEADLESS_SHELL || findChromium();
}
