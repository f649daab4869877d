// What both drivers' navigation guards keep the same way: the guard's reports, the last stopped
// navigation of each tab, the driver's own navigations refused or failed with the hop that was
// stopped, and the navigations Chromium refuses itself. How navigations are intercepted is the
// library's, in each driver's enforcer.

import type { BlockedNavigation, NavigationGuard, UrlDecision } from '../browser/types';
import { URLNotAllowedError } from '../errors';
import { firstLine } from './call';

/** The part of CDP's `Log.entryAdded` event the enforcers read. */
export interface LogEntryEvent {
  readonly entry: { readonly text?: string | undefined; readonly timestamp?: number | undefined };
}

/**
 * What Chromium logs in a tab's console when it refuses to show a `data:` URL in a top frame (a
 * link, a location change, `window.open`, a `target=_blank` link): the page stays where it was,
 * or the new tab stays empty, and the page is told nothing. CDP reports the refusal only as this
 * `Log.entryAdded` entry (source `security`, or `other` for a new tab), so the enforcers read it.
 */
const refusedDataUrl = /^Not allowed to navigate top frame to data URL: ([\s\S]+)$/;

/** Why a refused `data:` navigation was stopped, as the model and a log reader see it. */
export const dataUrlRefusal = 'the browser does not open data: URLs in a tab (Chromium refused it)';

/** The `data:` URL Chromium refused to open, when a console entry reports one. */
export function dataUrlRefusedIn(event: LogEntryEvent): string | undefined {
  const text = event.entry.text;
  return typeof text === 'string' ? refusedDataUrl.exec(text)?.[1] : undefined;
}

/** Sends a CDP command on a browser-level session (the libraries type theirs differently). */
export type SendCommand = (method: string, params: Record<string, unknown>) => Promise<unknown>;

/** The part of CDP's `Target.targetCreated` event the enforcers read. */
export interface CreatedTarget {
  readonly targetInfo: {
    readonly targetId: string;
    readonly type: string;
    readonly url: string;
    readonly openerId?: string | undefined;
    readonly browserContextId?: string | undefined;
  };
}

/**
 * How long a new tab's console is read for Chromium's refusal of a `data:` URL. The refusal is
 * logged as the tab is created, before the enforcer can attach; `Log.enable` replays it.
 */
const popupConsoleWindowMs = 1000;

/** The CDP event of a request paused by the Fetch domain, as the enforcers read it. */
export interface PausedRequest {
  readonly requestId: string;
  readonly request: { readonly url: string; readonly urlFragment?: string | undefined; readonly headers?: Readonly<Record<string, string>> | undefined };
  readonly frameId: string;
  readonly resourceType?: string | undefined;
  readonly redirectedRequestId?: string | undefined;
}

/** The part of CDP's `Page.getFrameTree` answer the enforcers read. */
export interface FrameTree {
  readonly frame: { readonly id: string };
  readonly childFrames?: readonly FrameTree[] | undefined;
}

/** What every enforcer is told by its driver: the driver's id of a tab, when it tracks the page. */
export interface EnforcerHooks<P> {
  readonly tabId: (page: P) => string | undefined;
}

/** The base of a driver's navigation guard enforcer; `P` is the library's page type, `H` what its driver tells it. */
export abstract class GuardedNavigations<P extends object, H extends EnforcerHooks<P> = EnforcerHooks<P>> {
  protected guard: NavigationGuard;
  protected readonly hooks: H;
  /** The last navigation of each page's top frame the guard stopped, for the driver's own navigations. */
  private readonly lastBlocked = new WeakMap<P, { readonly url: string; readonly reason: string; readonly sequence: number }>();
  private sequence = 0;
  /** The last refusals of `data:` URLs reported, by console entry, so none is reported twice. */
  private readonly refusalsReported: string[] = [];
  /** The new tabs whose console is being read (see `readPopupConsole`): CDP session id to target id. */
  private readonly popupConsoles = new Map<string, string>();
  /**
   * When enforcing started, in the browser's clock (epoch milliseconds): `Log.enable` replays a
   * tab's earlier console entries, and a refusal from before the guard is no news for it.
   */
  protected readonly since = Date.now();

