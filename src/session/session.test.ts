// The session layer on its own: the deadlines in one settings object, the typed event hub, one
// page reader per browser and settings, settle-then-read, the URL guard and the agent context.
import { describe, expect, it, vi } from 'vitest';
import { shopBrowser } from '../../test/helpers/loop';
import { ActionRegistry } from '../actions/registry';
import { keepGuard, standingGuardOf, forgetGuard } from '../browser/standing-guard';
import type { CallOptions, NavigationGuard } from '../browser/types';
import { BrowserError, ConfigError, RequestCancelledError } from '../errors';
import type { LLMClient } from '../llm/types';
import { SecretStore } from '../security/secrets';
import { UrlPolicy } from '../security/url-policy';
import { FakeBrowserDriver } from '../testing/fake-browser-driver';
import { BrowserSession } from './browser-session';
import { createAgentContext } from './agent-context';
import { TypedEventHub } from './event-hub';
import { createPageReader, sharedPageReader } from './page-reader';
import { defaultTimeouts, TimeoutSettings } from './timeouts';
import { dropStandingGuard, urlGuard } from './url-guard';

const never = new AbortController().signal;
const policy = (allow?: string[]) => new UrlPolicy(allow ? { allow } : {});
const guardOf = (check: UrlPolicy): NavigationGuard => ({ check: (url) => check.check(url), blocked: () => undefined });

describe('TimeoutSettings', () => {
  it('starts from the documented defaults, takes the entry point\u2019s overrides and a call\u2019s own', () => {
    const base = new TimeoutSettings();
    expect(base.browser).toEqual({ pageState: 30_000, action: 180_000, settle: 15_000 });
    expect(base.model()).toBe(120_000);
    const entry = new TimeoutSettings({ action: 60_000, settle: undefined });
    expect(entry.action()).toBe(60_000);
    expect(entry.settle()).toBe(defaultTimeouts.settle);
    expect(entry.action(5)).toBe(5);
    expect(entry.pageState(7)).toBe(7);
  });

  it('derives a narrower scope without changing its parent', () => {
    const parent = new TimeoutSettings({ pageState: 1_000 });
    const child = parent.with({ action: 50 });
    expect(child.browser).toEqual({ pageState: 1_000, action: 50, settle: 15_000 });
    expect(parent.action()).toBe(180_000);
  });
});

describe('TypedEventHub', () => {
  type Map = { ping: { n: number }; pong: { text: string } };

  it('hands each listener its event; a listener that throws or rejects reaches neither the others nor the emitter', async () => {
    const failures: unknown[] = [];
    const hub = new TypedEventHub<Map>((error) => failures.push(error));
    const heard: number[] = [];
    hub.on('ping', () => {
      throw new Error('first');
    });
    hub.on('ping', async () => Promise.reject(new Error('second')));
    hub.on('ping', (event) => heard.push(event.n));
    expect(() => hub.emit('ping', { n: 1 })).not.toThrow();
    await vi.waitFor(() => expect(failures).toHaveLength(2));
    expect(heard).toEqual([1]);
    expect((failures as Error[]).map((error) => error.message)).toEqual(['first', 'second']);
  });

  it('stops a listener with off, hears once only once, and removes a subscription', () => {
    const hub = new TypedEventHub<Map>(() => undefined);
    const texts: string[] = [];
    const listener = (event: { text: string }) => texts.push(event.text);
    hub.on('pong', listener);
    hub.once('pong', (event) => texts.push(`once ${event.text}`));
    const remove = hub.subscribe('pong', (event) => texts.push(`sub ${event.text}`));
    hub.emit('pong', { text: 'a' });
    hub.off('pong', listener);
    remove();
    hub.emit('pong', { text: 'b' });
    expect(texts).toEqual(['a', 'once a', 'sub a']);
  });
});

