// `plannav mcp`: the agent as an MCP server, over stdio (the default) or streamable HTTP (--http).
// The CLI's dispatcher (src/cli/main.ts) calls mcpCommand; the number it resolves is the exit code.

import { readFileSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { checkRunConfig, integerFlag, runConfigFromFlags, runFlagOptions, UsageError, type RunConfig } from '../front/index';
import { PlannavError } from '../index';
import { createLLM } from '../models/index';
import { loadStdioSdk } from './sdk';
// Through the entry (src/mcp/index.ts): the built command (dist/mcp-command.js) then imports `plannav/mcp`, not a copy of the server.
import { createMcpServer } from './index';

/** What a command reads and writes: the process's streams and environment, or a test's. */
export interface CommandIo {
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly stdin: Readable;
  readonly env: Record<string, string | undefined>;
  /** Ends the command (the server closes, the exit code is 0). */
  readonly signal?: AbortSignal | undefined;
}

export const mcpUsage = `Usage: plannav mcp [options]

Serve plannav as an MCP server: run_task (a whole task in one call), replay_history,
export_playwright, and browser tools (browser_navigate, browser_state, browser_click, ...).

Transport:
  --http                 serve streamable HTTP at /mcp instead of stdio
  --host <address>       address to bind with --http (default 127.0.0.1); off loopback a token is required
  --port <n>             port with --http (default 8931; 0 picks a free one)
  --token <secret>       bearer token required on every HTTP request (or PLANNAV_MCP_TOKEN)

Runs:
  --model <p:m>          model for the agent, 'provider:model' (e.g. openai:gpt-4.1-mini)
  --planner-model <p:m>  a different model for the Planner
  --extractor-model <p:m> a different model for extraction
  --demo                 serve the demo shop and use its scripted model (no key needed)
  --allow <host>         a host the browser may load (repeatable); callers may only narrow this
  --deny <host>          a host the browser may never load (repeatable)
  --scope <s>            navigation (default) or all-requests
  --secrets-file <file>  dotenv file of secrets the agent may type (values never shown)
  --max-steps <n>        the most Navigator steps of a task
  --vision               send screenshots to the model
  --headed               show the browser window
  --cdp-url <url>        attach to a running Chrome over CDP
  --ws-endpoint <url>    connect to a remote Playwright browser
  --out <folder>         where run_task saves runs (default: a new folder under the OS temp folder)
  -h, --help             show this help
`;

const options = {
  ...runFlagOptions,
  http: { type: 'boolean' },
  host: { type: 'string' },
  port: { type: 'string' },
  token: { type: 'string' },
  out: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>['values'];

/** A parseArgs error as the CLI words it: `unknown flag --x`, `flag --port needs a value`. */
function parseProblem(error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
  const code = (error as { code?: unknown }).code;
  const flag = /'(-[^' ]+)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag) return `unknown flag ${flag} (see plannav mcp --help)`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag) return `flag ${flag} needs a value (see plannav mcp --help)`;
  return message;
}

/** Checks what can be checked before a client connects: a model (or --demo), its key, the secrets file. */
async function checkConfig(config: RunConfig, env: Record<string, string | undefined>): Promise<void> {
  if (!config.demo && config.model === undefined) {
    throw new UsageError('--model provider:model is required (for example --model openai:gpt-4.1-mini), or --demo for the demo shop.');
  }
  checkRunConfig(config);
  for (const [flag, spec] of [
    ['--model', config.model],
    ['--planner-model', config.plannerModel],
    ['--extractor-model', config.extractorModel],
  ] as const) {
    if (spec === undefined || config.demo) continue;
    try {
      createLLM(spec, { env });
    } catch (error) {
      throw new UsageError(`${flag}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (config.secretsFile !== undefined) {
    await access(config.secretsFile).catch(() => {
      throw new UsageError(`--secrets-file ${config.secretsFile ?? ''} cannot be read: give the path of a dotenv file.`);
    });
  }
}

/** plannav's version, from the package.json above this module (src/mcp/ or dist/). */
function plannavVersion(): string | undefined {
  let folder = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 4; depth += 1) {
    try {
      const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (manifest.name === 'plannav' && manifest.version) return manifest.version;
    } catch {
      // No package.json here: look one folder up.
    }
    folder = dirname(folder);
  }
  return undefined;
}

function waitForEnd(signal: AbortSignal | undefined, also: Promise<void>): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    signal?.addEventListener('abort', () => resolve(), { once: true });
    void also.then(resolve);
  });
}

/**
 * Runs `plannav mcp` with `args` (the words after `mcp`). Resolves the exit code: 0 when the
 * server ended normally (stdin closed, or `io.signal` aborted), 1 on an error, 2 on bad usage.
 */
export async function mcpCommand(args: string[], io: CommandIo): Promise<number> {
  let values: Values;
  try {
    const parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
    values = parsed.values;
    if (parsed.positionals.length > 0)
      throw new UsageError(`plannav mcp takes no arguments; got ${JSON.stringify(parsed.positionals[0])}. See plannav mcp --help.`);
  } catch (error) {
    io.stderr.write(`plannav: ${error instanceof UsageError ? error.message : parseProblem(error)}\n`);
    return 2;
  }
  if (values.help) {
    io.stdout.write(mcpUsage);
    return 0;
  }
  let config: RunConfig;
  let port: number | undefined;
  try {
    config = await runConfigFromFlags(values, 'mcp', io.env);
    if (!values.http && (values.port !== undefined || values.host !== undefined || values.token !== undefined)) {
      throw new UsageError('--port, --host and --token apply to --http only.');
    }
    port = integerFlag(values, 'port', 'mcp', 0, 65_535);
    await checkConfig(config, io.env);
  } catch (error) {
    if (error instanceof UsageError || PlannavError.isInstance(error)) {
      io.stderr.write(`plannav: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const server = createMcpServer({ config, historyDir: values.out, version: plannavVersion() });
  try {
    if (values.http) {
      const token = values.token ?? io.env.PLANNAV_MCP_TOKEN;
      let listener;
      try {
        listener = await server.listen({ host: values.host ?? '127.0.0.1', port: port ?? 8931, token: token === '' ? undefined : token });
      } catch (error) {
        if (PlannavError.isInstance(error)) {
          io.stderr.write(`plannav: ${(error as Error).message}\n`);
          return 2;
        }
        throw error;
      }
      io.stderr.write(`plannav MCP server listening on ${listener.url}${token ? ' (bearer token required)' : ''}\n`);
      await waitForEnd(io.signal, new Promise<void>(() => undefined));
      return 0;
    }
    const { StdioServerTransport } = await loadStdioSdk();
    const transport = new StdioServerTransport(io.stdin, io.stdout);
    const ended = new Promise<void>((resolve) => {
      io.stdin.once('end', () => resolve());
      io.stdin.once('close', () => resolve());
    });
    await server.connect(transport);
    await waitForEnd(io.signal, ended);
    return 0;
  } catch (error) {
    io.stderr.write(`plannav: ${error instanceof Error ? error.message : String(error)}\n`);
    return PlannavError.isInstance(error) && error.code === 'CONFIG_ERROR' ? 2 : 1;
  } finally {
    await server.close();
  }
}
