// The machinery under every check of the driver conformance kit: a fixture site and a fresh driver
// per case, bounded calls, the core's view of the page, and failures worded as broken contracts.
// It must not hold a check itself, and nothing it starts may outlive its case.

import type { PageState } from '../browser/page-state';
import type { BrowserDriver, ElementRef, PageScript, ResolvedBrowserDriver } from '../browser/types';
import { resolveDriver } from '../dom/driver-defaults';
import { defaultIncludeAttributes, PageStateReader } from '../dom/page-state-reader';
import { BrowserError, RequestCancelledError } from '../errors';
import { ConformanceError, describeValue, type ConformanceCase, type ConformanceErrorOptions } from './conformance';
import { startFixtureSite, type FixturePage, type FixtureSite } from './driver-conformance-pages';
import { within } from './model-conformance-harness';

/** How the kit gets the driver under test. */
export type DriverFactory = () => BrowserDriver | Promise<BrowserDriver>;

/** How a bounded call ended: with a value, with an error, or not within its bound. */
export type Outcome<T> =
  | { readonly status: 'resolved'; readonly value: T; readonly ms: number }
  | { readonly status: 'rejected'; readonly error: unknown; readonly ms: number }
  | { readonly status: 'pending'; readonly ms: number };

/** What one check asks of a call: the contract it is judged by, its bound, and the fix to suggest. */
export interface CallExpectation {
  readonly contract: string;
  /** Milliseconds the call may take. @defaultValue 10000 */
  readonly ms?: number | undefined;
  readonly fix?: string | undefined;
}

/** What one check works with: the driver, the core's view of it, the fixture site, and helpers. */
export interface DriverCaseContext {
  readonly check: string;
  /** The driver as `createDriver` returned it. */
  readonly driver: BrowserDriver;
  /** The driver as the core uses it: its own optional members, else the core's defaults. */
  readonly resolved: ResolvedBrowserDriver;
  readonly site: FixtureSite;
  /** A failure of this check. */
  fail(details: Omit<ConformanceErrorOptions, 'check'>): ConformanceError;
  /** Says what the check is waiting for, for the message if the case runs out of time. */
  waitingFor(step: string): void;
  /** Runs a driver call that must resolve within its bound; a rejection or no answer fails the check. */
  expectValue<T>(what: string, call: () => Promise<T>, expectation: CallExpectation): Promise<T>;
  /** Runs a driver call that must reject within its bound, and returns what it rejected with. */
  expectRejection(what: string, call: () => Promise<unknown>, expectation: CallExpectation): Promise<unknown>;
  /** Loads a fixture page in the active tab with `goto`; returns its URL. */
  open(page: FixturePage, query?: string): Promise<string>;
  /** The id of the active tab's top frame, from `frames()`. */
  topFrameId(): Promise<string>;
  /** Runs one of the kit's page scripts in a frame (the top frame by default). */
  probe<TArg, TResult>(script: PageScript<TArg, TResult>, argument: TArg, frameId?: string): Promise<TResult>;
  /** Reads the page as the model sees it, through `PageStateReader` over the resolved driver. */
  capture(): Promise<PageState>;
  /** The element of `state` with this tag whose line contains `text`; fails the check when there is none. */
  elementOf(state: PageState, tagName: string, text: string): ElementRef;
  /** Polls `probe` until it returns something other than undefined, within `ms`; undefined when it never does. */
  poll<T>(what: string, probe: () => Promise<T | undefined>, ms: number): Promise<T | undefined>;
}

/** A check of the kit, before it is bound to a driver factory. */
export interface DriverCheck {
  readonly name: string;
  run(context: DriverCaseContext): Promise<void>;
}

/** The members every driver must have. */
export const requiredMembers = ['tabs', 'activeTab', 'openTab', 'switchTab', 'closeTab', 'goto', 'frames', 'evaluate', 'screenshot', 'close'] as const;
/** The members a driver may leave out (the core has a default for most of them). */
export const optionalMembers = [
  'goBack',
  'currentUrl',
  'click',
  'mouseClick',
  'fill',
  'selectOption',
  'uploadFiles',
  'press',
  'scroll',
  'waitForSettled',
  'setNavigationGuard',
  // Issue 24, the missing actions.
  'hover',
  'doubleClick',
  'dragAndDrop',
  'reload',
  'dialogs',
  'handleDialog',
] as const;

const defaultCallMs = 10_000;
const closeBoundMs = 10_000;
const pollEveryMs = 50;

/** Runs `call`, waiting at most `ms` for it to settle. A late rejection is swallowed, never unhandled. */
export async function outcomeOf<T>(call: () => Promise<T>, ms: number): Promise<Outcome<T>> {
  const started = Date.now();
  let running: Promise<T>;
  try {
    running = Promise.resolve(call());
  } catch (error) {
    return { status: 'rejected', error, ms: 0 };
  }
  running.catch(() => undefined);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), ms)));
  try {
    const settled = await Promise.race([
      running.then(
        (value) => ({ status: 'resolved' as const, value }),
        (error: unknown) => ({ status: 'rejected' as const, error }),
      ),
      bound,
    ]);
    const elapsed = Date.now() - started;
    return settled === 'pending' ? { status: 'pending', ms: elapsed } : { ...settled, ms: elapsed };
  } finally {
    clearTimeout(timer);
  }
}

