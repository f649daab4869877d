// The fresh Chromium profile of a launched driver: a temporary folder, with speculative loading
// turned off, removed with the browser. Node-only (writes files); it never touches a profile the
// driver did not make, nor a folder that holds anything but Chromium's own singleton files.

import { mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/**
 * Makes a profile folder under the system's temporary folder. Speculative loading (speculation
 * rules prefetch and prerender, preconnect) is off in it: the browser fetches speculation rules
 * itself, out of reach of request interception, so a navigation guard could not stop them.
 * The caller removes the folder when the browser is gone: {@link removeProfile}.
 */
export function createProfile(): string {
  const userDataDir = mkdtempSync(join(tmpdir(), 'plannav-chromium-'));
  mkdirSync(join(userDataDir, 'Default'), { recursive: true });
  // 2 is "never" (chrome://settings/performance, "Preload pages").
  writeFileSync(join(userDataDir, 'Default', 'Preferences'), JSON.stringify({ net: { network_prediction_options: 2 } }));
  return userDataDir;
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