describe('page readers', () => {
  it('shares one reader per browser and settings, so indexes stay stable between calls', () => {
    const browser = shopBrowser();
    const session = new BrowserSession(browser);
    const first = sharedPageReader(browser, session.driver, { viewportExpansion: 0 });
    expect(sharedPageReader(browser, session.driver, {})).toBe(first);
    expect(sharedPageReader(browser, session.driver, { viewportExpansion: -1 })).not.toBe(first);
    expect(sharedPageReader(shopBrowser(), session.driver, {})).not.toBe(first);
    expect(createPageReader(session.driver)).not.toBe(first);
  });

  it('gives every reader the same text limit', async () => {
    const browser = shopBrowser();
    const session = new BrowserSession(browser, { reader: { viewportExpansion: -1, includeAttributes: ['name'] } });
    const state = await session.readPage({ signal: never, settle: false });
    expect(state.url).toBe('https://shop.test/');
    const snapshots = browser.calls.map((call) => JSON.stringify(call.args)).filter((args) => args.includes('maxTextLength'));
    expect(snapshots.length).toBeGreaterThan(0);
    for (const args of snapshots) expect(args).toContain('"viewportExpansion":-1,"includeAttributes":["name"],"maxTextLength":100');
  });
});

describe('settle-then-read', () => {
  it('waits for the page to settle before reading it, and skips the wait when told', async () => {
    const browser = shopBrowser();
    const session = new BrowserSession(browser);
    await session.readPage({ signal: never });
    expect(browser.methodsCalled[0]).toBe('waitForSettled');
    const before = browser.calls.length;
    await session.readPage({ signal: never, settle: false });
    expect(browser.methodsCalled.slice(before)).not.toContain('waitForSettled');
  });

  it('reads a page that never settles as it is, once the settle deadline passed', async () => {
    class Unsettled extends FakeBrowserDriver {
      override waitForSettled(): Promise<void> {
        return new Promise<void>(() => undefined);
      }
    }
    const session = new BrowserSession(new Unsettled({ startUrl: 'https://shop.test/', pages: {} }), { timeouts: { settle: 20 } });
    const state = await session.readPage({ signal: never });
    expect(state.url).toBe('https://shop.test/');
  });

  it('ends a read past the page-state deadline with a retryable BROWSER_TIMEOUT naming the deadline', async () => {
    class Stuck extends FakeBrowserDriver {
      override frames(): never {
        return new Promise<never>(() => undefined) as never;
      }
    }
    const session = new BrowserSession(new Stuck({ startUrl: 'https://shop.test/' }), { timeouts: { pageState: 20 } });
    const error = await session.readPage({ signal: never, settle: false }).catch((caught: unknown) => caught);
    expect(BrowserError.isInstance(error)).toBe(true);
    expect((error as BrowserError).code).toBe('BROWSER_TIMEOUT');
    expect((error as BrowserError).retryable).toBe(true);
    expect((error as BrowserError).message).toContain('20 ms (browserTimeouts.pageState)');
    // A call's own deadline wins over the session's.
    const own = await session.readPage({ signal: never, settle: false, timeouts: { pageState: 5 } }).catch((caught: unknown) => caught);
    expect((own as BrowserError).message).toContain('5 ms');
  });

  it('rejects as a cancel when the signal aborts during the settle wait', async () => {
    class Unsettled extends FakeBrowserDriver {
      override waitForSettled(): Promise<void> {
        return new Promise<void>(() => undefined);
      }
    }
    const session = new BrowserSession(new Unsettled({ startUrl: 'https://shop.test/' }));
    const controller = new AbortController();
    const read = session.readPage({ signal: controller.signal }).catch((caught: unknown) => caught);
    controller.abort(new RequestCancelledError('stop'));
    expect(RequestCancelledError.isInstance(await read)).toBe(true);
  });
});

describe('the lease', () => {
  it('lets one holder at a time use a browser', () => {
    const browser = shopBrowser();
    const release = new BrowserSession(browser).lease({ what: 'a test' });
    expect(() => new BrowserSession(browser).lease({ what: 'another' })).toThrow(ConfigError);
    release();
    new BrowserSession(browser).lease({ what: 'another' })();
  });
});

