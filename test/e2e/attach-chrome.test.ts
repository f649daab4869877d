// Attaching to the user's running Chrome over CDP (issue 24, contract section B), in real headless
// Chromium started by the test as a user would (--remote-debugging-port on a separate profile):
// each driver acts in a tab of its own, leaves the user's tab where it was, and on close() leaves
// that tab and the browser running; its tab shares the browser's login (the reason to attach).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { act, observe } from '../../src/index';
import { libraries } from '../helpers/state-drivers';
import { pollUntil, spawnChromium, startLoginSite, visitAccount, type LoginSite, type UserChromium } from '../helpers/state-site';
import { indexWith } from './snapshot-helpers';

interface Target {
  readonly id: string;
  readonly type: string;
  readonly url: string;
}

let site: LoginSite;
let userDataDir: string;
let chrome: UserChromium;
let debuggingUrl: string;
/** The user's own tab: logged in on the site before any driver connects. */
let userTab: Target;

async function pageTargets(): Promise<Target[]> {
  const response = await fetch(`${debuggingUrl}/json/list`);
  return ((await response.json()) as Target[]).filter((target) => target.type === 'page');
}

beforeAll(async () => {
  site = await startLoginSite();
  userDataDir = mkdtempSync(join(tmpdir(), 'plannav-attach-test-'));
  chrome = spawnChromium(userDataDir, ['--remote-debugging-port=0'], [site.url('/login/submit?user=ada')]);
  debuggingUrl = await chrome.debuggingUrl();
  await pollUntil('the user to log in', () => site.logins() === 1, 15_000);
  const targets = await pollUntil('the user tab', async () => {
    const pages = await pageTargets();
    return pages.length === 1 && pages[0]!.url.endsWith('/login/submit?user=ada') ? pages : undefined;
  });
  userTab = targets[0]!;
}, 30_000);

afterAll(async () => {
  await chrome?.kill();
  await site?.close();
  // A killed Chromium's helpers can still be writing to the profile for a moment (seconds on a loaded machine): rmSync
  // retries (ENOTEMPTY, EBUSY) with a growing pause, about 5 s in all.
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true, maxRetries: 10 });
});

describe.each(libraries)('attached to a running Chrome with $name', (library) => {
  it("acts in a tab of its own, and leaves the user's tab and the browser running after close()", async () => {
    const driver = await library.connect(debuggingUrl);
    let ownTabs: string[];
    try {
      await driver.goto(site.url('/account'));
      expect(await driver.currentUrl?.()).toBe(site.url('/account'));

      const state = await observe(driver);
      expect(state.elementsText).toContain('Show statement');
      const result = await act(driver, { action: 'click_element', params: { index: indexWith(state.elementsText, 'Show statement') }, state });
      expect(result.error).toBeUndefined();
      expect((await observe(driver)).elementsText).toContain('Statement ready');

      const pages = await pageTargets();
      const mine = pages.find((target) => target.id === userTab.id);
      expect(mine, 'the user tab is still open').toBeDefined();
      expect(mine!.url).toBe(userTab.url);
      ownTabs = pages.filter((target) => target.id !== userTab.id).map((target) => target.id);
      expect(pages.some((target) => target.id !== userTab.id && target.url === site.url('/account'))).toBe(true);
    } finally {
      await driver.close();
    }

    // The browser is the user's: still running, the user's tab still there and where it was; the driver's tab gone.
    expect(chrome.process.exitCode).toBeNull();
    expect(chrome.process.signalCode).toBeNull();
    const version = (await (await fetch(`${debuggingUrl}/json/version`)).json()) as { Browser?: string };
    expect(version.Browser).toMatch(/Chrom/);
    const after = await pollUntil('the driver tab to close', async () => {
      const pages = await pageTargets();
      return pages.some((target) => ownTabs.includes(target.id)) ? undefined : pages;
    });
    expect(after.map((target) => [target.id, target.url])).toEqual([[userTab.id, userTab.url]]);
  });

  it("starts with the running browser's login (cookies and localStorage), the point of attaching to it", async () => {
    const driver = await library.connect(debuggingUrl);
    try {
      expect(await visitAccount(site, (url) => driver.goto(url))).toEqual({ cookie: true, localStorage: site.storageValue });
    } finally {
      await driver.close();
    }
    expect(chrome.process.exitCode).toBeNull();
    expect((await pageTargets()).map((target) => [target.id, target.url])).toContainEqual([userTab.id, userTab.url]);
  });
});
