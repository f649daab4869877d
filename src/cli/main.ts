#!/usr/bin/env node
// The `plannav` command: picks the command, maps errors to one `plannav: …` line and an exit code
// (0 ok, 1 failed, 2 bad usage, 130 cancelled), and turns Ctrl-C into a cancel (twice: exit now).

import { readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, HistoryFormatError, RequestCancelledError } from '../index';
import { dispatchCommand } from './dispatch';
import { exportCommand } from './export-command';
import { helpText } from './help';
import { exitCodes, UsageError, writeLine, type CliIo } from './io';
import { replayCommand } from './replay-command';
import { reportCommand } from './report-command';
import { runCommand } from './run-command';

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
  if (error instanceof UsageError || ConfigError.isInstance(error)) return { code: exitCodes.usage, line: message };
  if (RequestCancelledError.isInstance(error) && io.signal?.aborted) return { code: exitCodes.cancelled, line: 'cancelled' };
  const code = (error as { code?: unknown }).code;
  const path = (error as { path?: unknown }).path;
  if (code === 'ENOENT' && typeof path === 'string') return { code: exitCodes.usage, line: `no such file: ${path}` };
  if (HistoryFormatError.isInstance(error)) return { code: exitCodes.failed, line: `not a plannav history: ${message}` };
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
      case 'run':
        return await runCommand(rest, io);
      case 'demo':
        return await runCommand(rest, io, true);
      case 'replay':
        return await replayCommand(rest, io);
      case 'export':
        return await exportCommand(rest, io);
      case 'report':
        return await reportCommand(rest, io);
      case 'ui':
      case 'mcp':
        if (rest.includes('--help') || rest.includes('-h')) {
          writeLine(io.stdout, helpText[command]);
          return exitCodes.ok;
        }
        return await dispatchCommand(command, rest, io);
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

if (isProgram()) {
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