describe('the URL guard', () => {
  it('says so when the driver cannot enforce the policy', async () => {
    const browser = shopBrowser() as FakeBrowserDriver & { setNavigationGuard?: unknown };
    Object.defineProperty(browser, 'setNavigationGuard', { value: undefined });
    const installed = await urlGuard({
      browser,
      policy: policy(['shop.test']),
      guard: guardOf(policy()),
      signal: never,
      timeoutMs: 1000,
      standing: 'lift',
    }).install();
    expect(installed).toMatchObject({ supported: false, guarded: false });
  });

  it('installs a restrictive policy, which then stops a denied navigation, and removes it at release', async () => {
    const browser = shopBrowser();
    const allowShop = policy(['shop.test']);
    const guard = urlGuard({ browser, policy: allowShop, guard: guardOf(allowShop), signal: never, timeoutMs: 1000, standing: 'lift' });
    expect(await guard.install()).toMatchObject({ supported: true, guarded: true, failure: undefined });
    await expect(browser.goto('https://elsewhere.test/')).rejects.toThrow();
    await guard.release();
    await guard.release();
    expect(browser.calls.filter((call) => call.method === 'setNavigationGuard').map((call) => call.args[0])).toEqual(['guard', 'none']);
  });

  it('installs nothing for a policy that allows everything', async () => {
    const browser = shopBrowser();
    const installed = await urlGuard({ browser, policy: policy(), guard: guardOf(policy()), signal: never, timeoutMs: 1000, standing: 'lift' }).install();
    expect(installed.guarded).toBe(false);
    expect(browser.methodsCalled).not.toContain('setNavigationGuard');
  });

  it('lifts a guard an Executor keeps on the driver for a call, and puts it back at release', async () => {
    const browser = shopBrowser();
    const kept = keepGuard(browser, guardOf(policy(['kept.test'])));
    const guard = urlGuard({ browser, policy: policy(), guard: guardOf(policy()), signal: never, timeoutMs: 1000, standing: 'lift' });
    await guard.install();
    await guard.release();
    const calls = browser.calls.filter((call) => call.method === 'setNavigationGuard').map((call) => call.args[0]);
    expect(calls).toEqual(['none', 'guard']);
    expect(standingGuardOf(browser)).toBe(kept);
    forgetGuard(browser);
  });

  it('removes a kept guard whose Executor closed during the call', async () => {
    const browser = shopBrowser();
    const kept = keepGuard(browser, guardOf(policy(['kept.test'])));
    const allowShop = policy(['shop.test']);
    const guard = urlGuard({ browser, policy: allowShop, guard: guardOf(allowShop), signal: never, timeoutMs: 1000, standing: 'lift' });
    await guard.install();
    kept.kept = false;
    await guard.release();
    expect(standingGuardOf(browser)).toBeUndefined();
    expect(browser.calls.filter((call) => call.method === 'setNavigationGuard').map((call) => call.args[0])).toEqual(['guard', 'none']);
  });

  it('as an Executor\u2019s own: keeps its guard between tasks, drops another\u2019s without a policy, and removes its own at close', async () => {
    const browser = shopBrowser();
    const allowShop = policy(['shop.test']);
    const own = await urlGuard({ browser, policy: allowShop, guard: guardOf(allowShop), signal: never, timeoutMs: 1000, standing: 'own' }).install();
    expect(own.kept).toBeDefined();
    expect(standingGuardOf(browser)).toBe(own.kept);

    const other = await urlGuard({ browser, policy: policy(), guard: guardOf(policy()), signal: never, timeoutMs: 1000, standing: 'own' }).install();
    expect(other.guarded).toBe(false);
    expect(standingGuardOf(browser)).toBeUndefined();

    const again = await urlGuard({ browser, policy: allowShop, guard: guardOf(allowShop), signal: never, timeoutMs: 1000, standing: 'own' }).install();
    await dropStandingGuard(browser, again.kept, 1000);
    expect(standingGuardOf(browser)).toBeUndefined();
    expect(browser.calls.filter((call) => call.method === 'setNavigationGuard').map((call) => call.args[0])).toEqual(['guard', 'none', 'guard', 'none']);
  });

  it('reports a failed install without throwing, and a stuck one past its deadline', async () => {
    class Failing extends FakeBrowserDriver {
      override setNavigationGuard(): Promise<void> {
        return Promise.reject(new Error('no guard here'));
      }
    }
    class Stuck extends FakeBrowserDriver {
      override setNavigationGuard(_guard: NavigationGuard | undefined, _options?: CallOptions): Promise<void> {
        return new Promise<void>(() => undefined);
      }
    }
    const allowShop = policy(['shop.test']);
    const failed = await urlGuard({
      browser: new Failing(),
      policy: allowShop,
      guard: guardOf(allowShop),
      signal: never,
      timeoutMs: 1000,
      standing: 'lift',
    }).install();
    expect(failed.guarded).toBe(false);
    expect((failed.failure as Error).message).toBe('no guard here');
    const stuck = await urlGuard({
      browser: new Stuck(),
      policy: allowShop,
      guard: guardOf(allowShop),
      signal: never,
      timeoutMs: 20,
      standing: 'own',
    }).install();
    expect(stuck.guarded).toBe(false);
    expect((stuck.failure as BrowserError).code).toBe('BROWSER_TIMEOUT');
  });
});

