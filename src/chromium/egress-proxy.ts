// The local proxy through which a browser a driver launched opens its WebSockets, so that the
// `all-requests` scope reaches what no CDP domain can stop: a WebSocket handshake of any realm
// (page, frame, dedicated, shared or service worker). A PAC script sends ws: and wss: URLs, and
// only those, to the proxy, which Chromium asks with CONNECT; a CONNECT names only its host and
// port, so the proxy decides by host. Every other request goes direct, so a page's loads and
// their network errors are what they would be without the proxy. Chromium never lets a PAC script
// proxy loopback and link-local hosts (its implicit bypass rules: localhost, 127.0.0.0/8, [::1],
// 169.254.0.0/16, [fe80::]/10): WebSockets to those go direct too.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
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

/** The hosts Chromium never sends through a proxy a PAC script names (its implicit bypass rules), in the policy's normal form. */
const implicitlyDirect =
  /^(localhost|.+\.localhost|localhost6|localhost6\.localdomain6|127\.\d+\.\d+\.\d+|169\.254\.\d+\.\d+|\[::1\]|\[fe[89ab][\da-f]?:[\da-f:.]*\])$/i;

/** The words for those hosts in a log. */
export const implicitlyDirectHosts = 'loopback and link-local hosts (localhost, 127.0.0.0/8, [::1], 169.254.0.0/16, [fe80::]/10)';

/**
 * One driver's say over the tunnels of a proxy: an {@link EgressProxy} itself, or one of the
 * gates it gives the drivers of a pool ({@link EgressProxy.gate}), which share its browser.
 */
export interface TunnelGate {
  /** Checks tunnels against `guard` from now on (see {@link EgressProxy.setGuard}); `undefined` lifts this gate's check. */
  setGuard(guard: TunnelGuard | undefined): void;
}

/** Whether `rules` deny a host that Chromium never proxies (see {@link implicitlyDirectHosts}). */
export function deniesDirectHosts(rules: UrlPolicyRules): boolean {
  // A non-empty allow list denies some of them: it cannot name all of 127.0.0.0/8.
  if (rules.allow.length > 0) return true;
  return rules.deny.some((rule) => rule.kind === 'host' && implicitlyDirect.test(rule.host));
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
 * A tunnelling proxy on 127.0.0.1 for one launched browser's WebSockets: while a
 * {@link TunnelGuard} is set, it refuses a tunnel to a host the rules deny.
 */
export class EgressProxy implements TunnelGate {
  /** The guard of each gate (the proxy itself is one): a tunnel goes through only when all allow it. */
  private readonly guards = new Map<object, TunnelGuard>();
  private readonly sockets = new Set<Duplex>();
  /** The browser's side of each open tunnel, with the `host:port` it asked for. */
  private readonly tunnels = new Map<Duplex, string>();
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly server: Server,
    /** The proxy's address, `http://127.0.0.1:port`. */
    readonly address: string,
    private readonly resolverRules: readonly HostRule[],
  ) {}

  /**
   * Starts a proxy on a free port of 127.0.0.1. `hostResolverRules` are the browser's own
   * (`--host-resolver-rules`): the proxy connects where the browser would have.
   */
  static async start(hostResolverRules?: string): Promise<EgressProxy> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const proxy = new EgressProxy(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, parseResolverRules(hostResolverRules));
    // A failed accept (too many open files) is the one connection's loss, not the process's.
    server.on('error', () => undefined);
    server.on('connection', (socket: Socket) => proxy.track(socket));
    // The PAC script sends only WebSockets here, as tunnels: anything else is not for this proxy.
    server.on('request', (_request: IncomingMessage, response: ServerResponse) => void response.writeHead(405, { connection: 'close' }).end());
    server.on('connect', (request: IncomingMessage, socket: Duplex, head: Buffer) => proxy.tunnel(request, socket, head));
    return proxy;
  }

  /** The switch that sends a browser's WebSockets here, and nothing else: a PAC script as a `data:` URL. */
  get launchArgs(): readonly string[] {
    const { host } = new URL(this.address);
    const script = `function FindProxyForURL(url, host) { return /^wss?:/i.test(url) ? 'PROXY ${host}' : 'DIRECT'; }`;
    return [`--proxy-pac-url=data:application/x-ns-proxy-autoconfig;base64,${Buffer.from(script).toString('base64')}`];
  }

  /**
   * Checks tunnels against `guard` from now on, and ends the open ones it denies (a WebSocket
   * opened before the guard, or under laxer rules); `undefined` lets every tunnel through that
   * no gate's guard denies.
   */
  setGuard(guard: TunnelGuard | undefined): void {
    this.setGuardOf(this, guard);
  }

  /**
   * A gate of its own for one driver of a browser that several drivers share (a pool): a tunnel
   * goes through only when every gate's guard allows it, and a refusal is reported to each guard
   * that denies it. The proxy sees no browser context, only the host a tunnel asks for, so it
   * cannot tell whose WebSocket it is: one driver's rules apply to every driver of the browser.
   */
  gate(): TunnelGate {
    const key = {};
    return { setGuard: (guard) => this.setGuardOf(key, guard) };
  }

  private setGuardOf(key: object, guard: TunnelGuard | undefined): void {
    if (!guard) return void this.guards.delete(key);
    this.guards.set(key, guard);
    for (const [client, authority] of this.tunnels) {
      if (tunnelAllowed(guard.rules, authority)) continue;
      client.destroy();
      report(guard, authority);
    }
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
    const denying = [...this.guards.values()].filter((guard) => !tunnelAllowed(guard.rules, target.authority));
    if (denying.length > 0) {
      client.end('HTTP/1.1 403 Forbidden\r\nconnection: close\r\n\r\n');
      for (const guard of denying) report(guard, target.authority);
      return;
    }
    const mapped = mapHost(this.resolverRules, target.host, target.port);
    if (!mapped) return void client.end('HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\n\r\n');
    const upstream = connect(mapped);
    this.track(upstream);
    this.tunnels.set(client, target.authority);
    client.once('close', () => this.tunnels.delete(client));
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
}

