// A launched browser that dies while the driver closes it (a process manager's SIGTERM reaching
// Chromium and the app at once; seen: a BullMQ worker stopped by its coordinator) leaves nothing
// to close: close() resolves, and the profile folder is gone.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { BrowserDriver } from '../../src/browser/types';
import { BrowserDisconnectedError } from '../../src/errors';
import { PlaywrightDriver } from '../../src/playwright/index';
import { PuppeteerDriver } from '../../src/puppeteer/index';

/** The launched browser's profile folder, read from the driver's ownership record. */
function profileOf(driver: BrowserDriver): string {
  const dir = (driver as unknown as { owned: { userDataDir?: string } }).owned.userDataDir;
  if (!dir) throw new Error('the driver launched no profile');
  return dir;
}

/** Kills every Chromium process of a profile at once, as a signal to the process group would. */
function killBrowser(profile: string): void {
  const pids = execFileSync('pgrep', ['-f', '--', `--user-data-dir=${profile}`], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter(Boolean);
  expect(pids.length).toBeGreaterThan(0);
  for (const pid of pids) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // Gone already with its parent.
    }
  }
}

describe.each([
  { name: 'PlaywrightDriver', launch: (): Promise<BrowserDriver> => PlaywrightDriver.launch() },
  { name: 'PuppeteerDriver', launch: (): Promise<BrowserDriver> => PuppeteerDriver.launch() },
])('$name', ({ launch }) => {
  it('resolves close() when the browser dies while it closes, and removes the profile', async () => {
    const driver = await launch();
    const profile = profileOf(driver);
    const closing = driver.close();
    killBrowser(profile);
    await expect(closing).resolves.toBeUndefined();
    expect(existsSync(profile)).toBe(false);
    await expect(driver.currentUrl?.()).rejects.toBeInstanceOf(BrowserDisconnectedError);
  });
});
