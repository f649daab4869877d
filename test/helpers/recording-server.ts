// A loopback HTTP server that records the path of every request it gets, for tests that check
// what a page reached (or did not reach).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordingServer {
  /** Such as `http://127.0.0.2:41234`. */
  readonly origin: string;
  /** The path and query of every request, in order. */
  readonly received: string[];
  close(): Promise<void>;
}

/** A server on `host` (a loopback address) that records the path of every request and answers with `respond`. */
export async function startRecordingServer(
  host: string,
  respond: (request: IncomingMessage, response: ServerResponse) => Promise<void> | void,
): Promise<RecordingServer> {
  const received: string[] = [];
  const server: Server = createServer((request, response) => {
    received.push(request.url ?? '/');
    void Promise.resolve(respond(request, response)).catch(() => response.writeHead(500).end());
  });
  await new Promise<void>((done, reject) => {
    server.once('error', reject);
    server.listen(0, host, done);
  });
  return {
    origin: `http://${host}:${(server.address() as AddressInfo).port}`,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
}
