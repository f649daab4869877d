// Puts the WebSocket wrapper of websocket-guard.ts (and in documents the RTCPeerConnection wrapper
// of webrtc-guard.ts) in every page, frame (in or out of process)
// and dedicated worker of a browser before it runs: a browser-level
// session auto-attaches to each target, paused (`waitForDebuggerOnStart`), installs the wrapper
// and a reporting binding, then lets it run.

import { randomUUID } from 'node:crypto';
import type { UrlPolicyRules } from '../browser/types';
import { webRtcGuardSource } from './webrtc-guard';
import { webSocketGuardSource, type WebSocketGuardState } from './websocket-guard';

/** A CDP session of the flat protocol, as far as the WebSocket guard uses one. */
export interface CdpChannel {
  send(method: string, params?: Record<string, unknown>): Promise<unknown>;
  on(event: string, listener: (params: never) => void): void;
  /** The session of a target attached through this one (flat protocol), when the library gives it. */
  child?(sessionId: string): CdpChannel | undefined;
}

interface AttachedEvent {
  readonly sessionId: string;
  readonly waitingForDebugger: boolean;
  readonly targetInfo: { readonly type: string; readonly browserContextId?: string };
}

/** One token for the process: a page cannot learn it, so only the driver can switch a wrapper off. */
const token = randomUUID();
const bindingName = `__plannavWebSocket${token.slice(0, 8)}`;
const documentTypes = new Set(['page', 'iframe']);
/**
 * Shared and service workers are left out: they answer only once they run, so the wrapper would
 * come after their script, and a service worker held at its start no longer gets its own requests
 * through the Fetch domain (tried in Chromium 156).
 */
const filter = ['page', 'iframe', 'worker'].map((type) => ({ type }));

/** What the WebSocket guard does not cover, in words for a log. */
export const uncoveredWebSockets = 'WebSocket handshakes of shared and service workers';

/** The in-page checks a request guard keeps in line with its rules (see `RequestGuardOptions.pageChecks` in request-guard.ts). */
export interface PageChecks {
  /** Whether they check WebSockets too (they always check WebRTC in documents). */
  readonly webSockets: boolean;
  /** Decides on other rules from now on, in every realm. */
  update(rules: UrlPolicyRules): Promise<void>;
  /** Lets everything through again and installs no more. Idempotent. */
  stop(): Promise<void>;
}

/** The source of both wrappers, for a realm of any kind (the WebRTC one does nothing where there is no `RTCPeerConnection`). */
export function pageChecksSource(token: string, bindingName: string, state: WebSocketGuardState, webSockets: boolean): string {
  return (webSockets ? webSocketGuardSource(token, bindingName, state) : '') + webRtcGuardSource(token, bindingName, state);
}

/** Keeps the wrappers in every target of a browser in line with the rules; see the file comment. */
export class WebSocketTargets implements PageChecks {
  readonly webSockets = true;
  private state: WebSocketGuardState;
  /** Each attached target's session, with its new-document script when it has documents. */
  private readonly sessions = new Map<CdpChannel, { readonly documents: boolean; scriptId?: string | undefined }>();
  private stopped = false;
  /** Targets being set up: `start` resolves once the ones there already are ready. */
  private readonly pending = new Set<Promise<void>>();

  private constructor(
    private readonly root: CdpChannel,
    rules: UrlPolicyRules,
    private readonly onBlocked: (url: string) => void,
    private readonly browserContextId: string | undefined,
  ) {
    this.state = { enabled: true, rules };
  }

