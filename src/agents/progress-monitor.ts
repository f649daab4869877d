// Notices a task that is going nowhere: the Navigator repeating the same actions, or the page not
// changing for several steps although actions ran. It never blocks an action: the Executor tells
// the Navigator plainly and asks the Planner early to change course.

import type { PageState } from '../browser/page-state';

/** When the monitor speaks up. */
export interface ProgressLimits {
  /** Steps in a row with the same actions. */
  readonly repeatedActions: number;
  /** Steps in a row that saw the same page. */
  readonly unchangedPage: number;
}

/** What the monitor noticed. */
export interface StallNotice {
  readonly code: 'REPEATED_ACTIONS' | 'PAGE_UNCHANGED';
  /** For the model and for people. */
  readonly message: string;
}

interface StepFingerprint {
  readonly page: string;
  readonly actions: string;
}

/** FNV-1a over a string: a short fingerprint, so a long page is not kept per step. */
function fingerprint(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `${text.length}:${hash.toString(36)}`;
}

/** Watches a task's Navigator steps, one monitor per task. */
export class ProgressMonitor {
  private recent: StepFingerprint[] = [];

  constructor(private readonly limits: ProgressLimits = { repeatedActions: 3, unchangedPage: 4 }) {}

  /**
   * Records one Navigator step: the state it saw and the actions it chose. Returns a notice when
   * the last steps look stuck; after a notice the window starts afresh, so it is not repeated at
   * every step.
   */
  record(state: PageState | undefined, actions: readonly Record<string, unknown>[]): StallNotice | undefined {
    const page = state ? fingerprint(`${state.url}\n${state.activeTabId}\n${state.elementsText}`) : 'no state';
    const step = { page, actions: fingerprint(JSON.stringify(actions)) };
    this.recent.push(step);
    const keep = Math.max(this.limits.repeatedActions, this.limits.unchangedPage);
    if (this.recent.length > keep) this.recent.shift();
    const notice = this.notice(actions);
    if (notice) this.recent = [];
    return notice;
  }

  private notice(actions: readonly Record<string, unknown>[]): StallNotice | undefined {
    const { repeatedActions, unchangedPage } = this.limits;
    const last = this.recent.at(-1) as StepFingerprint;
    const tail = (count: number): StepFingerprint[] => (this.recent.length >= count ? this.recent.slice(-count) : []);
    const names = actions.map((item) => Object.keys(item)[0] ?? '?').join(', ');
    if (tail(repeatedActions).length > 0 && tail(repeatedActions).every((step) => step.actions === last.actions)) {
      return {
        code: 'REPEATED_ACTIONS',
        message: `The last ${repeatedActions} steps chose the same actions (${names}) without getting further. Do not repeat them: try a different element, another page, or another way to reach the goal.`,
      };
    }
    if (tail(unchangedPage).length > 0 && tail(unchangedPage).every((step) => step.page === last.page)) {
      return {
        code: 'PAGE_UNCHANGED',
        message: `The page has not changed for ${unchangedPage - 1} steps although actions ran. What was tried is not working here: change approach (another element, scrolling, another page, or ask for help).`,
      };
    }
    return undefined;
  }
}
