import { testActionContext } from '../../../test/helpers/action-context';
import { describe, expect, it } from 'vitest';
import type { BrowserDriver, TabInfo } from '../../browser/types';
import { ActionError, BrowserError, RequestCancelledError, URLNotAllowedError } from '../../errors';
import { FakeBrowserDriver } from '../../testing/fake-browser-driver';
import { ActionRegistry } from '../registry';
import type { ActionContext } from '../types';
import { goBackAction, goToUrlAction, loadFailure, normalizeUrl, searchAction, searchUrl } from './navigation';
import { closeTabAction, findTab, openTabAction, switchTabAction } from './tabs';

const registry = new ActionRegistry([searchAction, goToUrlAction, goBackAction, openTabAction, switchTabAction, closeTabAction]);

/**
 * The fake driver behind a proxy that records, for every call, whether the action passed its
 * signal (the last argument's `signal`, or the request's for `scroll`).
 */
function recordingDriver(fake: FakeBrowserDriver, signal: AbortSignal): { driver: BrowserDriver; unsignalled: string[] } {
  const unsignalled: string[] = [];
  const driver = new Proxy(fake, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const last = args.at(-1) as { signal?: AbortSignal } | undefined;
        if (typeof property === 'string' && property !== 'close' && last?.signal !== signal) unsignalled.push(property);
        return (value as (...parameters: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { driver, unsignalled };
}

function context(driver: BrowserDriver, options: { deny?: (url: string) => boolean; checked?: string[]; signal?: AbortSignal } = {}): ActionContext {
  return testActionContext({
    driver,
    ...(options.deny ? { denyUrl: options.deny } : {}),
    ...(options.checked ? { checkedUrls: options.checked } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

function setup(options: { deny?: (url: string) => boolean; startUrl?: string } = {}) {
  const fake = new FakeBrowserDriver({
    startUrl: options.startUrl ?? 'https://shop.test/',
    pages: {
      'https://shop.test/': { title: 'Shop', content: ['Welcome'] },
      'https://shop.test/mugs': { title: 'Mugs', content: ['Mugs'] },
      'https://example.com/': { title: 'Example', content: ['Example'] },
    },
  });
  const signal = new AbortController().signal;
  const { driver, unsignalled } = recordingDriver(fake, signal);
  const checked: string[] = [];
  return { fake, unsignalled, checked, context: context(driver, { signal, checked, ...(options.deny ? { deny: options.deny } : {}) }) };
}

describe('searchUrl', () => {
  it('encodes the query as one parameter: &, #, + and unicode survive', () => {
    expect(searchUrl('a&b #c+d é 東京')).toBe('https://duckduckgo.com/?q=a%26b%20%23c%2Bd%20%C3%A9%20%E6%9D%B1%E4%BA%AC');
    expect(searchUrl('x=1&y', 'google')).toBe('https://www.google.com/search?q=x%3D1%26y&udm=14');
    expect(searchUrl('c++ #tips', 'bing')).toBe('https://www.bing.com/search?q=c%2B%2B%20%23tips');
    expect(new URL(searchUrl('a&b #c+d é', 'google')).searchParams.get('q')).toBe('a&b #c+d é');
  });
});

describe('normalizeUrl', () => {
  it('keeps full URLs and completes bare hosts, saying so', () => {
    expect(normalizeUrl('go_to_url', ' https://example.com/a?b=1 ')).toEqual({ url: 'https://example.com/a?b=1', note: '' });
    expect(normalizeUrl('go_to_url', 'example.com/path')).toEqual({
      url: 'https://example.com/path',
      note: 'The URL had no scheme; loaded https://example.com/path.',
    });
    expect(normalizeUrl('go_to_url', 'example.com:8443/x').url).toBe('https://example.com:8443/x');
    expect(normalizeUrl('go_to_url', 'localhost:3000/app').url).toBe('http://localhost:3000/app');
    expect(normalizeUrl('go_to_url', '127.0.0.1:8080').url).toBe('http://127.0.0.1:8080/');
    expect(normalizeUrl('go_to_url', 'api.localhost').url).toBe('http://api.localhost/');
    expect(normalizeUrl('go_to_url', '//cdn.example.com/x').url).toBe('https://cdn.example.com/x');
    expect(normalizeUrl('go_to_url', 'about:blank').url).toBe('about:blank');
  });

  it('refuses what is not a URL, and javascript: URLs', () => {
    expect(() => normalizeUrl('go_to_url', 'best pizza')).toThrow(/^"best pizza" is not a URL\. .* use search/);
    expect(() => normalizeUrl('go_to_url', 'pizza')).toThrow(/is not a URL/);
    expect(() => normalizeUrl('go_to_url', 'http://')).toThrow(/is not a valid URL/);
    expect(() => normalizeUrl('go_to_url', ' JavaScript:alert(1)')).toThrow(/^javascript: URLs cannot be opened/);
    try {
      normalizeUrl('open_tab', 'pizza');
    } catch (error) {
      expect(ActionError.isInstance(error) && error.action).toBe('open_tab');
    }
  });
});

describe('loadFailure', () => {
  it('says "site unavailable" for unreachable sites and stops the sequence', () => {
    const refused = loadFailure(
      'http://127.0.0.1:9/',
      new BrowserError('Could not load http://127.0.0.1:9/: page.goto: net::ERR_CONNECTION_REFUSED at http://127.0.0.1:9/'),
    );
    expect(refused).toEqual({
      error: 'Could not load http://127.0.0.1:9/: site unavailable (net::ERR_CONNECTION_REFUSED). Check the address, try again later, or try another site.',
      includeInMemory: true,
      stopSequence: true,
    });
    expect(loadFailure('https://nowhere.test/', new Error('net::ERR_NAME_NOT_RESOLVED')).error).toContain('site unavailable (net::ERR_NAME_NOT_RESOLVED)');
    expect(loadFailure('https://slow.test/', new Error('page.goto: Timeout 30000ms exceeded.')).error).toContain(
      'site unavailable (it did not answer in time)',
    );
    expect(loadFailure('https://ads.test/', new Error('net::ERR_BLOCKED_BY_CLIENT')).error).toContain('the browser blocked it');
    expect(loadFailure('https://odd.test/', new Error('net::ERR_ABORTED')).error).toContain('the browser could not load it (net::ERR_ABORTED)');
    expect(loadFailure('https://odd.test/', new BrowserError('The driver is closed: open a new one.')).error).toBe('The driver is closed: open a new one.');
  });

  it('throws policy refusals and cancels on', () => {
    expect(() => loadFailure('https://evil.test/', new URLNotAllowedError('https://evil.test/'))).toThrow(URLNotAllowedError);
    expect(() => loadFailure('https://a.test/', new RequestCancelledError())).toThrow(RequestCancelledError);
  });
});

describe('search action', () => {
  it('checks the policy, then loads the encoded engine URL with the signal, and stops the sequence', async () => {
    const { fake, checked, unsignalled, context } = setup();
    const result = await registry.run('search', { query: 'mugs & cups #1 +tea ☕' }, context);
    const expected = 'https://duckduckgo.com/?q=mugs%20%26%20cups%20%231%20%2Btea%20%E2%98%95';
    expect(checked).toEqual([expected]);
    expect(fake.calls.find((call) => call.method === 'goto')?.args).toEqual([expected]);
    expect(result).toEqual({ extractedContent: 'Searched DuckDuckGo for "mugs & cups #1 +tea ☕".', includeInMemory: true, stopSequence: true });
    expect(unsignalled).toEqual([]);
  });

  it('does not load a denied engine URL', async () => {
    const { fake, context } = setup({ deny: (url) => url.startsWith('https://www.bing.com/') });
    const result = await registry.run('search', { query: 'mugs', engine: 'bing' }, context);
    expect(result.error).toBe('Navigation to https://www.bing.com/search?q=mugs is not allowed by the URL policy.');
    expect(fake.methodsCalled).not.toContain('goto');
  });

  it('rejects unknown engines', async () => {
    const { context } = setup();
    expect((await registry.run('search', { query: 'mugs', engine: 'yahoo' }, context)).error).toMatch(/^Invalid parameters for search: engine/);
  });
});

describe('go_to_url action', () => {
  it('loads the URL and reports where the tab is', async () => {
    const { unsignalled, context } = setup();
    const result = await registry.run('go_to_url', { url: 'shop.test/mugs' }, context);
    expect(result).toEqual({
      extractedContent: 'The URL had no scheme; loaded https://shop.test/mugs. Loaded "Mugs" (https://shop.test/mugs).',
      includeInMemory: true,
      stopSequence: true,
    });
    expect(unsignalled).toEqual([]);
  });

  it('checks the policy with the completed URL', async () => {
    const { fake, checked, context } = setup({ deny: () => true });
    const result = await registry.run('go_to_url', { url: 'example.com' }, context);
    expect(checked).toEqual(['https://example.com/']);
    expect(result.error).toBe('Navigation to https://example.com/ is not allowed by the URL policy.');
    expect(fake.methodsCalled).not.toContain('goto');
  });
});

describe('go_back action', () => {
  it('goes back and stops the sequence; on the first page it says there is nothing to go back to', async () => {
    const { fake, unsignalled, context } = setup();
    await fake.goto('https://shop.test/mugs');
    const back = await registry.run('go_back', {}, context);
    expect(back).toEqual({ extractedContent: 'Went back to "Shop" (https://shop.test/).', includeInMemory: true, stopSequence: true });
    const again = await registry.run('go_back', {}, context);
    expect(again.extractedContent).toBe("There is no earlier page in this tab's history to go back to; it stays on https://shop.test/.");
    expect(fake.methodsCalled.filter((method) => method === 'goBack')).toHaveLength(1);
    expect(unsignalled).toEqual([]);
  });

  it('compares the URLs when the page cannot tell whether there is an earlier page', async () => {
    const { fake, context } = setup();
    fake.evaluate = async () => {
      throw new Error('no page scripts here');
    };
    const again = await registry.run('go_back', {}, context);
    expect(again.extractedContent).toBe('The tab stayed on https://shop.test/: there may be no earlier page in its history.');
  });
});

describe('findTab', () => {
  const tabs: TabInfo[] = [
    { id: 'tab-1', url: 'https://a.test/', title: 'A' },
    { id: 'tab-12', url: 'https://b.test/', title: 'B' },
  ];

  it('finds by exact id, or by the number the id ends in', () => {
    expect(findTab(tabs, 'tab-12')?.title).toBe('B');
    expect(findTab(tabs, 12)?.title).toBe('B');
    expect(findTab(tabs, '1')?.title).toBe('A');
    expect(findTab(tabs, 2)).toBeUndefined();
    expect(findTab(tabs, 'tab-2')).toBeUndefined();
    expect(findTab([...tabs, { id: 'other-1', url: '', title: '' }], 1)).toBeUndefined();
  });
});

describe('tab actions', () => {
  it('open, switch and close tabs, passing the signal to every call', async () => {
    const { fake, unsignalled, checked, context } = setup();
    const opened = await registry.run('open_tab', { url: 'https://shop.test/mugs' }, context);
    expect(checked).toEqual(['https://shop.test/mugs']);
    expect(opened).toEqual({
      extractedContent: 'Opened tab tab-2 with "Mugs" (https://shop.test/mugs); it is now the current tab.',
      includeInMemory: true,
      stopSequence: true,
    });
    const switched = await registry.run('switch_tab', { tab_id: 1 }, context);
    expect(switched).toEqual({ extractedContent: 'Switched to tab tab-1: "Shop" (https://shop.test/).', includeInMemory: true, stopSequence: true });
    const closed = await registry.run('close_tab', { tab_id: 'tab-1' }, context);
    expect(closed.extractedContent).toBe(
      'Closed tab tab-1 "Shop" (https://shop.test/). The current tab is now the tab tab-2: "Mugs" (https://shop.test/mugs).',
    );
    const last = await registry.run('close_tab', { tab_id: 'tab-2' }, context);
    expect(last.extractedContent).toBe('Closed tab tab-2 "Mugs" (https://shop.test/mugs). The current tab is now the new blank tab tab-3: about:blank.');
    expect((await fake.tabs()).map((tab) => tab.id)).toEqual(['tab-3']);
    expect(unsignalled).toEqual([]);
  });

  it('does not open a denied URL', async () => {
    const { fake, context } = setup({ deny: () => true });
    const result = await registry.run('open_tab', { url: 'https://example.com/' }, context);
    expect(result.error).toBe('Navigation to https://example.com/ is not allowed by the URL policy.');
    expect(fake.methodsCalled).not.toContain('openTab');
  });

  it('treats a tab closed meanwhile as closed', async () => {
    const { fake, context } = setup();
    await fake.openTab('https://shop.test/mugs');
    // The tab disappears between the action's listing and its close call.
    const closeTab = fake.closeTab.bind(fake);
    fake.closeTab = async (tabId, options) => {
      await closeTab(tabId, options);
      throw new BrowserError(`There is no tab with id ${tabId}.`);
    };
    const result = await registry.run('close_tab', { tab_id: 'tab-1' }, context);
    expect(result.error).toBeUndefined();
    expect(result.extractedContent).toMatch(/^Closed tab tab-1 /);
  });

  it('passes on a close failure while the tab is still open', async () => {
    const { fake, context } = setup();
    fake.closeTab = async () => {
      throw new BrowserError('The tab would not close.');
    };
    expect((await registry.run('close_tab', { tab_id: 'tab-1' }, context)).error).toBe('The tab would not close.');
  });
});
