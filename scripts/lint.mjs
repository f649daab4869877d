// What `npm run lint` runs: ESLint (eslint.config.js, type-aware) and `prettier --check`, both always, so one run
// shows every problem; exits non-zero when either fails. `npm run format` rewrites what Prettier would change.
import { spawnSync } from 'node:child_process';

/** The files Prettier formats: the code, wherever it is (.gitignore and .prettierignore apply). */
export const prettierFiles = '**/*.{ts,mts,cts,js,mjs,cjs}';

const shell = process.platform === 'win32';
/** Runs a tool from node_modules/.bin with inherited output; true when it exits 0. */
const run = (/** @type {string} */ tool, /** @type {string[]} */ args) =>
  spawnSync('npm', ['exec', '--no', '--', tool, ...args], { stdio: 'inherit', shell }).status === 0;

// The page runtime's generated bundle is imported by the sources: without it, the type-aware rules see `any`.
const bundled = spawnSync(process.execPath, ['scripts/build-page-runtime.mjs'], { stdio: 'inherit' }).status === 0;
const linted = bundled && run('eslint', ['--max-warnings=0', '.']);
const formatted = run('prettier', ['--check', shell ? `"${prettierFiles}"` : prettierFiles]);
if (!formatted) console.error('lint: run npm run format to format these files');
process.exitCode = linted && formatted ? 0 : 1;
