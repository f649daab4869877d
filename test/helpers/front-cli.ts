// The `plannav` command as a user runs it: a child process of `node --import tsx src/cli/main.ts …`,
// its stdout, stderr and exit code captured, every run bounded by a timeout that kills it. Shared by
// the CLI and MCP tests (test/front/), which only ever see the command from the outside.
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root, where `src/cli/main.ts` is. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The command's entry, run from source through tsx. */
export const cliEntry = resolve(repoRoot, 'src/cli/main.ts');

/** The argv that starts `plannav` from source: `process.execPath` then these, then the command's own arguments. */
export const cliNodeArgs: readonly string[] = ['--import', 'tsx', cliEntry];

/** What a finished run of the command left. */
export interface CliResult {
  /** The exit code; `null` when the child ended by a signal (then `signal` says which). */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** True when the timeout fired and the child was killed. */
  readonly timedOut: boolean;
}

/** Options of {@link runCli} and {@link startCli}. */
export interface CliOptions {
  /**
   * The child's environment. By default this process's, minus every model key (so no test ever reaches
   * a real provider) and with `NO_COLOR` unset; pass a whole environment to replace it.
   */
  readonly env?: Record<string, string | undefined> | undefined;
  /** Written to the child's stdin, which is then closed. When absent stdin is closed at once. */
  readonly input?: string | undefined;
  /** @defaultValue the repository's root */
  readonly cwd?: string | undefined;
  /** The child is SIGKILLed after this long. */
  readonly timeoutMs: number;
  /** Keep stdin open (for a test that answers a question later through {@link CliProcess.write}). */
  readonly keepStdinOpen?: boolean | undefined;
}

/** Variables that would let the command reach a real model or change its output's colours. */
const STRIPPED_VARIABLES = [
  /^OPENAI_/,
  /^ANTHROPIC_/,
  /^GEMINI_/,
  /^GOOGLE_/,
  /^AZURE_/,
  /^OPENROUTER_/,
  /^GROQ_/,
  /^MISTRAL_/,
  /^DEEPSEEK_/,
  /^XAI_/,
  /^PLANNAV_/,
  /^NO_COLOR$/,
  /^FORCE_COLOR$/,
  /^CI$/,
];

/** This process's environment without model keys, colour switches or plannav settings, plus `extra`. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(process.env)) if (!STRIPPED_VARIABLES.some((pattern) => pattern.test(name))) env[name] = value;
  return { ...env, ...extra };
}

/** A running `plannav` child. */
export interface CliProcess {
  readonly child: ChildProcess;
  /** What it printed so far. */
  stdout(): string;
  stderr(): string;
  /** Writes to its stdin (only with `keepStdinOpen`). */
  write(text: string): void;
  /**
   * Resolves with the first complete line of `stream` matching `test`, at most `timeoutMs` (else rejects
   * naming what it waited for and what was printed). Lines printed before the call count too.
   */
  waitForLine(stream: 'stdout' | 'stderr', test: RegExp | ((line: string) => boolean), timeoutMs: number): Promise<string>;
  /** Sends a signal (SIGINT: what Ctrl-C does). */
  kill(signal: NodeJS.Signals): void;
  /** Resolves when the child ended (or was killed at the timeout). */
  readonly done: Promise<CliResult>;
}

