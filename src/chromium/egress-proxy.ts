// The local proxy every browser a driver launches sends its traffic through, so that the
// `all-requests` scope reaches what no CDP domain can stop: a WebSocket handshake of any realm
// (page, frame, dedicated, shared or service worker). Chromium opens every WebSocket, ws: or wss:,
// through an HTTP proxy with CONNECT, and the Fetch domain never sees it; a CONNECT names only its
// host and port, so the proxy decides by host. HTTP(S) requests stay the Fetch domain's to decide
// by their whole URL: the proxy only forwards them.

import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { UrlPolicyRules } from '../browser/types';
import { allowedByRules } from './websocket-guard';

/** What the proxy checks tunnels against while a guard of the `all-requests` scope is on. */
export interface TunnelGuard {
  /** The policy's rules: a tunnel is refused when no URL of its host could be allowed. */
  readonly rules: UrlPolicyRules;
  /** Called for each refused tunnel, with the URL of its host (`https://host:port/`). */
  readonly refused: (url: string) => void;
}

/**
 * Headers of one hop (RFC 9110, 7.6.1), and the proxy's own: never forwarded. `upgrade` goes too:
 * Chromium opens WebSockets with CONNECT, never with an upgrade through a forwarded request.
 */
const hopHeaders = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * Whether a tunnel to `host` could carry an allowed request, on `rules`: not when the host is
 * denied, nor when an allow list names neither the host nor an exact URL on it. A tunnel's path is
 * not seen, so an exact-URL entry is taken for its host: a WebSocket to another path of a host
 * that only an exact URL allows, or on a host that only an exact URL denies, goes through.
 */
export function tunnelAllowed(rules: UrlPolicyRules, host: string): boolean {
  const probe = `http://${host}/`;
  const hostRules = (list: UrlPolicyRules['allow']): UrlPolicyRules['allow'] => list.filter((rule) => rule.kind === 'host');
  if (!allowedByRules({ allow: [], deny: hostRules(rules.deny) }, probe)) return false;
  if (rules.allow.length === 0) return true;
  const allowedHosts = hostRules(rules.allow);
  if (allowedHosts.length > 0 && allowedByRules({ allow: allowedHosts, deny: [] }, probe)) return true;
  const hostname = hostnameOf(probe);
  return hostname !== undefined && rules.allow.some((rule) => rule.kind === 'url' && hostnameOf(rule.key) === hostname);
}

/** Whether an exact-URL entry is among `rules`: the decisions a tunnel cannot make. */
export function hasUrlRules(rules: UrlPolicyRules): boolean {
  return [...rules.allow, ...rules.deny].some((rule) => rule.kind === 'url');
}

function hostnameOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

/**
 * An HTTP proxy on 127.0.0.1 for one launched browser: tunnels (CONNECT) and forwards plain HTTP
 * requests, and while a {@link TunnelGuard} is set refuses a tunnel to a host the rules deny.
 */
