import { describe, expect, it } from 'vitest';
import { rejectionOf } from '../../test/helpers/rejection';
import type { ElementRef, PageScript } from '../browser/types';
import { domSnapshotScript } from '../dom/snapshot-script';
import type { FrameSnapshot, SnapshotElement, SnapshotScriptOptions } from '../dom/types';
import { BrowserError, RequestCancelledError } from '../errors';
import { FakeBrowserDriver, type FakeElement, type FakePage } from './fake-browser-driver';

const scriptOptions: SnapshotScriptOptions = { viewportExpansion: 0, includeAttributes: ['name', 'type', 'href', 'value'], maxTextLength: 100 };

const shopUrl = 'https://shop.test/';
const mugsUrl = 'https://shop.test/mugs';

const mugsLink: FakeElement = { tag: 'a', text: 'Mugs', href: mugsUrl };
const searchBox: FakeElement = { tag: 'input', attributes: { name: 'q', placeholder: 'Search' } };

const shopPage: FakePage = {
  title: 'Shop',
  content: ['Welcome to the shop', mugsLink, searchBox, { tag: 'button', text: 'Search' }],
  pixelsBelow: 1000,
};

const mugsPage: FakePage = {
  title: 'Mugs',
  content: [
    { tag: 'select', attributes: { name: 'size' }, options: ['Small', 'Large'] },
    { tag: 'input', attributes: { name: 'password', type: 'password', value: 'preset-secret' } },
    { tag: 'input', attributes: { name: 'photo', type: 'file' } },
    { tag: 'textarea', attributes: { name: 'note' } },
  ],
};

function shopDriver(options: { latencyMs?: number } = {}): FakeBrowserDriver {
  return new FakeBrowserDriver({ startUrl: shopUrl, pages: { [shopUrl]: shopPage, [mugsUrl]: mugsPage }, ...options });
}

function snapshotOf(driver: FakeBrowserDriver, signal?: AbortSignal): Promise<FrameSnapshot> {
  return driver.evaluate('main', domSnapshotScript, scriptOptions, { signal });
}

function elementsOf(snapshot: FrameSnapshot): SnapshotElement[] {
  return snapshot.items.filter((item): item is SnapshotElement => item.kind === 'element');
}

/** A reference to the element with this tag (and name attribute, if given) in a snapshot. */
async function refTo(driver: FakeBrowserDriver, tagName: string, name?: string): Promise<ElementRef> {
  const found = elementsOf(await snapshotOf(driver)).find(
    (item) => item.tagName === tagName && (name === undefined || item.attributes.name === name),
  );
  if (!found) throw new Error(`no <${tagName}> ${name ?? ''} on the page`);
  return { index: 1, frameId: 'main', elementId: found.elementId, tagName };
}

describe('FakeBrowserDriver tabs', () => {
  it('starts with one tab on the start URL, or about:blank', async () => {
    expect(await shopDriver().tabs()).toEqual([{ id: 'tab-1', url: shopUrl, title: 'Shop' }]);
    expect(await new FakeBrowserDriver().activeTab()).toEqual({ id: 'tab-1', url: 'about:blank', title: '' });
  });

  it('opens a tab, makes it active and switches back', async () => {
    const driver = shopDriver();
    const opened = await driver.openTab(mugsUrl);
    expect(opened).toEqual({ id: 'tab-2', url: mugsUrl, title: 'Mugs' });
    expect((await driver.activeTab()).id).toBe('tab-2');
    expect((await driver.tabs()).map((tab) => tab.id)).toEqual(['tab-1', 'tab-2']);
    expect(await driver.switchTab('tab-1')).toEqual({ id: 'tab-1', url: shopUrl, title: 'Shop' });
    expect(await driver.currentUrl()).toBe(shopUrl);
  });

  it('rejects switching to or closing an unknown tab', async () => {
    const driver = shopDriver();
    await expect(driver.switchTab('tab-9')).rejects.toThrow(BrowserError);
    await expect(driver.closeTab('tab-9')).rejects.toThrow('There is no tab with id tab-9.');
  });

  it('activates another tab when the active one is closed', async () => {
    const driver = shopDriver();
    await driver.openTab(mugsUrl);
    await driver.closeTab('tab-2');
    expect(await driver.activeTab()).toEqual({ id: 'tab-1', url: shopUrl, title: 'Shop' });
  });

  it('keeps the active tab when another tab is closed', async () => {
    const driver = shopDriver();
    await driver.openTab(mugsUrl);
    await driver.closeTab('tab-1');
    expect((await driver.activeTab()).id).toBe('tab-2');
    expect((await driver.tabs()).map((tab) => tab.id)).toEqual(['tab-2']);
  });

  it('leaves a blank tab when the last tab is closed', async () => {
    const driver = shopDriver();
    await driver.closeTab('tab-1');
    const tabs = await driver.tabs();
    expect(tabs).toHaveLength(1);
    expect(tabs[0]?.url).toBe('about:blank');
    expect((await driver.activeTab()).id).toBe(tabs[0]?.id);
  });
});

