// The site of the staying-logged-in tests: a login form whose answer sets an HttpOnly session
// cookie (persistent, so a profile keeps it across restarts) and a localStorage value, and an
// account page that tells the server what it found (the cookie it was sent, the localStorage the
// page sees). The secrets are random per site, so a test can search any text for them.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { procFiles } from './proc';
import { startRecordingServer, type RecordingServer } from './recording-server';

/** What the account page found on one visit. */
export interface AccountVisit {
  /** The server was sent the session cookie with the right value. */
  readonly cookie: boolean;
  /** The localStorage value the page read (`'none'` when absent). */
  readonly localStorage: string;
}

export interface LoginSite {
  readonly origin: string;
  url(path: string): string;
  /** The session cookie's value: a secret that must never show in history, events or logs. */
  readonly sessionValue: string;
  /** The localStorage value the login writes: a secret too. */
  readonly storageValue: string;
  /** The account page's reports, in order. */
  readonly visits: AccountVisit[];
  /** How many times the login form was submitted. */
  readonly logins: () => number;
  readonly server: RecordingServer;
  close(): Promise<void>;
}

export const sessionCookieName = 'plannav_sid';
export const storageKey = 'plannav-theme';

type Route = (request: IncomingMessage, response: ServerResponse, url: URL) => void;

function html(response: ServerResponse, body: string, headers: Record<string, string> = {}): void {
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers }).end(`<!doctype html>${body}`);
}

/** Starts the login site on 127.0.0.1 (or `host`); `extra` answers other paths. */
export async function startLoginSite(extra: Record<string, Route> = {}, host = '127.0.0.1'): Promise<LoginSite> {
  const sessionValue = `sid-${randomBytes(12).toString('hex')}`;
  const storageValue = `ls-${randomBytes(12).toString('hex')}`;
  const visits: AccountVisit[] = [];
  let logins = 0;
  const server = await startRecordingServer(host, (request, response) => {
    const url = new URL(request.url ?? '/', 'http://site');
    const cookies = new Map(
      (request.headers.cookie ?? '')
        .split(';')
        .map((part) => part.trim().split('='))
        .map(([name, ...value]) => [name ?? '', value.join('=')]),
    );
    const route = extra[url.pathname];
    if (route) return route(request, response, url);
    switch (url.pathname) {
      case '/login':
        return html(
          response,
          `<title>Log in</title><h1>Log in</h1><form action="/login/submit" method="get"><label>User <input name="user"></label><button>Log in</button></form>`,
        );
      case '/login/submit':
        logins++;
        return html(
          response,
          `<title>Logged in</title><h1>Logged in as ${url.searchParams.get('user') === 'ada' ? 'ada' : 'someone'}</h1>
           <script>localStorage.setItem(${JSON.stringify(storageKey)}, ${JSON.stringify(storageValue)});</script>`,
          { 'set-cookie': `${sessionCookieName}=${sessionValue}; Path=/; HttpOnly; SameSite=Lax; Max-Age=86400` },
        );
      case '/account': {
        const loggedIn = cookies.get(sessionCookieName) === sessionValue;
        // The page shows whether it is logged in, never the secrets themselves.
        return html(
          response,
          `<title>Account</title><h1>${loggedIn ? 'Welcome back, ada' : 'Please log in'}</h1><p id="theme">Theme saved: …</p>
           <button onclick="document.getElementById('out').textContent = 'Statement ready'">Show statement</button><p id="out"></p>
           <script>
             const value = localStorage.getItem(${JSON.stringify(storageKey)});
             document.getElementById('theme').textContent = 'Theme saved: ' + (value ? 'yes' : 'no');
             fetch('/seen?cookie=${loggedIn ? 1 : 0}&ls=' + encodeURIComponent(value ?? 'none'));
           </script>`,
        );
      }
      case '/seen':
        visits.push({ cookie: url.searchParams.get('cookie') === '1', localStorage: url.searchParams.get('ls') ?? '' });
        return void response.writeHead(204).end();
      default:
        response.writeHead(404).end();
    }
  });
  return {
    origin: server.origin,
    url: (path) => `${server.origin}${path}`,
    sessionValue,
    storageValue,
    visits,
    logins: () => logins,
    server,
    close: () => server.close(),
  };
}