export class EgressProxy {
  private guard: TunnelGuard | undefined;
  private readonly sockets = new Set<Duplex>();
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly server: Server,
    /** The proxy's address, as Chromium's `--proxy-server` takes it. */
    readonly address: string,
  ) {}

  /** Starts a proxy on a free port of 127.0.0.1. */
  static async start(): Promise<EgressProxy> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const proxy = new EgressProxy(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('connection', (socket: Socket) => proxy.track(socket));
    server.on('request', (request: IncomingMessage, response: ServerResponse) => proxy.forward(request, response));
    server.on('connect', (request: IncomingMessage, socket: Duplex, head: Buffer) => proxy.tunnel(request, socket, head));
    server.on('upgrade', (_request: IncomingMessage, socket: Duplex) => socket.end('HTTP/1.1 501 Not Implemented\r\nconnection: close\r\n\r\n'));
    return proxy;
  }

  /**
   * The switches that send all of a browser's traffic here, loopback included: Chromium otherwise
   * goes direct to localhost and 127.0.0.0/8, which a policy may deny.
   */
  get launchArgs(): readonly string[] {
    return [`--proxy-server=${this.address}`, '--proxy-bypass-list=<-loopback>'];
  }

  /** Checks tunnels against `guard` from now on; `undefined` lets every tunnel through. */
  setGuard(guard: TunnelGuard | undefined): void {
    this.guard = guard;
  }

  /** Stops listening and ends every connection. Idempotent. */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
    });
    return this.closing;
  }

  private track(socket: Duplex): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    // A browser that goes away resets its connections: not the proxy's error.
    socket.on('error', () => socket.destroy());
  }

  private tunnel(request: IncomingMessage, client: Duplex, head: Buffer): void {
    const target = parseAuthority(request.url ?? '');
    if (!target) return void client.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    const guard = this.guard;
    if (guard && !tunnelAllowed(guard.rules, target.authority)) {
      client.end('HTTP/1.1 403 Forbidden\r\nconnection: close\r\n\r\n');
      try {
        guard.refused(`https://${target.authority}/`);
      } catch {
        // A reporting hook that throws must not undo the refusal.
      }
      return;
    }
    const upstream = connect({ host: target.host, port: target.port });
    this.track(upstream);
    let established = false;
    upstream.once('connect', () => {
      established = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.once('error', () => {
      if (established) client.destroy();
      else client.end('HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\n\r\n');
    });
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => {
      if (established) client.destroy();
    });
  }

  /** A plain-HTTP request in absolute form, sent on as it came but for the headers of its hop. */
  private forward(request: IncomingMessage, response: ServerResponse): void {
    let url: URL;
    try {
      url = new URL(request.url ?? '');
    } catch {
      return void response.writeHead(400, { connection: 'close' }).end();
    }
    if (url.protocol !== 'http:') return void response.writeHead(400, { connection: 'close' }).end();
    const upstream = httpRequest(
      {
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || 80,
        method: request.method,
        path: `${url.pathname}${url.search}`,
        headers: endToEnd(request.rawHeaders),
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.rawHeaders));
        answer.pipe(response);
      },
    );
    upstream.once('error', () => {
      if (response.headersSent) response.destroy();
      else response.writeHead(502, { connection: 'close' }).end();
    });
    response.once('close', () => upstream.destroy());
    request.pipe(upstream);
  }
}

/** `host:port` of a CONNECT, IPv6 in brackets; undefined unless both are there. */
function parseAuthority(authority: string): { readonly host: string; readonly port: number; readonly authority: string } | undefined {
  const match = /^(\[[\da-f:.]+\]|[^:[\]/\s]+):(\d{1,5})$/i.exec(authority);
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65_535) return undefined;
  const host = match[1] as string;
  return { host: host.replace(/^\[|\]$/g, ''), port, authority };
}

/** Raw headers without those of one hop, nor those the `Connection` header names. */
function endToEnd(raw: readonly string[]): string[] {
  const named = new Set<string>();
  for (let index = 0; index < raw.length; index += 2) {
    if ((raw[index] as string).toLowerCase() === 'connection') for (const name of (raw[index + 1] as string).split(',')) named.add(name.trim().toLowerCase());
  }
  const kept: string[] = [];
  for (let index = 0; index < raw.length; index += 2) {
    const name = (raw[index] as string).toLowerCase();
    if (!hopHeaders.has(name) && !named.has(name)) kept.push(raw[index] as string, raw[index + 1] as string);
  }
  return kept;
}

/** Switches by which a launch sets its own proxy: the browser's traffic is theirs to route then. */
const proxySwitches = /^--(proxy-server|proxy-pac-url|proxy-auto-detect|no-proxy-server)(=|$)/;

/**
 * The proxy for a browser about to launch with `args`, or none when the launch routes its traffic
 * itself (a proxy switch in `args`, or `ownProxy`, such as Playwright's `proxy` option): WebSockets
 * of workers go unchecked then, as the guard's status says.
 */
export async function startLaunchProxy(args: readonly string[] | undefined, ownProxy = false): Promise<EgressProxy | undefined> {
  if (ownProxy || (args ?? []).some((arg) => proxySwitches.test(arg))) return undefined;
  return EgressProxy.start();
}
