// A small site on 127.0.0.1 for the secrets canary suite: pages from test/fixtures/secrets-canary/
// with the canary values filled in (`{{name|transform}}`), and a sign-in form whose posts are kept,
// so a test can check that the real value reached the server.
import { readFile } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';

const fixturesDir = resolve(import.meta.dirname, '../fixtures/secrets-canary');

/** One form post the site received. */
export interface CanaryPost {
  readonly path: string;
  /** The body's fields, decoded. */
  readonly fields: Readonly<Record<string, string>>;
  /** The body as sent. */
  readonly raw: string;
}

export interface CanarySite {
  /** Such as `http://127.0.0.1:41234`. */
  readonly origin: string;
  readonly posts: CanaryPost[];
  /** The path of every request, in order. */
  readonly requested: string[];
  /** A fixture page as the site serves it (values filled in). */
  render(page: string): Promise<string>;
  close(): Promise<void>;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Every byte as `%XX`, letters and digits too. */
export function percentEncodeAll(value: string): string {
  return Array.from(Buffer.from(value, 'utf8'))
    .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)
    .join('');
}

/** Deterministic filler text of exactly `length` characters, ending in a space. */
function padding(length: number): string {
  const words = ['the', 'quarterly', 'report', 'lists', 'every', 'engine', 'and', 'its', 'owner', 'with', 'notes', 'on', 'upkeep'];
  let text = '';
  for (let index = 0; text.length < length; index++) text += `${words[index % words.length]} `;
  return `${text.slice(0, length - 1)} `;
}

/**
 * One value with a transform applied. `html` output (boxes, cells) is returned as markup; every
 * other result is HTML-escaped by the caller.
 */
function transform(value: string, name: string, args: readonly string[]): { text: string; markup?: boolean } {
  switch (name) {
    case '':
      return { text: value };
    case 'upper':
      return { text: value.toUpperCase() };
    case 'lower':
      return { text: value.toLowerCase() };
    case 'b64':
      return { text: Buffer.from(value, 'utf8').toString('base64') };
    case 'pct':
      return { text: percentEncodeAll(value) };
    case 'uri':
      return { text: encodeURIComponent(value) };
    case 'spaced':
      return { text: Array.from(value).join(' ') };
    case 'hyphens':
      return { text: Array.from(value).join('-') };
    case 'dashed':
      return { text: (value.match(/.{1,4}/g) ?? []).join('-') };
    case 'slice':
      return { text: value.slice(Number(args[0] ?? 0), args[1] === undefined ? undefined : Number(args[1])) };
    case 'boxes':
      return {
        markup: true,
        text: Array.from(value)
          .map((character, index) => `<input type="text" size="1" maxlength="1" value="${escapeHtml(character)}" aria-label="Digit ${index + 1}" readonly>`)
          .join(''),
      };
    case 'cells':
      return {
        markup: true,
        text: Array.from(value)
          .map((character) => `<span class="cell">${escapeHtml(character)}</span>`)
          .join(''),
      };
    default:
      throw new Error(`Unknown transform ${name} in a secrets-canary fixture`);
  }
}

/** Fills `{{name|transform:arg:arg}}` and `{{pad:N}}` in a fixture page. */
export function fillTemplate(page: string, values: Readonly<Record<string, string>>): string {
  return page.replace(/\{\{([^}]+)\}\}/g, (_whole, inner: string) => {
    const [head, ...rest] = inner.split('|');
    const pad = /^pad:(\d+)$/.exec(head ?? '');
    if (pad) return padding(Number(pad[1]));
    const value = values[head ?? ''];
    if (value === undefined) throw new Error(`Unknown value ${head} in a secrets-canary fixture`);
    const [name = '', ...args] = (rest[0] ?? '').split(':');
    const result = transform(value, name, args);
    return result.markup ? result.text : escapeHtml(result.text);
  });
}

/** Starts the site; `values` fill the pages, `accountPath` is where `/account` redirects (the URL itself may carry values). */
export async function startCanarySite(values: Readonly<Record<string, string>>, accountPath: string): Promise<CanarySite> {
  const posts: CanaryPost[] = [];
  const requested: string[] = [];
  const render = async (page: string): Promise<string> => fillTemplate(await readFile(resolve(fixturesDir, page), 'utf8'), values);
  const send = (response: ServerResponse, status: number, body: string): void => {
    response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(body);
  };
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://site');
    requested.push(request.url ?? '/');
    void (async () => {
      if (request.method === 'POST' && url.pathname === '/submit') {
        const chunks: Buffer[] = [];
        for await (const chunk of request) chunks.push(chunk as Buffer);
        const raw = Buffer.concat(chunks).toString('utf8');
        posts.push({ path: url.pathname, raw, fields: Object.fromEntries(new URLSearchParams(raw)) });
        response.writeHead(303, { location: '/welcome' }).end();
        return;
      }
      if (url.pathname === '/account') {
        response.writeHead(302, { location: accountPath }).end();
        return;
      }
      if (url.pathname.startsWith('/account/')) return send(response, 200, await render('account.html'));
      if (url.pathname === '/login') return send(response, 200, await render('login.html'));
      if (url.pathname === '/welcome') return send(response, 200, await render('welcome.html'));
      send(response, 404, '<!doctype html><title>Not found</title><p>Not found</p>');
    })().catch(() => {
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  await new Promise<void>((done, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', done);
  });
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    posts,
    requested,
    render,
    close: async () => {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
}
