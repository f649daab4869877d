// A small loopback site for the fault tests: pages that load, a URL whose server never answers, and
// a page that closes its own tab; plus the two real drivers, launched the same way.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserDriver } from '../../src/browser/types';
import { PlaywrightDriver } from '../../src/playwright/index';
import { PuppeteerDriver } from '../../src/puppeteer/index';
import { procFiles } from '../helpers/proc';

/** The running site; `close()` drops every connection, hanging ones included. */
export interface FaultSite {
  readonly origin: string;
  url(path: string): string;
  /** How many requests for `/hang` arrived. */
  hangingRequests(): number;
  close(): Promise<void>;
}

const page = (title: string, body: string): string =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

const pages: Record<string, string> = {
  '/start': page('Start', '<h1>Start page</h1><p><a href="/hang">Slow partner site</a></p><p><a href="/elsewhere">Elsewhere</a></p>'),
  '/elsewhere': page('Elsewhere', '<h1>Welcome elsewhere</h1><button>Order</button>'),
  // A tab a script opened may close itself (window.close); the opener then closes with close_tab.
  '/opener': page('Opener', `<button onclick="window.open('/closing')">Open the app</button>`),
  '/closing': page('Closing app', '<h1>Closing app</h1><button onclick="window.close()">Finish and close this tab</button>'),
};

export async function startFaultSite(): Promise<FaultSite> {
  let hanging = 0;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://site').pathname;
    if (path === '/hang') {
      // Never answers: the browser waits for the document until someone gives up.
      hanging++;
      return;
    }
    const body = pages[path];
    if (body === undefined) response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    else response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (path) => `${origin}${path}`,
    hangingRequests: () => hanging,
    close: async () => {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
}

/** The drivers under test, each launched headless with short settle waits and `defaultTimeout`. */
export const drivers: readonly (readonly [
  string,
  (options: { readonly defaultTimeout?: number; readonly args?: readonly string[] }) => Promise<BrowserDriver>,
])[] = [
  ['PlaywrightDriver', (options) => PlaywrightDriver.launch({ settle: { maxWaitMs: 1000 }, ...options })],
  ['PuppeteerDriver', (options) => PuppeteerDriver.launch({ settle: { maxWaitMs: 1000 }, ...options })],
];

/** The index on the first element line of a state text whose line matches `pattern`. */
export function indexWhere(state: string, pattern: RegExp): number {
  const line = state.split('\n').find((item) => /^\s*\*?\[\d+\]</.test(item) && pattern.test(item));
  if (!line) throw new Error(`no element line matches ${String(pattern)} in:\n${state}`);
  return Number(/\[(\d+)\]/.exec(line)?.[1]);
}

/**
 * The pid of the browser process launched with `marker` among its switches (the main process, not
 * its renderers), read from /proc: only the browser this test started carries the marker.
 */
export function browserPid(marker: string): number {
  for (const [pid, commandLine] of procFiles('cmdline')) {
    const switches = commandLine.split('\0');
    if (switches.includes(marker) && !switches.some((item) => item.startsWith('--type='))) return pid;
  }
  throw new Error(`no browser process runs with ${marker}`);
}

/** Kills the process and waits (at most 10 s) until it is gone or a zombie. */
export async function killAndWait(pid: number): Promise<void> {
  process.kill(pid, 'SIGKILL');
  for (let poll = 0; poll < 200; poll++) {
    let state: string;
    try {
      state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] ?? '';
    } catch {
      return;
    }
    if (state === 'Z' || state === 'X') return;
    await new Promise((done) => setTimeout(done, 50));
  }
  throw new Error(`process ${pid} did not end within 10 s of SIGKILL`);
}
