// Finds a Chromium or Chrome binary at the usual install places, so that the Playwright and Puppeteer
// drivers launch on a machine with a system browser and no download. Node-only (reads the file system).

import { existsSync } from 'node:fs';

/**
 * Where Linux installs Chromium-family browsers, most specific first. scripts/ensure-deps.mjs keeps
 * the same list (it cannot import TypeScript); find-chromium.test.ts checks that they are equal.
 */
export const linuxChromiumCandidates: readonly string[] = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/snap/bin/chromium',
  '/opt/google/chrome/chrome',
];

/** Where Chromium-family browsers are usually installed, most specific first. */
export function chromiumCandidates(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): string[] {
  const fromEnv = [env.PLANNAV_CHROMIUM_PATH, env.CHROME_PATH].filter((path): path is string => Boolean(path));
  if (platform === 'darwin') {
    return [
      ...fromEnv,
      '/Applications/Chromium.app/Contents/MacOS/Chromium',
      '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
      '/Applications/Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary',
    ];
  }
  if (platform === 'win32') {
    const roots = [env.LOCALAPPDATA, env.PROGRAMFILES, env['PROGRAMFILES(X86)']].filter((root): root is string => Boolean(root));
    return [...fromEnv, ...roots.flatMap((root) => [`${root}\\Google\\Chrome\\Application\\chrome.exe`, `${root}\\Chromium\\Application\\chrome.exe`])];
  }
  return [...fromEnv, ...linuxChromiumCandidates];
}

/** The first Chromium-family binary found, or `undefined` (Playwright then uses its own download; Puppeteer has none). */
export function findChromium(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
  exists: (path: string) => boolean = existsSync,
): string | undefined {
  return chromiumCandidates(platform, env).find((path) => exists(path));
}
