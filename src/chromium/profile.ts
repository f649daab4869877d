// The Chromium profile of a launched driver: a fresh temporary folder, with speculative loading
// turned off, removed with the browser; or the user's own folder (userDataDir), kept, with the same
// setting, refused while a running browser holds it and freed of a dead browser's lock. Node-only
// (writes files); it never removes a profile the driver did not make, nor a folder that holds
// anything but Chromium's own singleton files.

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { BrowserError } from '../errors';

/**
 * Makes a profile folder under the system's temporary folder. Speculative loading (speculation
 * rules prefetch and prerender, preconnect) is off in it: the browser fetches speculation rules
 * itself, out of reach of request interception, so a navigation guard could not stop them.
 * The caller removes the folder when the browser is gone: {@link removeProfile}.
 */
export function createProfile(): string {
  const userDataDir = mkdtempSync(join(tmpdir(), 'plannav-chromium-'));
  mkdirSync(join(userDataDir, 'Default'), { recursive: true });
  writeFileSync(join(userDataDir, 'Default', 'Preferences'), JSON.stringify(noSpeculativeLoading({})));
  return userDataDir;
}

/** Preferences with speculative loading off; 2 is "never" (chrome://settings/performance, "Preload pages"). */
function noSpeculativeLoading(preferences: Record<string, unknown>): Record<string, unknown> {
  const net = typeof preferences.net === 'object' && preferences.net !== null ? (preferences.net as Record<string, unknown>) : {};
  return { ...preferences, net: { ...net, network_prediction_options: 2 } };
}

/** Who holds a profile: Chromium's `SingletonLock` is a symbolic link to `<host>-<pid>`. */
export interface ProfileLock {
  readonly host: string;
  readonly pid: number;
}

/** The profile's lock, when there is one that reads as `<host>-<pid>`. */
export function readProfileLock(userDataDir: string): ProfileLock | undefined {
  let target: string;
  try {
    target = readlinkSync(join(userDataDir, 'SingletonLock'));
  } catch {
    return undefined;
  }
  const match = /^(.*)-(\d+)$/.exec(target);
  return match ? { host: match[1] ?? '', pid: Number(match[2]) } : undefined;
}

/** Whether `pid` is a running process of this machine that may be a browser (not a pid reused by something else). */
function isRunningBrowser(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it runs, as another user.
    if ((error as { code?: unknown }).code !== 'EPERM') return false;
  }
  let commandLine: string;
  try {
    commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return true; // no /proc (macOS) or not ours to read: a live process is taken as the holder
  }
  // A zombie has an empty command line; a recycled pid runs something else than a browser.
  return /chrom|chrome|msedge|brave|headless_shell/i.test(commandLine);
}

/**
 * Makes the user's profile folder ready for a launch and keeps what it holds: creates it when
 * missing, turns speculative loading off in its preferences (as in a fresh profile, see
 * {@link createProfile}), and removes the singleton files a browser that died left behind, so
 * Chromium starts rather than reporting the profile in use.
 * @throws `BrowserError` with code `PROFILE_IN_USE`, naming the process, when a running browser
 * holds the profile (Chromium would hand the launch to that browser and never start its own).
 */
export function prepareUserProfile(userDataDir: string): string {
  const folder = resolve(userDataDir);
  const lock = readProfileLock(folder);
  if (lock) {
    const here = lock.host === hostname();
    if (!here || isRunningBrowser(lock.pid)) {
      const holder = here ? `process ${lock.pid}` : `process ${lock.pid} on the computer ${lock.host}`;
      throw new BrowserError(
        `The profile ${folder} is in use by a running browser (${holder}). Close that browser (or end process ${lock.pid}), ` +
          'or give another `userDataDir`; to drive that browser instead, start it with --remote-debugging-port and connect to it.',
        { code: 'PROFILE_IN_USE' },
      );
    }
    // Its browser is gone (killed, crashed): the lock, socket and cookie links are stale.
    removeSocketFolder(folder);
    for (const name of ['SingletonLock', 'SingletonSocket', 'SingletonCookie']) rmSync(join(folder, name), { force: true });
  }
  mkdirSync(join(folder, 'Default'), { recursive: true });
  const preferencesFile = join(folder, 'Default', 'Preferences');
  let preferences: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(preferencesFile, 'utf8'));
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) preferences = parsed as Record<string, unknown>;
  } catch {
    // No preferences yet (a new profile), or a file Chromium could not read either: start from none.
  }
  writeFileSync(preferencesFile, JSON.stringify(noSpeculativeLoading(preferences)));
  return folder;
}

/**
 * Removes the folder Chromium made under the temporary folder for the profile's singleton socket
 * (`org.chromium.Chromium.XXXXXX`, linked from the profile's `SingletonSocket`). A browser that
 * closes removes it itself; a killed one cannot. Only a folder holding nothing but the
 * `Singleton*` entries Chromium puts there is removed.
 */
function removeSocketFolder(userDataDir: string): void {
  let folder: string;
  let entries: string[];
  try {
    folder = dirname(resolve(userDataDir, readlinkSync(join(userDataDir, 'SingletonSocket'))));
    entries = readdirSync(folder);
  } catch {
    return; // no link (the browser cleaned up, or never ran), or its folder is already gone
  }
  if (folder === resolve(userDataDir) || !entries.every((name) => name.startsWith('Singleton'))) return;
  try {
    for (const name of entries) rmSync(join(folder, name), { force: true });
    rmdirSync(folder);
  } catch {
    // Something else is using it after all: leave it.
  }
}

/**
 * Removes a profile that {@link createProfile} made, and the folder the browser kept its
 * singleton socket in. Idempotent: a second call, or a call after the browser removed its own
 * files, does nothing.
 * @throws the file system's error when the profile folder cannot be removed.
 */
export function removeProfile(userDataDir: string): void {
  removeSocketFolder(userDataDir);
  rmSync(userDataDir, { recursive: true, force: true, maxRetries: 3 });
}

/**
 * Removes the profile as soon as the browser is gone, however it went (closed, crashed, killed),
 * so that a browser nobody closes leaves no folder behind. `whenGone` subscribes a listener to
 * the library's notice of that, e.g. `(listener) => context.once('close', listener)` for a
 * Playwright persistent context or `(listener) => browser.once('disconnected', listener)` for a
 * Puppeteer browser. A failed removal is left for `close()`, which removes the profile again
 * and reports its failure.
 */
export function removeProfileWhenGone(userDataDir: string, whenGone: (listener: () => void) => void): void {
  whenGone(() => removeSoon(userDataDir, 20));
}

/**
 * Removes the profile, and tries again a little later while it fails: the helper processes of a
 * killed browser can go on writing into it for a moment after the browser is reported gone. The
 * timer never keeps the process alive; what is still left at the end is left for `close()`.
 */
function removeSoon(userDataDir: string, triesLeft: number): void {
  try {
    removeProfile(userDataDir);
  } catch {
    if (triesLeft > 1) setTimeout(() => removeSoon(userDataDir, triesLeft - 1), 250).unref();
  }
}
