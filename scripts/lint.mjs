// What `npm run lint` runs: ESLint (eslint.config.js, type-aware) and `prettier --check`, both always, so one run
// shows every problem; exits non-zero when either fails. `npm run format` rewrites what Prettier would change.
//
// `--typecheck` (what `npm test` runs) also type-checks first, as `npm run typecheck` does (tsc over tsconfig.json),
// and hands ESLint that same TypeScript program: the type-aware rules then read the types the compiler has already
// worked out instead of building and checking the whole program a second time (about a third of lint's CPU).
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

/** The files Prettier formats: the code, wherever it is (.gitignore and .prettierignore apply). */
export const prettierFiles = '**/*.{ts,mts,cts,js,mjs,cjs}';

const shell = process.platform === 'win32';
/** Runs a tool from node_modules/.bin with inherited output; true when it exits 0. */
const run = (/** @type {string} */ tool, /** @type {string[]} */ args) =>
  spawnSync('npm', ['exec', '--no', '--', tool, ...args], { stdio: 'inherit', shell }).status === 0;

/**
 * Type-checks tsconfig.json's program as `tsc --noEmit` does, printing its messages; resolves with the program, and
 * whether it had no error.
 */
async function typecheck() {
  const { default: ts } = await import('typescript');
  const configPath = resolve('tsconfig.json');
  const read = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  const config = ts.parseJsonConfigFileContent(read.config, ts.sys, resolve('.'), undefined, configPath);
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, projectReferences: config.projectReferences });
  const diagnostics = [...config.errors, ...ts.getPreEmitDiagnostics(program)];
  if (diagnostics.length > 0) {
    const host = { getCanonicalFileName: (/** @type {string} */ name) => name, getCurrentDirectory: () => process.cwd(), getNewLine: () => '\n' };
    console.log(ts.formatDiagnosticsWithColorAndContext(diagnostics, host));
    console.log(`typecheck: ${diagnostics.length} error(s)`);
  } else {
    console.log('typecheck: no error');
  }
  return { program, ok: diagnostics.length === 0 };
}

/** ESLint over the repository, with `program` as the type information when given; true when nothing is reported. */
async function eslint(/** @type {unknown} */ program) {
  if (!program) return run('eslint', ['--max-warnings=0', '.']);
  const { ESLint } = await import('eslint');
  const linter = new ESLint({ overrideConfig: { languageOptions: { parserOptions: { programs: [program], projectService: false } } } });
  const results = await linter.lintFiles(['.']);
  const formatter = await linter.loadFormatter('stylish');
  const output = await formatter.format(results);
  if (output) console.log(output);
  return results.every((result) => result.errorCount === 0 && result.warningCount === 0);
}

const withTypecheck = process.argv.includes('--typecheck');
// The page runtime's generated bundle is imported by the sources: without it, the types are `any` (or missing).
const bundled = spawnSync(process.execPath, ['scripts/build-page-runtime.mjs'], { stdio: 'inherit' }).status === 0;
const checked = withTypecheck && bundled ? await typecheck() : { program: undefined, ok: bundled };
const linted = bundled && (await eslint(checked.program));
const formatted = run('prettier', ['--check', shell ? `"${prettierFiles}"` : prettierFiles]);
if (!formatted) console.error('lint: run npm run format to format these files');
process.exitCode = checked.ok && linted && formatted ? 0 : 1;
