// The command-line switches both drivers launch Chromium with, before the user's `args`. One list,
// so that a page behaves the same under plannav/playwright and plannav/puppeteer.

/**
 * The switches every launch uses: no sandbox (containers), no GPU, no background traffic.
 * `--disable-dev-shm-usage` and the regexp-engine flag came from the Playwright driver and apply to
 * Puppeteer launches too: a container's small /dev/shm crashes tabs under either library, and a
 * page's runaway regular expression hangs the page whichever library drives it.
 */
export const chromiumLaunchArgs: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-dev-shm-usage',
  // A page regular expression that backtracks without end (search_page, page scripts) falls back
  // to a linear-time engine instead of hanging the page.
  '--js-flags=--enable-experimental-regexp-engine-on-excessive-backtracks',
];
