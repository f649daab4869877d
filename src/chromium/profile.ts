// The fresh Chromium profile of a launched driver: a temporary folder, with speculative loading
// turned off. Node-only (writes files); it never touches a profile the driver did not make.

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Makes a profile folder under the system's temporary folder. Speculative loading (speculation
 * rules prefetch and prerender, preconnect) is off in it: the browser fetches speculation rules
 * itself, out of reach of request interception, so a navigation guard could not stop them.
 * The caller removes the folder when the browser is gone.
 */
export function createProfile(): string {
  const userDataDir = mkdtempSync(join(tmpdir(), 'plannav-chromium-'));
  mkdirSync(join(userDataDir, 'Default'), { recursive: true });
  // 2 is "never" (chrome://settings/performance, "Preload pages").
  writeFileSync(join(userDataDir, 'Default', 'Preferences'), JSON.stringify({ net: { network_prediction_options: 2 } }));
  return userDataDir;
}