describe('createAgentContext', () => {
  const llm = (seen: string[]): LLMClient => ({
    specificationVersion: 'v1',
    provider: 'p',
    model: 'm',
    generate: (request) => {
      seen.push(JSON.stringify(request.messages));
      return Promise.resolve({ text: 'ok', usage: { inputTokens: 1, outputTokens: 1 }, finishReason: 'stop' });
    },
  });

  it('fills in the defaults and the session\u2019s deadlines, and redacts every model\u2019s requests', async () => {
    const browser = shopBrowser();
    const session = new BrowserSession(browser, { timeouts: { action: 60_000 } });
    const seen: string[] = [];
    const controller = new AbortController();
    const context = createAgentContext({
      taskId: 't',
      driver: session.driver,
      readPage: (options) => session.readPage({ ...options, signal: controller.signal }),
      registry: new ActionRegistry([]),
      llm: { navigator: llm(seen) },
      secrets: new SecretStore({ password: 'hunter2-secret' }),
      urlPolicy: policy(),
      signal: controller.signal,
      timeouts: session.timeouts,
      emit: () => undefined,
    });
    expect(context.settings.browserTimeouts).toEqual({ pageState: 30_000, action: 60_000, settle: 15_000 });
    expect(context.settings.modelTimeoutMs).toBe(120_000);
    expect(context.settings.maxActionsPerStep).toBe(3);
    expect(context.gate).toBeUndefined();
    await context.plannerLLM.generate({ messages: [{ role: 'user', content: 'my password is hunter2-secret' }] });
    expect(seen[0]).not.toContain('hunter2-secret');
    expect(await context.checkpoint()).toBe(false);
    expect((await context.askHuman('?')).answer).toBeUndefined();
    expect((await context.readPage({ screenshot: false, settle: true })).url).toBe('https://shop.test/');
    controller.abort(new RequestCancelledError('stop'));
    await expect(context.checkpoint()).rejects.toThrow('stop');
  });

  it('leaves out the model deadline when told, and builds the gate over the finished context', () => {
    const session = new BrowserSession(shopBrowser());
    let guarded: unknown;
    const context = createAgentContext({
      taskId: 't',
      driver: session.driver,
      readPage: (options) => session.readPage({ ...options, signal: never }),
      registry: new ActionRegistry([]),
      llm: { navigator: llm([]) },
      secrets: new SecretStore({}),
      urlPolicy: policy(),
      signal: never,
      timeouts: session.timeouts,
      modelTimeout: false,
      settings: { maxSteps: 4 },
      emit: () => undefined,
      gate: (built) => {
        guarded = built;
        return { tainted: false } as never;
      },
    });
    expect(context.settings.modelTimeoutMs).toBeUndefined();
    expect(context.settings.maxSteps).toBe(4);
    expect(guarded).toBe(context);
    expect(context.gate).toEqual({ tainted: false });
  });
});
