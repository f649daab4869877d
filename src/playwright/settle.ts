// Settle detection for the Playwright driver: when a page is done reacting to an action (document
// parsed, network and DOM quiet). It only waits and watches; it never fails and never acts on a page.

import type { Frame, Page, Request } from 'playwright-core';
import { callRuntime } from '../dom/page-runtime';
import { sleep } from '../util/abort';
import { PageSettler } from '../chromium/page-settler';
import type { ResolvedSettleOptions } from '../chromium/settle-options';
import { frameEvaluator } from '../chromium/runtime-calls';

/** How long a timer the probe armed gets to fire before the document counts as one whose timers do not run. */
const timerProbeMs = 30;

/**
 * Whether page timers run in a page's current document, checked once per document. With page
 * JavaScript off (a context made with `javaScriptEnabled: false`, which a driver attached to it
 * cannot know) they never fire, and an in-page DOM-quiet wait would last its whole bound.
 */
class DocumentTimers {
  /** The answer for the current document; unknown until checked, and again after each navigation. */
  private answer: boolean | undefined;
  /** Counts the main frame's navigations, so an answer read across one is not kept for the new document. */
  private navigations = 0;

  /** Removes the listener this tracker added to the page. */
  readonly dispose: () => void;

  constructor(page: Page) {
    const navigated = (frame: Frame): void => {
      if (frame !== page.mainFrame()) return;
      this.navigations++;
      this.answer = undefined;
    };
    page.on('framenavigated', navigated);
    this.dispose = () => page.off('framenavigated', navigated);
  }

  /**
   * True when timers run in the frame's document, false when they do not, undefined when the
   * page did not answer by `deadline` (busy, or navigating). A document counts as timer-less only
   * when two signals agree: the parser's scripting flag (instant and exact, where a busy or
   * throttled page's timers are merely late) and an armed 0 ms timer that has not fired (the
   * flag alone would take a non-HTML document, or a page that tampers with the parser, for one).
   */
  async run(frame: Frame, deadline: number, signal: AbortSignal | undefined): Promise<boolean | undefined> {
    if (this.answer !== undefined) return this.answer;
    const navigations = this.navigations;
    const probe = await beforeDeadline(callRuntime(frameEvaluator(frame), 'main', 'timerProbe', undefined), deadline);
    if (probe === undefined) return undefined;
    let answer = true;
    if (probe === 'armed') {
      await sleep(Math.min(timerProbeMs, Math.max(0, deadline - Date.now())), signal);
      const fired = await beforeDeadline(callRuntime(frameEvaluator(frame), 'main', 'timerProbeFired', undefined), deadline);
      // null: the document changed since the timer was armed; check again in the new one.
      if (fired === undefined || fired === null) return undefined;
      answer = fired;
    }
    if (navigations === this.navigations) this.answer = answer;
    return answer;
  }
}

/** What the promise resolves to, or undefined when it rejects or has not resolved by `deadline`. */
async function beforeDeadline<T>(promise: Promise<T>, deadline: number): Promise<T | undefined> {
  let bound: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((done) => (bound = setTimeout(() => done(undefined), Math.max(0, deadline - Date.now()))));
  const value = await Promise.race([promise.catch(() => undefined), late]);
  clearTimeout(bound);
  return value;
}

/** Waits for the pages it watches to settle, within the settle bound. */
export class Settler extends PageSettler<Page, Request> {
  /** False when the driver made the context with page JavaScript off: the DOM cannot change by itself then. */
  private readonly pageScripts: boolean;
  private readonly timers = new WeakMap<Page, DocumentTimers>();

  constructor(options: ResolvedSettleOptions, pageScripts: boolean) {
    super(options);
    this.pageScripts = pageScripts;
  }

  /** Whether page timers run in each document, checked once per document. */
  protected override watchMore(page: Page): () => void {
    const timers = new DocumentTimers(page);
    this.timers.set(page, timers);
    return () => timers.dispose();
  }

  /**
   * Waits until the page has settled: its document committed and parsed, no tracked request in
   * flight and no DOM mutation for the quiet windows, until `deadline` at the latest. Never
   * fails: a busy page just ends the wait.
   */
  override async waitUntilSettled(page: Page, deadline: number, signal: AbortSignal | undefined): Promise<void> {
    const { domQuietMs } = this.options;
    const remaining = (): number => Math.max(0, deadline - Date.now());
    await page.waitForLoadState('domcontentloaded', { timeout: Math.max(1, remaining()) }).catch(() => undefined);
    const timers = this.timers.get(page);
    // Bounded by the deadline: every pass waits at least the DOM window or a short pause.
    for (let pass = 0; pass < 100 && remaining() > 0; pass++) {
      // Where timers do not run, no page script can change the DOM, and the in-page wait, which
      // counts its quiet window with a timer, would last until the deadline.
      const timersRun = this.pageScripts && (await timers?.run(page.mainFrame(), deadline, signal)) !== false;
      if (!timersRun) {
        if (this.networkQuiet(page)) return;
        await sleep(Math.min(50, remaining()), signal);
        continue;
      }
      const inPage = callRuntime(frameEvaluator(page.mainFrame()), 'main', 'domQuiet', { quietMs: domQuietMs, maxMs: Math.max(1, remaining()) }).catch(
        () => false,
      ); // a navigation destroyed the context: wait again in the new document
      // Should the page's timers stop all the same (scripts switched off in a document checked before), Node keeps the bound.
      let bound: ReturnType<typeof setTimeout> | undefined;
      const domQuiet = await Promise.race([inPage, new Promise<boolean>((done) => (bound = setTimeout(() => done(true), remaining() + 20)))]);
      clearTimeout(bound);
      const networkQuiet = this.networkQuiet(page);
      if (domQuiet && networkQuiet) return;
      if (!domQuiet) await page.waitForLoadState('domcontentloaded', { timeout: Math.max(1, remaining()) }).catch(() => undefined);
      else await sleep(Math.min(50, remaining()), signal);
    }
  }
}
