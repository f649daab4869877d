// What every connection of one plannav MCP server shares: the run session (browser and models,
// opened on first use), one queue so a task and the browser tools never act on the page at once,
// the last page state the browser tools read, and the history folder.

import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { RunSession } from '../front/run-session';
import { ConfigError, RequestCancelledError, type PageState } from '../index';

/** `promise`, or a rejection as soon as `signal` aborts. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new RequestCancelledError('The request was cancelled.'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new RequestCancelledError('The request was cancelled.'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** The run set-up the server uses: what the front doors' `openRunSession` returns, as far as the MCP server needs it. */
export type McpRunSession = Pick<
  RunSession,
  'browser' | 'llm' | 'extractionLLM' | 'startUrl' | 'demoTask' | 'taskFor' | 'executorOptions' | 'saveRun' | 'close'
>;

/** Opens the run session (browser, models, the demo shop in demo mode). */
export type OpenSession = (signal?: AbortSignal) => Promise<McpRunSession>;

/** The state shared by the connections of one server. */
export class McpRuntime {
  private opening: Promise<McpRunSession> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private folder: Promise<string> | undefined;
  private closed = false;
  private runs = 0;
  /** The state the last `browser_state` returned: the indexes of click, type and select refer to it. */
  lastState: PageState | undefined;

  constructor(
    private readonly open: OpenSession,
    private readonly historyDir: string | undefined,
  ) {}

  /** The run session, opened on first use (and again after `browser_close`). */
  async session(signal?: AbortSignal): Promise<McpRunSession> {
    if (this.closed) throw new ConfigError('The MCP server is closed.');
    if (!this.opening) {
      this.opening = this.open(signal);
      this.opening.catch(() => (this.opening = undefined));
    }
    return raceAbort(this.opening, signal);
  }

  /** Whether a session is open (or opening). */
  get hasSession(): boolean {
    return this.opening !== undefined;
  }

  /** Closes the session's browser (and demo shop); the next tool that needs one opens a new one. */
  async closeSession(): Promise<boolean> {
    const opening = this.opening;
    this.opening = undefined;
    this.lastState = undefined;
    if (!opening) return false;
    const session = await opening.catch(() => undefined);
    await session?.close();
    return session !== undefined;
  }

  /**
   * Runs `work` when everything queued before it has finished: a task and the browser tools take
   * turns on the one browser. A call cancelled while it waits never runs.
   */
  async exclusive<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    const previous = this.queue;
    let release!: () => void;
    this.queue = new Promise<void>((resolve) => (release = resolve));
    try {
      await raceAbort(
        previous.catch(() => undefined),
        signal,
      );
      return await work();
    } finally {
      release();
    }
  }

  /** The folder run_task saves runs in: the configured one, else a new folder under the OS temp folder. */
  async historyFolder(): Promise<string> {
    this.folder ??= this.historyDir !== undefined ? Promise.resolve(resolve(this.historyDir)) : mkdtemp(join(tmpdir(), 'plannav-mcp-'));
    return this.folder;
  }

  /** A new folder for one run, inside the history folder. */
  async runFolder(): Promise<string> {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    return join(await this.historyFolder(), `run-${stamp}-${++this.runs}`);
  }

  /**
   * The absolute path of a saved history the caller named, when it lies inside the history
   * folder (relative paths are taken from there).
   * @throws `ConfigError` (field `history_file`) for a path outside it: a client cannot make the
   * server read other files.
   */
  async historyPath(file: string): Promise<string> {
    const folder = await realpath(await this.historyFolder()).catch(() => resolve(this.historyDir ?? ''));
    const wanted = isAbsolute(file) ? file : join(folder, file);
    const real = await realpath(wanted).catch(() => {
      throw new ConfigError(`\`history_file\` ${JSON.stringify(file)} does not exist. Use the history_file a run_task result gave.`, { field: 'history_file' });
    });
    const inside = relative(folder, real);
    if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) {
      throw new ConfigError(
        `\`history_file\` must be a history this server saved, inside its history folder ${folder}; ${JSON.stringify(file)} is outside it. Start the server with --out <folder> to choose that folder.`,
        { field: 'history_file' },
      );
    }
    return real;
  }

  /** Closes the session; later calls fail. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const opening = this.opening;
    this.opening = undefined;
    const session = await opening?.catch(() => undefined);
    await session?.close();
  }
}
