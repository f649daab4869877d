import { describe, expect, it } from 'vitest';
import type { SnapshotScriptOptions } from './types';
import { FakeBrowserDriver, type FakeElement } from '../testing/fake-browser-driver';
import { defaultIncludeAttributes, PageStateReader } from './page-state-reader';

const scriptOptions: SnapshotScriptOptions = { viewportExpansion: 0, includeAttributes: defaultIncludeAttributes, maxTextLength: 100 };
const homeUrl = 'https://news.test/';
const loginButton: FakeElement = { tag: 'button', text: 'Log in' };
const searchBox: FakeElement = { tag: 'input', attributes: { name: 'q', type: 'search' } };

function newsDriver(): FakeBrowserDriver {
  return new FakeBrowserDriver({
    startUrl: homeUrl,
    pages: {
      [homeUrl]: { title: 'News', content: ['Top stories', loginButton, searchBox], pixelsBelow: 800 },
      'https://news.test/sports': { title: 'Sports', content: [] },
    },
  });
}

function base64ToBytes(base64: string): number[] {
  return [...atob(base64)].map((character) => character.charCodeAt(0));
}

describe('PageStateReader.capture', () => {
  it('captures the tabs, the active tab, the url and the title', async () => {
    const driver = newsDriver();
    await driver.openTab('https://news.test/sports');
    await driver.switchTab('tab-1');
    const state = await new PageStateReader(driver, scriptOptions).capture({ screenshot: false });
    expect(state.url).toBe(homeUrl);
    expect(state.title).toBe('News');
    expect(state.activeTabId).toBe('tab-1');
    expect(state.tabs).toEqual([
      { id: 'tab-1', url: homeUrl, title: 'News' },
      { id: 'tab-2', url: 'https://news.test/sports', title: 'Sports' },
    ]);
    expect(state.pixelsAbove).toBe(0);
    expect(state.pixelsBelow).toBe(800);
    expect(state.capturedAt).toBeGreaterThan(0);
  });

  it('lists the indexed elements and the page text as the model reads them', async () => {
    const state = await new PageStateReader(newsDriver(), scriptOptions).capture({ screenshot: false });
    expect(state.elementsText).toBe('Top stories\n[1]<button>Log in />\n[2]<input name="q" type="search"> />');
    expect(state.elements.get(1)).toMatchObject({ index: 1, frameId: 'main', tagName: 'button' });
    expect(state.elements.get(2)).toMatchObject({ index: 2, frameId: 'main', tagName: 'input' });
    expect(state.newIndices.size).toBe(0);
  });

  it('passes the snapshot options to the driver', async () => {
    const driver = newsDriver();
    await new PageStateReader(driver, scriptOptions).capture({ screenshot: false });
    const evaluate = driver.calls.find((call) => call.method === 'evaluate');
    expect(evaluate?.args[2]).toEqual(scriptOptions);
  });

  it('keeps indices stable and reports the new ones after the page changes', async () => {
    const driver = newsDriver();
    const reader = new PageStateReader(driver, scriptOptions);
    const first = await reader.capture({ screenshot: false });
    const loginElementId = first.elements.get(1)?.elementId;
    driver.updateContent([{ tag: 'div', text: 'Cookie banner', attributes: { role: 'dialog' } }, loginButton]);
    const second = await reader.capture({ screenshot: false });
    expect(second.elementsText).toBe('*[3]<div role="dialog">Cookie banner />\n[1]<button>Log in />');
    expect([...second.newIndices]).toEqual([3]);
    expect(second.elements.get(1)?.elementId).toBe(loginElementId);
    expect(second.elements.has(2)).toBe(false);
  });

  it('takes a screenshot only when asked, as base64 of the driver bytes', async () => {
    const driver = newsDriver();
    const reader = new PageStateReader(driver, scriptOptions);
    const withoutScreenshot = await reader.capture({ screenshot: false });
    expect(withoutScreenshot.screenshot).toBeUndefined();
    expect(driver.methodsCalled).not.toContain('screenshot');
    const withScreenshot = await reader.capture({ screenshot: true });
    const expected = [...(await driver.screenshot())];
    expect(base64ToBytes(withScreenshot.screenshot ?? '')).toEqual(expected);
  });

  it('rejects when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(new PageStateReader(newsDriver(), scriptOptions).capture({ screenshot: false, signal: controller.signal })).rejects.toThrow(
      'was aborted',
    );
  });
});
