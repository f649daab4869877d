// The list of files that run on full Chromium names files that exist: a renamed file would otherwise move to the
// headless shell without a word.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { FULL_CHROMIUM_TESTS } from './page-chromium';

it('names only test files that exist', () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  expect(FULL_CHROMIUM_TESTS.filter((file) => !existsSync(`${root}${file}`))).toEqual([]);
  expect(FULL_CHROMIUM_TESTS.every((file) => file.endsWith('.test.ts'))).toBe(true);
});
