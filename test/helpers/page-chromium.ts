// The browser of the test files that test pages, the view and the loop, not the browser: Chromium's headless shell
// when `npm test` found it (scripts/test.mjs sets PLANNAV_TEST_HEADLESS_SHELL), else the one findChromium() finds.
//
// The headless shell is the same Chromium (Blink, V8, the DevTools protocol) without the desktop browser around it, and
// needs about a third of the CPU. It is not full Chromium in what the browser itself does, so every file that tests
// that runs on full Chromium, as users do: it has no PDF viewer and no profile lock, runs speculation rules, and
// sends WebSockets past a `--proxy-pac-url` (docs/development.md lists what failed on it). Use this only where none
// of that is under test.
import { findChromium } from '../../src/chromium/find-chromium';

/** The binary for a launch in a file that tests pages and the loop; `undefined` lets the driver find one. */
export function pageChromium(): string | undefined {
  return process.env.PLANNAV_TEST_HEADLESS_SHELL || findChromium();
}
