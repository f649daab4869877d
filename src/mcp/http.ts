// Streamable HTTP for the MCP server on Node's own http module: one MCP session per client (the
// SDK's web-standard transport), every request first past the Host, Origin and token checks.

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/server';
import { ConfigError } from '../index';
import { checkRequest, isLoopbackHost } from './http-guard';
import { loadServerSdk } from './sdk';

/**
 * Options of {@link PlannavMcpServer.listen}.
 * @public
 */
export interface McpHttpOptions {
  /**
   * The address to bind. Off loopback (`0.0.0.0`, a LAN address) a `token` is required.
   * @defaultValue '127.0.0.1'
   */
  readonly host?: string | undefined;
  /**
   * The port; 0 picks a free one (see the result's `port`).
   * @defaultValue 0
   */
  readonly port?: number | undefined;
  /**
   * The bearer token every request must carry (`Authorization: Bearer <token>`); required when
   * `host` is not a loopback address.
   * @defaultValue none on loopback
   */
  readonly token?: string | undefined;
}

/**
 * A listening HTTP MCP server.
 * @public
 */
export interface McpHttpServer {
  /** The endpoint, such as `http://127.0.0.1:8931/mcp`. */
  readonly url: string;
  /** The port it listens on. */
  readonly port: number;
  /** The address it is bound to. */
  readonly host: string;
  /** Stops listening and ends every session. Idempotent. */
  close(): Promise<void>;
}

/** The most bytes of one request body. */
const maxBody = 4 * 1024 * 1024;

type WebTransport = InstanceType<Awaited<ReturnType<typeof loadServerSdk>>['WebStandardStreamableHTTPServerTransport']>;

function sendJson(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: status === 404 ? -32001 : -32000, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body);
}

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBody) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function isInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? (body as unknown[]) : [body];
  return messages.some((message) => typeof message === 'object' && message !== null && (message as { method?: unknown }).method === 'initialize');
}

/** Writes a web Response to Node's response, streaming its body (SSE) until either side ends. */
async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => (headers[key] = value));
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream);
  res.on('close', () => body.destroy());
  body.on('error', () => res.destroy());
  body.pipe(res);
}

/** Starts the HTTP listener; `serve` connects one MCP server to each new session's transport. */
export async function listenHttp(options: McpHttpOptions, serve: (transport: Transport) => Promise<void>): Promise<McpHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token === '' ? undefined : options.token;
  if (!isLoopbackHost(host) && token === undefined) {
    throw new ConfigError(
      `Binding the MCP server to ${host} (not loopback) needs a bearer token: pass --token <secret> or set PLANNAV_MCP_TOKEN, or bind to 127.0.0.1.`,
      { field: 'token' },
    );
  }
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError(`The port must be a whole number from 0 to 65535; got ${String(port)}.`, { field: 'port' });
  const sdk = await loadServerSdk();
  const sessions = new Map<string, WebTransport>();
  let bound = port;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const verdict = checkRequest(
      { host: req.headers.host, origin: req.headers.origin, authorization: req.headers.authorization },
      { host, port: bound, token },
    );
    if (!verdict.allowed) {
      req.resume();
      sendJson(res, verdict.status, verdict.reason, verdict.status === 401 ? { 'www-authenticate': 'Bearer' } : {});
      return;
    }
    const url = new URL(req.url ?? '/', 'http://server.invalid');
    if (url.pathname !== '/mcp') {
      req.resume();
      sendJson(res, 404, 'Not found: the MCP endpoint is /mcp.');
      return;
    }
    const method = req.method ?? 'GET';
    if (!['GET', 'POST', 'DELETE'].includes(method)) {
      req.resume();
      sendJson(res, 405, `Method ${method} is not allowed.`, { allow: 'GET, POST, DELETE' });
      return;
    }
    let body: Buffer | undefined;
    let parsed: unknown;
    if (method === 'POST') {
      body = await readBody(req);
      if (body === undefined) {
        sendJson(res, 413, `The request body is larger than ${maxBody} bytes.`);
        return;
      }
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch {
        sendJson(res, 400, 'The request body is not JSON.');
        return;
      }
    } else {
      req.resume();
    }
    const sessionHeader = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    let transport = sessionId === undefined ? undefined : sessions.get(sessionId);
    if (sessionId !== undefined && !transport) {
      sendJson(res, 404, 'Unknown or ended MCP session: initialize a new one.');
      return;
    }
    if (!transport) {
      if (method !== 'POST' || !isInitialize(parsed)) {
        sendJson(res, 400, 'No MCP session: send an initialize request first (without an mcp-session-id header).');
        return;
      }
      const created: WebTransport = new sdk.WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, created),
        onsessionclosed: (id) => void sessions.delete(id),
      });
      created.onclose = () => {
        if (created.sessionId !== undefined) sessions.delete(created.sessionId);
      };
      await serve(created);
      transport = created;
    }
    const headers = new Headers();
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string);
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/mcp'}`, {
      method,
      headers,
      signal: abort.signal,
      ...(body !== undefined ? { body: new Uint8Array(body) } : {}),
    });
    const response = await transport.handleRequest(request, parsed === undefined ? undefined : { parsedBody: parsed });
    await writeResponse(response, res);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      sendJson(res, 500, `Internal error: ${error instanceof Error ? error.message : String(error)}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(new ConfigError(`Could not listen on ${host}:${port}: ${error.message}`, { field: 'port', cause: error })));
    server.listen(port, host, () => resolve());
  });
  bound = (server.address() as AddressInfo).port;
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shown}:${bound}/mcp`,
    port: bound,
    host,
    close() {
      closing ??= (async () => {
        await Promise.allSettled([...sessions.values()].map((transport) => transport.close()));
        sessions.clear();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      })();
      return closing;
    },
  };
}
