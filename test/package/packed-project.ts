// One throwaway project per test run with plannav as users get it: the packed tarball, its peers
// (optional ones too) and TypeScript, installed once for every test/package/ file that asks
// (pack, install, quickstart). The first file to ask packs and installs; the others wait for it.
// It reads the built dist/ and never builds: run `npm run build` first.

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's scratch folder, made by scripts/vitest-global-setup.mjs and removed after the run. */
    plannavRunFolder: string;
  }
}

/** The installed project, as the test files use it. */
export interface PackedProject {
  /** The project folder; its node_modules holds plannav and the packages below. */
  readonly dir: string;
  /** The paths npm packed, relative to the package root. */
  readonly packedFiles: readonly string[];
  /** The version installed of each package beside plannav. */
  readonly versions: Readonly<Record<string, string>>;
}

/**
 * What is installed beside the tarball: the peers, optional ones included, so every entry point
 * loads and runs (`ai` is the current major, the devDependency; the renderer, encoder and fonts are
 * createRunGif's), and the compiler for the TypeScript apps. `@types/json-schema` is there because
 * the AI SDK's own declarations import it without depending on it, which `skipLibCheck: false` reports.
 */
const BESIDE_PLANNAV = [
  'ai',
  'zod',
  'playwright-core',
  'puppeteer-core',
  'bullmq',
  'ioredis',
  '@resvg/resvg-js',
  'gifenc',
  '@expo-google-fonts/noto-sans',
  '@expo-google-fonts/noto-sans-sc',
  '@modelcontextprotocol/server',
  '@modelcontextprotocol/client',
  // Issue 24: plannav/otel's optional peer, and the SDK whose in-memory exporter the entry-points test reads.
  '@opentelemetry/api',
  '@opentelemetry/sdk-trace-base',
  'typescript',
  '@types/node',
  '@types/json-schema',
];

/** How long a file waits for another one that is installing the project. */
const WAIT_MS = 240_000;

const shell = process.platform === 'win32';

/**
 * The Node binary that runs the project's scripts: `PLANNAV_TEST_NODE` when set (scripts/node-matrix.mjs
 * sets it to run them under other Node versions), else the one running the tests.
 */
export const nodeBinary = process.env.PLANNAV_TEST_NODE || process.execPath;

/** The version of {@link nodeBinary}, such as `v22.23.5`, for test titles and messages. */
export const nodeVersion = process.env.PLANNAV_TEST_NODE ? execFileSync(nodeBinary, ['-v'], { encoding: 'utf8' }).trim() : process.version;

/**
 * Whether {@link nodeBinary}'s require() loads ES modules without a flag (Node 20.19+, 22.12+). ai v7
 * is ESM-only, so plannav/ai-sdk's CommonJS build works with it only there.
 */
export const nodeRequiresEsm = process.env.PLANNAV_TEST_NODE
  ? execFileSync(nodeBinary, ['-p', 'process.features.require_module === true'], { encoding: 'utf8' }).trim() === 'true'
  : (process.features as { require_module?: boolean }).require_module === true;

/** The result of a command that may fail. */
export interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command in `cwd`, with `env` added, and returns its status and output; never throws for a non-zero exit. */
export function run(command: string, args: readonly string[], cwd: string, timeoutMs = 120_000, env: Readonly<Record<string, string>> = {}): Run {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    shell,
    timeout: timeoutMs,
    env: { ...process.env, ...env, FORCE_COLOR: '0', NO_COLOR: '1' },
  });
  return { status: result.status, stdout: result.stdout ?? '', stderr: `${result.stderr ?? ''}${result.error ? `\n${result.error.message}` : ''}` };
}

/** Runs a command in `cwd` and returns its stdout; throws with its output when it fails. */
function runOrThrow(command: string, args: readonly string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: 'utf8', shell, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
}

/** Writes `files` (paths relative to `dir`), making folders as needed. */
export function writeFiles(dir: string, files: Readonly<Record<string, string>>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

/** The version of each package in BESIDE_PLANNAV that this repository's lockfile installs. */
function lockedVersions(): Record<string, string> {
  const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { version?: string }> };
  return Object.fromEntries(
    BESIDE_PLANNAV.map((name) => {
      const version = lock.packages[`node_modules/${name}`]?.version;
      if (!version) throw new Error(`${name} is not in package-lock.json; the packed-package tests install it beside plannav, so add it to devDependencies.`);
      return [name, version];
    }),
  );
}

/** Packs plannav and installs the tarball and BESIDE_PLANNAV into `root/project`. */
function build(root: string): PackedProject {
  if (!existsSync('dist/index.js')) throw new Error('dist/ is missing: run `npm run build` before the package tests.');
  // --ignore-scripts: no prepack rebuild of dist/ while other test files read it.
  const [packed] = JSON.parse(runOrThrow('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', root], resolve('.'))) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  if (!packed) throw new Error('npm pack reported no tarball');
  const dir = join(root, 'project');
  writeFiles(dir, { 'package.json': JSON.stringify({ name: 'plannav-packed-test', private: true }) });
  const versions = lockedVersions();
  // The exact versions the repository's lockfile has, so npm ci's cache serves them (--prefer-offline).
  const specs = Object.entries(versions).map(([name, version]) => `${name}@${version}`);
  runOrThrow('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(root, packed.filename), ...specs], dir);
  return { dir, packedFiles: packed.files.map((file) => file.path), versions };
}

let project: Promise<PackedProject> | undefined;

/**
 * The run's packed project: built by the first caller of the run, awaited by the others (in this
 * test file or another). Give the calling hook a timeout of a few minutes.
 * @throws when dist/ is missing or packing or installing fails (the message has npm's output).
 */
export function packedProject(): Promise<PackedProject> {
  project ??= claimOrAwait();
  return project;
}

async function claimOrAwait(): Promise<PackedProject> {
  let runFolder = inject('plannavRunFolder');
  if (!runFolder) {
    // Not under the repository's vitest config: a folder of this file's own.
    runFolder = mkdtempSync(join(tmpdir(), 'plannav-test-run-'));
    const own = runFolder;
    process.on('exit', () => rmSync(own, { recursive: true, force: true }));
  }
  const root = join(runFolder, 'packed');
  const ready = join(root, 'ready.json');
  const failed = join(root, 'failed.txt');
  try {
    mkdirSync(root); // atomic: exactly one caller of the run gets to build
  } catch {
    const deadline = Date.now() + WAIT_MS;
    while (Date.now() < deadline) {
      if (existsSync(ready)) return JSON.parse(readFileSync(ready, 'utf8')) as PackedProject;
      if (existsSync(failed)) throw new Error(`Packing and installing plannav failed in another test file:\n${readFileSync(failed, 'utf8')}`);
      await sleep(250);
    }
    throw new Error(`Another test file has been installing the packed package in ${root} for ${WAIT_MS / 1000} s; giving up.`);
  }
  try {
    const built = build(root);
    writeFileSync(`${ready}.part`, JSON.stringify(built));
    renameSync(`${ready}.part`, ready); // waiters never read half a file
    return built;
  } catch (error) {
    const output = error as { message?: string; stdout?: string; stderr?: string };
    writeFileSync(failed, [output.message, output.stdout, output.stderr].filter(Boolean).join('\n'));
    throw error;
  }
}
