// The `all-requests` scope of a NavigationGuard for both Chromium drivers: every HTTP(S) request of
// every frame, worker and service worker to a denied URL is failed before it is sent. Documents stay the navigation guard's.

import type { BlockedNavigation, NavigationGuard, NavigationGuardStatus, UrlPolicyRules } from '../browser/types';
import { guardVerdict } from './navigation-guard';
import { deniesDirectHosts, hasUrlRules, implicitlyDirectHosts, type TunnelGate } from './egress-proxy';
import { webRtcCheckUrl } from './webrtc-guard';
import { uncoveredWebSockets, WebSocketTargets, type CdpChannel, type PageChecks } from './websocket-targets';

/** The CDP event of a request paused by the Fetch domain, as far as the guard reads it. */
export interface PausedRequest {
  readonly requestId: string;
  readonly request: { readonly url: string; readonly urlFragment?: string | undefined; readonly headers?: Readonly<Record<string, string>> | undefined };
  readonly frameId?: string | undefined;
  readonly resourceType?: string | undefined;
}

/**
 * A browser-level CDP session, as both libraries give one (Playwright's
 * `browser.newBrowserCDPSession()`, Puppeteer's `browser.target().createCDPSession()`).
 */
export interface BrowserSession {
  send(method: string, params?: Record<string, unknown>): Promise<unknown>;
  onPaused(listener: (event: PausedRequest) => void): void;
  detach(): Promise<void>;
  /**
   * The session as a flat-protocol channel, for the WebSocket guard (see websocket-targets.ts):
   * only when the library gives the sessions of the targets it auto-attaches (Puppeteer does,
   * Playwright's public API does not). Without it, WebSocket handshakes go unchecked.
   */
  readonly channel?: CdpChannel | undefined;
}

/** Where the guard applies. */
export interface RequestGuardOptions {
  /**
   * The CDP id of the driver's browser context: a request of another context's target goes on
   * untouched. Undefined when the driver launched the browser, so every request is its own.
   */
  readonly browserContextId?: string | undefined;
  /** The proxy the driver launched the browser with (or its gate of a pool's proxy): it refuses tunnels (every WebSocket) to denied hosts. */
  readonly proxy?: TunnelGate | undefined;
  /**
   * Restarts the `count` service workers that run already, in place of closing their targets: a
   * library attached to them may not survive the close (Playwright's interception updates then never answer).
   */
  readonly restartServiceWorkers?: ((count: number) => Promise<void>) | undefined;
  /**
   * Starts the in-page checks where the session gives no channel (Playwright: the context's init
   * scripts and a binding): `onBlocked` gets what a wrapper stopped, as it reports it.
   */
  readonly pageChecks?: ((rules: UrlPolicyRules, onBlocked: (target: string) => void) => Promise<PageChecks>) | undefined;
}

/**
 * Every request, of every resource type. A browser-level session intercepts what every target of
 * the browser sends, frames in and out of process, dedicated and shared workers, service workers
 * (their scripts and their own `fetch()`), from the moment `Fetch.enable` answers: a worker that
 * starts later has nothing to run before the block is on.
 */
const allRequests = [{ urlPattern: '*', requestStage: 'Request' }] as const;

/**
 * Enforces a guard on every HTTP(S) request of one browser, through a browser-level session's
 * Fetch domain (service workers running already are restarted under it): a denied request fails with `BlockedByClient` (the page sees a network error)
 * and is reported to `guard.blocked` as kind `request`, each time; the Executor reports it once
 * per host and step. Documents and speculative loads (`Sec-Purpose: prefetch`) go on: the
 * navigation guard decides those and reports them with their own kind.
 *
 * WebSockets are not seen by the Fetch domain, and `Network.setBlockedURLs` (with `urls` or
 * `urlPatterns`, on the browser's or each target's session) does not stop their handshake either
 * (headless Chromium 156). Two checks stop them when the guard gives its rules (`rules`,
 * `UrlPolicy.toRules()`): in a browser the driver launched, its proxy refuses the tunnel of any
 * WebSocket, of any realm, to a denied host but a loopback or link-local one (egress-proxy.ts); and where the session gives its
 * targets' sessions, a wrapper of `WebSocket` in every page, frame and dedicated worker, installed
 * before it runs, throws a `SecurityError` for a denied URL, path included (websocket-targets.ts).
 *
 * WebRTC's ICE traffic (STUN and TURN servers, remote peers, over UDP or TCP) is seen by no CDP
 * domain and no proxy either: with the guard's rules, a wrapper of `RTCPeerConnection` in every
 * document leaves out each ICE server and remote candidate the policy denies and reports it
 * (webrtc-guard.ts), installed through the session's channel (Puppeteer) or `pageChecks`
 * (Playwright). {@link RequestGuard.unenforced} says what none of these covers.
 */
