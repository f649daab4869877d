import { describe, expect, it } from 'vitest';
import type { BrowserDriver, FrameInfo } from '../browser/types';
import type { FrameSnapshot, SnapshotScriptOptions } from './types';
import { BrowserDisconnectedError, BrowserError } from '../errors';
import { FakeBrowserDriver, type FakeElement } from '../testing/fake-browser-driver';
import { defaultIncludeAttributes, noTabOpenTitle, PageStateReader } from './page-state-reader';

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
  return Array.from(atob(base64), (character) => character.charCodeAt(0));
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
    expect(state.elements.get(1)).toMatchObject({ index: 1, frameId: 'main', tagName: 'button', text: 'Log in' });
    expect(state.elements.get(2)).toMatchObject({ index: 2, frameId: 'main', tagName: 'input', text: '' });
    expect(state.newIndices.size).toBe(0);
  });

  it('passes the snapshot options to the driver', async () => {
    const driver = newsDriver();
    await new PageStateReader(driver, scriptOptions).capture({ screenshot: false });
    const evaluate = driver.calls.find((call) => call.method === 'evaluate' && call.args[1] === 'plannav.runtime/snapshot');
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
    await expect(new PageStateReader(newsDriver(), scriptOptions).capture({ screenshot: false, signal: controller.signal })).rejects.toThrow('was aborted');
  });

  it('passes the indexed elements to the screenshot, for drivers that draw index labels', async () => {
    const driver = newsDriver();
    const seen: unknown[] = [];
    const original = driver.screenshot.bind(driver);
    driver.screenshot = async (options) => {
      seen.push(options?.elements);
      return original(options);
    };
    const state = await new PageStateReader(driver, scriptOptions).capture({ screenshot: true });
    expect(state.elements.size).toBe(2);
    expect(seen).toEqual([[...state.elements.values()]]);
  });
});

/** A driver with frames: a visible child, a child without an offset (not rendered) and a child that fails. */
function framedDriver(): { driver: BrowserDriver; evaluated: { frameId: string; clip: unknown }[] } {
  const base = newsDriver();
  const evaluated: { frameId: string; clip: unknown }[] = [];
  const snapshot = (url: string, items: FrameSnapshot['items']): FrameSnapshot => ({
    url,
    title: url,
    items,
    pixelsAbove: 0,
    pixelsBelow: 0,
    viewport: { width: 800, height: 600 },
  });
  const driver: BrowserDriver = Object.assign(Object.create(base) as BrowserDriver, {
    frames: async (): Promise<FrameInfo[]> => [
      { id: 'top', url: homeUrl },
      { id: 'child', parentId: 'top', url: 'https://pay.test/', offset: { x: 10, y: 200 } },
      { id: 'grandchild', parentId: 'child', url: 'https://pay.test/inner', offset: { x: 5, y: 5 } },
      { id: 'hidden', parentId: 'top', url: 'https://ads.test/' },
      { id: 'broken', parentId: 'top', url: 'https://gone.test/', offset: { x: 0, y: 0 } },
    ],
    evaluate: async <TResult>(frameId: string, _script: unknown, arg: unknown): Promise<TResult> => {
      evaluated.push({ frameId, clip: (arg as SnapshotScriptOptions).clip });
      if (frameId === 'broken') throw new Error('frame detached');
      const items: FrameSnapshot['items'] = [{ kind: 'element', elementId: `${frameId}-1`, tagName: 'button', attributes: {}, text: frameId, depth: 0 }];
      return snapshot(`https://${frameId}.test/`, items) as TResult;
    },
  });
  return { driver, evaluated };
}

describe('PageStateReader frames', () => {
  it('snapshots rendered child frames with the part of the viewport they cover, and skips hidden and failing ones', async () => {
    const { driver, evaluated } = framedDriver();
    const state = await new PageStateReader(driver, { ...scriptOptions, viewportExpansion: 100 }).capture({ screenshot: false });
    expect(evaluated.map((call) => call.frameId).sort()).toEqual(['broken', 'child', 'grandchild', 'top']);
    expect(evaluated.find((call) => call.frameId === 'top')?.clip).toBeUndefined();
    expect(evaluated.find((call) => call.frameId === 'child')?.clip).toEqual({ x: -10, y: -300, width: 800, height: 800 });
    expect(evaluated.find((call) => call.frameId === 'grandchild')?.clip).toEqual({ x: -15, y: -305, width: 800, height: 800 });
    // The frame's URL is the driver's, not what the frame's snapshot claims.
    expect(state.elementsText).toContain('--- iframe https://pay.test/ ---');
    expect(state.elementsText).not.toContain('child.test');
    expect(state.elementsText).not.toContain('hidden');
    expect(state.elementsText).not.toContain('broken');
    expect([...state.elements.values()].map((ref) => ref.frameId)).toEqual(['top', 'child', 'grandchild']);
  });

  it('takes the URL and title from the active tab, not from the snapshot', async () => {
    const { driver } = framedDriver();
    const state = await new PageStateReader(driver, scriptOptions).capture({ screenshot: false });
    expect(state.url).toBe(homeUrl);
    expect(state.title).toBe('News');
  });

  it('gives child frames no clip in whole-page mode', async () => {
    const { driver, evaluated } = framedDriver();
    await new PageStateReader(driver, { ...scriptOptions, viewportExpansion: -1 }).capture({ screenshot: false });
    expect(evaluated.find((call) => call.frameId === 'child')?.clip).toBeUndefined();
  });
});

/** The news driver with `frames()` failing as `error`, and `tabs()` answering `tabs`. */
function failingDriver(error: Error, tabs: () => Promise<unknown[]>): BrowserDriver {
  return Object.assign(Object.create(newsDriver()) as BrowserDriver, {
    frames: async () => Promise.reject(error),
    tabs,
  });
}

describe('PageStateReader with no tab open', () => {
  it('gives a state that says no tab is open, whatever words the driver failed with', async () => {
    const driver = failingDriver(new Error('Target page has been closed'), async () => []);
    const state = await new PageStateReader(driver, scriptOptions).capture({ screenshot: true });
    expect(state).toMatchObject({ url: 'about:blank', title: noTabOpenTitle, tabs: [], activeTabId: '', elementsText: '', screenshot: undefined });
    expect(state.elements.size).toBe(0);
    expect(noTabOpenTitle).toBe('No tab is open; use open_tab or go_to_url');
  });

  it('rethrows the failure while a tab is open, or when the tab list cannot be read', async () => {
    const failure = new BrowserError('evaluate failed');
    await expect(
      new PageStateReader(
        failingDriver(failure, async () => [{ id: 'tab-1' }]),
        scriptOptions,
      ).capture({ screenshot: false }),
    ).rejects.toBe(failure);
    await expect(
      new PageStateReader(
        failingDriver(failure, async () => Promise.reject(new Error('no'))),
        scriptOptions,
      ).capture({ screenshot: false }),
    ).rejects.toBe(failure);
  });

  it('ends at once on a browser that is gone, from the snapshot or from the tab list', async () => {
    const gone = new BrowserDisconnectedError();
    let asked = 0;
    const driver = failingDriver(gone, async () => {
      asked++;
      return [];
    });
    await expect(new PageStateReader(driver, scriptOptions).capture({ screenshot: false })).rejects.toBe(gone);
    expect(asked).toBe(1); // the parallel read only: no second look at the tabs
    const lateGone = failingDriver(new BrowserError('Target closed'), async () => Promise.reject(gone));
    await expect(new PageStateReader(lateGone, scriptOptions).capture({ screenshot: false })).rejects.toBe(gone);
  });
});
