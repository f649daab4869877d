// Who may talk to the run page's server: pure checks of a request's Host, Origin and token, so
// the rules are unit-tested without a socket. No I/O here, and no header is ever trusted for more.

import { timingSafeEqual } from 'node:crypto';

/** The parts of a request the guard reads. */
export interface GuardedRequest {
  readonly method: string;
  /** The request target as sent: a path with its query, such as `/events?token=…`. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
}

/** What the server is and holds: the port it listens on and the token of this launch. */
export interface GuardSettings {
  readonly port: number;
  readonly token: string;
}

/** The guard's decision: go on, or refuse with this status and a short reason for the response body. */
export type GuardDecision = { readonly allowed: true } | { readonly allowed: false; readonly status: 401 | 403; readonly reason: string };

/** The one value of a header; a header sent twice is refused as if absent-but-wrong, never merged. */
function single(value: string | readonly string[] | undefined): string | undefined {
  if (Array.isArray(value)) return value.length === 1 ? (value[0] as string) : '';
  return value as string | undefined;
}

/** The hosts this server answers to: the loopback address and `localhost`, on its own port only. */
export function allowedHosts(port: number): readonly string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

/**
 * Whether `host` (a Host header) names this server. Anything else is DNS rebinding (a foreign
 * name that resolves to 127.0.0.1) or a confused client, and gets 403.
 */
export function isAllowedHost(host: string | undefined, port: number): boolean {
  return host !== undefined && allowedHosts(port).includes(host.toLowerCase());
}

/**
 * Whether an Origin header may talk to this server: absent (a top-level navigation, or a
 * same-origin GET the browser sends without one), or exactly this server's own origin. `null`
 * (a sandboxed frame, a file: page) and every other site are refused.
 */
export function isAllowedOrigin(origin: string | undefined, port: number): boolean {
  if (origin === undefined) return true;
  return allowedHosts(port).some((host) => origin.toLowerCase() === `http://${host}`);
}

/** Compares two tokens in a time that does not depend on where they differ. */
export function tokensEqual(given: string | undefined, token: string): boolean {
  if (given === undefined || token.length === 0) return false;
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(token, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The token a request carries: `Authorization: Bearer …`, or `x-plannav-token`, or, on a GET
 * only (the page, the event stream, a download link), `?token=`. A POST must send a header: no
 * page of another site can add one without a CORS preflight, which this server never answers.
 */
export function requestToken(request: GuardedRequest): string | undefined {
  const authorization = single(request.headers.authorization);
  const bearer = authorization && /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
  if (bearer) return bearer;
  const header = single(request.headers['x-plannav-token']);
  if (header) return header;
  if (request.method === 'GET' || request.method === 'HEAD') return new URL(request.url, 'http://localhost').searchParams.get('token') ?? undefined;
  return undefined;
}

/**
 * Decides whether a request may be served: a foreign Host or Origin gets 403 first (before the
 * token is even looked at, so a rebinding page learns nothing), then a missing or wrong token
 * gets 401. Every route, the page included, needs the token: the page is opened with it in its URL.
 */
export function checkRequest(request: GuardedRequest, settings: GuardSettings): GuardDecision {
  if (!isAllowedHost(single(request.headers.host), settings.port)) {
    return { allowed: false, status: 403, reason: 'Forbidden: this server answers only to 127.0.0.1 and localhost on its own port.' };
  }
  if (!isAllowedOrigin(single(request.headers.origin), settings.port)) {
    return { allowed: false, status: 403, reason: 'Forbidden: requests from other sites are refused.' };
  }
  if (!tokensEqual(requestToken(request), settings.token)) {
    return { allowed: false, status: 401, reason: 'Unauthorized: open the URL that `plannav ui` printed; it carries the token.' };
  }
  return { allowed: true };
}