  /** Attaches to every target there is and will be; rejects when the session cannot auto-attach. */
  static async start(root: CdpChannel, rules: UrlPolicyRules, onBlocked: (url: string) => void, browserContextId?: string): Promise<WebSocketTargets> {
    const targets = new WebSocketTargets(root, rules, onBlocked, browserContextId);
    root.on('Target.attachedToTarget', (event: AttachedEvent) => targets.track(targets.attached(root, event)));
    await root.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true, filter });
    // The targets there already (and theirs) are attached before the answer: wait until they are guarded.
    for (let round = 0; round < 5 && targets.pending.size > 0; round++) await bounded(Promise.all([...targets.pending]));
    return targets;
  }

  /** Decides on other rules from now on, in every target. */
  async update(rules: UrlPolicyRules): Promise<void> {
    this.state = { enabled: true, rules };
    await this.refresh();
  }

  /** Lets every WebSocket through again and stops attaching. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.state = { enabled: false, rules: this.state.rules };
    // Switched off first: turning auto-attach off detaches the sessions.
    await this.refresh();
    await Promise.all(
      [...this.sessions].map(async ([session, entry]) => {
        if (entry.scriptId !== undefined) await session.send('Page.removeScriptToEvaluateOnNewDocument', { identifier: entry.scriptId }).catch(() => undefined);
      }),
    );
    this.sessions.clear();
    await this.root.send('Target.setAutoAttach', { autoAttach: false, waitForDebuggerOnStart: false, flatten: true }).catch(() => undefined);
  }

  /** Runs the source with the current state in every realm of every attached target. */
  private async refresh(): Promise<void> {
    const source = pageChecksSource(token, bindingName, this.state, true);
    await Promise.all([...this.sessions].map(async ([session, entry]) => bounded(this.install(session, entry, source)).catch(() => undefined)));
  }

  private async install(session: CdpChannel, entry: { readonly documents: boolean; scriptId?: string | undefined }, source: string): Promise<void> {
    if (!entry.documents) {
      await session.send('Runtime.evaluate', { expression: source });
      return;
    }
    // runImmediately: the script runs in the documents there are too, every frame of the target.
    const { identifier } = (await session.send('Page.addScriptToEvaluateOnNewDocument', { source, runImmediately: true })) as { identifier: string };
    const previous = entry.scriptId;
    entry.scriptId = identifier;
    if (previous !== undefined) await session.send('Page.removeScriptToEvaluateOnNewDocument', { identifier: previous });
  }

  private track(setup: Promise<void>): void {
    this.pending.add(setup);
    void setup.catch(() => undefined).finally(() => this.pending.delete(setup));
  }

  private async attached(parent: CdpChannel, event: AttachedEvent): Promise<void> {
    const session = parent.child?.(event.sessionId);
    const resume = async (): Promise<void> => {
      if (event.waitingForDebugger) await session?.send('Runtime.runIfWaitingForDebugger').catch(() => undefined);
    };
    const own = this.browserContextId;
    const context = event.targetInfo.browserContextId;
    if (!session || this.stopped || (own !== undefined && context !== undefined && context !== own)) {
      await resume();
      await parent.send('Target.detachFromTarget', { sessionId: event.sessionId }).catch(() => undefined);
      return;
    }
    const entry: { readonly documents: boolean; scriptId?: string | undefined } = { documents: documentTypes.has(event.targetInfo.type) };
    this.sessions.set(session, entry);
    session.on('Runtime.bindingCalled', (called: { readonly name: string; readonly payload: string }) => {
      if (called.name === bindingName && !this.stopped) this.onBlocked(called.payload);
    });
    session.on('Target.attachedToTarget', (child: AttachedEvent) => this.track(this.attached(session, child)));
    session.on('Inspector.detached', () => this.sessions.delete(session));
    const source = pageChecksSource(token, bindingName, this.state, true);
    // Frames out of process and workers of this target, attached before they run as well.
    const autoAttach = (): Promise<unknown> =>
      session.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true, filter }).catch(() => undefined);
    if (entry.documents) {
      try {
        await session.send('Runtime.addBinding', { name: bindingName });
        // Without the Page domain, new-document scripts do not run; without Runtime, bindings are not called.
        await session.send('Page.enable');
        await session.send('Runtime.enable');
        await this.install(session, entry, source);
        await autoAttach();
      } catch {
        // A target that went away meanwhile; one that stays keeps what could be installed.
      } finally {
        await resume();
      }
      return;
    }
    // A dedicated worker answers while it waits: the wrapper is there before its script.
    const installed = Promise.all([session.send('Runtime.addBinding', { name: bindingName }), this.install(session, entry, source), autoAttach()]);
    await resume();
    await bounded(installed).catch(() => undefined);
  }
}

/** A CDP call that may never be answered (a target going away), given up after a while. */
function bounded<T>(call: Promise<T>, ms = 5000): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<undefined>((done) => {
    timer = setTimeout(() => done(undefined), ms);
  });
  return Promise.race([call, timeout]).finally(() => clearTimeout(timer));
}
