// What a command reads and writes: its streams, environment and cancel signal, passed in so a test
// can run a command in-process; and the error that means "bad usage" (exit code 2).

import type { Readable, Writable } from 'node:stream';

/** The streams and environment of one command; `signal` aborts when the user presses Ctrl-C. */
export interface CliIo {
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly stdin: Readable;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Aborts on the first Ctrl-C (SIGINT): the command cancels what runs and saves what it has. */
  readonly signal?: AbortSignal | undefined;
}

/** A command's own handler, as `plannav ui` and `plannav mcp` export it: the number is the exit code. */
export type CommandHandler = (args: string[], io: CliIo) => Promise<number>;

/** The exit codes of the `plannav` command. */
export const exitCodes = {
  /** The task finished and succeeded (or the command did what it was asked). */
  ok: 0,
  /** The task failed, or an error stopped the command. */
  failed: 1,
  /** Bad usage: an unknown command or flag, a missing argument, a missing API key. */
  usage: 2,
  /** Cancelled with Ctrl-C. */
  cancelled: 130,
} as const;

/** Bad usage of the command line: printed as one `plannav: …` line, exit code 2. */
export { UsageError } from '../front/flags';

/** Whether a stream is a terminal (a TTY). */
export function isTerminal(stream: Readable | Writable): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

/** Whether output to `stream` may use colour and cursor codes: a terminal, and NO_COLOR not set. */
export function fancyOutput(stream: Writable, env: CliIo['env']): boolean {
  return isTerminal(stream) && !env.NO_COLOR && env.TERM !== 'dumb';
}

/** Writes one line. */
export function writeLine(stream: Writable, line = ''): void {
  stream.write(`${line}\n`);
}