/** Polls `check` every 50 ms until it returns a value other than undefined/false, or throws after `ms`. */
export async function pollUntil<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${ms} ms waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Visits the account page with `goto` and returns what the page reported (the next visit). */
export async function visitAccount(site: LoginSite, goto: (url: string) => Promise<unknown>): Promise<AccountVisit> {
  const before = site.visits.length;
  await goto(site.url('/account'));
  return pollUntil('the account page to report', () => site.visits[before]);
}

/** Rejects with a clear message when `promise` has not settled after `ms`: a hang fails instead of stalling the file. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms (a hang)`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The switches the tests start a Chromium of their own with (as a user would, headless here). */
export const userChromiumArgs = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
];

export interface UserChromium {
  readonly process: ChildProcess;
  readonly pid: number;
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>;
  /** The DevTools HTTP address, such as `http://127.0.0.1:9222`, when started with a debugging port. */
  debuggingUrl(): Promise<string>;
  /**
   * Ends the browser and every process it started (its process group: zygotes, renderers, the storage and network
   * services) with SIGKILL, and waits until none is left running, so that nothing writes to the profile after.
   */
  kill(): Promise<void>;
}

/** Whether a process of the group `pgid` is still running (a zombie, which has ended, does not count). */
function groupRunning(pgid: number): boolean {
  for (const [, stat] of procFiles('stat')) {
    // After the command's closing parenthesis: state, parent pid, process group.
    const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(group) === pgid && state !== 'Z') return true;
  }
  return false;
}

/** Starts /usr/bin/chromium on `userDataDir` with `extraArgs` (and the URLs to open last). */
export function spawnChromium(userDataDir: string, extraArgs: readonly string[] = [], urls: readonly string[] = []): UserChromium {
  // A process group of its own, so that kill() reaches the helpers too: a killed browser's storage service went on
  // writing to the profile for seconds on a loaded machine, and removing the profile failed (ENOTEMPTY).
  const child = spawn('/usr/bin/chromium', [...userChromiumArgs, `--user-data-dir=${userDataDir}`, ...extraArgs, ...urls], {
    stdio: 'ignore',
    detached: true,
  });
  // Its own group outlives this process unless killed: a worker that ends (a failed run, Ctrl-C) takes it along.
  const killGroup = (): void => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // The group has ended already.
    }
  };
  process.once('exit', killGroup);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    process: child,
    pid: child.pid ?? -1,
    exited,
    debuggingUrl: async () => {
      // Chromium writes the port it chose (port 0) to DevToolsActivePort in the profile.
      const file = join(userDataDir, 'DevToolsActivePort');
      const port = await pollUntil('DevToolsActivePort', () => (existsSync(file) ? /^(\d+)\n/.exec(readFileSync(file, 'utf8'))?.[1] : undefined), 15_000);
      return `http://127.0.0.1:${port}`;
    },
    kill: async () => {
      process.off('exit', killGroup);
      const pgid = child.pid;
      if (pgid === undefined) return;
      killGroup();
      await exited;
      await pollUntil("the killed browser's processes to end", () => !groupRunning(pgid) || undefined, 15_000);
    },
  };
}

/** The browser process (not a renderer or helper, which carry `--type=`) running on `userDataDir`, if any. */
export function browserPidOf(userDataDir: string): number | undefined {
  for (const [pid, commandLine] of procFiles('cmdline')) {
    const args = commandLine.split('\0');
    if (args.some((arg) => arg === `--user-data-dir=${userDataDir}`) && !args.some((arg) => arg.startsWith('--type='))) return pid;
  }
  return undefined;
}