  protected constructor(guard: NavigationGuard, hooks: H) {
    this.guard = guard;
    this.hooks = hooks;
  }

  /**
   * A console entry of a tab: when it is Chromium refusing a `data:` URL in a top frame since
   * enforcing started, reports it (as a navigation of `kind`) and returns true.
   */
  protected reportRefusedDataUrl(event: LogEntryEvent, kind: 'navigation' | 'popup', tabId: string | undefined): boolean {
    const url = dataUrlRefusedIn(event);
    const timestamp = event.entry.timestamp;
    if (url === undefined || (typeof timestamp === 'number' && timestamp < this.since)) return false;
    // A new tab's console can be read by two sessions (the browser-level one and its page's): one report.
    const key = `${timestamp}|${url}`;
    if (this.refusalsReported.includes(key)) return true;
    this.refusalsReported.push(key);
    if (this.refusalsReported.length > 32) this.refusalsReported.shift();
    this.report({ url, reason: dataUrlRefusal, kind, tabId });
    return true;
  }

  /** The guard's verdict on a URL (see {@link guardVerdict}). */
  protected decide(url: string): UrlDecision {
    return guardVerdict(this.guard, url);
  }

  /** Enforces another guard from now on, without a gap; documents it denies are left as on install. */
  replace(guard: NavigationGuard): void {
    this.guard = guard;
    this.checkAgain();
  }

  /** Checks the documents already loaded in the guarded pages against the guard (after `replace`). */
  protected abstract checkAgain(): void;

  /** The driver's id of a tab, when it tracks the page. */
  protected tabIdOf(page: P): string | undefined {
    return this.hooks.tabId(page);
  }

  /**
   * Throws a `URLNotAllowedError` (and reports the navigation) when the guard denies `url`; for
   * navigations the driver starts itself, before any request.
   */
  assertAllowed(url: string, tabId: string | undefined): void {
    const decision = this.decide(url);
    if (decision.allowed) return;
    this.report({ url, reason: decision.reason, kind: 'navigation', tabId });
    throw new URLNotAllowedError(url, `Navigation to ${url} is not allowed by the URL policy (${decision.reason}); choose another page.`);
  }

  /**
   * Runs a navigation the driver starts in `page`: refused up front when the guard denies `url`,
   * and failed with a `URLNotAllowedError` when the guard stopped one of its redirect hops.
   */
  async navigate<T>(page: P, url: string, load: () => Promise<T>): Promise<T> {
    this.assertAllowed(url, this.tabIdOf(page));
    const mark = this.sequence;
    try {
      return await load();
    } catch (error) {
      const blocked = this.lastBlocked.get(page);
      if (blocked && blocked.sequence > mark) {
        throw new URLNotAllowedError(
          blocked.url,
          `Navigation to ${url} was stopped: it led to ${blocked.url}, which the URL policy does not allow (${blocked.reason}); choose another page.`,
          {
            cause: error,
          },
        );
      }
      throw error;
    }
  }