export class RequestGuard {
  private guard: NavigationGuard;
  private readonly session: BrowserSession;
  private readonly options: RequestGuardOptions;
  private disposed = false;
  /** The in-page wrappers (WebRTC, and WebSocket where the session gives a channel), while the guard gives rules. */
  private pageChecks: PageChecks | undefined;

  private constructor(session: BrowserSession, guard: NavigationGuard, options: RequestGuardOptions) {
    this.session = session;
    this.guard = guard;
    this.options = options;
  }

  /** Starts enforcing `guard`; rejects (and detaches the session) if interception cannot start. */
  static async install(session: BrowserSession, guard: NavigationGuard, options: RequestGuardOptions = {}): Promise<RequestGuard> {
    const requestGuard = new RequestGuard(session, guard, options);
    session.onPaused((event) => void requestGuard.paused(event));
    try {
      await session.send('Fetch.enable', { patterns: allRequests.map((pattern) => ({ ...pattern })) });
      await requestGuard.updateChecks();
      await requestGuard.restartServiceWorkers();
    } catch (error) {
      await requestGuard.dispose();
      throw error;
    }
    return requestGuard;
  }

  /** Enforces another guard from now on, without a gap. */
  async replace(guard: NavigationGuard): Promise<void> {
    this.guard = guard;
    await this.updateChecks().catch(() => undefined);
  }

  /** The requests this guard lets through, in words for a log: see {@link NavigationGuardStatus.unenforced}. */
  get unenforced(): readonly string[] {
    const rules = this.guard.rules;
    const tunnels = rules !== undefined && this.options.proxy !== undefined;
    const wrapped = this.pageChecks?.webSockets === true;
    const gaps: string[] = this.pageChecks ? [] : [unenforcedWebRtc];
    if (!tunnels) return [...gaps, wrapped ? uncoveredWebSockets : unenforcedWebSockets];
    const realms = wrapped ? ' of shared and service workers' : '';
    if (deniesDirectHosts(rules)) gaps.push(`WebSocket handshakes${realms} to ${implicitlyDirectHosts}: Chromium never proxies those`);
    if (hasUrlRules(rules))
      gaps.push(`the path of WebSocket handshakes${realms}: their host is checked, so an exact-URL entry of the policy does not apply to them`);
    return gaps;
  }

  /** Starts, updates or stops the proxy's and the in-page checks as the guard's rules say. */
  private async updateChecks(): Promise<void> {
    const rules = this.guard.rules;
    const proxy = this.options.proxy;
    proxy?.setGuard(rules && { rules, refused: (url) => this.report({ url, reason: this.tunnelReason(url), kind: 'request' }) });
    const channel = this.session.channel;
    const startPageChecks = this.options.pageChecks;
    if (!rules || (!channel && !startPageChecks)) {
      const previous = this.pageChecks;
      this.pageChecks = undefined;
      await previous?.stop();
      return;
    }
    if (this.pageChecks) return this.pageChecks.update(rules);
    // What a wrapper reports is checked again here: a page may call the binding itself.
    const onBlocked = (target: string): void => {
      const decision = guardVerdict(this.guard, urlToCheck(target));
      if (!decision.allowed) this.report({ url: target, reason: decision.reason, kind: 'request' });
    };
    this.pageChecks = channel
      ? await WebSocketTargets.start(channel, rules, onBlocked, this.options.browserContextId)
      : await (startPageChecks as NonNullable<typeof startPageChecks>)(rules, onBlocked);
  }

  /** The guard's reason for a refused tunnel, `https://host:port/`. */
  private tunnelReason(url: string): string {
    const decision = guardVerdict(this.guard, url);
    return decision.allowed ? `no URL of host ${new URL(url).hostname} is allowed` : decision.reason;
  }

  /** Stops intercepting and detaches the session; requests paused meanwhile go on. Idempotent. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.options.proxy?.setGuard(undefined);
    await this.pageChecks?.stop().catch(() => undefined);
    this.pageChecks = undefined;
    await this.session.send('Fetch.disable').catch(() => undefined);
    await this.session.detach().catch(() => undefined);
  }

  /**
   * A service worker that was running before `Fetch.enable` keeps the network access it started
   * with, which the session does not see (tried in Chromium 156): it is stopped, and starts again
   * under the guard at its next event. Dedicated and shared workers cannot be restarted so; one
   * that was running before the guard keeps sending unchecked.
   */
  private async restartServiceWorkers(): Promise<void> {
    const own = this.options.browserContextId;
    const { targetInfos } = (await this.session.send('Target.getTargets')) as {
      targetInfos: readonly { readonly targetId: string; readonly type: string; readonly browserContextId?: string }[];
    };
    const running = targetInfos.filter((target) => target.type === 'service_worker' && (own === undefined || target.browserContextId === own));
    if (running.length === 0) return;
    if (this.options.restartServiceWorkers) return this.options.restartServiceWorkers(running.length);
    await Promise.all(running.map((target) => this.session.send('Target.closeTarget', { targetId: target.targetId }).catch(() => undefined)));
  }

