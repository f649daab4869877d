// `plannav ui`: parses its flags, starts the run page, prints its URL, opens it in the default
// browser, and serves until Ctrl-C. src/cli/main.ts dispatches to it; the exit code is returned.

import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { integerFlag, runConfigFromFlags, runFlagOptions, UsageError, type RunConfig } from '../front/index';
import { openInBrowser } from './open-browser';
import { startRunPage } from './server';

/** What a command gets from the CLI: its streams, its environment, and a signal that ends it. */
export interface CommandIo {
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly stdin: Readable;
  readonly env: Record<string, string | undefined>;
  readonly signal?: AbortSignal | undefined;
}

export const uiUsage = `Usage: plannav ui [options]

Serves a page on 127.0.0.1 to run tasks and watch them: step cards, a live view of the browser,
pause, resume and stop, the agent's questions, follow-up tasks, downloads, and the replay of a
saved history. Only the printed URL opens it (it carries a random token).

Options:
  --port <n>              port on 127.0.0.1 (default: a free one)
  --no-open               print the URL only; do not open the default browser
  --demo                  serve the demo shop and use its scripted model (no API key)
  --model <p:m>           the model, such as openai:gpt-4.1-mini (the page can change it)
  --planner-model <p:m>   a model for the Planner
  --extractor-model <p:m> a model for extract_content
  --start-url <url>       open this page before each new task
  --headed                show the browser window
  --cdp-url <url>         attach to a running Chrome
  --ws-endpoint <url>     connect to a remote Playwright browser
  --allow <host>          a host the agent may visit (repeatable)
  --deny <host>           a host the agent may not visit (repeatable)
  --scope <s>             navigation (default) or all-requests
  --secrets-file <file>   a dotenv file of secrets (never shown)
  --max-steps <n>         the step cap of a task
  --vision                send screenshots to the model
  -h, --help              show this help

Stop it with Ctrl-C.
`;

const options = {
  ...runFlagOptions,
  'start-url': { type: 'string' },
  port: { type: 'string' },
  'no-open': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * Waits for the end: the CLI's signal (it aborts on the first Ctrl-C and exits on the second
 * itself), or, when none is given, Ctrl-C; SIGTERM either way. `first` resolves on the first, `second` on the next.
 */
function interruptions(signal: AbortSignal | undefined): { first: Promise<void>; second: Promise<void>; dispose(): void } {
  let count = 0;
  let resolveFirst = (): void => undefined;
  let resolveSecond = (): void => undefined;
  const first = new Promise<void>((resolve) => (resolveFirst = resolve));
  const second = new Promise<void>((resolve) => (resolveSecond = resolve));
  const onInterrupt = (): void => {
    count += 1;
    if (count === 1) resolveFirst();
    else resolveSecond();
  };
  // With the CLI's signal, its own SIGINT handler counts the Ctrl-Cs: listening too would count each twice.
  const signals: NodeJS.Signals[] = signal ? ['SIGTERM'] : ['SIGINT', 'SIGTERM'];
  for (const name of signals) process.on(name, onInterrupt);
  signal?.addEventListener('abort', onInterrupt, { once: true });
  if (signal?.aborted) onInterrupt();
  return {
    first,
    second,
    dispose: () => {
      for (const name of signals) process.off(name, onInterrupt);
      signal?.removeEventListener('abort', onInterrupt);
    },
  };
}

/**
 * Runs `plannav ui` with `args` (the words after `ui`). Resolves with the exit code: 0 when
 * stopped with Ctrl-C, 2 for bad usage, 1 when the page could not start.
 */
export async function uiCommand(args: string[], io: CommandIo): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: typeof options; strict: true; allowPositionals: true }>>;
  let port: number | undefined;
  let config: RunConfig;
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: true });
    if (parsed.positionals.length > 0) throw new UsageError(`ui takes no arguments, got ${JSON.stringify(parsed.positionals[0])} (see plannav ui --help)`);
    port = integerFlag(parsed.values, 'port', 'ui', 0, 65_535);
    config = await runConfigFromFlags(parsed.values, 'ui', io.env);
  } catch (error) {
    io.stderr.write(`plannav: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const values = parsed.values;
  if (values.help) {
    io.stdout.write(uiUsage);
    return 0;
  }
  const stopping = interruptions(io.signal);
  try {
    const page = await startRunPage({ port, config, demo: values.demo, open: false }).catch((error: unknown) => {
      io.stderr.write(`plannav: the run page could not start: ${error instanceof Error ? error.message : String(error)}\n`);
      return undefined;
    });
    if (!page) return 1;
    io.stdout.write(`plannav ui: ${page.url}\n`);
    io.stderr.write(
      `The URL carries this launch's token: only it opens the page.${values.demo ? ' Demo mode: the demo shop and its scripted model.' : ''}\n` +
        `Runs are kept in ${page.outDir}. Stop with Ctrl-C.\n`,
    );
    if (!values['no-open']) {
      const opened = await openInBrowser(page.url);
      if (!opened.opened) io.stderr.write(`Could not open a browser (${opened.reason ?? 'no opener'}): open the URL above by hand.\n`);
    }
    await stopping.first;
    io.stderr.write('Stopping (Ctrl-C again to quit at once)…\n');
    const closed = await Promise.race([page.close().then(() => 'closed' as const), stopping.second.then(() => 'forced' as const)]);
    return closed === 'closed' ? 0 : 130;
  } finally {
    stopping.dispose();
  }
}
