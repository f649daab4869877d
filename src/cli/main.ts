#!/usr/bin/env node
// The `plannav` command: picks the command, maps errors to one `plannav: …` line and an exit code
// (0 ok, 1 failed, 2 bad usage, 130 cancelled), and turns Ctrl-C into a cancel (twice: exit now).

import { readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { helpText } from './help';
import { exitCodes, UsageError, writeLine, type CliIo } from './io';

/** The version in plannav's package.json, looked for from this file upwards (src/cli/ or dist/). */
export function packageVersion(): string {
  let folder = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 4; depth++) {
    try {
      const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (manifest.name === 'plannav' && manifest.version) return manifest.version;
    } catch {
      // No package.json here: look one folder up.
    }
    folder = dirname(folder);
  }
  return 'unknown';
}

/** The exit code and the one line for an error a command threw. */
export function describeFailure(error: unknown, io: Pick<CliIo, 'signal'>): { code: number; line: string } {
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
  // Told apart by their stable codes (PlannavErrorCode), so this module need not load the library for --help.
  const code = (error as { code?: unknown } | undefined)?.code;
  if (error instanceof UsageError || code === 'CONFIG_ERROR') return { code: exitCodes.usage, line: message };
  if ((code === 'REQUEST_CANCELLED' || code === 'TIMEOUT') && io.signal?.aborted) return { code: exitCodes.cancelled, line: 'cancelled' };
  const historyError = code === 'HISTORY_INVALID' || code === 'HISTORY_VERSION';
  // A file named on the command line that is not there is bad usage; loadHistory keeps the file-system error as the cause.
  const fileError = (historyError ? (error as Error).cause : error) as { code?: unknown; path?: unknown } | undefined;
  if (fileError?.code === 'ENOENT' && typeof fileError.path === 'string') return { code: exitCodes.usage, line: `no such file: ${fileError.path}` };
  if (historyError) return { code: exitCodes.failed, line: `not a plannav history: ${message}` };
  return { code: exitCodes.failed, line: message };
}

/** Runs the command line `args` (without `node` and the script) and resolves with the exit code. */
export async function main(args: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = args;
  try {
    switch (command) {
      case undefined:
        writeLine(io.stderr, helpText.main);
        return exitCodes.usage;
      case '-h':
      case '--help':
      case 'help':
        writeLine(io.stdout, rest[0] && helpText[rest[0]] ? helpText[rest[0]] : helpText.main);
        return exitCodes.ok;
      case '--version':
      case '-v':
        writeLine(io.stdout, packageVersion());
        return exitCodes.ok;
      // Each command's module (and the library it needs) is loaded only when it runs.
      case 'run':
      case 'demo':
        return await (await import('./run-command')).runCommand(rest, io, command === 'demo');
      case 'replay':
        return await (await import('./replay-command')).replayCommand(rest, io);
      case 'export':
        return await (await import('./export-command')).exportCommand(rest, io);
      case 'report':
        return await (await import('./report-command')).reportCommand(rest, io);
      case 'ui':
      case 'mcp':
        if (rest.includes('--help') || rest.includes('-h')) {
          writeLine(io.stdout, helpText[command]);
          return exitCodes.ok;
        }
        return await (await import('./dispatch')).dispatchCommand(command, rest, io);
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)} (commands: run, replay, export, report, demo, ui, mcp; see plannav --help)`);
    }
  } catch (error) {
    const failure = describeFailure(error, io);
    writeLine(io.stderr, `plannav: ${failure.line}`);
    if (io.env.PLANNAV_DEBUG && error instanceof Error && error.stack) writeLine(io.stderr, error.stack);
    return failure.code;
  }
}

/** Whether this module is the program node runs (directly, through the bin's symlink, or `node --import tsx src/cli/main.ts`). */
function isProgram(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

/**
 * Runs the command line of this process: `process.argv`, the standard streams, Ctrl-C (once cancels the task, twice
 * exits at once), and exits with the command's code. The `plannav` bin (bin/plannav.js) calls it.
 */
export async function runProgram(): Promise<void> {
  const interrupt = new AbortController();
  let interrupts = 0;
  process.on('SIGINT', () => {
    interrupts += 1;
    if (interrupts === 1) interrupt.abort();
    else process.exit(exitCodes.cancelled);
  });
  const code = await main(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    signal: interrupt.signal,
  });
  process.exitCode = code;
  // What the command opened is closed; a handle left behind (a socket being torn down) must not keep the command alive.
  setTimeout(() => process.exit(code), 3000).unref();
}

if (isProgram()) await runProgram();
