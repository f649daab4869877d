// WebSocket handshakes under the `all-requests` scope. Chromium's Fetch domain and
// Network.setBlockedURLs do not see them, so a wrapper of `WebSocket`, installed in every page,
// frame and worker before it runs (see RequestGuard), decides from the policy's rules as data and
// throws a SecurityError for a denied URL before the native constructor could connect.
// Everything here but the types runs inside the page too: no imports, no outside references.

import type { UrlPolicyRules } from '../browser/types';

/** What the wrapper in every realm decides on: whether it checks at all, and the rules. */
export interface WebSocketGuardState {
  readonly enabled: boolean;
  readonly rules: UrlPolicyRules;
}

/**
 * Whether `UrlPolicy.check` would allow `url`, decided on `rules` (`UrlPolicy.toRules()`) with the
 * realm's own WHATWG `URL`; self-contained, so it runs in a page as its `toString()`.
 */
export function allowedByRules(rules: UrlPolicyRules, url: string): boolean {
  const parseHost = (host: string): string | undefined => {
    try {
      return new URL(`http://${host}`).hostname;
    } catch {
      return undefined;
    }
  };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === 'about:' && parsed.pathname === 'blank') return true;
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  // normalizeHost (src/security/host.ts): root dots dropped, then parsed again; IPv4-mapped IPv6 as IPv4.
  const raw = parsed.hostname;
  const trimmed = raw.replace(/\.+$/, '');
  if (trimmed === '') return false;
  const host = trimmed === raw ? raw : parseHost(trimmed);
  if (host === undefined) return false;
  const mapped = /^\[::ffff:([\da-f]{1,4}):([\da-f]{1,4})\]$/.exec(host);
  let normal = host;
  if (mapped) {
    const high = Number.parseInt(mapped[1] as string, 16);
    const low = Number.parseInt(mapped[2] as string, 16);
    normal = [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  }
  const key = `${parsed.protocol}//${normal}${parsed.port === '' ? '' : `:${parsed.port}`}${parsed.pathname}${parsed.search}`;
  const isIp = (name: string): boolean => name.startsWith('[') || /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
  const matches = (rule: UrlPolicyRules['allow'][number]): boolean => {
    if (rule.kind === 'url') return rule.key === key;
    if (normal === rule.host) return !rule.subdomainsOnly;
    return !isIp(rule.host) && normal.endsWith(`.${rule.host}`);
  };
  if (rules.deny.some(matches)) return false;
  return rules.allow.length === 0 || rules.allow.some(matches);
}

/**
 * Installs the wrapper in the realm it runs in (once; later runs only update the state, given
 * the right token). Self-contained: runs in the page as its `toString()`.
 */
export function installWebSocketGuard(token: string, bindingName: string, state: WebSocketGuardState, allowed: typeof allowedByRules): void {
  const realm = globalThis as unknown as Record<symbol | string, unknown> & { WebSocket?: typeof WebSocket };
  const key = Symbol.for('plannav.websocket-guard');
  const existing = realm[key] as ((token: string, state: WebSocketGuardState) => void) | undefined;
  if (typeof existing === 'function') return existing(token, state);
  const Native = realm.WebSocket;
  if (typeof Native !== 'function') return;
  let current = state;
  // The binding may come after this script in a new document: looked up at the first report.
  let report: ((payload: string) => void) | undefined;
  const Guarded = function WebSocket(this: unknown, url: string | URL, protocols?: string | string[]): WebSocket {
    if (new.target === undefined) return Reflect.apply(Native, this, [url, protocols]) as WebSocket;
    if (current.enabled) {
      let resolved: URL | undefined;
      try {
        resolved = new URL(String(url), (realm as { location?: { href: string } }).location?.href);
      } catch {
        resolved = undefined; // The native constructor throws its own SyntaxError.
      }
      if (resolved && (resolved.protocol === 'ws:' || resolved.protocol === 'wss:' || resolved.protocol === 'http:' || resolved.protocol === 'https:')) {
        const checked = resolved.href.replace(/^ws(s?):/, 'http$1:');
        if (!allowed(current.rules, checked)) {
          try {
            report ??= realm[bindingName] as ((payload: string) => void) | undefined;
            report?.(resolved.href);
          } catch {
            // Reporting must not let the socket through.
          }
          throw new DOMException(`Failed to construct 'WebSocket': the URL policy denies ${resolved.host}.`, 'SecurityError');
        }
      }
    }
    return Reflect.construct(Native, protocols === undefined ? [url] : [url, protocols], new.target) as WebSocket;
  } as unknown as typeof WebSocket;
  // Same prototype, so `instanceof`, subclasses and the static constants keep working.
  Object.defineProperty(Guarded, 'prototype', { value: Native.prototype, writable: false, enumerable: false, configurable: false });
  for (const name of ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED'] as const) {
    Object.defineProperty(Guarded, name, { value: Native[name], writable: false, enumerable: true, configurable: false });
  }
  Object.defineProperty(Native.prototype, 'constructor', { value: Guarded, writable: true, enumerable: false, configurable: true });
  const nativeSource = Function.prototype.toString.call(Native);
  Object.defineProperty(Guarded, 'toString', { value: () => nativeSource, writable: true, configurable: true });
  Object.defineProperty(realm, 'WebSocket', { value: Guarded, writable: false, enumerable: false, configurable: false });
  Object.defineProperty(realm, key, {
    value: (given: string, next: WebSocketGuardState) => {
      if (given === token) current = next;
    },
    writable: false,
    enumerable: false,
    configurable: false,
  });
}

/** The source that installs (or updates) the wrapper in the realm it is evaluated in. */
export function webSocketGuardSource(token: string, bindingName: string, state: WebSocketGuardState): string {
  const args = [JSON.stringify(token), JSON.stringify(bindingName), JSON.stringify(state), `(${allowedByRules.toString()})`].join(', ');
  // `__name`: the helper some bundlers (esbuild's keepNames, as vitest and tsx run it) call in function sources.
  return `(() => { const __name = (target) => target; try { (${installWebSocketGuard.toString()})(${args}); } catch {} })();`;
}