/** An outcome as the `received` line of a failure. */
export function describeOutcome(outcome: Outcome<unknown>): string {
  if (outcome.status === 'pending') return `no answer after ${outcome.ms} ms`;
  if (outcome.status === 'rejected') return `a rejection after ${outcome.ms} ms: ${describeValue(outcome.error)}`;
  const value = outcome.value instanceof Uint8Array ? `${outcome.value.length} bytes` : describeValue(outcome.value);
  return `a value after ${outcome.ms} ms: ${value}`;
}

/** Whether `error` is what a call rejects with when its signal aborts: the signal's reason, an AbortError, or plannav's cancel. */
export function isAbortRejection(error: unknown, signal: AbortSignal): boolean {
  if (error === signal.reason || RequestCancelledError.isInstance(error)) return true;
  if (typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError') return true;
  return typeof error === 'object' && error !== null && (error as { cause?: unknown }).cause === signal.reason;
}

/** Whether `error` is a plannav BrowserError the model may retry. */
export function isRetryableBrowserError(error: unknown): boolean {
  return BrowserError.isInstance(error) && error.retryable;
}

/** Snapshot options as the Executor's defaults set them. */
const snapshotOptions = { viewportExpansion: 0, includeAttributes: defaultIncludeAttributes, maxTextLength: 100 };

/** `[index]<tag` at the start of an element line of the state text. */
const elementLine = /^\t*\*?\[(\d+)\]<([a-z0-9-]+)/;

/** Checks the value `createDriver` returned is a driver, failing the case when it is not. */
function asDriver(candidate: unknown, fail: DriverCaseContext['fail']): BrowserDriver {
  const members = typeof candidate === 'object' && candidate !== null ? (candidate as Record<PropertyKey, unknown>) : undefined;
  const problems = members
    ? [
        ...(members.specificationVersion === 'v1' ? [] : [`specificationVersion is ${describeValue(members.specificationVersion)}`]),
        ...requiredMembers.filter((member) => typeof members[member] !== 'function').map((member) => `${member} is not a function`),
        ...(typeof members[Symbol.asyncDispose] === 'function' ? [] : ['[Symbol.asyncDispose] is not a function']),
        ...optionalMembers
          .filter((member) => members[member] !== undefined && typeof members[member] !== 'function')
          .map((member) => `${member} is set but not a function`),
      ]
    : [`createDriver returned ${describeValue(candidate)}`];
  if (problems.length > 0) {
    throw fail({
      contract: "createDriver returns a BrowserDriver: specificationVersion 'v1', every required member a function, optional members functions or absent",
      expected: 'a BrowserDriver',
      received: problems.join('; '),
      fix: `implement BrowserDriver (required: ${requiredMembers.join(', ')}, [Symbol.asyncDispose]) and return it from createDriver, or a promise of it`,
    });
  }
  return candidate as BrowserDriver;
}

/** Turns a check into a case: a fresh site and driver, a time bound, and cleanup whatever happens. */
export function toDriverCase(check: DriverCheck, createDriver: DriverFactory, caseTimeout: number): ConformanceCase {
  return {
    name: check.name,
    run: async () => {
      const site = await startFixtureSite();
      const fail = (details: Omit<ConformanceErrorOptions, 'check'>): ConformanceError => new ConformanceError({ check: check.name, ...details });
      let step = 'waiting for createDriver() to return';
      let driver: BrowserDriver | undefined;
      let failure: { readonly error: unknown } | undefined;
      const creating = Promise.resolve().then(createDriver);
      try {
        await within(
          (async () => {
            let created: unknown;
            try {
              created = await creating;
            } catch (error) {
              throw fail({
                contract: 'createDriver returns a BrowserDriver',
                expected: 'a driver',
                received: `createDriver threw ${describeValue(error)}`,
                fix: 'make createDriver start (or connect to) a browser and return the driver',
                cause: error,
              });
            }
            driver = asDriver(created, fail);
            step = 'running the check';
            await check.run(buildContext(check.name, driver, site, fail, (next) => (step = next)));
          })(),
          caseTimeout,
          () =>
            fail({
              contract: 'every driver call ends: with a value, an error, a timeout or a cancel',
              expected: `the check to finish within ${caseTimeout} ms`,
              received: `still ${step} after ${caseTimeout} ms`,
              fix: 'make sure each call settles: honour `timeout` and `signal`, and reject when the browser fails (or raise caseTimeout for a slow browser start)',
            }),
        );
      } catch (error) {
        failure = { error };
      }
      const opened = driver;
      // A driver that arrives after the case gave up on it is closed when it comes, not left running.
      if (!opened) void creating.then((late) => (late as Partial<BrowserDriver> | undefined)?.close?.()).catch(() => undefined);
      const closing = opened ? await outcomeOf(() => opened.close(), closeBoundMs) : undefined;
      await site.close();
      // A failed check reports its own failure; a passed one still needs a driver that closes.
      if (failure) throw failure.error;
      if (closing && closing.status !== 'resolved') {
        throw fail({
          contract: 'close() releases what the driver created, and resolves',
          expected: `close() to resolve within ${closeBoundMs} ms`,
          received: describeOutcome(closing),
          fix: 'resolve close() once the browser, context or connection the driver made is closed; never reject for what is already closed',
          cause: closing.status === 'rejected' ? closing.error : undefined,
        });
      }
    },
  };
}

function buildContext(
  check: string,
  driver: BrowserDriver,
  site: FixtureSite,
  fail: DriverCaseContext['fail'],
  waitingFor: (step: string) => void,
): DriverCaseContext {
  const resolved = resolveDriver(driver);
  let reader: PageStateReader | undefined;
  const context: DriverCaseContext = {
    check,
    driver,
    resolved,
    site,
    fail,
    waitingFor,
    expectValue: async (what, call, expectation) => {
      const ms = expectation.ms ?? defaultCallMs;
      waitingFor(`waiting for ${what}`);
      const outcome = await outcomeOf(call, ms);
      if (outcome.status === 'resolved') return outcome.value;
      throw fail({
        contract: expectation.contract,
        expected: `${what} to resolve within ${ms} ms`,
        received: describeOutcome(outcome),
        fix: expectation.fix ?? `make ${what} do its work and resolve; reject only when it cannot`,
        cause: outcome.status === 'rejected' ? outcome.error : undefined,
      });
    },
    expectRejection: async (what, call, expectation) => {
      const ms = expectation.ms ?? defaultCallMs;
      waitingFor(`waiting for ${what} to reject`);
      const outcome = await outcomeOf(call, ms);
      if (outcome.status === 'rejected') return outcome.error;
      throw fail({
        contract: expectation.contract,
        expected: `${what} to reject within ${ms} ms`,
        received: describeOutcome(outcome),
        fix: expectation.fix ?? `make ${what} reject`,
      });
    },
    open: async (page, query) => {
      const url = site.url(page, query);
      await context.expectValue(`goto(${url})`, () => driver.goto(url), {
        contract: 'goto loads a URL in the active tab and resolves once the document has loaded',
        ms: 15_000,
        fix: "load the URL in the active tab (Playwright's page.goto) and resolve after the load and the page's settle",
      });
      return url;
    },
    topFrameId: async () => {
      const frames = await context.expectValue('frames()', () => driver.frames(), { contract: 'frames() lists the frames of the active tab, top frame first' });
      const top = frames[0];
      if (!top || typeof top.id !== 'string') {
        throw fail({
          contract: 'frames() lists the frames of the active tab, top frame first',
          expected: 'at least the top frame, with a string id',
          received: describeValue(frames),
          fix: "return the active tab's main frame first, with an id that evaluate() accepts",
        });
      }
      return top.id;
    },
    probe: async (script, argument, frameId) => {
      const frame = frameId ?? (await context.topFrameId());
      return context.expectValue(`evaluate(${frame}, ${script.id})`, () => driver.evaluate(frame, script, argument), {
        contract: 'evaluate() runs a page script in a frame of the active tab and returns its value as JSON',
        fix: "evaluate pageScriptExpression(script, argument) in the frame's document and return readPageScriptResult(value, script.id)",
      });
    },
    capture: async () => {
      reader ??= new PageStateReader(resolved, snapshotOptions);
      const current = reader;
      return context.expectValue('the core reading the page (frames(), evaluate() and the page runtime)', () => current.capture({ screenshot: false }), {
        contract: "the core reads any page through frames() and evaluate(): the page runtime's snapshot runs in each frame",
        fix: "make evaluate() run the script's source in the frame's document and await its value (pageScriptExpression / readPageScriptResult do both ends)",
      });
    },
    elementOf: (state, tagName, text) => {
      for (const line of state.elementsText.split('\n')) {
        const match = elementLine.exec(line);
        if (!match || match[2] !== tagName || !line.includes(text)) continue;
        const ref = state.elements.get(Number(match[1]));
        if (ref) return ref;
      }
      throw fail({
        contract: "the core reads any page through frames() and evaluate(): the page runtime's snapshot runs in each frame",
        expected: `an element line <${tagName}> with "${text}" in the page as the model reads it`,
        received: describeValue(state.elementsText),
        fix: 'list every frame of the active tab in frames() (with offsets for the visible ones) and run the page scripts in the frame they are given',
      });
    },
    poll: async (what, probe, ms) => {
      waitingFor(`waiting for ${what}`);
      const deadline = Date.now() + ms;
      // Bounded by the deadline, and by the number of rounds should a probe return at once.
      for (let round = 0; round < Math.ceil(ms / pollEveryMs) + 1; round++) {
        const value = await probe();
        if (value !== undefined) return value;
        if (Date.now() >= deadline) break;
        await new Promise((resolve) => setTimeout(resolve, pollEveryMs));
      }
      return undefined;
    },
  };
  return context;
}