  private async paused(event: PausedRequest): Promise<void> {
    const proceed = (): Promise<void> =>
      this.session.send('Fetch.continueRequest', { requestId: event.requestId }).then(
        () => undefined,
        () => undefined,
      );
    if (this.disposed || event.resourceType === 'Document' || isSpeculative(event)) return proceed();
    const url = event.request.url + (event.request.urlFragment ?? '');
    const decision = guardVerdict(this.guard, url);
    if (decision.allowed || (await this.isForeign(event.frameId))) return proceed();
    await this.session.send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'BlockedByClient' }).catch(() => undefined);
    this.report({ url, reason: decision.reason, kind: 'request' });
  }

  /**
   * Whether the request is another browser context's: its frame is a target of another context.
   * A request whose origin is no target (a frame inside a page's process, a worker) is taken as
   * the driver's: only denied requests come here, and a security check denies.
   */
  private async isForeign(frameId: string | undefined): Promise<boolean> {
    const own = this.options.browserContextId;
    if (own === undefined || !frameId) return false;
    try {
      const { targetInfo } = (await this.session.send('Target.getTargetInfo', { targetId: frameId })) as { targetInfo: { browserContextId?: string } };
      return targetInfo.browserContextId !== undefined && targetInfo.browserContextId !== own;
    } catch {
      return false;
    }
  }

  private report(request: BlockedNavigation): void {
    try {
      this.guard.blocked(request);
    } catch {
      // A reporting hook that throws must not let the request through or break the enforcement.
    }
  }
}

/** A speculative load (`Sec-Purpose: prefetch`, or the older `Purpose`): the navigation guard's. */
function isSpeculative(event: PausedRequest): boolean {
  return Object.entries(event.request.headers ?? {}).some(([name, value]) => /^(sec-)?purpose$/i.test(name) && /prefetch|prerender/i.test(value));
}

/**
 * The URL the guard decides on for what an in-page wrapper reports: a WebSocket's URL as
 * `http(s):`, a WebRTC target (`stun:host:port`, `udp://host:port`) as `http://host:port/`.
 */
function urlToCheck(target: string): string {
  if (/^wss?:/i.test(target)) return target.replace(/^ws(s?):/i, 'http$1:');
  return webRtcCheckUrl(target) ?? target;
}

/** What the drivers let through in the `all-requests` scope without the in-page checks: see {@link RequestGuard}. */
const unenforcedWebRtc =
  'WebRTC connections to STUN and TURN servers and remote peers (they are checked in pages only with a guard that gives its rules, `UrlPolicy.toRules()`)';

/** What the drivers let through in the `all-requests` scope without either WebSocket check: see {@link RequestGuard}. */
const unenforcedWebSockets =
  'WebSocket handshakes (the Fetch domain does not see them; they are checked only with a guard that gives its rules, in full Chrome or Chromium (not its headless shell) that the driver launched without a proxy of your own, or in pages, frames and dedicated workers with the Puppeteer driver)';

/**
 * Brings a driver's request guard in line with the guard given to `setNavigationGuard`: started
 * (`open` gives the browser-level session) when its scope is `all-requests`, pointed at the new
 * guard when one runs already, stopped otherwise. Resolves with the request guard now running and
 * what the driver enforces; a request guard that cannot start leaves the scope `navigation`.
 */
export async function updateRequestGuard(
  current: RequestGuard | undefined,
  guard: NavigationGuard | undefined,
  open: () => Promise<{ readonly session: BrowserSession; readonly options: RequestGuardOptions }>,
): Promise<{ readonly requestGuard: RequestGuard | undefined; readonly status: NavigationGuardStatus }> {
  if (guard?.scope !== 'all-requests') {
    await current?.dispose();
    return { requestGuard: undefined, status: { scope: 'navigation' } };
  }
  let requestGuard = current;
  if (requestGuard) await requestGuard.replace(guard);
  else {
    try {
      const { session, options } = await open();
      requestGuard = await RequestGuard.install(session, guard, options);
    } catch {
      return { requestGuard: undefined, status: { scope: 'navigation' } };
    }
  }
  return { requestGuard, status: { scope: 'all-requests', unenforced: requestGuard.unenforced } };
}
