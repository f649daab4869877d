// Vitest global setup: rebuilds the page runtime's bundle from src/dom/page/ before the tests run,
// and makes the run's shared scratch folder (test/package/packed-project.ts installs the packed
// package there once for every file that needs it), removed when the run ends.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** @param {import('vitest/node').TestProject} project */
export default function setup(project) {
  const script = fileURLToPath(new URL('./build-page-runtime.mjs', import.meta.url));
  const result = spawnSync(process.execPath, [script], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error('Building the page runtime failed: see the output above.');
  const runFolder = mkdtempSync(join(tmpdir(), 'plannav-test-run-'));
  project.provide('plannavRunFolder', runFolder);
  return () => rmSync(runFolder, { recursive: true, force: true });
}
