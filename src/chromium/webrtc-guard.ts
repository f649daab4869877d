// WebRTC under the `all-requests` scope. ICE sends STUN packets over UDP (or TCP) to STUN and TURN
// servers and to remote peers, which neither the Fetch domain nor a proxy sees, so a wrapper of
// `RTCPeerConnection`, installed in every document before it runs, leaves out each ICE server and
// remote candidate the policy denies, and reports it. It never throws for them: the page goes on
// as if that server or peer did not answer. Everything here but the types runs inside the page too.

import { allowedByRules, type WebSocketGuardState } from './websocket-guard';

/**
 * The URL the policy decides on for a WebRTC target: an ICE server's URL (`stun:host:port`,
 * `turns:host?transport=tcp`) or a remote candidate as the wrapper reports it (`udp://host:port`,
 * `tcp://host:port`), as `http://host:port/`; undefined when it names no host. Self-contained,
 * so it runs in a page as its `toString()`.
 */
export function webRtcCheckUrl(target: string): string | undefined {
  const match = /^(?:stuns?|turns?):(?:\/\/)?([^?#/]*)|^(?:udp|tcp):\/\/([^?#/]*)/i.exec(target.trim());
  const authority = match?.[1] ?? match?.[2];
  if (!authority) return undefined;
  // `host`, `host:port`, `[v6]` or `[v6]:port`.
  const parts = /^(\[[^\]]*\]|[^:]+)(?::(\d{1,5}))?$/.exec(authority);
  if (!parts) return undefined;
  return `http://${parts[1] as string}${parts[2] === undefined ? '' : `:${parts[2]}`}/`;
}

/**
 * Installs the wrapper in the realm it runs in (once; later runs only update the state, given the
 * right token). Self-contained: runs in the page as its `toString()`. Realms without
 * `RTCPeerConnection` (workers) are left alone.
 */
export function installWebRtcGuard(
  token: string,
  bindingName: string,
  state: WebSocketGuardState,
  allowed: typeof allowedByRules,
  checkUrl: typeof webRtcCheckUrl,
): void {
  type Connection = typeof RTCPeerConnection;
  const realm = globalThis as unknown as Record<symbol | string, unknown> & { RTCPeerConnection?: Connection };
  const key = Symbol.for('plannav.webrtc-guard');
  const existing = realm[key] as ((token: string, state: WebSocketGuardState) => void) | undefined;
  if (typeof existing === 'function') return existing(token, state);
  const Native = realm.RTCPeerConnection;
  if (typeof Native !== 'function') return;
  let current = state;
  // The binding may come after this script in a new document: looked up at the first report.
  let report: ((payload: string) => void) | undefined;
  /** Whether the policy denies `target`; a denied one is reported. A target naming no host is denied. */
  const denies = (target: string): boolean => {
    if (!current.enabled) return false;
    const url = checkUrl(target);
    if (url !== undefined && allowed(current.rules, url)) return false;
    try {
      report ??= realm[bindingName] as ((payload: string) => void) | undefined;
      report?.(target);
    } catch {
      // Reporting must not let the target through.
    }
    return true;
  };
  const isIterable = (value: unknown): value is Iterable<unknown> =>
    value !== null && typeof value === 'object' && typeof (value as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function';
  /**
   * A copy of a configuration without the ICE server URLs the policy denies. Every value is read
   * once and copied, so a getter cannot show the check one URL and the browser another.
   */
  const configurationWithout = (configuration: unknown): unknown => {
    if (!current.enabled || configuration === null || typeof configuration !== 'object') return configuration;
    const copy: Record<string, unknown> = { ...(configuration as Record<string, unknown>) };
    const servers = (configuration as { iceServers?: unknown }).iceServers;
    if (!isIterable(servers)) return configuration; // the native constructor throws its own TypeError
    const kept: unknown[] = [];
    for (const server of Array.from(servers)) {
      if (server === null || typeof server !== 'object') {
        kept.push(server);
        continue;
      }
      const serverCopy: Record<string, unknown> = { ...(server as Record<string, unknown>) };
      const urls = (server as { urls?: unknown }).urls;
      const list = typeof urls === 'string' ? [urls] : isIterable(urls) ? Array.from(urls, (url) => String(url)) : undefined;
      if (list === undefined) {
        kept.push(serverCopy);
        continue;
      }
      const allowedUrls = list.filter((url) => !denies(url));
      if (allowedUrls.length > 0) kept.push({ ...serverCopy, urls: allowedUrls });
    }
    copy['iceServers'] = kept;
    return copy;
  };
  /** A remote candidate (`candidate:… udp 2122260223 203.0.113.7 5000 typ host`) as `udp://host:port`; undefined when unreadable. */
  const candidateTarget = (candidate: string): string | undefined => {
    const fields = candidate.replace(/^a=/, '').trim().split(/\s+/);
    if (!/^candidate:/i.test(fields[0] ?? '') || fields.length < 6) return undefined;
    const address = fields[4] as string;
    const transport = (fields[2] as string).toLowerCase() === 'tcp' ? 'tcp' : 'udp';
    return `${transport}://${address.includes(':') ? `[${address}]` : address}:${fields[5] as string}`;
  };
  const deniesCandidate = (candidate: string): boolean => {
    const target = candidateTarget(candidate);
    return target !== undefined && denies(target);
  };
  /** A session description without the remote candidates the policy denies. */
  const descriptionWithout = (description: unknown): unknown => {
    if (!current.enabled || description === null || typeof description !== 'object') return description;
    const type = (description as { type?: unknown }).type;
    const sdp = (description as { sdp?: unknown }).sdp;
    if (typeof sdp !== 'string') return { type };
    const lines = sdp.split(/\r?\n/);
    return { type, sdp: lines.filter((line) => !(/^a=candidate:/i.test(line) && deniesCandidate(line))).join('\r\n') };
  };
  const Guarded = function RTCPeerConnection(this: unknown, ...args: unknown[]): RTCPeerConnection {
    if (new.target === undefined) return Reflect.apply(Native, this, args) as RTCPeerConnection; // throws as the native one does
    return Reflect.construct(Native, args.length === 0 ? [] : [configurationWithout(args[0]), ...args.slice(1)], new.target) as RTCPeerConnection;
  } as unknown as Connection;
  const prototype = Native.prototype as unknown as Record<string, unknown>;
  const wrapMethod = (name: string, change: (args: unknown[]) => unknown[] | 'drop'): void => {
    const original = prototype[name];
    if (typeof original !== 'function') return;
    const wrapped = {
      [name](this: unknown, ...args: unknown[]): unknown {
        const changed = change(args);
        // A dropped candidate is as if the peer never sent it: the call succeeds and adds nothing.
        if (changed === 'drop') return Promise.resolve();
        return Reflect.apply(original as (...values: unknown[]) => unknown, this, changed);
      },
    }[name] as (...args: unknown[]) => unknown;
    const nativeSource = Function.prototype.toString.call(original);
    Object.defineProperty(wrapped, 'toString', { value: () => nativeSource, writable: true, configurable: true });
    Object.defineProperty(prototype, name, { value: wrapped, writable: false, enumerable: true, configurable: false });
  };
  wrapMethod('setConfiguration', (args) => (args.length === 0 ? args : [configurationWithout(args[0]), ...args.slice(1)]));
  wrapMethod('setRemoteDescription', (args) => (args.length === 0 ? args : [descriptionWithout(args[0]), ...args.slice(1)]));
  wrapMethod('addIceCandidate', (args) => {
    const given = args[0];
    if (!current.enabled || given === null || typeof given !== 'object') return args;
    const { candidate, sdpMid, sdpMLineIndex, usernameFragment } = given as RTCIceCandidateInit;
    if (typeof candidate === 'string' && deniesCandidate(candidate)) return 'drop';
    return [{ candidate, sdpMid, sdpMLineIndex, usernameFragment }, ...args.slice(1)];
  });
  // Same prototype, so `instanceof`, subclasses and the static `generateCertificate` keep working.
  Object.defineProperty(Guarded, 'prototype', { value: Native.prototype, writable: false, enumerable: false, configurable: false });
  Object.setPrototypeOf(Guarded, Native);
  Object.defineProperty(Native.prototype, 'constructor', { value: Guarded, writable: true, enumerable: false, configurable: true });
  const nativeSource = Function.prototype.toString.call(Native);
  Object.defineProperty(Guarded, 'toString', { value: () => nativeSource, writable: true, configurable: true });
  for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection']) {
    if (realm[name] === Native) Object.defineProperty(realm, name, { value: Guarded, writable: false, enumerable: false, configurable: false });
  }
  Object.defineProperty(realm, key, {
    value: (given: string, next: WebSocketGuardState) => {
      if (given === token) current = next;
    },
    writable: false,
    enumerable: false,
    configurable: false,
  });
}

/** The source that installs (or updates) the WebRTC wrapper in the realm it is evaluated in. */
export function webRtcGuardSource(token: string, bindingName: string, state: WebSocketGuardState): string {
  const args = [
    JSON.stringify(token),
    JSON.stringify(bindingName),
    JSON.stringify(state),
    `(${allowedByRules.toString()})`,
    `(${webRtcCheckUrl.toString()})`,
  ].join(', ');
  // `__name`: the helper some bundlers (esbuild's keepNames, as vitest and tsx run it) call in function sources.
  return `(() => { const __name = (target) => target; try { (${installWebRtcGuard.toString()})(${args}); } catch {} })();`;
}
