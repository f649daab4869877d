// The URL guard an Executor keeps in the driver: installed at each task's start, kept between tasks
// until close(), and what it stops reported (to the running task, or as between-tasks events and a
// note for the next task). It stands alone because it lives across tasks; it never ends a task itself.

import type { AgentContext, EventPayload } from '../agents/agent-context';
import type { StandingGuard } from '../browser/standing-guard';
import type { BlockedNavigation, BrowserDriver, NavigationGuard, NavigationGuardStatus } from '../browser/types';
import type { Actor, ExecutorEventName } from '../events';
import type { UrlPolicy } from '../security/url-policy';
import { dropStandingGuard, type BrowserSession } from '../session/index';
import { describeThrown } from '../util/describe-thrown';
import { BlockedRequestFilter } from './blocked-requests';
import type { ResolvedExecutorOptions } from './options';

/** What the guard needs from the Executor that owns it. */
export interface ExecutorUrlGuardHost {
  readonly session: BrowserSession;
  /** The driver as the user gave it, where the standing guard is kept. */
  readonly browser: BrowserDriver;
  readonly urlPolicy: UrlPolicy;
  readonly scope: ResolvedExecutorOptions['urlPolicy']['scope'];
  emit<K extends ExecutorEventName>(name: K, actor: Actor, payload: EventPayload<K> & { readonly taskId?: string }): void;
  /** The running task's step; undefined while no task runs. */
  currentStep(): number | undefined;
  isClosed(): boolean;
  /** The id of the last task that ran, or '' before any. */
  lastTaskId(): string;
}

/** One per Executor, for its whole life. */
export class ExecutorUrlGuard {
  /** Navigations the driver's guard stopped and the Navigator has not reported yet. */
  private blockedNavigations: BlockedNavigation[] = [];
  /** With `urlPolicy.scope: 'all-requests'`: the hosts whose stopped requests this step already reported. */
  private readonly blockedRequests = new BlockedRequestFilter();
  /** The guard this Executor installs in the driver, with a restrictive URL policy: one object for its whole life. */
  private readonly guard: NavigationGuard;
  /** Whether a task is past its `task-start`: the guard's reports then belong to it, else they are between tasks (see blocked). */
  private reporting = false;
  /**
   * Navigations the guard stopped while no task ran, told to the next task's agents (the oldest
   * few); `emitted` once their `url-blocked` event went out when they happened.
   */
  private readonly stoppedBetweenTasks: { readonly navigation: BlockedNavigation; readonly emitted: boolean }[] = [];
  /** What was reported between tasks since the last task (kind and URL), so a page that retries does not repeat the event. */
  private readonly reportedBetweenTasks = new Set<string>();
  /** This Executor's guard as kept in the driver between tasks, from its first execute() until close(). */
  private standing: StandingGuard | undefined;

  constructor(private readonly host: ExecutorUrlGuardHost) {
    this.guard = {
      check: (url) => host.urlPolicy.check(url),
      blocked: (navigation) => this.blocked(navigation),
      scope: host.scope,
      // For the checks a driver makes inside pages and workers (the Puppeteer driver's WebSocket check).
      rules: host.urlPolicy.toRules(),
    };
  }

  /** The navigations stopped during the task that the Navigator has not been told about yet. */
  takeBlockedNavigations(): BlockedNavigation[] {
    return this.blockedNavigations.splice(0);
  }

  /** At a task's end: what the guard stops from now on waits for the next task. */
  taskEnded(): void {
    this.reporting = false;
  }

  /**
   * Installs the URL policy in the driver when it is restrictive and the driver can enforce it,
   * and keeps it there between tasks; returns whether it did. Without a restrictive policy, a
   * guard another Executor kept on the driver is removed: its policy is not this task's.
   */
  async install(signal: AbortSignal): Promise<boolean> {
    this.blockedNavigations = [];
    const installed = await this.host.session.urlGuard(this.host.urlPolicy, this.guard, signal, 'own').install();
    if (installed.failure !== undefined) {
      const message = describeThrown(installed.failure);
      this.host.emit('warning', 'system', { code: 'URL_POLICY_GUARD_FAILED', message: `The driver could not install the URL policy: ${message}` });
      return false;
    }
    if (installed.guarded) this.standing = installed.kept;
    if (installed.guarded || !installed.supported) this.warnUncheckedRequests(installed.status);
    return installed.guarded;
  }

