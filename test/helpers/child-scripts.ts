// Child processes of the multi-process e2e tests (BullMQ workers and coordinators): each runs a
// TypeScript script through tsx and reports JSON lines on stdout, which are collected as events.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** A running script and the events it printed so far. */
export interface ChildScript {
  readonly child: ChildProcess;
  readonly events: Record<string, unknown>[];
  readonly exited: Promise<void>;
  /** What it wrote on stderr, when started with `captureStderr` (else stderr is this process's). */
  readonly stderr: () => string;
}

/** The scripts a test file started, so that `stopAll` ends the ones still running. */
export class ChildScripts {
  private readonly started: ChildScript[] = [];

  /** Runs `script` (a path from the repository's root) with `env` added to this process's. */
  start(script: string, env: Record<string, string>, options: { readonly captureStderr?: boolean } = {}): ChildScript {
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', options.captureStderr ? 'pipe' : 'inherit'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
    const events: Record<string, unknown>[] = [];
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      try {
        events.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // Not one of the script's event lines.
      }
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const started = { child, events, exited, stderr: () => stderr };
    this.started.push(started);
    return started;
  }

  /** SIGKILLs every script still running and waits for them, at most 5 s. */
  async stopAll(): Promise<void> {
    for (const { child } of this.started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.race([Promise.all(this.started.map((started) => started.exited)), new Promise((resolve) => setTimeout(resolve, 5000))]);
  }
}

/** Waits until `predicate` holds, checking every 20 ms, at most `timeoutMs`; the error names `what`. */
export async function until(predicate: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