/** Starts `plannav …args` and returns at once; see {@link runCli} to wait for the end. */
export function startCli(args: readonly string[], options: CliOptions): CliProcess {
  const child = spawn(process.execPath, [...cliNodeArgs, ...args], {
    cwd: options.cwd ?? repoRoot,
    env: options.env ?? cleanEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  const notify = (): void => {
    for (const waiter of [...waiters]) waiter();
  };
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    notify();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    notify();
  });
  // A child that exits before reading its stdin makes the write fail with EPIPE: not the test's concern.
  child.stdin.on('error', () => undefined);
  if (options.input !== undefined) child.stdin.write(options.input);
  if (!options.keepStdinOpen) child.stdin.end();

  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeoutMs);
  const done = new Promise<CliResult>((resolveDone) => {
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      notify();
      resolveDone({ code, signal, stdout, stderr, timedOut });
    });
  });
  let ended = false;
  void done.then(() => void (ended = true));

  const waitForLine = (stream: 'stdout' | 'stderr', test: RegExp | ((line: string) => boolean), timeoutMs: number): Promise<string> => {
    const matches = typeof test === 'function' ? test : (line: string): boolean => test.test(line);
    const find = (): string | undefined => {
      const text = stream === 'stdout' ? stdout : stderr;
      // Only complete lines: a line still being written could match half of itself.
      const lines = text.split('\n').slice(0, -1);
      return lines.find((line) => matches(line));
    };
    return new Promise<string>((resolveLine, reject) => {
      const check = (): void => {
        const line = find();
        if (line !== undefined) return finish(() => resolveLine(line));
        if (ended)
          finish(() =>
            reject(new Error(`plannav ${args.join(' ')} ended before a ${stream} line matching ${String(test)}.\nstdout:\n${stdout}\nstderr:\n${stderr}`)),
          );
      };
      const timeout = setTimeout(
        () => finish(() => reject(new Error(`No ${stream} line matching ${String(test)} within ${timeoutMs} ms.\nstdout:\n${stdout}\nstderr:\n${stderr}`))),
        timeoutMs,
      );
      const finish = (settle: () => void): void => {
        clearTimeout(timeout);
        waiters.delete(check);
        settle();
      };
      waiters.add(check);
      check();
    });
  };

  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    write: (text) => void child.stdin.write(text),
    waitForLine,
    kill: (signal) => void child.kill(signal),
    done,
  };
}

/** Runs `plannav …args` to its end (or the timeout) and returns what it printed and its exit code. */
export function runCli(args: readonly string[], options: CliOptions): Promise<CliResult> {
  return startCli(args, options).done;
}

/**
 * Runs `plannav …args` and sends `signal` (SIGINT by default) once a line of `stream` matches `when`;
 * returns the finished run. Rejects when no such line came within `options.timeoutMs`.
 */
export async function runCliAndSignal(
  args: readonly string[],
  when: { readonly stream: 'stdout' | 'stderr'; readonly line: RegExp | ((line: string) => boolean); readonly signal?: NodeJS.Signals },
  options: CliOptions,
): Promise<CliResult & { readonly signalledAfter: string }> {
  const cli = startCli(args, options);
  const line = await cli.waitForLine(when.stream, when.line, options.timeoutMs).catch(async (error: unknown) => {
    cli.kill('SIGKILL');
    await cli.done;
    throw error;
  });
  cli.kill(when.signal ?? 'SIGINT');
  return { ...(await cli.done), signalledAfter: line };
}

/** Any ANSI escape sequence (colours, cursor moves, line clears): none may appear when stdout is not a TTY. */
// eslint-disable-next-line no-control-regex
export const ANSI_ESCAPE = /\u001b\[|\u001b\]|\u009b/;

/** The lines of `text`, without the empty last one. */
export function lines(text: string): string[] {
  return text.split('\n').filter((line, index, all) => line !== '' || index < all.length - 1);
}

/** `text` quoted for a POSIX shell. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * Runs `plannav …args` on a pseudo-terminal (util-linux `script`), as a person at a terminal does: its
 * stdout and stderr are a TTY. What `script` relays is returned as `stdout` (both streams, `\r\n` line
 * ends); stdin is /dev/null.
 */
export function runCliInTty(args: readonly string[], options: Omit<CliOptions, 'input' | 'keepStdinOpen'>): Promise<CliResult> {
  const command = [process.execPath, ...cliNodeArgs, ...args].map(shellQuote).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: options.cwd ?? repoRoot,
    env: options.env ?? cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeoutMs);
  return new Promise((resolveDone) => {
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolveDone({ code, signal, stdout, stderr, timedOut });
    });
  });
}