  /**
   * A navigation the guard stopped: during a task it is reported at once and kept for the
   * Navigator. Between tasks (after a task's end, before the next `execute()`) it is reported at
   * once too, as a `url-blocked` event with `betweenTasks` and the last task's id, and kept for the
   * next task's agents (a bounded few, the oldest first); while a task is starting it waits for
   * that task's `task-start`.
   */
  private blocked(navigation: BlockedNavigation): void {
    if (navigation.kind === 'request' && !this.blockedRequests.take(this.host.currentStep() ?? -1, navigation.url)) return;
    if (this.reporting) {
      this.blockedNavigations.push(navigation);
      this.host.emit('url-blocked', 'system', { url: navigation.url, reason: navigation.reason, kind: navigation.kind });
      return;
    }
    if (this.host.isClosed()) return;
    const idle = this.host.currentStep() === undefined;
    // A page that retries while no task runs gets one event and one line in the next task's note.
    if (idle && !this.emitBetweenTasks(navigation)) return;
    if (this.stoppedBetweenTasks.length < maxStoppedBetweenTasks) this.stoppedBetweenTasks.push({ navigation, emitted: idle });
  }

  /**
   * Sends the `url-blocked` event of a navigation stopped while no task runs, once per kind and URL
   * until the next task; false when it was sent already.
   */
  private emitBetweenTasks(navigation: BlockedNavigation): boolean {
    const key = `${navigation.kind} ${navigation.url}`;
    if (this.reportedBetweenTasks.has(key)) return false;
    // Bounded: past the bound each is sent, none remembered.
    if (this.reportedBetweenTasks.size < maxReportedBetweenTasks) this.reportedBetweenTasks.add(key);
    const lastTask = this.host.lastTaskId();
    this.host.emit('url-blocked', 'system', { taskId: lastTask, url: navigation.url, reason: navigation.reason, kind: navigation.kind, betweenTasks: true });
    return true;
  }

  /**
   * At a task's start: reports what the guard stopped while the task was starting (a `url-blocked`
   * event each; what it stopped before was an event then), tells the agents about all of it in the
   * first state they read, and from now on reports at once. Warns when the policy is restrictive
   * but the driver could not enforce it (`driverGuarded` false).
   */
  taskStarted(context: AgentContext, driverGuarded: boolean): void {
    this.reportStoppedBetweenTasks(context);
    if (this.host.urlPolicy.restrictive && !driverGuarded) {
      this.host.emit('warning', 'system', {
        code: 'URL_POLICY_NOT_ENFORCED_BY_DRIVER',
        message:
          'The browser driver has no setNavigationGuard(): the URL policy is checked on the URLs the model asks for and on the pages actions end on, but redirects, popups, frames and prefetches are not stopped before they load.',
      });
    }
  }

  /** What the guard stopped while no task ran, told at a task's start (see taskStarted). */
  private reportStoppedBetweenTasks(context: AgentContext): void {
    const stopped = this.stoppedBetweenTasks.splice(0);
    this.reportedBetweenTasks.clear();
    this.reporting = true;
    if (stopped.length === 0) return;
    for (const { navigation, emitted } of stopped) {
      if (!emitted) this.host.emit('url-blocked', 'system', { url: navigation.url, reason: navigation.reason, kind: navigation.kind });
    }
    const list = stopped.map(({ navigation: item }) => `${item.url} (${item.kind}: ${item.reason})`).join('; ');
    context.actionResults = [
      ...context.actionResults,
      {
        error: `Before this task started, the URL policy stopped the browser from loading ${list}. Those pages are not allowed.`,
        includeInMemory: true,
      },
    ];
  }

  /** At close(): removes this Executor's guard from the driver (see dropStandingGuard). */
  async remove(): Promise<void> {
    const mine = this.standing;
    this.standing = undefined;
    await dropStandingGuard(this.host.browser, mine, this.host.session.timeouts.pageState());
  }

  /**
   * With `urlPolicy.scope: 'all-requests'`, warns when the driver does not check every request
   * (`status` is what its setNavigationGuard resolved with; undefined when it has none).
   */
  private warnUncheckedRequests(status: NavigationGuardStatus | undefined): void {
    if (!this.host.urlPolicy.restrictive || this.host.scope !== 'all-requests') return;
    const unenforced = status?.scope === 'all-requests' ? (status.unenforced ?? []) : ['every request but navigations'];
    if (unenforced.length === 0) return;
    this.host.emit('warning', 'system', {
      code: 'URL_POLICY_REQUESTS_NOT_ENFORCED',
      message: `urlPolicy.scope is 'all-requests', but the browser driver does not stop these requests to denied hosts: ${unenforced.join('; ')}.`,
    });
  }
}

/** How many navigations stopped between two tasks are kept for the next one: a page that retries in a loop must not fill the memory. */
const maxStoppedBetweenTasks = 20;

/** How many distinct navigations stopped between two tasks are remembered so their event is not repeated. */
const maxReportedBetweenTasks = 1000;