describe('FakeBrowserDriver navigation', () => {
  it('loads a page by URL and goes back', async () => {
    const driver = shopDriver();
    await driver.goto(mugsUrl);
    expect(await driver.activeTab()).toMatchObject({ url: mugsUrl, title: 'Mugs' });
    await driver.goBack();
    expect(await driver.activeTab()).toMatchObject({ url: shopUrl, title: 'Shop' });
    await driver.goBack();
    expect(await driver.currentUrl()).toBe(shopUrl);
  });

  it('loads a Not found page for an unknown URL', async () => {
    const driver = shopDriver();
    await driver.goto('https://shop.test/missing');
    expect(await driver.activeTab()).toMatchObject({ url: 'https://shop.test/missing', title: 'Not found' });
    const snapshot = await snapshotOf(driver);
    expect(snapshot.items).toEqual([{ kind: 'text', text: '404 - page not found', depth: 0 }]);
  });

  it('shows a page added with setPage after the next load', async () => {
    const driver = shopDriver();
    driver.setPage('https://shop.test/new', { title: 'New page', content: ['fresh'] });
    await driver.goto('https://shop.test/new');
    expect((await driver.activeTab()).title).toBe('New page');
  });

  it('has a single main frame', async () => {
    expect(await shopDriver().frames()).toEqual([{ id: 'main', url: shopUrl }]);
  });
});

