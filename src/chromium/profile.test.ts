// The launched drivers' temporary profile: made fresh, and gone with the browser however the
// browser went (closed, or killed so that it could clean nothing up itself). And the user's
// persistent profile: kept, its preferences merged, a dead browser's lock cleared, a live one refused.
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findChromium } from './find-chromium';
import { chromiumLaunchArgs } from './launch-args';
import { BrowserError } from '../errors';
import { createProfile, prepareUserProfile, readProfileLock, removeProfile, removeProfileWhenGone } from './profile';

// os.tmpdir() follows TMPDIR, and this worker's environment is its own: the folder below sees only
// what this file's browsers and profiles leave, whatever other test files run meanwhile.
let scratch: string;
let savedTmpdir: string | undefined;

beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'plannav-profile-test-'));
  savedTmpdir = process.env.TMPDIR;
  process.env.TMPDIR = scratch;
});

afterEach(() => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
  rmSync(scratch, { recursive: true, force: true });
});

/** The browser process (not a renderer or helper: those carry `--type=`) that runs on `userDataDir`. */
function browserPid(userDataDir: string): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let args: string[];
    try {
      args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // the process ended meanwhile
    }
    if (args.includes(`--user-data-dir=${userDataDir}`) && !args.some((arg) => arg.startsWith('--type='))) return Number(entry);
  }
  throw new Error(`No browser process runs on ${userDataDir}.`);
}

/** What is left in the scratch folder, once it is empty or `ms` have passed. */
async function leftAfter(ms: number): Promise<string[]> {
  const deadline = Date.now() + ms;
  let left = readdirSync(scratch);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = readdirSync(scratch);
  }
  return left;
}

async function launch(userDataDir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(userDataDir, { executablePath: findChromium(), headless: true, args: [...chromiumLaunchArgs] });
}

describe('the launched profile', () => {
  it('is made under the temporary folder with speculative loading off', () => {
    const userDataDir = createProfile();
    expect(userDataDir.startsWith(join(scratch, 'plannav-chromium-'))).toBe(true);
    expect(JSON.parse(readFileSync(join(userDataDir, 'Default', 'Preferences'), 'utf8'))).toEqual({ net: { network_prediction_options: 2 } });
    removeProfile(userDataDir);
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('is gone, with the folder of the browser\u2019s socket, soon after the browser is killed', async () => {
    const userDataDir = createProfile();
    const context = await launch(userDataDir);
    try {
      removeProfileWhenGone(userDataDir, (listener) => context.once('close', listener));
      // Chromium keeps its singleton socket in a folder of its own under TMPDIR.
      expect(readdirSync(scratch).some((name) => name.includes('Chromium'))).toBe(true);
      process.kill(browserPid(userDataDir), 'SIGKILL');
      expect(await leftAfter(10_000)).toEqual([]);
    } finally {
      await context.close().catch(() => undefined);
    }
  });

  it('is gone after a normal close too', async () => {
    const userDataDir = createProfile();
    const context = await launch(userDataDir);
    removeProfileWhenGone(userDataDir, (listener) => context.once('close', listener));
    await context.close();
    removeProfile(userDataDir); // what close() does after; the second removal is a no-op
    expect(await leftAfter(10_000)).toEqual([]);
  });

  it('leaves alone a socket folder that holds anything but Chromium\u2019s singleton files', () => {
    const userDataDir = createProfile();
    const other = join(scratch, 'someone-else');
    mkdirSync(other);
    writeFileSync(join(other, 'notes.txt'), 'mine');
    symlinkSync(join(other, 'SingletonSocket'), join(userDataDir, 'SingletonSocket'));
    removeProfile(userDataDir);
    expect(readdirSync(scratch)).toEqual(['someone-else']);
    expect(readdirSync(other)).toEqual(['notes.txt']);
  });
});

/** Whether `path` exists, a dangling symbolic link included. */
function present(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A process id that no process has now: past the kernel's largest. */
function deadPid(): number {
  let limit = 4_194_304;
  try {
    limit = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8').trim());
  } catch {
    // not Linux: the default largest will do
  }
  return limit + 1;
}

describe('the user\u2019s persistent profile', () => {
  it('is made when missing, with speculative loading off, and kept', () => {
    const userDataDir = join(scratch, 'new-profile');
    expect(prepareUserProfile(userDataDir)).toBe(userDataDir);
    expect(JSON.parse(readFileSync(join(userDataDir, 'Default', 'Preferences'), 'utf8'))).toEqual({ net: { network_prediction_options: 2 } });
  });

  it('keeps the preferences it holds, turning speculative loading off among them', () => {
    const userDataDir = join(scratch, 'old-profile');
    mkdirSync(join(userDataDir, 'Default'), { recursive: true });
    writeFileSync(
      join(userDataDir, 'Default', 'Preferences'),
      JSON.stringify({ intl: { accept_languages: 'fr' }, net: { network_prediction_options: 0, other: 1 } }),
    );
    prepareUserProfile(userDataDir);
    expect(JSON.parse(readFileSync(join(userDataDir, 'Default', 'Preferences'), 'utf8'))).toEqual({
      intl: { accept_languages: 'fr' },
      net: { network_prediction_options: 2, other: 1 },
    });
  });

  it('clears the lock, socket and cookie links a browser that is gone left behind', () => {
    const userDataDir = join(scratch, 'stale');
    mkdirSync(userDataDir);
    const pid = deadPid();
    symlinkSync(`${hostname()}-${pid}`, join(userDataDir, 'SingletonLock'));
    symlinkSync(join(scratch, 'gone', 'SingletonSocket'), join(userDataDir, 'SingletonSocket'));
    symlinkSync('123456', join(userDataDir, 'SingletonCookie'));
    expect(readProfileLock(userDataDir)).toEqual({ host: hostname(), pid });
    prepareUserProfile(userDataDir);
    expect(['SingletonLock', 'SingletonSocket', 'SingletonCookie'].filter((name) => present(join(userDataDir, name)))).toEqual([]);
  });

  it('takes a lock held by a process that is not a browser (a reused pid) as stale', () => {
    const userDataDir = join(scratch, 'reused');
    mkdirSync(userDataDir);
    // This test's own process: alive, and not a browser.
    symlinkSync(`${hostname()}-${process.pid}`, join(userDataDir, 'SingletonLock'));
    prepareUserProfile(userDataDir);
    expect(present(join(userDataDir, 'SingletonLock'))).toBe(false);
  });

  it('refuses a profile another computer holds, naming the computer and the process, and leaves its lock', () => {
    const userDataDir = join(scratch, 'elsewhere');
    mkdirSync(userDataDir);
    symlinkSync('another-host.example-4242', join(userDataDir, 'SingletonLock'));
    let caught: unknown;
    try {
      prepareUserProfile(userDataDir);
    } catch (error) {
      caught = error;
    }
    expect(BrowserError.isInstance(caught)).toBe(true);
    expect((caught as BrowserError).code).toBe('PROFILE_IN_USE');
    expect((caught as BrowserError).message).toMatch(/in use by a running browser \(process 4242 on the computer another-host\.example\)/);
    expect((caught as BrowserError).message).toContain(userDataDir);
    expect(present(join(userDataDir, 'SingletonLock'))).toBe(true);
  });
});
