// Installing a URL policy in a driver, once for every entry point. The driver's guard stops what
// the browser loads on its own (redirects, popups, frames, prefetches); a driver without one, or
// whose install fails, leaves the policy to the checks of the URLs actions ask for and the pages
// they end on. The guard an Executor keeps on a driver between its tasks (browser/standing-guard)
// is handled the same way everywhere: replaced, lifted for a call and put back, or dropped.

import { leaseDriver } from '../browser/lease';
import { forgetGuard, keepGuard, standingGuardOf, type StandingGuard } from '../browser/standing-guard';
import type { BrowserDriver, NavigationGuard, NavigationGuardStatus } from '../browser/types';
import { BrowserError } from '../errors';
import type { UrlPolicy } from '../security/url-policy';
import { withDeadline } from '../util/deadline';

/**
 * What becomes of the guard an Executor keeps on the driver between its tasks:
 * - `own`: this install is an Executor's task; its guard becomes the kept one, and without a
 *   restrictive policy another Executor's kept guard is dropped (its policy is not this task's);
 * - `lift`: a call (act(), a replay) runs its own policy, or none, and puts the kept guard back at `release()`.
 */
export type StandingGuardMode = 'own' | 'lift';

/** What {@link installUrlGuard} needs. */
export interface UrlGuardRequest {
  /** The driver as the caller got it: kept guards and leases are keyed by it. */
  readonly browser: BrowserDriver;
  readonly policy: UrlPolicy;
  /** The guard to install when the policy is restrictive. */
  readonly guard: NavigationGuard;
  readonly signal: AbortSignal;
  /** The deadline of each call to the driver's `setNavigationGuard` (the session's page-state deadline). */
  readonly timeoutMs: number;
  readonly standing: StandingGuardMode;
}

/** Calls the driver's `setNavigationGuard` within `timeoutMs` and `signal`. */
export function setDriverGuard(
  browser: BrowserDriver,
  guard: NavigationGuard | undefined,
  signal: AbortSignal,
  timeoutMs: number,
  // eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- what the driver's setNavigationGuard resolves with
): Promise<NavigationGuardStatus | void> {
  const slow = (): BrowserError =>
    new BrowserError(`The driver's setNavigationGuard() did not finish within ${timeoutMs} ms (browserTimeouts.pageState).`, {
      code: 'BROWSER_TIMEOUT',
      retryable: true,
    });
  return withDeadline(timeoutMs, signal, slow, async (bounded) => browser.setNavigationGuard?.(guard, { signal: bounded }));
}

/** How an install went. */
export interface UrlGuardInstall {
  /** The driver implements `setNavigationGuard`. */
  readonly supported: boolean;
  /** The driver enforces the policy now. */
  readonly guarded: boolean;
  /** What the driver's `setNavigationGuard` resolved with, when it did. */
  readonly status: NavigationGuardStatus | undefined;
  /** Why the install failed (not a cancel of a `lift` install: that rejects). */
  readonly failure: unknown;
  /** With `own`: the entry that keeps this guard on the driver between tasks. */
  readonly kept: StandingGuard | undefined;
}

/** One install of a URL policy in a driver, and its end. */
export interface UrlGuard {
  /**
   * Installs the guard when the policy is restrictive and the driver can enforce it. A failed
   * install resolves with `failure` (the caller warns, and checks pages itself); with `lift`, a
   * cancel of the signal rejects.
   */
  install(): Promise<UrlGuardInstall>;
  /**
   * Ends a `lift` install: the guard the driver keeps between an Executor's tasks goes back when
   * it is still kept, else what this installed (and a kept guard whose Executor closed) is
   * removed. Safe after a cancelled install; never rejects; a second call does nothing. With
   * `own` it does nothing: the guard stays until the Executor's close() ({@link dropStandingGuard}).
   */
  release(): Promise<void>;
}

/** A URL guard for `request`; nothing touches the driver until `install()`. */
export function urlGuard(request: UrlGuardRequest): UrlGuard {
  const { browser, policy, guard, signal, timeoutMs, standing } = request;
  /** Whether the guard may be on the driver: resolved once the install ended (a cancelled one may have reached it). */
  let installed: Promise<boolean> | undefined;
  let released = false;
  const base = { supported: true, guarded: false, status: undefined, failure: undefined, kept: undefined };
  return {
    async install(): Promise<UrlGuardInstall> {
      if (typeof browser.setNavigationGuard !== 'function') return { ...base, supported: false };
      const kept = standingGuardOf(browser);
      if (!policy.restrictive) {
        if (!kept) return base;
        // Another policy's guard is not this one's: dropped for good by a task, lifted for a call.
        if (standing === 'own') forgetGuard(browser, kept);
        await setDriverGuard(browser, undefined, signal, timeoutMs).catch(() => undefined);
        return base;
      }
      const attempt = setDriverGuard(browser, guard, signal, timeoutMs);
      installed = attempt.then(
        () => true,
        () => signal.aborted,
      );
      try {
        const status = (await attempt) || undefined;
        return { ...base, guarded: true, status, kept: standing === 'own' ? keepGuard(browser, guard) : undefined };
      } catch (error) {
        if (standing === 'lift' && signal.aborted) throw error;
        return { ...base, failure: error };
      }
    },
    async release(): Promise<void> {
      if (released || standing === 'own') return;
      released = true;
      const mayBeOn = (await installed) ?? false;
      const now = standingGuardOf(browser);
      const off = new AbortController().signal;
      if (now?.kept) {
        await setDriverGuard(browser, now.guard, off, timeoutMs).catch(() => undefined);
        return;
      }
      // Its Executor closed meanwhile: the kept guard goes with this call's.
      if (now) forgetGuard(browser, now);
      if (mayBeOn || now) await setDriverGuard(browser, undefined, off, timeoutMs).catch(() => undefined);
    },
  };
}

/**
 * At an Executor's close(): removes its kept guard from the driver, unless another Executor's
 * guard replaced it meanwhile. While someone else holds the driver (an act() call, another task),
 * that holder removes it at its end instead.
 */
export async function dropStandingGuard(browser: BrowserDriver, mine: StandingGuard | undefined, timeoutMs: number): Promise<void> {
  if (!mine || standingGuardOf(browser) !== mine) return;
  mine.kept = false;
  let release: () => void;
  try {
    release = leaseDriver(browser, { what: 'a closing Executor' });
  } catch {
    return;
  }
  try {
    forgetGuard(browser, mine);
    await setDriverGuard(browser, undefined, new AbortController().signal, timeoutMs).catch(() => undefined);
  } finally {
    release();
  }
}
