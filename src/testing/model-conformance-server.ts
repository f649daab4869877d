// The loopback HTTP server of the model-client conformance kit (and of plannav's adapter tests):
// 127.0.0.1 on a free port, records each request, answers from a queue or a responder function.
// It must never listen beyond loopback, and `node:http` is reached only when a server starts, never
// imported (node-builtins.ts), so `plannav/testing` bundles and imports where Node's modules do not
// exist (a page, an extension's service worker).

import type { IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ConfigError } from '../errors';
import { nodeBuiltin } from './node-builtins';

/** A request as the server received it. */
export interface RecordedRequest {
  readonly method: string;
  /** Path and query, such as `/v1/chat/completions?api-version=2024-10-21`. */
  readonly url: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  /**
   * The parsed JSON body (the text when it is not JSON). Typed `any` on purpose: the wire-format
   * readers and the adapter tests walk provider bodies of many shapes, and this stays internal.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
  readonly body: any;
}

/** How the server answers one request. */
export type ServerReply =
  | { readonly status?: number; readonly headers?: Readonly<Record<string, string>>; readonly json: unknown }
  | { readonly status?: number; readonly headers?: Readonly<Record<string, string>>; readonly raw: string }
  /** Never answers (until the client gives up or the server closes). */
  | { readonly hang: true }
  /** Drops the connection: the client sees a network error. */
  | { readonly destroy: true };

/** Answers a request; `index` counts the requests from 0. */
export type Responder = (request: RecordedRequest, index: number) => ServerReply | Promise<ServerReply>;

/** A local HTTP server on 127.0.0.1 and a free port; {@link LoopbackServer.close} ends every connection. */
export class LoopbackServer {
  /** Every request received, oldest first. */
  readonly requests: RecordedRequest[] = [];
  private readonly queue: ServerReply[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly closedUnanswered = new Set<number>();
  private respond: Responder | undefined;

  private constructor(
    private readonly server: Server,
    /** The server's origin, `http://127.0.0.1:<port>`. */
    readonly url: string,
  ) {}

  /**
   * Starts a server on 127.0.0.1 and a free port.
   * @throws `ConfigError` in a runtime without Node's `http` module (a page, an extension's worker).
   */
  static async start(respond?: Responder): Promise<LoopbackServer> {
    const http = await nodeBuiltin('node:http');
    if (!http) {
      throw new ConfigError(
        "The conformance kits serve their test pages and model endpoints on 127.0.0.1 with Node's http module, which this runtime (a page or an extension's worker) does not have. " +
          'Run driverConformance and modelClientConformance in tests run by Node (or Bun, Deno).',
      );
    }
    const { createServer } = http;
    let instance: LoopbackServer | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        void instance?.handle(request.method ?? 'GET', request.url ?? '/', request.headers, Buffer.concat(chunks).toString('utf8'), response);
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    const { port } = server.address() as AddressInfo;
    instance = new LoopbackServer(server, `http://127.0.0.1:${port}`);
    instance.respond = respond;
    server.on('connection', (socket) => {
      instance?.sockets.add(socket);
      socket.on('close', () => instance?.sockets.delete(socket));
    });
    return instance;
  }

  /** Answers the next requests with these replies, in order, before the responder. */
  enqueue(...replies: ServerReply[]): void {
    this.queue.push(...replies);
  }

  /** Sets how requests are answered once the queue is empty. */
  setResponder(respond: Responder): void {
    this.respond = respond;
  }

  /** The last request received. */
  get last(): RecordedRequest {
    const request = this.requests[this.requests.length - 1];
    if (!request) throw new Error('The loopback server received no request.');
    return request;
  }

  /**
   * Whether the connection of request `index` closed before an answer was sent: the client gave
   * up on a request left hanging (or the reply was `destroy`).
   */
  wasClosedUnanswered(index: number): boolean {
    return this.closedUnanswered.has(index);
  }

  private async handle(method: string, url: string, headers: IncomingHttpHeaders, text: string, response: ServerResponse): Promise<void> {
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // kept as text
    }
    const parsed = new URL(url, this.url);
    const recorded: RecordedRequest = { method, url, path: parsed.pathname, query: parsed.searchParams, headers, body };
    const index = this.requests.length;
    this.requests.push(recorded);
    response.on('close', () => {
      if (!response.writableFinished) this.closedUnanswered.add(index);
    });
    const reply =
      this.queue.shift() ?? (this.respond ? await this.respond(recorded, index) : { status: 500, json: { error: { message: 'No reply scripted' } } });
    if ('hang' in reply) return;
    if ('destroy' in reply) {
      response.socket?.destroy();
      return;
    }
    const payload = 'json' in reply ? JSON.stringify(reply.json) : reply.raw;
    response.writeHead(reply.status ?? 200, { 'content-type': 'json' in reply ? 'application/json' : 'text/plain', ...reply.headers });
    response.end(payload);
  }

  /** Closes the server and every open connection, hanging ones included. Safe to call twice. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    if (!this.server.listening) return;
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Closes the server, as {@link LoopbackServer.close}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
