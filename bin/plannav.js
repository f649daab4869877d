#!/usr/bin/env node
// The `plannav` command. Installed from npm, it runs the built command (dist/cli.js). In a clone of the repository
// that was never built, `npx plannav …` first does what `npm run demo` does before it starts: install what is missing
// (scripts/ensure-deps.mjs: npm ci from the lockfile, Chromium) and build; then it runs the command.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli.js');

if (!existsSync(cli) && existsSync(join(root, 'scripts', 'ensure-deps.mjs'))) {
  /** Runs a set-up command; its output is shown live, or, when `quiet`, only if it fails. */
  const step = (/** @type {string} */ command, /** @type {string[]} */ args, quiet = false) => {
    const result = spawnSync(command, args, {
      cwd: root,
      stdio: ['ignore', quiet ? 'pipe' : 'inherit', quiet ? 'pipe' : 'inherit'],
      shell: process.platform === 'win32',
      encoding: 'utf8',
    });
    if (result.status !== 0) {
      if (quiet) process.stderr.write(`${result.stdout}${result.stderr}`);
      console.error(`plannav: the set-up of this clone failed (${[command, ...args].join(' ')}); see above.`);
      process.exit(1);
    }
  };
  console.error('plannav: a clone without a build: installing what is missing and building first (once).');
  step(process.execPath, [join(root, 'scripts', 'ensure-deps.mjs')]);
  step('npm', ['run', '--silent', 'build'], true);
}
if (!existsSync(cli)) {
  console.error(`plannav: ${cli} is missing: reinstall plannav (npm install plannav).`);
  process.exit(1);
}
// eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- dist/cli.js is built, so its types are not in this program; it exports runProgram (src/cli/main.ts)
const command = /** @type {{ runProgram(): Promise<void> }} */ (await import(pathToFileURL(cli).href));
await command.runProgram();
