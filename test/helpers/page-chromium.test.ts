// The list of files that run on full Chromium names files that exist (a renamed file would otherwise move to the
// headless shell without a word), and onFullChromium() switches one case to full Chromium and back.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { FULL_CHROMIUM_TESTS, onFullChromium } from './page-chromium';

it('names only test files that exist', () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  expect(FULL_CHROMIUM_TESTS.filter((file) => !existsSync(`${root}${file}`))).toEqual([]);
  expect(FULL_CHROMIUM_TESTS.every((file) => file.endsWith('.test.ts'))).toBe(true);
});

it('onFullChromium() runs its body without the shell, and puts the shell back after it, also when it fails', async () => {
  const saved = { shell: process.env.PLANNAV_TEST_HEADLESS_SHELL, path: process.env.PLANNAV_CHROMIUM_PATH };
  const restore = (name: string, value: string | undefined): void => {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  };
  try {
    process.env.PLANNAV_TEST_HEADLESS_SHELL = '/opt/shell';
    process.env.PLANNAV_CHROMIUM_PATH = '/opt/shell';
    const seen: (string | undefined)[] = [];
    await onFullChromium(async (value: string) => {
      seen.push(value, process.env.PLANNAV_CHROMIUM_PATH);
    })('argument');
    expect(seen).toEqual(['argument', undefined]);
    expect(process.env.PLANNAV_CHROMIUM_PATH).toBe('/opt/shell');
    await expect(onFullChromium(() => Promise.reject(new Error('the case failed')))()).rejects.toThrow('the case failed');
    expect(process.env.PLANNAV_CHROMIUM_PATH).toBe('/opt/shell');
    // A browser of the user's choice (PLANNAV_CHROMIUM_PATH set, not the shell) stays for every test.
    process.env.PLANNAV_CHROMIUM_PATH = '/opt/my-chrome';
    await onFullChromium(async () => {
      seen.push(process.env.PLANNAV_CHROMIUM_PATH);
    })();
    expect(seen.at(-1)).toBe('/opt/my-chrome');
  } finally {
    restore('PLANNAV_TEST_HEADLESS_SHELL', saved.shell);
    restore('PLANNAV_CHROMIUM_PATH', saved.path);
  }
});