describe('FakeBrowserDriver snapshots', () => {
  it('answers the DOM snapshot script with the page items', async () => {
    const snapshot = await snapshotOf(shopDriver());
    expect(snapshot.url).toBe(shopUrl);
    expect(snapshot.title).toBe('Shop');
    expect(snapshot.pixelsAbove).toBe(0);
    expect(snapshot.pixelsBelow).toBe(1000);
    expect(snapshot.items[0]).toEqual({ kind: 'text', text: 'Welcome to the shop', depth: 0 });
    expect(elementsOf(snapshot).map((item) => [item.tagName, item.text, item.attributes])).toEqual([
      ['a', 'Mugs', { href: mugsUrl }],
      ['input', '', { name: 'q', placeholder: 'Search' }],
      ['button', 'Search', {}],
    ]);
  });

  it('keeps element ids across snapshots of the same document and changes them after navigation', async () => {
    const driver = shopDriver();
    const first = elementsOf(await snapshotOf(driver)).map((item) => item.elementId);
    const second = elementsOf(await snapshotOf(driver)).map((item) => item.elementId);
    expect(second).toEqual(first);
    expect(new Set(first).size).toBe(first.length);
    await driver.goto(shopUrl);
    const reloaded = elementsOf(await snapshotOf(driver)).map((item) => item.elementId);
    expect(reloaded).toHaveLength(first.length);
    for (const id of reloaded) expect(first).not.toContain(id);
  });

  it('refuses other scripts and other frames with a BrowserError', async () => {
    const driver = shopDriver();
    const otherScript: PageScript<undefined, string> = { id: 'custom.script@1', run: () => 'ran' };
    const error = await rejectionOf(driver.evaluate('main', otherScript, undefined));
    expect(BrowserError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('custom.script@1');
    await expect(driver.evaluate('frame-2', domSnapshotScript, scriptOptions)).rejects.toThrow(BrowserError);
  });

  it('keeps the ids of surviving elements when the content is updated in place', async () => {
    const driver = shopDriver();
    const before = elementsOf(await snapshotOf(driver));
    const banner: FakeElement = { tag: 'button', text: 'Accept cookies' };
    driver.updateContent([banner, mugsLink, 'Updated text']);
    const after = elementsOf(await snapshotOf(driver));
    expect(after.map((item) => item.text)).toEqual(['Accept cookies', 'Mugs']);
    expect(after[1]?.elementId).toBe(before[0]?.elementId);
    expect(before.map((item) => item.elementId)).not.toContain(after[0]?.elementId);
  });
});

describe('FakeBrowserDriver element actions', () => {
  it('navigates when a link is clicked', async () => {
    const driver = shopDriver();
    await driver.click(await refTo(driver, 'a'));
    expect(await driver.currentUrl()).toBe(mugsUrl);
  });

  it('runs the click handler of an element', async () => {
    let clicks = 0;
    const driver = new FakeBrowserDriver({
      startUrl: shopUrl,
      pages: { [shopUrl]: { title: 'Shop', content: [{ tag: 'button', text: 'Count', onClick: () => void clicks++ }] } },
    });
    await driver.click(await refTo(driver, 'button'));
    expect(clicks).toBe(1);
  });

  it('rejects a click on an element that is no longer on the page', async () => {
    const driver = shopDriver();
    const stale = await refTo(driver, 'button');
    await driver.goto(mugsUrl);
    const error = await rejectionOf(driver.click(stale));
    expect(BrowserError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('no longer on the page');
  });

  it('fills inputs and shows their value in later snapshots', async () => {
    const driver = shopDriver();
    const box = await refTo(driver, 'input', 'q');
    await driver.fill(box, 'blue mug');
    expect(driver.valueOf('q')).toBe('blue mug');
    expect(driver.valueOf(box.elementId)).toBe('blue mug');
    const input = elementsOf(await snapshotOf(driver)).find((item) => item.elementId === box.elementId);
    expect(input?.attributes.value).toBe('blue mug');
  });

  it('refuses to fill an element that cannot take text', async () => {
    const driver = shopDriver();
    await expect(driver.fill(await refTo(driver, 'button'), 'text')).rejects.toThrow('cannot take text');
  });

  it('selects an existing option and rejects a missing one', async () => {
    const driver = shopDriver();
    await driver.goto(mugsUrl);
    const select = await refTo(driver, 'select');
    expect(await driver.selectOption(select, 'Large')).toEqual(['Large']);
    expect(driver.valueOf('size')).toBe('Large');
    await expect(driver.selectOption(select, 'Huge')).rejects.toThrow('Options: Small, Large.');
  });

  it('sets the files of a file input', async () => {
    const driver = shopDriver();
    await driver.goto(mugsUrl);
    await driver.uploadFiles(await refTo(driver, 'input', 'photo'), ['/tmp/a.png', '/tmp/b.png']);
    expect(driver.valueOf('photo')).toBe('/tmp/a.png, /tmp/b.png');
  });

  it('never shows a password value in a snapshot', async () => {
    const driver = shopDriver();
    await driver.goto(mugsUrl);
    const password = await refTo(driver, 'input', 'password');
    const initial = elementsOf(await snapshotOf(driver)).find((item) => item.elementId === password.elementId);
    expect(initial?.attributes).toEqual({ name: 'password', type: 'password' });
    await driver.fill(password, 'hunter2');
    expect(driver.valueOf('password')).toBe('hunter2');
    const snapshot = await snapshotOf(driver);
    expect(JSON.stringify(snapshot)).not.toContain('hunter2');
    expect(JSON.stringify(snapshot)).not.toContain('preset-secret');
  });

  it('returns undefined for the value of an unknown input', () => {
    expect(shopDriver().valueOf('nothing')).toBeUndefined();
  });
});

describe('FakeBrowserDriver scrolling and screenshots', () => {
  it('scrolls by pixels and to a percentage, within the page', async () => {
    const driver = shopDriver();
    await driver.scroll({ deltaY: 300 });
    let snapshot = await snapshotOf(driver);
    expect([snapshot.pixelsAbove, snapshot.pixelsBelow]).toEqual([300, 700]);
    await driver.scroll({ toPercent: 100 });
    snapshot = await snapshotOf(driver);
    expect([snapshot.pixelsAbove, snapshot.pixelsBelow]).toEqual([1000, 0]);
    await driver.scroll({ deltaY: -5000 });
    snapshot = await snapshotOf(driver);
    expect([snapshot.pixelsAbove, snapshot.pixelsBelow]).toEqual([0, 1000]);
  });

  it('returns a JPEG screenshot', async () => {
    const bytes = await shopDriver().screenshot();
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect([bytes[0], bytes[1]]).toEqual([0xff, 0xd8]);
    expect([bytes.at(-2), bytes.at(-1)]).toEqual([0xff, 0xd9]);
  });
});

describe('FakeBrowserDriver lifecycle and calls', () => {
  it('closes idempotently and refuses later calls', async () => {
    const driver = shopDriver();
    await driver.close();
    await driver.close();
    await driver[Symbol.asyncDispose]();
    expect(driver.methodsCalled).toEqual(['close']);
    const error = await rejectionOf(driver.goto(mugsUrl));
    expect(BrowserError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('goto()');
  });

  it('rejects a call made with an already-aborted signal', async () => {
    const driver = shopDriver();
    const controller = new AbortController();
    controller.abort();
    await expect(driver.tabs({ signal: controller.signal })).rejects.toThrow('tabs() was aborted.');
  });

  it('takes the configured latency and stops waiting when the signal aborts', async () => {
    const slow = shopDriver({ latencyMs: 30 });
    const started = performance.now();
    await slow.currentUrl();
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);

    const stuck = shopDriver({ latencyMs: 10_000 });
    const controller = new AbortController();
    const outcome = rejectionOf(stuck.goto(mugsUrl, { signal: controller.signal }));
    setTimeout(() => controller.abort(), 5);
    const abortStarted = performance.now();
    const error = await outcome;
    expect(RequestCancelledError.isInstance(error)).toBe(true);
    expect(performance.now() - abortStarted).toBeLessThan(100);
  });

  it('records every call with its arguments, in order', async () => {
    const driver = shopDriver();
    await driver.goto(mugsUrl);
    const select = await refTo(driver, 'select');
    await driver.selectOption(select, 'Small');
    await driver.press('Enter');
    await driver.scroll({ deltaY: 10 });
    await driver.waitForSettled();
    expect(driver.calls).toEqual([
      { method: 'goto', args: [mugsUrl] },
      { method: 'evaluate', args: ['main', domSnapshotScript.id, scriptOptions] },
      { method: 'selectOption', args: [1, 'Small'] },
      { method: 'press', args: ['Enter'] },
      { method: 'scroll', args: [{ index: undefined, deltaY: 10, toPercent: undefined }] },
      { method: 'waitForSettled', args: [] },
    ]);
  });
});
