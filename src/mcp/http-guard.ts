// Who may talk to the HTTP MCP server: the Host header (no DNS rebinding), the Origin header (no
// page of another site) and, when a token is set, the bearer token. Pure: the server applies it.

import { timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/** The verdict on one request: allowed, or the HTTP status and the reason to send. */
export type RequestVerdict = { readonly allowed: true } | { readonly allowed: false; readonly status: 401 | 403; readonly reason: string };

/** What the guard knows of the server it protects. */
export interface RequestGuardOptions {
  /** The address the server is bound to, as given (`127.0.0.1`, `::1`, `0.0.0.0`, `my-box.lan`). */
  readonly host: string;
  /** The port the server listens on. */
  readonly port: number;
  /** The bearer token every request must carry; none when absent. */
  readonly token?: string | undefined;
}

/** Whether a bind address reaches only this machine. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || /^::ffff:127\./.test(bare);
  return false;
}

/** Whether a bind address is every interface (`0.0.0.0`, `::`). */
export function isWildcardHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  return bare === '0.0.0.0' || bare === '::';
}

/** `host:port` as a Host header writes it (IPv6 in brackets). */
function authority(host: string, port: number): string {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return isIP(bare) === 6 ? `[${bare}]:${port}` : `${bare}:${port}`;
}

/** The Host header values this server answers to: its bound address, and the loopback names when it is on loopback. */
export function allowedAuthorities(options: RequestGuardOptions): Set<string> {
  const names = new Set([authority(options.host, options.port)]);
  if (isLoopbackHost(options.host)) {
    for (const name of ['localhost', '127.0.0.1', '[::1]']) names.add(name === '[::1]' ? `[::1]:${options.port}` : `${name}:${options.port}`);
  }
  return names;
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Decides whether a request may reach the MCP server.
 *
 * - `Host` must name this server (its bound address and port; on loopback also `localhost`,
 *   `127.0.0.1` and `[::1]` with the port): else 403, so a rebound DNS name cannot reach it.
 * - `Origin`, when present, must be `http://` + one of those authorities: else 403, so a page of
 *   another site cannot drive it from a browser (no CORS is ever granted either).
 * - With a token, `Authorization: Bearer <token>` is required: else 401.
 */
export function checkRequest(
  headers: { readonly host?: string | undefined; readonly origin?: string | undefined; readonly authorization?: string | undefined },
  options: RequestGuardOptions,
): RequestVerdict {
  const allowed = allowedAuthorities(options);
  const host = headers.host?.trim().toLowerCase();
  // Bound to every interface, the server is reached by names it cannot know; the token (required
  // off loopback) is what keeps a rebound name or another site out.
  const anyHost = isWildcardHost(options.host) && options.token !== undefined;
  if (!host || (!anyHost && !allowed.has(host))) {
    return { allowed: false, status: 403, reason: `Host ${JSON.stringify(headers.host ?? '')} is not this server: use ${[...allowed].join(' or ')}.` };
  }
  if (headers.origin !== undefined) {
    const origin = headers.origin.trim().toLowerCase();
    const fine = anyHost ? origin === `http://${host}` || origin === `https://${host}` : [...allowed].some((name) => origin === `http://${name}`);
    if (!fine) return { allowed: false, status: 403, reason: `Origin ${JSON.stringify(headers.origin)} may not use this server.` };
  }
  if (options.token !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
    if (!match?.[1] || !sameSecret(match[1], options.token)) {
      return { allowed: false, status: 401, reason: 'A valid bearer token is required: send "Authorization: Bearer <token>".' };
    }
  }
  return { allowed: true };
}
