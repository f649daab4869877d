// The launched drivers' temporary profile: made fresh, and gone with the browser however the
// browser went (closed, or killed so that it could clean nothing up itself).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findChromium } from './find-chromium';
import { chromiumLaunchArgs } from './launch-args';
import { createProfile, removeProfile, removeProfileWhenGone } from './profile';

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
