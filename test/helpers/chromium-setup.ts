// A set-up file of the `node` and `isolated` projects: before each test file, points PLANNAV_CHROMIUM_PATH at
// Chromium's headless shell, or for a file of FULL_CHROMIUM_TESTS removes it again (test/helpers/page-chromium.ts says
// why). Files share their worker's process, so each file sets it either way. Does nothing unless scripts/test.mjs chose
// the shell (PLANNAV_TEST_HEADLESS_SHELL).
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { FULL_CHROMIUM_TESTS } from './page-chromium';

const shell = process.env.PLANNAV_TEST_HEADLESS_SHELL;
/** The repository's root, which the list's paths are relative to, wherever vitest runs from. */
const repository = fileURLToPath(new URL('../..', import.meta.url));
if (shell) {
  const file = relative(repository, expect.getState().testPath ?? '').replaceAll('\\', '/');
  if (FULL_CHROMIUM_TESTS.includes(file)) delete process.env.PLANNAV_CHROMIUM_PATH;
  else process.env.PLANNAV_CHROMIUM_PATH = shell;
}
