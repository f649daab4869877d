// A local HTTP server for adapter tests: listens on 127.0.0.1 on a random port, records every
// request (method, path, headers, JSON body) and answers from a queue or a respond function.

import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A request as the server received it. */
export interface RecordedRequest {
  readonly method: string;
  /** Path and query, such as `/v1/chat/completions?api-version=2024-10-21`. */
  readonly url: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
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

export type Responder = (request: RecordedRequest, index: number) => ServerReply | Promise<ServerReply>;

export class MockServer {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: ServerReply[] = [];
  private readonly sockets = new Set<Socket>();
  private respond: Responder | undefined;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  /** Starts a server on 127.0.0.1 and a random port. */
  static async start(respond?: Responder): Promise<MockServer> {
    let instance: MockServer | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        void instance?.handle(request.method ?? 'GET', request.url ?? '/', request.headers, Buffer.concat(chunks).toString('utf8'), response);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    instance = new MockServer(server, `http://127.0.0.1:${port}`);
    instance.respond = respond;
    server.on('connection', (socket) => {
      instance?.sockets.add(socket);
      socket.on('close', () => instance?.sockets.delete(socket));
    });
    return instance;
  }

  /** Answers the next requests with these replies, in order, before the respond function. */
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
    if (!request) throw new Error('The mock server received no request.');
    return request;
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
    const reply = this.queue.shift() ?? (this.respond ? await this.respond(recorded, index) : { status: 500, json: { error: { message: 'No reply scripted' } } });
    if ('hang' in reply) return;
    if ('destroy' in reply) {
      response.socket?.destroy();
      return;
    }
    const payload = 'json' in reply ? JSON.stringify(reply.json) : reply.raw;
    response.writeHead(reply.status ?? 200, { 'content-type': 'json' in reply ? 'application/json' : 'text/plain', ...reply.headers });
    response.end(payload);
  }

  /** Closes the server and every open connection, hanging ones included. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
