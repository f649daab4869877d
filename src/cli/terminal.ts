// The command's side of the keyboard: the agent's questions asked on stderr and answered with one
// line of stdin (within the question's timeout), and on a terminal the p/r keys that pause and
// resume. Ctrl-C in raw mode is passed on as SIGINT, so it cancels as it does everywhere else.

import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { HumanInputHandler } from '../index';
import { formatDuration } from './summary';

/** Lines of stdin, read one at a time on demand, from one reader for the whole command (so no line is lost between questions). */
export class LineReader {
  private reader: Interface | undefined;
  private readonly lines: string[] = [];
  private readonly waiting: ((line: string | undefined) => void)[] = [];
  private ended = false;

  constructor(private readonly input: Readable) {}

  /** The next line, or `undefined` when stdin ended or `signal` aborted first. */
  next(signal: AbortSignal): Promise<string | undefined> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended || signal.aborted) return Promise.resolve(undefined);
    this.open();
    return new Promise((resolve) => {
      const done = (value: string | undefined): void => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      };
      const onAbort = (): void => {
        this.waiting.splice(this.waiting.indexOf(done), 1);
        if (this.waiting.length === 0) this.reader?.pause();
        resolve(undefined);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(done);
      this.reader?.resume();
    });
  }

  /** Stops reading stdin, so the process can exit. */
  close(): void {
    this.reader?.close();
    this.reader = undefined;
    this.input.pause?.();
  }

  private open(): void {
    if (this.reader) return;
    // terminal: false: the terminal (in its cooked mode) edits and echoes the line, and Ctrl-C stays a signal.
    this.reader = createInterface({ input: this.input, terminal: false });
    this.reader.on('line', (line) => {
      const waiter = this.waiting.shift();
      if (waiter) waiter(line);
      else this.lines.push(line);
      if (this.waiting.length === 0) this.reader?.pause();
    });
    this.reader.on('close', () => {
      this.ended = true;
      for (const waiter of this.waiting.splice(0)) waiter(undefined);
    });
  }
}

/** The p/r keys on a terminal: raw mode while the task runs, off while a question waits for a line. */
export class KeyControls {
  private active = false;
  private readonly onData = (chunk: Buffer | string): void => {
    for (const key of String(chunk)) {
      if (key === 'p') this.handlers.pause();
      else if (key === 'r') this.handlers.resume();
      // In raw mode the terminal sends Ctrl-C as a byte, not a signal: make it the signal it would have been.
      else if (key === '\u0003') process.kill(process.pid, 'SIGINT');
    }
  };

  constructor(
    private readonly input: Readable,
    /** Whether keys are read at all (stdin is a terminal). */
    readonly enabled: boolean,
    private readonly handlers: { readonly pause: () => void; readonly resume: () => void },
  ) {}

  /** Starts listening for keys (when enabled: stdin is a terminal). */
  start(): void {
    if (!this.enabled || this.active) return;
    this.active = true;
    (this.input as Readable & { setRawMode?: (raw: boolean) => void }).setRawMode?.(true);
    this.input.on('data', this.onData);
    this.input.resume();
  }

  /** Stops listening and gives the terminal back its cooked mode. */
  stop(): void {
    if (!this.active) return;
    this.active = false;
    this.input.off('data', this.onData);
    (this.input as Readable & { setRawMode?: (raw: boolean) => void }).setRawMode?.(false);
    this.input.pause();
  }
}

/**
 * The Executor's `humanInput` on the terminal: the question on `output` (stderr), the answer one
 * line of stdin. An empty line, the end of stdin, the timeout or a cancel give no answer.
 */
export function terminalHumanInput(
  reader: LineReader,
  output: Writable,
  keys: KeyControls,
  around: (write: () => void) => void = (write) => write(),
): HumanInputHandler {
  return async (question, { signal, timeout }) => {
    keys.stop();
    around(() => {
      output.write(`\n? ${question.question}\n`);
      output.write(`  (type the answer and press Enter within ${formatDuration(timeout)}; an empty line gives none)\n> `);
    });
    try {
      const line = await reader.next(signal);
      const answer = line?.trim();
      return answer ? answer : undefined;
    } finally {
      keys.start();
    }
  };
}
