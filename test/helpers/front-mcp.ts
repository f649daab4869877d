// `plannav mcp` as MCP hosts start it: the stdio parameters for an SDK client, a free port and a
// readiness wait for the HTTP mode, raw HTTP requests (for headers fetch will not send, such as a
// foreign Host), and the tool names of `plannav mcp` (docs/guides/mcp.md).
import { request } from 'node:http';
import { createServer } from 'node:net';
import { cleanEnv, cliNodeArgs, repoRoot } from './front-cli';

/** The demo task as an MCP host would send it: no URL, the demo server starts at its shop. */
export const DEMO_TASK = 'Find the cheapest blue item under $25 in the Kitchen section of the shop and add it to the cart.';

/** Every tool the contract names. */
export const TASK_TOOLS = ['run_task', 'replay_history', 'export_playwright'] as const;
export const BROWSER_TOOLS = [
  'browser_navigate',
  'browser_state',
  'browser_click',
  'browser_type',
  'browser_select',
  'browser_scroll',
  'browser_extract',
  'browser_screenshot',
  'browser_tabs',
  'browser_close',
] as const;
/** Tools that only read (the page, or a saved history): annotated `readOnlyHint: true`. */
export const READ_ONLY_TOOLS = ['browser_state', 'browser_extract', 'browser_screenshot', 'export_playwright'] as const;
/** Tools that change something (the page, the browser, a run): never annotated read-only. */
export const CHANGING_TOOLS = [
  'run_task',
  'replay_history',
  'browser_navigate',
  'browser_click',
  'browser_type',
  'browser_select',
  'browser_tabs',
  'browser_close',
] as const;

/** The environment for a `plannav mcp` child: this process's without model keys or plannav settings, all strings. */
export function mcpEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(cleanEnv(extra))) if (value !== undefined) env[name] = value;
  return env;
}

/** Stdio server parameters (the shape both SDK majors take) that start `plannav mcp …args`. */
export function plannavMcpStdio(args: readonly string[] = ['--demo']): {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  stderr: 'pipe';
} {
  return { command: process.execPath, args: [...cliNodeArgs, 'mcp', ...args], env: mcpEnv(), cwd: repoRoot, stderr: 'pipe' };
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A raw HTTP response: status, headers, body. */
export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One HTTP request to 127.0.0.1:`port` with exactly these headers (a `host` header replaces the real one), at most `timeoutMs`. */
export function rawRequest(options: {
  readonly port: number;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly timeoutMs?: number;
}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: options.port, method: options.method, path: options.path, headers: options.headers }, (res) => {
      let body = '';
      // A streamed (SSE) answer may stay open: the status and the first chunk are enough.
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
        if (res.headers['content-type']?.includes('text/event-stream')) res.destroy();
      });
      const done = (): void => resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      res.once('end', done);
      res.once('close', done);
    });
    req.setTimeout(options.timeoutMs ?? 10_000, () => req.destroy(new Error(`No answer from 127.0.0.1:${options.port}${options.path} in time.`)));
    req.once('error', reject);
    req.end(options.body);
  });
}

/** A JSON-RPC `initialize` request body, as a client's first POST to `/mcp` carries it. */
export const INITIALIZE_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'plannav-test', version: '0.0.0' } },
});

/** The headers of a well-formed MCP POST to 127.0.0.1:`port`, plus `extra`. */
export function mcpPostHeaders(port: number, extra: Record<string, string> = {}): Record<string, string> {
  return { host: `127.0.0.1:${port}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...extra };
}

/** Waits until something answers HTTP on 127.0.0.1:`port` (any status), checking every 100 ms, at most `timeoutMs`. */
export async function waitForHttp(port: number, timeoutMs: number, stillRunning: () => boolean = () => true): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await rawRequest({ port, method: 'GET', path: '/mcp', headers: { host: `127.0.0.1:${port}` }, timeoutMs: 2000 });
      return;
    } catch (error) {
      if (!stillRunning()) throw new Error(`The server on port ${port} ended before it answered.`, { cause: error });
      if (Date.now() > deadline) throw new Error(`Nothing answered HTTP on 127.0.0.1:${port} within ${timeoutMs} ms.`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** A JSON Schema object as tools/list gives it. */
export type JsonSchemaObject = { readonly type?: unknown; readonly properties?: Record<string, unknown>; readonly required?: readonly string[] } & Record<
  string,
  unknown
>;

/** The keywords no tool input schema may have at its top level (some AI-SDK clients reject them). */
export const TOP_LEVEL_COMBINATORS = ['oneOf', 'anyOf', 'allOf'] as const;
