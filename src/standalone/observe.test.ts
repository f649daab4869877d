import { afterEach, describe, expect, it, vi } from 'vitest';
import { HangingDriver } from '../../test/helpers/hanging-driver';
import { rejectionOf } from '../../test/helpers/rejection';
import type { CallOptions, PageScript } from '../browser/types';
import { ConfigError, RequestCancelledError, TimeoutError } from '../errors';
import { FakeBrowserDriver, type FakePage } from '../testing/fake-browser-driver';
import { observe } from './observe';

const shop: FakePage = {
  title: 'Shop',
  content: [
    'Welcome to the shop',
    { tag: 'a', text: 'Mugs', href: 'https://shop.example/mugs' },
    { tag: 'input', attributes: { name: 'q', placeholder: 'Search' } },
  ],
  pixelsBelow: 400,
};

function shopBrowser(): FakeBrowserDriver {
  return new FakeBrowserDriver({ startUrl: 'https://shop.example/', pages: { 'https://shop.example/': shop } });
}

/** A fake browser that keeps the argument of each snapshot call. */
class RecordingDriver extends FakeBrowserDriver {
  readonly snapshotArguments: unknown[] = [];

  override evaluate<TArg, TResult>(frameId: string, script: PageScript<TArg, TResult>, arg: TArg, options?: CallOptions): Promise<TResult> {
    if (script.id.endsWith('snapshot')) this.snapshotArguments.push(arg);
    return super.evaluate(frameId, script, arg, options);
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe('observe', () => {
  it('reads the page as the Navigator sees it: url, title, tabs, indexed elements and scroll', async () => {
    const browser = shopBrowser();
    const state = await observe(browser);

    expect(state.url).toBe('https://shop.example/');
    expect(state.title).toBe('Shop');
    expect(state.tabs).toEqual([{ id: 'tab-1', url: 'https://shop.example/', title: 'Shop' }]);
    expect(state.activeTabId).toBe('tab-1');
    expect(state.elementsText).toBe('Welcome to the shop\n[1]<a>Mugs />\n[2]<input name="q">Search />');
    expect([...state.elements.values()].map((element) => [element.index, element.tagName])).toEqual([
      [1, 'a'],
      [2, 'input'],
    ]);
    expect(state.pixelsBelow).toBe(400);
    expect(state.screenshot).toBeUndefined();
    // The page settles before it is read, as before the Navigator's first state.
    expect(browser.methodsCalled[0]).toBe('waitForSettled');
    expect(browser.methodsCalled).not.toContain('screenshot');
  });

  it('keeps an element\u2019s index from one call to the next and marks new ones', async () => {
    const browser = shopBrowser();
    const first = await observe(browser);
    expect(first.newIndices.size).toBe(0);

    browser.updateContent([{ tag: 'button', text: 'Sign in' }, ...shop.content]);
    const second = await observe(browser);

    expect(second.elementsText).toBe('*[3]<button>Sign in />\nWelcome to the shop\n[1]<a>Mugs />\n[2]<input name="q">Search />');
    expect([...second.newIndices]).toEqual([3]);
    expect(second.elements.get(1)?.elementId).toBe(first.elements.get(1)?.elementId);
  });

  it('takes a screenshot when asked and passes the snapshot options to the page', async () => {
    const browser = new RecordingDriver({ startUrl: 'https://shop.example/', pages: { 'https://shop.example/': shop } });
    const state = await observe(browser, { screenshot: true, viewportExpansion: -1, includeAttributes: ['name'], waitForSettled: false });

    expect(state.screenshot).toMatch(/^\/9j\//); // a base64 JPEG
    expect(browser.snapshotArguments).toEqual([{ viewportExpansion: -1, includeAttributes: ['name'], maxTextLength: 100 }]);
    expect(browser.methodsCalled).not.toContain('waitForSettled');
  });

  it('rejects a bad option with a ConfigError naming it, before touching the browser', async () => {
    const browser = shopBrowser();
    const error = await rejectionOf<ConfigError>(observe(browser, { viewportExpansion: -2 }));
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(error.field).toBe('viewportExpansion');
    expect(error.message).toBe('Option `viewportExpansion` of observe() must be -1 (whole page) or 0 or more; got -2.');

    const unknown = await rejectionOf<ConfigError>(observe(browser, { screenshots: true } as never));
    expect(unknown.message).toBe('Unknown option `screenshots` of observe(). Check its spelling.');
    expect((await rejectionOf<ConfigError>(observe(browser, { timeout: 0 }))).message).toBe(
      'Option `timeout` of observe() must be a positive number of milliseconds; got 0.',
    );
    expect(browser.calls).toEqual([]);
  });

  it('rejects what is not a BrowserDriver', async () => {
    const error = await rejectionOf<ConfigError>(observe({ specificationVersion: 'v1', tabs: () => [] } as never));
    expect(error.field).toBe('browser');
    expect(error.message).toBe(
      'The browser given to observe() must be a BrowserDriver: it has no activeTab(), openTab(), switchTab(), closeTab(), goto(), frames(), evaluate(), screenshot(), close().',
    );
  });

  it('does not touch the browser when the signal is already aborted', async () => {
    const browser = shopBrowser();
    const controller = new AbortController();
    controller.abort();
    const error = await rejectionOf(observe(browser, { signal: controller.signal }));
    expect(RequestCancelledError.isInstance(error)).toBe(true);
    expect(browser.calls).toEqual([]);
  });

  it('rejects at once when the signal aborts, even on a driver that ignores it, and aborts the read', async () => {
    const browser = new HangingDriver('frames');
    const controller = new AbortController();
    const call = rejectionOf<RequestCancelledError>(observe(browser, { signal: controller.signal, waitForSettled: false }));
    await vi.waitFor(() => expect(browser.hungSignals).toHaveLength(1));
    controller.abort();
    const error = await call;
    expect(RequestCancelledError.isInstance(error)).toBe(true);
    expect(error.message).toBe('observe() was cancelled.');
    expect(browser.hungSignals[0]?.aborted).toBe(true);
  });

  it('fails with a TimeoutError when the timeout runs out, and leaves no timer behind', async () => {
    vi.useFakeTimers();
    const browser = new HangingDriver('frames');
    const call = rejectionOf<TimeoutError>(observe(browser, { timeout: 500 }));
    await vi.advanceTimersByTimeAsync(500);
    const error = await call;
    expect(TimeoutError.isInstance(error)).toBe(true);
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toBe('observe() did not finish within its timeout of 500 ms. Give it a longer `timeout`, or none.');
    expect(browser.hungSignals[0]?.aborted).toBe(true);
    expect(vi.getTimerCount()).toBe(0);

    // A call that finishes in time clears its timer too.
    await observe(shopBrowser(), { timeout: 10_000 });
    expect(vi.getTimerCount()).toBe(0);
  });
});
