// Serves a folder of saved pages on 127.0.0.1 for the benchmarks (bench/run.ts, links.ts, settle.ts).
// `<iframe src="javascript:…">` is removed: with page JavaScript off, Chromium waits about 30 s on each.
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join } from 'node:path';

/** Starts a server for `dir` on a free port of 127.0.0.1; the caller closes it. */
export async function serve(dir: string): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => void answer(dir, request, response));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Answers one request; never rejects: a path outside `dir` gets a 403, a malformed or missing one a 404. */
async function answer(dir: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
  try {
    const file = join(dir, decodeURIComponent(new URL(request.url ?? '/', 'http://bench').pathname));
    if (!file.startsWith(dir)) return void response.writeHead(403).end();
    const body = await readFile(file);
    if (extname(file) === '.html') {
      const html = body.toString('utf8').replace(/<iframe\b[^>]*\bsrc\s*=\s*["']?\s*javascript:[^>]*>/gi, '<iframe>');
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    } else {
      response.writeHead(200).end(body);
    }
  } catch {
    response.writeHead(404).end();
  }
}