  /**
   * A target the browser-level session saw created: a new tab of `contextId` that a page opened
   * and that has loaded nothing yet has its console read for a while, for Chromium's refusal of a
   * `data:` URL (a popup it refuses never becomes a page either library shows). The session is not
   * flattened, so its messages come back on the browser-level session (`popupConsoleMessage`).
   */
  protected async readPopupConsole(send: SendCommand, { targetInfo }: CreatedTarget, contextId: string | undefined): Promise<void> {
    if (targetInfo.type !== 'page' || !targetInfo.openerId || (contextId !== undefined && targetInfo.browserContextId !== contextId)) return;
    if (targetInfo.url !== '' && targetInfo.url !== 'about:blank') return;
    try {
      const { sessionId } = (await send('Target.attachToTarget', { targetId: targetInfo.targetId, flatten: false })) as { sessionId: string };
      this.popupConsoles.set(sessionId, targetInfo.targetId);
      const timer = setTimeout(() => void this.stopReadingPopupConsole(send, sessionId), popupConsoleWindowMs);
      (timer as { unref?: () => void }).unref?.();
      await send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: 1, method: 'Log.enable' }) });
    } catch {
      // The tab closed meanwhile.
    }
  }

  /** A message of a new tab's console session: a refused `data:` URL is reported as a popup and its empty tab closed. */
  protected async popupConsoleMessage(send: SendCommand, event: { readonly sessionId: string; readonly message: string }): Promise<void> {
    const targetId = this.popupConsoles.get(event.sessionId);
    if (targetId === undefined) return;
    let message: { readonly method?: string; readonly params?: LogEntryEvent };
    try {
      message = JSON.parse(event.message) as typeof message;
    } catch {
      return;
    }
    if (message.method !== 'Log.entryAdded' || !message.params || !this.reportRefusedDataUrl(message.params, 'popup', undefined)) return;
    await this.stopReadingPopupConsole(send, event.sessionId);
    await send('Target.closeTarget', { targetId }).catch(() => undefined);
  }

  /** Stops reading every new tab's console, at dispose. */
  protected async stopReadingPopupConsoles(send: SendCommand | undefined): Promise<void> {
    const sessions = [...this.popupConsoles.keys()];
    this.popupConsoles.clear();
    if (send) await Promise.all(sessions.map((sessionId) => send('Target.detachFromTarget', { sessionId }).catch(() => undefined)));
  }

  private async stopReadingPopupConsole(send: SendCommand, sessionId: string): Promise<void> {
    if (!this.popupConsoles.delete(sessionId)) return;
    await send('Target.detachFromTarget', { sessionId }).catch(() => undefined);
  }

  /** Tells the guard about a navigation it stopped. */
  protected report(navigation: BlockedNavigation): void {
    try {
      this.guard.blocked(navigation);
    } catch {
      // A reporting hook that throws must not let the navigation through or break the enforcement.
    }
  }

  /** Notes a stopped navigation of a page's top frame, for `navigate` to name. */
  protected noteBlocked(page: P, url: string, reason: string): void {
    this.lastBlocked.set(page, { url, reason, sequence: ++this.sequence });
  }
  /**
   * The check after commit: a denied document that got in without a request (a `document.write`
   * of a blob, a frame whose request the browser served from memory) is reported and left at once
   * through `leave`, which loads about:blank where the driver can.
   */
  protected leaveIfDenied(page: P, url: string, main: boolean, leave: () => Promise<unknown>): void {
    if (isHarmless(url)) return;
    const decision = this.decide(url);
    if (decision.allowed) return;
    if (main) this.noteBlocked(page, url, decision.reason);
    this.report({ url, reason: decision.reason, kind: main ? 'navigation' : 'frame', tabId: this.hooks.tabId(page) });
    void leave().catch(() => undefined);
  }
}

/** A guard's verdict on a URL; a guard that fails or gives no verdict denies, the safe side of a security check. */
export function guardVerdict(guard: NavigationGuard, url: string): UrlDecision {
  try {
    const decision = guard.check(url);
    if (decision && typeof decision.allowed === 'boolean') return decision;
    return { allowed: false, reason: 'the URL policy gave no verdict' };
  } catch (error) {
    return { allowed: false, reason: `the URL policy failed: ${firstLine(error)}` };
  }
}

/** Starts an enforcer; one that cannot start is disposed (leaving nothing behind) and the failure rethrown. */
export async function startedOrDisposed<T extends { dispose(): Promise<void> }>(enforcer: T, start: (enforcer: T) => Promise<void>): Promise<T> {
  try {
    await start(enforcer);
  } catch (error) {
    await enforcer.dispose();
    throw error;
  }
  return enforcer;
}

/** Documents that load nothing from anywhere; leaving them for about:blank could loop. */
export function isHarmless(url: string): boolean {
  return url === '' || url.startsWith('about:blank') || url === 'about:srcdoc' || url.startsWith('chrome-error:');
}

/** The ids of a CDP frame tree's frames. */
export function frameIds(tree: FrameTree): string[] {
  return [tree.frame.id, ...(tree.childFrames ?? []).flatMap(frameIds)];
}
