// Serves test/fixtures/ on two loopback origins (127.0.0.1 and 127.0.0.2 or localhost, each its own port), so
// pages can embed a cross-origin iframe. `{{OTHER_ORIGIN}}` in a page becomes the other origin.
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve } from 'node:path';

const fixturesDir = resolve(import.meta.dirname, '../fixtures');
const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
};

/** Two running origins; `close()` stops both. */
export interface FixtureServer {
  /** The main origin, such as `http://127.0.0.1:41234`. */
  readonly origin: string;
  /** A second origin for cross-origin frames, such as `http://127.0.0.2:41235`. */
  readonly otherOrigin: string;
  /** The URL of a fixture page on the main origin. */
  url(path: string): string;
  close(): Promise<void>;
}

function listen(host: string, handler: Parameters<typeof createServer>[1]): Promise<Server> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer(handler);
    server.once('error', reject);
    server.listen(0, host, () => resolvePromise(server));
  });
}

export async function startFixtureServer(): Promise<FixtureServer> {
  const origins: { main: string; other: string } = { main: '', other: '' };
  const handler =
    (isMain: boolean): Parameters<typeof createServer>[1] =>
    async (request, response) => {
      const path = new URL(request.url ?? '/', 'http://fixture').pathname;
      if (path === '/slow') {
        // A response that takes a while, for the settle tests.
        const delay = Math.min(2000, Number(new URL(request.url ?? '/', 'http://fixture').searchParams.get('ms') ?? 300));
        setTimeout(() => response.writeHead(200, { 'content-type': 'text/plain' }).end('slow done'), delay);
        return;
      }
      const file = normalize(join(fixturesDir, path === '/' ? 'index.html' : path));
      if (!file.startsWith(fixturesDir)) {
        response.writeHead(403).end();
        return;
      }
      try {
        let body: Buffer | string = await readFile(file);
        const type = types[extname(file)] ?? 'application/octet-stream';
        if (type.startsWith('text/html')) body = body.toString('utf8').replaceAll('{{OTHER_ORIGIN}}', isMain ? origins.other : origins.main);
        response.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
      } catch {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      }
    };
  const main = await listen('127.0.0.1', handler(true));
  // 127.0.0.2 is a loopback address on Linux; where it is not (macOS), `localhost` on 127.0.0.1
  // is a different site for the browser all the same.
  const secondHost = await listen('127.0.0.2', handler(false)).then(
    (server) => ({ server, name: '127.0.0.2' }),
    async () => ({ server: await listen('127.0.0.1', handler(false)), name: 'localhost' }),
  );
  const other = secondHost.server;
  origins.main = `http://127.0.0.1:${(main.address() as AddressInfo).port}`;
  origins.other = `http://${secondHost.name}:${(other.address() as AddressInfo).port}`;
  return {
    origin: origins.main,
    otherOrigin: origins.other,
    url: (path) => `${origins.main}/${path.replace(/^\//, '')}`,
    close: async () => {
      main.closeAllConnections();
      other.closeAllConnections();
      await Promise.all([new Promise((done) => main.close(done)), new Promise((done) => other.close(done))]);
    },
  };
}
