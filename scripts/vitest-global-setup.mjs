// Vitest global setup: rebuilds the page runtime's bundle from src/dom/page/ before the tests run.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup() {
  const script = fileURLToPath(new URL('./build-page-runtime.mjs', import.meta.url));
  const result = spawnSync(process.execPath, [script], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error('Building the page runtime failed: see the output above.');
}
