// The checks of the driver conformance kit on what every call shares and how a driver ends: the
// screenshot, settling on a busy page, cancellation, timeouts and close. The bounds are behaviour
// bounds (a call that hangs fails), never speed measurements.

import type { CallOptions } from '../browser/types';
import { BrowserDisconnectedError } from '../errors';
import { describeValue } from './conformance';
import {
  describeOutcome,
  isAbortRejection,
  isRetryableBrowserError,
  outcomeOf,
  type DriverCaseContext,
  type DriverCheck,
  type Outcome,
} from './driver-conformance-harness';
import { locationScript, mutateForeverScript, viewportScript } from './driver-conformance-probes';

/** How long after an abort a call may take to reject. */
const abortBoundMs = 1000;
/** How long a call with an already-aborted signal, or after close, may take to reject. */
const rejectBoundMs = 3000;
/** How long waitForSettled may take on a page that never stops changing. */
const settleBoundMs = 8000;
const gotoTimeoutMs = 500;
/** How long past its timeout a goto may take to reject. */
const timeoutSlackMs = 2500;
/** How long the tab may take to answer a read after a goto gave up on its load: a readable tab answers at once. */
const readableBoundMs = 3000;

const cancelContract =
  'every call takes { signal } and rejects promptly when the signal aborts (with the signal\u2019s reason or an AbortError), an already-aborted signal included';
const cancelFix = "check options.signal at the start of every call (signal.throwIfAborted()) and race the browser's work against its abort event";

/** Width and height from the JPEG's start-of-frame segment, or undefined when there is none. */
export function jpegSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  let offset = 2;
  // Bounded: a JPEG has a handful of segments before its frame header.
  for (let segments = 0; segments < 500 && offset + 9 <= bytes.length; segments++) {
    if (bytes[offset] !== 0xff) return undefined;
    const marker = bytes[offset + 1] as number;
    if (marker === 0xff) {
      offset++;
      continue;
    }
    const isFrameHeader = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrameHeader) {
      return {
        height: ((bytes[offset + 5] as number) << 8) | (bytes[offset + 6] as number),
        width: ((bytes[offset + 7] as number) << 8) | (bytes[offset + 8] as number),
      };
    }
    offset += 2 + (((bytes[offset + 2] as number) << 8) | (bytes[offset + 3] as number));
  }
  return undefined;
}

/** Whether an image size is the viewport's, in CSS or in device pixels, give or take scrollbars and rounding. */
function plausibleSize(image: { width: number; height: number }, viewport: { width: number; height: number; devicePixelRatio: number }): boolean {
  const close = (actual: number, expected: number): boolean => Math.abs(actual - expected) <= expected * 0.02 + 2;
  return [1, viewport.devicePixelRatio].some((scale) => close(image.width, viewport.width * scale) && close(image.height, viewport.height * scale));
}

/** Runs each call and lists the ones that did not reject within the bound, or rejected with something else than `accept` allows. */
async function misbehaving(
  calls: readonly (readonly [string, () => Promise<unknown>])[],
  accept: (error: unknown) => boolean,
  context: DriverCaseContext,
): Promise<string[]> {
  const problems: string[] = [];
  for (const [what, call] of calls) {
    context.waitingFor(`waiting for ${what} to reject`);
    const outcome = await outcomeOf(call, rejectBoundMs);
    if (outcome.status !== 'rejected' || !accept(outcome.error)) problems.push(`${what} gave ${describeOutcome(outcome)}`);
  }
  return problems;
}

