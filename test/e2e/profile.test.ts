// A persistent profile (issue 24, contract section B) in real headless Chromium: a login survives
// a restart on the same userDataDir with either driver, a profile a running browser holds is a
// BrowserError PROFILE_IN_USE naming that browser's process (never a hang, and the running browser
// is left alone), and a stale lock left by a killed browser is cleared.
import { existsSync, lstatSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserError } from '../../src/index';
import { libraries } from '../helpers/state-drivers';
import { browserPidOf, pollUntil, spawnChromium, startLoginSite, visitAccount, within, type LoginSite } from '../helpers/state-site';

let site: LoginSite;
let scratch: string;

beforeAll(async () => {
  site = await startLoginSite();
  scratch = mkdtempSync(join(tmpdir(), 'plannav-profile-e2e-'));
});

afterAll(async () => {
  await site?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true, maxRetries: 10 });
});

/** A fresh, empty folder for a profile (the driver makes what it needs in it). */
function profileDir(name: string): string {
  return mkdtempSync(join(scratch, `${name}-`));
}

/** True when the path exists, a dangling symbolic link included (Chromium's SingletonLock is one). */
function entryExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

describe.each(libraries)('a persistent profile with $name', (library) => {
  it('keeps a login across a restart on the same userDataDir, and keeps the folder after close()', async () => {
    const userDataDir = profileDir(library.name);
    const first = await library.launch({ userDataDir });
    try {
      await first.goto(site.url('/login/submit?user=ada'));
      expect(await visitAccount(site, (url) => first.goto(url))).toEqual({ cookie: true, localStorage: site.storageValue });
    } finally {
      await first.close();
    }
    // The profile is the user's: close() leaves it (with the browser's own files in it).
    expect(existsSync(join(userDataDir, 'Default'))).toBe(true);

    const second = await library.launch({ userDataDir });
    try {
      expect(await visitAccount(site, (url) => second.goto(url))).toEqual({ cookie: true, localStorage: site.storageValue });
    } finally {
      await second.close();
    }
    expect(existsSync(join(userDataDir, 'Default'))).toBe(true);
  });

  it('rejects a second launch on a profile in use with PROFILE_IN_USE naming the process, and leaves the first browser running', async () => {
    const userDataDir = profileDir(`${library.name}-busy`);
    const first = await library.launch({ userDataDir });
    try {
      const holder = await pollUntil('the first browser process', () => browserPidOf(userDataDir));
      const error = await within(
        library.launch({ userDataDir }).then(
          async (second) => {
            await second.close();
            return undefined;
          },
          (caught: unknown) => caught,
        ),
        30_000,
        'a second launch on a profile in use',
      );
      expect(error, 'the second launch should reject').toBeInstanceOf(BrowserError);
      expect((error as BrowserError).code).toBe('PROFILE_IN_USE');
      expect((error as BrowserError).message).toContain(String(holder));
      expect((error as BrowserError).message).toContain(userDataDir);
      // The first browser still works and is still logged out/in as it was: nothing was killed or unlocked.
      expect(browserPidOf(userDataDir)).toBe(holder);
      expect(await visitAccount(site, (url) => first.goto(url))).toEqual({ cookie: false, localStorage: 'none' });
    } finally {
      await first.close();
    }
  });

  it('clears the stale lock of a killed browser and launches', async () => {
    const userDataDir = profileDir(`${library.name}-stale`);
    const killed = spawnChromium(userDataDir, [], ['about:blank']);
    try {
      await pollUntil('the SingletonLock of the spawned browser', () => entryExists(join(userDataDir, 'SingletonLock')), 15_000);
    } finally {
      await killed.kill();
    }
    // A killed browser cannot remove its lock: the case is real.
    expect(entryExists(join(userDataDir, 'SingletonLock'))).toBe(true);

    const driver = await within(library.launch({ userDataDir }), 30_000, 'a launch on a stale lock');
    try {
      expect(await visitAccount(site, (url) => driver.goto(url))).toEqual({ cookie: false, localStorage: 'none' });
      // The browser runs on that very profile (a launch that ignored it would prove nothing).
      const pid = await pollUntil('a browser process on the profile', () => browserPidOf(userDataDir), 5000);
      expect(pid).not.toBe(killed.pid);
    } finally {
      await driver.close();
    }
  });
});