/** Tells the guard of a refused tunnel; a reporting hook that throws must not undo the refusal. */
function report(guard: TunnelGuard, authority: string): void {
  try {
    guard.refused(`https://${authority}/`);
  } catch {
    // Nothing to do: the tunnel is refused either way.
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

/** A rule of Chromium's `--host-resolver-rules`: `MAP pattern replacement` or `EXCLUDE pattern`. */
interface HostRule {
  readonly pattern: RegExp;
  /** `host` or `host:port`; `~NOTFOUND` fails the name; undefined for EXCLUDE. */
  readonly replacement: string | undefined;
}

/** The rules of a `--host-resolver-rules` value (comma-separated); rules it cannot read are left out. */
function parseResolverRules(value: string | undefined): HostRule[] {
  const rules: HostRule[] = [];
  for (const text of (value ?? '').split(',')) {
    const [verb, pattern, replacement] = text.trim().split(/\s+/);
    if (pattern === undefined || (verb?.toUpperCase() === 'MAP' && replacement === undefined)) continue;
    // Chromium's patterns: `*` any run of characters, `?` one character.
    const glob = new RegExp(
      `^${pattern
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.')}$`,
      'i',
    );
    if (verb?.toUpperCase() === 'MAP') rules.push({ pattern: glob, replacement });
    else if (verb?.toUpperCase() === 'EXCLUDE') rules.push({ pattern: glob, replacement: undefined });
  }
  return rules;
}

/**
 * Where a tunnel to `host:port` connects under `rules`, as Chromium reads them: a host that an
 * EXCLUDE names anywhere in the list is not mapped, else the first MAP that matches; undefined for `~NOTFOUND`.
 */
function mapHost(rules: readonly HostRule[], host: string, port: number): { readonly host: string; readonly port: number } | undefined {
  const matches = (candidate: HostRule): boolean => candidate.pattern.test(host) || candidate.pattern.test(`${host}:${port}`);
  if (rules.some((candidate) => candidate.replacement === undefined && matches(candidate))) return { host, port };
  const rule = rules.find((candidate) => candidate.replacement !== undefined && matches(candidate));
  if (rule?.replacement === undefined) return { host, port };
  if (rule.replacement === '~NOTFOUND') return undefined;
  const target = parseAuthority(rule.replacement) ?? { host: rule.replacement.replace(/^\[|\]$/g, ''), port };
  return { host: target.host, port: target.port };
}

/** Switches by which a launch sets its own proxy (Chromium reads one leading dash as two): the browser's traffic is theirs to route then. */
const proxySwitches = /^--?(proxy-server|proxy-pac-url|proxy-auto-detect|no-proxy-server)(=|$)/;

/** The environment variables by which Chromium on Linux takes a proxy when no switch names one. */
const proxyVariables = ['http_proxy', 'https_proxy', 'all_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY'];

/**
 * The proxy for a browser about to launch with `args`, or none when the launch routes its traffic
 * itself: a proxy switch in `args`, `ownProxy` (such as Playwright's `proxy` option), or a proxy
 * in the environment (`http_proxy` and the like), which the PAC script would override. WebSockets
 * are not checked by a proxy then, as the guard's status says.
 */
export async function startLaunchProxy(
  args: readonly string[] | undefined,
  ownProxy = false,
  env: NodeJS.ProcessEnv = process.env,
): Promise<EgressProxy | undefined> {
  if (ownProxy || (args ?? []).some((arg) => proxySwitches.test(arg))) return undefined;
  if (proxyVariables.some((name) => (env[name] ?? '') !== '')) return undefined;
  const resolverRules = (args ?? []).findLast((arg) => /^--?host-resolver-rules=/.test(arg));
  return EgressProxy.start(resolverRules?.replace(/^--?host-resolver-rules=/, '').replace(/^"|"$/g, ''));
}