export const lifecycleChecks: DriverCheck[] = [
  {
    name: 'screenshot › returns JPEG bytes of the viewport',
    run: async (context) => {
      await context.open('controls');
      const contract = 'screenshot() returns the bytes of a JPEG of the viewport (or of the whole page with fullPage)';
      const bytes = await context.expectValue('screenshot()', () => context.driver.screenshot(), { contract, ms: 15_000 });
      const viewport = await context.probe(viewportScript, undefined);
      const isJpeg = bytes instanceof Uint8Array && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
      const size = isJpeg ? jpegSize(bytes) : undefined;
      if (!size || !plausibleSize(size, viewport)) {
        const head = bytes instanceof Uint8Array ? [...bytes.slice(0, 4)].map((byte) => byte.toString(16).padStart(2, '0')).join(' ') : describeValue(bytes);
        throw context.fail({
          contract,
          expected: `a Uint8Array starting ff d8 ff, ${viewport.width}×${viewport.height} (CSS pixels, or ×${viewport.devicePixelRatio} in device pixels)`,
          received: `${bytes instanceof Uint8Array ? `${bytes.length} bytes starting ${head}` : head}${size ? `, ${size.width}×${size.height}` : ''}`,
          fix: "capture the viewport as JPEG (Playwright: page.screenshot({ type: 'jpeg', quality }); CDP: Page.captureScreenshot with format 'jpeg') and return the bytes, not base64 text",
        });
      }
    },
  },
  {
    name: 'settle › waitForSettled resolves on a page that never stops changing',
    run: async (context) => {
      await context.open('controls');
      await context.probe(mutateForeverScript, undefined);
      context.waitingFor('waiting for waitForSettled() on a busy page');
      const outcome = await outcomeOf(() => context.resolved.waitForSettled(), settleBoundMs);
      if (outcome.status !== 'resolved') {
        throw context.fail({
          contract: 'waitForSettled() resolves when the page has settled or a bound of a few seconds has passed, and never rejects for a busy page',
          expected: `waitForSettled() to resolve within ${settleBoundMs} ms on a page that changes its DOM every 25 ms`,
          received: describeOutcome(outcome),
          fix: "cap the wait (the core's default waits at most 3 s), and resolve rather than reject when the cap is reached",
          cause: outcome.status === 'rejected' ? outcome.error : undefined,
        });
      }
    },
  },
  {
    name: 'cancellation › every call with an aborted signal rejects',
    run: async (context) => {
      const { driver, resolved } = context;
      const url = await context.open('controls');
      const state = await context.capture();
      const button = context.elementOf(state, 'button', 'Save draft');
      const input = context.elementOf(state, 'input', 'Your name');
      const select = context.elementOf(state, 'select', 'Colour');
      const topId = await context.topFrameId();
      const tab = await context.expectValue('activeTab()', () => driver.activeTab(), { contract: 'activeTab() returns the tab the driver acts on' });
      const signal = AbortSignal.abort();
      const options: CallOptions = { signal };
      // The calls that change the page or the tabs come last, in case a driver goes ahead with them.
      const calls: [string, () => Promise<unknown>][] = [
        ['tabs()', () => driver.tabs(options)],
        ['activeTab()', () => driver.activeTab(options)],
        ['frames()', () => driver.frames(options)],
        ['evaluate()', () => driver.evaluate(topId, locationScript, undefined, options)],
        ['screenshot()', () => driver.screenshot(options)],
        ['currentUrl()', () => resolved.currentUrl(options)],
        ['waitForSettled()', () => resolved.waitForSettled(options)],
        ...(driver.setNavigationGuard
          ? [['setNavigationGuard()', () => resolved.setNavigationGuard?.(undefined, options) ?? Promise.resolve()] as [string, () => Promise<unknown>]]
          : []),
        ['click()', () => resolved.click(button, options)],
        ...(driver.mouseClick ? [['mouseClick()', () => driver.mouseClick?.(1, 1, options) ?? Promise.resolve()] as [string, () => Promise<unknown>]] : []),
        ['fill()', () => resolved.fill(input, 'aborted', options)],
        ['selectOption()', () => resolved.selectOption(select, 'Blue', options)],
        ['press()', () => resolved.press('Tab', options)],
        ['scroll()', () => resolved.scroll({ deltaY: 100, ...options })],
        ['switchTab()', () => driver.switchTab(tab.id, options)],
        ['goBack()', () => resolved.goBack(options)],
        ['goto()', () => driver.goto(url, options)],
        ['openTab()', () => driver.openTab(url, options)],
        ['closeTab()', () => driver.closeTab(tab.id, options)],
      ];
      const problems = await misbehaving(calls, (error) => isAbortRejection(error, signal), context);
      if (problems.length > 0) {
        throw context.fail({
          contract: cancelContract,
          expected: `every call given an aborted signal to reject within ${rejectBoundMs} ms with the signal's reason (an AbortError)`,
          received: problems.join('; '),
          fix: cancelFix,
        });
      }
    },
  },
  {
    name: 'cancellation › an abort ends a goto to a server that never answers within 1 s',
    run: async (context) => {
      await context.open('controls');
      const controller = new AbortController();
      let early: Outcome<void> | undefined;
      const started = Date.now();
      const loading = context.driver.goto(context.site.hangingUrl, { signal: controller.signal });
      loading.then(
        () => (early = { status: 'resolved', value: undefined, ms: Date.now() - started }),
        (error: unknown) => (early = { status: 'rejected', error, ms: Date.now() - started }),
      );
      const requested = await context.poll(
        'the browser to request the URL that never answers',
        async () => (context.site.hangingRequests() > 0 || early ? true : undefined),
        5000,
      );
      if (early || !requested) {
        throw context.fail({
          contract: 'goto waits for the document to load',
          expected: `goto(${context.site.hangingUrl}) still waiting for the server's answer`,
          received: early ? describeOutcome(early) : 'the browser never requested the URL',
          fix: 'navigate the active tab and wait for the response before goto resolves',
        });
      }
      controller.abort();
      const outcome = await outcomeOf(() => loading, abortBoundMs);
      if (outcome.status !== 'rejected' || !isAbortRejection(outcome.error, controller.signal)) {
        throw context.fail({
          contract: cancelContract,
          expected: `goto to reject with the signal's reason within ${abortBoundMs} ms of the abort`,
          received: describeOutcome(outcome),
          fix: cancelFix,
          cause: outcome.status === 'rejected' ? outcome.error : undefined,
        });
      }
    },
  },
  {
    name: 'timeouts › a goto past its timeout is a retryable BrowserError',
    run: async (context) => {
      await context.open('controls');
      context.waitingFor(`waiting for goto(…, { timeout: ${gotoTimeoutMs} }) to reject`);
      const outcome = await outcomeOf(() => context.driver.goto(context.site.hangingUrl, { timeout: gotoTimeoutMs }), gotoTimeoutMs + timeoutSlackMs);
      if (outcome.status !== 'rejected' || !isRetryableBrowserError(outcome.error)) {
        throw context.fail({
          contract: 'every call takes { timeout } and rejects with a retryable BrowserError once it has passed',
          expected: `goto to a server that never answers, with timeout ${gotoTimeoutMs}, to reject within ${gotoTimeoutMs + timeoutSlackMs} ms with a BrowserError, retryable: true`,
          received: describeOutcome(outcome),
          fix: 'pass the timeout to the browser (Playwright: page.goto(url, { timeout })) or race the call against a timer, and throw new BrowserError(`… did not finish within ${timeout} ms`, { retryable: true })',
          cause: outcome.status === 'rejected' ? outcome.error : undefined,
        });
      }
    },
  },
  {
    name: 'timeouts › a goto that times out leaves the tab readable',
    run: async (context) => {
      const url = await context.open('controls');
      context.waitingFor(`waiting for goto(…, { timeout: ${gotoTimeoutMs} }) to reject`);
      const outcome = await outcomeOf(() => context.driver.goto(context.site.hangingUrl, { timeout: gotoTimeoutMs }), gotoTimeoutMs + timeoutSlackMs);
      if (outcome.status !== 'rejected') {
        throw context.fail({
          contract: 'every call takes { timeout } and rejects with a retryable BrowserError once it has passed',
          expected: `goto to a server that never answers, with timeout ${gotoTimeoutMs}, to reject within ${gotoTimeoutMs + timeoutSlackMs} ms`,
          received: describeOutcome(outcome),
          fix: 'pass the timeout to the browser (Playwright: page.goto(url, { timeout })) or race the call against a timer',
        });
      }
      const contract =
        'a call that gives up on a load (its timeout passed, its signal aborted) stops it, so the tab answers the next calls: while a top-level load is pending, Chromium runs no script in the tab, and every snapshot would time out';
      const fix =
        "when goto's load has not committed by the timeout, stop it before rejecting: CDP Page.stopLoading (Playwright: (await context.newCDPSession(page)).send('Page.stopLoading'); Puppeteer: (await page.createCDPSession()).send('Page.stopLoading')); window.stop() through evaluate does not run while the load is pending";
      context.waitingFor('waiting for the tab to answer after the goto gave up');
      const read = await outcomeOf(async () => {
        const [top] = await context.driver.frames({ timeout: readableBoundMs });
        return context.driver.evaluate(top?.id ?? '', locationScript, undefined, { timeout: readableBoundMs });
      }, readableBoundMs + 500);
      if (read.status !== 'resolved' || read.value.href !== url) {
        throw context.fail({
          contract,
          expected: `frames() and evaluate() to answer within ${readableBoundMs} ms, the tab still showing ${url}`,
          received: read.status === 'resolved' ? `the tab shows ${read.value.href}` : describeOutcome(read),
          fix,
          cause: read.status === 'rejected' ? read.error : undefined,
        });
      }
    },
  },
  {
    name: 'close › close is idempotent',
    run: async (context) => {
      await context.open('target');
      const contract = 'close() is idempotent: a second call, at once or later, resolves as well';
      await context.expectValue('two close() calls at once', () => Promise.all([context.driver.close(), context.driver.close()]), {
        contract,
        fix: 'keep the promise of the first close() and return it from every later call',
      });
      await context.expectValue('close() once more', () => context.driver.close(), {
        contract,
        fix: 'keep the promise of the first close() and return it from every later call',
      });
    },
  },
  {
    name: 'close › Symbol.asyncDispose closes the driver',
    run: async (context) => {
      await context.open('target');
      const contract = '[Symbol.asyncDispose]() closes the driver as close() does, for `await using`';
      await context.expectValue('[Symbol.asyncDispose]()', () => context.driver[Symbol.asyncDispose](), {
        contract,
        fix: 'implement [Symbol.asyncDispose]() as `return this.close()`',
      });
      const problems = await misbehaving([['tabs() after [Symbol.asyncDispose]()', () => context.driver.tabs()]], () => true, context);
      if (problems.length > 0) {
        throw context.fail({
          contract,
          expected: 'tabs() to reject: the driver is closed',
          received: problems.join('; '),
          fix: 'implement [Symbol.asyncDispose]() as `return this.close()`',
        });
      }
    },
  },
  {
    name: 'close › calls after close reject',
    run: async (context) => {
      const { driver } = context;
      const url = await context.open('target');
      const topId = await context.topFrameId();
      await context.expectValue('close()', () => driver.close(), { contract: 'close() releases what the driver created, and resolves' });
      const calls: [string, () => Promise<unknown>][] = [
        ['tabs()', () => driver.tabs()],
        ['activeTab()', () => driver.activeTab()],
        ['frames()', () => driver.frames()],
        ['evaluate()', () => driver.evaluate(topId, locationScript, undefined)],
        ['screenshot()', () => driver.screenshot()],
        ['goto()', () => driver.goto(url)],
        ['openTab()', () => driver.openTab(url)],
      ];
      const problems = await misbehaving(calls, () => true, context);
      if (problems.length > 0) {
        throw context.fail({
          contract: 'a closed driver rejects every call (a BrowserError saying it is closed), rather than hanging or acting on another browser',
          expected: `each call after close() to reject within ${rejectBoundMs} ms`,
          received: problems.join('; '),
          fix: "set a closed flag in close() and throw new BrowserError('The driver is closed: open a new one.') at the start of every call",
        });
      }
    },
  },
  {
    name: 'close › calls after close reject with BrowserDisconnectedError',
    run: async (context) => {
      const { driver } = context;
      const url = await context.open('target');
      const topId = await context.topFrameId();
      await context.expectValue('close()', () => driver.close(), { contract: 'close() releases what the driver created, and resolves' });
      const calls: [string, () => Promise<unknown>][] = [
        ['tabs()', () => driver.tabs()],
        ['activeTab()', () => driver.activeTab()],
        ['frames()', () => driver.frames()],
        ['evaluate()', () => driver.evaluate(topId, locationScript, undefined)],
        ['screenshot()', () => driver.screenshot()],
        ['goto()', () => driver.goto(url)],
        ['openTab()', () => driver.openTab(url)],
      ];
      const problems = await misbehaving(calls, (error) => BrowserDisconnectedError.isInstance(error), context);
      if (problems.length > 0) {
        throw context.fail({
          contract:
            'once the browser is gone (close() was called, the browser process ended, the connection dropped) every call rejects with a BrowserDisconnectedError, which ends a task at once instead of using up its failures',
          expected: `each call after close() to reject within ${rejectBoundMs} ms with a BrowserDisconnectedError`,
          received: problems.join('; '),
          fix: "throw new BrowserDisconnectedError('The driver is closed: open a new one.') at the start of every call once close() was called, and from every call once the browser's process or connection is gone (import it from plannav)",
        });
      }
    },
  },
];
