// How the injection guard's findings reach the Executor: once per step, place, URL and pattern,
// and from inside an action without a new member on the public ActionContext. No Node API.

import type { InjectionFinding, InjectionSource } from '../events';

/** One detection, as the guard's callers report it. */
export interface InjectionDetection {
  readonly url: string;
  readonly source: InjectionSource;
  readonly findings: readonly InjectionFinding[];
}

/**
 * Keeps a page that repeats its attempt in every state from flooding the host: a pattern found
 * again in the same step, at the same place and URL, is not reported again.
 */
export class InjectionReportFilter {
  private step = Number.NaN;
  private readonly seen = new Set<string>();

  /** The detection reduced to what this step has not reported yet; undefined when nothing is new. */
  take(step: number, detection: InjectionDetection): InjectionDetection | undefined {
    if (step !== this.step) {
      this.step = step;
      this.seen.clear();
    }
    const fresh = detection.findings.filter((finding) => {
      const key = `${detection.source}\u0000${detection.url}\u0000${finding.pattern}`;
      if (this.seen.has(key)) return false;
      this.seen.add(key);
      return true;
    });
    return fresh.length === 0 ? undefined : { ...detection, findings: fresh };
  }
}

/** What identifies an action context: its own `assertUrlAllowed`, which a copy keeps. */
interface ActionContextLike {
  readonly assertUrlAllowed: (url: string) => void;
}

/**
 * Reporters by action context. An action (`extract_content`) that reads a page reports what the
 * guard found through the context it was given; the Navigator registers its reporter for each
 * context it builds. The key is the context's `assertUrlAllowed` function rather than the object,
 * because the registry hands the handler a copy with the action's own deadline signal. A context
 * nobody registered (a standalone `act()`) still gets the guarded text, only without an event. A
 * WeakMap, so a reporter goes when its context does.
 */
const reporters = new WeakMap<object, (detection: InjectionDetection) => void>();

/** Makes `report` hear the detections of actions run with `actionContext` (or a copy of it). */
export function setInjectionReporter(actionContext: ActionContextLike, report: (detection: InjectionDetection) => void): void {
  reporters.set(actionContext.assertUrlAllowed, report);
}

/** Reports a detection made while running an action with `actionContext`, if anyone listens. */
export function reportInjection(actionContext: ActionContextLike, detection: InjectionDetection): void {
  if (detection.findings.length > 0) reporters.get(actionContext.assertUrlAllowed)?.(detection);
}
