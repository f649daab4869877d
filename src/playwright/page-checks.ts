// The in-page checks of the `all-requests` scope for the Playwright driver: the WebRTC wrapper of
// src/chromium/webrtc-guard.ts in every document of one context, before the page's scripts run,
// through the context's init scripts (Playwright gives no session of the targets a CDP session
// attaches to). It reports through a binding of the driver; it never touches other contexts.

import { randomUUID } from 'node:crypto';
import type { BrowserContext } from 'playwright-core';
import type { UrlPolicyRules } from '../browser/types';
import { pageChecksSource, type PageChecks } from '../chromium/websocket-targets';
import type { WebSocketGuardState } from '../chromium/websocket-guard';

/** One token for the process: a page cannot learn it, so only the driver can switch a wrapper off. */
const token = randomUUID();

/** How long a change waits for Playwright to take an init script off (it waits on every page of the context). */
const scriptRemovalMs = 2000;

/** An init script as Playwright returns it (a disposable since 1.5x; nothing before). */
type InitScript = { dispose(): Promise<void> } | undefined;

/** The WebRTC checks in every document of a context, kept in line with the guard's rules. */
export class ContextPageChecks implements PageChecks {
  /** Playwright's documents get the WebRTC wrapper only: WebSockets go through the launch proxy. */
  readonly webSockets = false;
  private script: InitScript;
  private stopped = false;

  private constructor(
    private readonly context: BrowserContext,
    private readonly bindingName: string,
    private readonly onBlocked: (target: string) => void,
  ) {}

  /** Installs the wrapper in every document there is and will be; `bindingName` is the driver's reporting binding. */
  static async start(context: BrowserContext, bindingName: string, rules: UrlPolicyRules, onBlocked: (target: string) => void): Promise<ContextPageChecks> {
    const checks = new ContextPageChecks(context, bindingName, onBlocked);
    await checks.install({ enabled: true, rules });
    return checks;
  }

  /** Called by the driver's binding: what a wrapper stopped, while these checks run. */
  report(target: string): void {
    if (!this.stopped) this.onBlocked(target);
  }

  async update(rules: UrlPolicyRules): Promise<void> {
    if (!this.stopped) await this.install({ enabled: true, rules });
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    // Documents loaded meanwhile keep the wrapper, switched off.
    await this.runInDocuments(pageChecksSource(token, this.bindingName, { enabled: false, rules: { allow: [], deny: [] } }, false));
    await removeScript(this.script);
    this.script = undefined;
  }

  /** Puts the script with `state` in new documents (in place of the previous one) and runs it in the documents there are. */
  private async install(state: WebSocketGuardState): Promise<void> {
    const source = pageChecksSource(token, this.bindingName, state, false);
    const previous = this.script;
    const added: unknown = await this.context.addInitScript({ content: source });
    this.script = added && typeof (added as { dispose?: unknown }).dispose === 'function' ? (added as { dispose(): Promise<void> }) : undefined;
    await this.runInDocuments(source);
    await removeScript(previous);
  }

  private async runInDocuments(source: string): Promise<void> {
    await Promise.all(this.context.pages().flatMap((page) => page.frames().map((frame) => frame.evaluate(source).catch(() => undefined))));
  }
}

/** Takes an init script off, giving up after a moment: a page held by a load that never answers never takes the removal. */
async function removeScript(script: InitScript): Promise<void> {
  if (!script) return;
  let bound: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([script.dispose().catch(() => undefined), new Promise<void>((done) => (bound = setTimeout(done, scriptRemovalMs)))]);
  clearTimeout(bound);
}

/** A reporting binding of one driver in its context, under a name no other driver uses. */
export async function exposeReportBinding(context: BrowserContext, onReport: (target: string) => void): Promise<string> {
  const name = `__plannavReport${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  await context.exposeBinding(name, (_source, payload: unknown) => onReport(String(payload)));
  return name;
}
