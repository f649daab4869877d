import { testActionContext } from '../../test/helpers/action-context';
import { describe, expect, it } from 'vitest';
import { rejectionOf } from '../../test/helpers/rejection';
import { builtinActions } from '../actions/builtin/index';
import { ActionRegistry } from '../actions/registry';
import type { ActionContext, ActionResult } from '../actions/types';
import type { PageState } from '../browser/page-state';
import type { ElementRef, PageScript } from '../browser/types';
import { callRuntime, runtimeScriptId } from '../dom/page-runtime';
import { defaultIncludeAttributes, PageStateReader } from '../dom/page-state-reader';
import type { FrameSnapshot, SnapshotElement, SnapshotScriptOptions } from '../dom/types';
import { BrowserError, RequestCancelledError } from '../errors';
import { Executor } from '../executor/executor';
import { FakeBrowserDriver, type FakeElement, type FakePage } from './fake-browser-driver';
import { ScriptedLLM, scriptedActions, scriptedPlan, type ScriptedRequest } from './scripted-llm';

/**
 * How soon "at once" must be. Each bound below stands against waiting for something of 10 s or more (a hang, a
 * retry delay, a timeout), so a second is still a sharp test; a tighter one fails on a loaded machine for no fault.
 */
const PROMPTLY_MS = 1000;

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
  return callRuntime(driver, 'main', 'snapshot', scriptOptions, { signal });
}

function elementsOf(snapshot: FrameSnapshot): SnapshotElement[] {
  return snapshot.items.filter((item): item is SnapshotElement => item.kind === 'element');
}

/** A reference to the element with this tag (and name attribute, if given) in a snapshot. */
async function refTo(driver: FakeBrowserDriver, tagName: string, name?: string): Promise<ElementRef> {
  const found = elementsOf(await snapshotOf(driver)).find((item) => item.tagName === tagName && (name === undefined || item.attributes.name === name));
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
      ['input', 'Search', { name: 'q' }],
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
    const otherScript: PageScript<undefined, string> = { id: 'custom.script@1', source: "() => 'ran'" };
    const error = await rejectionOf(driver.evaluate('main', otherScript, undefined));
    expect(BrowserError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('custom.script@1');
    await expect(callRuntime(driver, 'frame-2', 'snapshot', scriptOptions)).rejects.toThrow(BrowserError);
  });

  it('answers the page runtime install as already done, and the change probe from its last snapshot', async () => {
    const driver = shopDriver();
    const install: PageScript<null, boolean> = { id: 'plannav.runtime-install', source: '() => false' };
    expect(await driver.evaluate('main', install, null)).toBe(false);
    expect(await callRuntime(driver, 'main', 'changes', undefined)).toEqual({ newDocument: true, newElements: 0 });
    await snapshotOf(driver);
    expect(await callRuntime(driver, 'main', 'changes', undefined)).toEqual({ newDocument: false, newElements: 0 });
    driver.updateContent([{ tag: 'button', text: 'Accept cookies' }, mugsLink]);
    expect(await callRuntime(driver, 'main', 'changes', undefined)).toEqual({ newDocument: false, newElements: 1 });
  });

  it('refuses, by name, the runtime methods it cannot act out', async () => {
    const driver = shopDriver();
    const focus = await rejectionOf(callRuntime(driver, 'main', 'hasFocus', undefined));
    expect(BrowserError.isInstance(focus)).toBe(true);
    expect((focus as Error).message).toBe("FakeBrowserDriver cannot run the page runtime's hasFocus: fake pages have no keyboard focus.");
    const frame = await rejectionOf(callRuntime(driver, 'main', 'scrollFrameIntoView', { x: 0, y: 0, width: null, height: null }));
    expect((frame as Error).message).toBe("FakeBrowserDriver cannot run the page runtime's scrollFrameIntoView: fake pages have no inner frames.");
    const quiet = await rejectionOf(callRuntime(driver, 'main', 'domQuiet', { quietMs: 10, maxMs: 100 }));
    expect((quiet as Error).message).toContain('plannav.runtime/domQuiet');
  });

  it('notes typing into a field it has, and answers the wait for a reaction at once: fake pages never change by themselves', async () => {
    const driver = shopDriver();
    const ref = await refTo(driver, 'input', 'q');
    expect(await callRuntime(driver, 'main', 'watchTyping', { elementId: ref.elementId, selector: null })).toBe(true);
    expect(await callRuntime(driver, 'main', 'watchTyping', { elementId: 'fake-0-99', selector: null })).toBe(false);
    const answer = await callRuntime(driver, 'main', 'awaitReaction', {
      elementId: ref.elementId,
      selector: null,
      firstChangeMs: 700,
      quietMs: 150,
      maxMs: 2500,
    });
    expect(answer).toEqual({ outcome: 'unchanged', waitedMs: 0 });
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
      pages: {
        [shopUrl]: {
          title: 'Shop',
          content: [
            {
              tag: 'button',
              text: 'Count',
              onClick: () => {
                clicks++;
              },
            },
          ],
        },
      },
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
    expect(performance.now() - abortStarted).toBeLessThan(PROMPTLY_MS);
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
      { method: 'evaluate', args: ['main', runtimeScriptId('snapshot'), scriptOptions] },
      { method: 'selectOption', args: [1, 'Small'] },
      { method: 'press', args: ['Enter'] },
      { method: 'scroll', args: [{ index: undefined, deltaY: 10, toPercent: undefined }] },
      { method: 'waitForSettled', args: [] },
    ]);
  });
});

// The built-in actions run on the fake as they run in a browser: through the registry, with the
// indices of a page state captured the way the Executor captures it.

const builtins = new ActionRegistry(builtinActions());

/** Reads the page the way the Executor does and gives the actions that state's elements by index. */
async function contextOn(
  driver: FakeBrowserDriver,
  options: { uploadPaths?: readonly string[]; extractionLLM?: ScriptedLLM } = {},
): Promise<ActionContext & { readonly state: PageState }> {
  const reader = new PageStateReader(driver, { viewportExpansion: -1, includeAttributes: [...defaultIncludeAttributes], maxTextLength: 100 });
  const state = await reader.capture({ screenshot: false });
  return { ...testActionContext({ driver, state, ...options }), state };
}

/** The index of the first element line of a state text that contains `label` (its text or an attribute). */
function indexIn(stateText: string, label: string): number {
  for (const line of stateText.split('\n')) {
    const match = /^\s*\*?\[(\d+)\]<(.*)$/.exec(line);
    if (match && match[2]?.includes(label)) return Number(match[1]);
  }
  throw new Error(`no element with ${JSON.stringify(label)} in:\n${stateText}`);
}

async function run(name: string, params: Record<string, unknown>, context: ActionContext): Promise<ActionResult> {
  return builtins.run(name, params, context);
}

const catalogUrl = 'https://shop.test/catalog';
const catalogPage: FakePage = {
  title: 'Catalog',
  content: ['Blue mug $12', { tag: 'button', text: 'Add blue mug' }, 'Red mug $9', { tag: 'a', text: 'Back to the shop', href: '/' }],
  pixelsBelow: 2000,
};

function catalogDriver(): FakeBrowserDriver {
  return new FakeBrowserDriver({ startUrl: catalogUrl, pages: { [shopUrl]: shopPage, [mugsUrl]: mugsPage, [catalogUrl]: catalogPage } });
}

describe('FakeBrowserDriver with the built-in element actions', () => {
  it('click_element follows a link and reports the navigation', async () => {
    const driver = shopDriver();
    const context = await contextOn(driver);
    const result = await run('click_element', { index: indexIn(context.state.elementsText, 'Mugs') }, context);
    expect(result).toEqual({
      extractedContent: `Clicked element 1 (<a> "Mugs"). The page navigated to ${mugsUrl}.`,
      includeInMemory: true,
      stopSequence: true,
    });
    expect(await driver.currentUrl()).toBe(mugsUrl);
  });

  it('click_element runs a click handler and lists the options of a select instead of clicking it', async () => {
    let clicks = 0;
    const driver = new FakeBrowserDriver({
      startUrl: shopUrl,
      pages: {
        [shopUrl]: {
          title: 'Shop',
          content: [
            {
              tag: 'button',
              text: 'Count',
              onClick: () => {
                clicks++;
              },
            },
            { tag: 'select', attributes: { name: 'size' }, options: ['Small', 'Large'] },
          ],
        },
      },
    });
    const context = await contextOn(driver);
    const clicked = await run('click_element', { index: 1 }, context);
    expect(clicked.extractedContent).toBe('Clicked element 1 (<button> "Count").');
    expect(clicks).toBe(1);
    const select = await run('click_element', { index: 2 }, context);
    expect(select.extractedContent).toMatch(
      /^Did not click: clicking a select does not choose an option\. Element 2 \(<select> "size"\) is a select with 2 options/,
    );
    expect(driver.methodsCalled.filter((method) => method === 'click')).toHaveLength(1);
  });

  it('input_text sets the value and reports what the field holds', async () => {
    const driver = shopDriver();
    const context = await contextOn(driver);
    const result = await run('input_text', { index: indexIn(context.state.elementsText, 'name="q"'), text: 'blue mug' }, context);
    expect(result).toEqual({ extractedContent: 'Typed "blue mug" into element 2 (<input type=text> "Search").', includeInMemory: true });
    expect(driver.valueOf('q')).toBe('blue mug');
  });

  it('input_text types a password without reporting it, and refuses a button and a disabled field', async () => {
    // Disabled after the page was read (a disabled field is not listed, as in the page runtime).
    const code: Record<string, string> = { name: 'code' };
    const driver = new FakeBrowserDriver({
      startUrl: shopUrl,
      pages: {
        [shopUrl]: {
          title: 'Sign in',
          content: [
            { tag: 'input', attributes: { name: 'password', type: 'password' } },
            { tag: 'button', text: 'Sign in' },
            { tag: 'input', attributes: code },
          ],
        },
      },
    });
    const context = await contextOn(driver);
    code.disabled = '';
    const typed = await run('input_text', { index: 1, text: 'hunter2' }, context);
    expect(typed.extractedContent).toBe('Typed 7 characters into element 1 (<input type=password> "password").');
    expect(driver.valueOf('password')).toBe('hunter2');
    expect((await run('input_text', { index: 2, text: 'x' }, context)).error).toMatch(/^Element 2 \(<button>\) does not take text\./);
    expect((await run('input_text', { index: 3, text: 'x' }, context)).error).toBe(
      'Element 3 (<input type=text> "code") is disabled: it takes no text until the page enables it.',
    );
  });

  it('input_text lists the suggestions of an input with a datalist that hold what was typed', async () => {
    const driver = new FakeBrowserDriver({
      startUrl: shopUrl,
      pages: { [shopUrl]: { title: 'Shop', content: [{ tag: 'input', attributes: { name: 'q' }, options: ['Blue mug', 'Blue plate', 'Red mug'] }] } },
    });
    const context = await contextOn(driver);
    const result = await run('input_text', { index: 1, text: 'blue' }, context);
    expect(result.extractedContent).toBe(
      'Typed "blue" into element 1 (<input type=text> "q"). The field suggests 2 values:\n1. "Blue mug"\n2. "Blue plate"\nType one of them exactly with input_text if one is meant.',
    );
    expect(result.stopSequence).toBe(true);
  });

  it('get_dropdown_options lists the options of a select, the first one selected', async () => {
    const driver = shopDriver();
    await driver.goto(mugsUrl);
    const context = await contextOn(driver);
    const result = await run('get_dropdown_options', { index: indexIn(context.state.elementsText, 'name="size"') }, context);
    expect(result.extractedContent).toBe(
      [
        'Element 1 (<select> "size") is a select with 2 options (one may be selected; selected: "Small"):',
        '1. "Small" (selected)',
        '2. "Large"',
        'Use select_dropdown_option with index 1 and the exact text of an option.',
      ].join('\n'),
    );
  });

  it('select_dropdown_option selects an option of a single select through selectOption', async () => {
    const driver = shopDriver();
    await driver.goto(mugsUrl);
    const context = await contextOn(driver);
    const result = await run('select_dropdown_option', { index: 1, text: 'large' }, context);
    expect(result.extractedContent).toBe('Selected "Large" in element 1 (<select> "size"); selected now: "Large".');
    expect(driver.valueOf('size')).toBe('Large');
    expect(driver.calls).toContainEqual({ method: 'selectOption', args: [1, 'Large'] });
    expect((await run('select_dropdown_option', { index: 1, text: 'Huge' }, context)).error).toBe(
      'Element 1 (<select> "size") has no option "Huge". Available options: "Small", "Large".',
    );
  });

  it('select_dropdown_option sets several options of a multiple select', async () => {
    const driver = new FakeBrowserDriver({
      startUrl: shopUrl,
      pages: {
        [shopUrl]: { title: 'Filters', content: [{ tag: 'select', attributes: { name: 'colours', multiple: '' }, options: ['Red', 'Green', 'Blue'] }] },
      },
    });
    const context = await contextOn(driver);
    const result = await run('select_dropdown_option', { index: 1, text: ['Red', 'Blue'] }, context);
    expect(result.extractedContent).toBe('Selected "Red", "Blue" in element 1 (<select> "colours"); selected now: "Red, Blue".');
    expect(driver.valueOf('colours')).toBe('Red, Blue');
  });

  it('upload_file sets an allowed file on a file input', async () => {
    const driver = shopDriver();
    await driver.goto(mugsUrl);
    const context = await contextOn(driver, { uploadPaths: ['/home/user/uploads'] });
    const index = indexIn(context.state.elementsText, 'name="photo"');
    const result = await run('upload_file', { index, path: '/home/user/uploads/mug.png' }, context);
    expect(result).toEqual({ extractedContent: `Set file "mug.png" on element ${index}.`, includeInMemory: true });
    expect(driver.valueOf('photo')).toBe('/home/user/uploads/mug.png');
    const elsewhere = await run('upload_file', { index: indexIn(context.state.elementsText, 'name="note"'), path: '/home/user/uploads/mug.png' }, context);
    expect(elsewhere.error).toMatch(/^Element 4 \(<textarea>.*\) is no file input/);
  });

  it('upload_file refuses a file that was not allowed, and click_element points a file input to it', async () => {
    const driver = shopDriver();
    await driver.goto(mugsUrl);
    const context = await contextOn(driver, { uploadPaths: ['/home/user/uploads'] });
    const index = indexIn(context.state.elementsText, 'name="photo"');
    expect((await run('upload_file', { index, path: '/etc/passwd' }, context)).error).toMatch(/^Cannot upload "\/etc\/passwd"/);
    expect((await run('click_element', { index }, context)).error).toMatch(/opens a file chooser.*Use upload_file with index 3/);
    expect(driver.methodsCalled).not.toContain('uploadFiles');
  });
});

describe('FakeBrowserDriver answers stale elements as a page does', () => {
  it('says an element of a previous document has gone, and one removed from this document too', async () => {
    const driver = shopDriver();
    const context = await contextOn(driver);
    await driver.goto(shopUrl);
    const afterLoad = await run('click_element', { index: 1 }, context);
    expect(afterLoad.error).toBe(
      'Element 1 is no longer on the page (the page has loaded a new document since): the page changed since you read it. Read the page again and use the new index.',
    );

    const fresh = await contextOn(driver);
    driver.updateContent(['Only text now']);
    const removed = await run('input_text', { index: 2, text: 'mug' }, fresh);
    expect(removed.error).toMatch(/^Element 2 is no longer on the page \(it was removed from the page\)/);
    expect(driver.methodsCalled).not.toContain('click');
  });

  it('answers an element script with stale for an element id of another tab\u2019s document', async () => {
    const driver = shopDriver();
    const ref = await refTo(driver, 'a');
    await driver.openTab(mugsUrl);
    const answer = await callRuntime(driver, 'main', 'clickTarget', { elementId: ref.elementId, selector: null });
    expect(answer).toEqual({ status: 'stale', reason: 'the page has loaded a new document since' });
  });
});

describe('FakeBrowserDriver with the built-in page actions', () => {
  it('search_page finds text in the text lines and element texts, with context', async () => {
    const context = await contextOn(catalogDriver());
    const result = await run('search_page', { pattern: 'blue mug', context_chars: 8 }, context);
    expect(result.extractedContent).toBe(
      [
        'Found 2 matches for "blue mug":',
        '<untrusted_content>',
        '1. **Blue mug** $12 | Add…',
        '2. …$12 | Add **blue mug** | Red mug…',
        '</untrusted_content>',
      ].join('\n'),
    );
    const none = await run('search_page', { pattern: 'green' }, context);
    expect(none.extractedContent).toBe('No match for "green" in the page\'s visible text.');
  });

  it('scroll_to_bottom, next_page and scroll_to_top move the page within its content', async () => {
    const driver = catalogDriver();
    const context = await contextOn(driver);
    expect((await run('scroll_to_bottom', {}, context)).extractedContent).toBe('Scrolled the page to the bottom: now at 100%; 2000 px above, 0 px below.');
    expect((await snapshotOf(driver)).pixelsBelow).toBe(0);
    expect((await run('next_page', {}, context)).extractedContent).toBe('Already at the bottom of the page: 100%; 2000 px above, 0 px below. Nothing moved.');
    expect((await run('scroll_to_top', { index: 1 }, context)).extractedContent).toBe(
      'Element 1 (<button>) is not inside a scroll area, so the page scrolls. Scrolled the page to the top: now at 0%; 0 px above, 2000 px below.',
    );
    expect((await run('next_page', {}, context)).extractedContent).toBe('Scrolled the page down one page (720 px): now at 36%; 720 px above, 1280 px below.');
  });

  it('scroll_to_text scrolls to the line that holds the text', async () => {
    const driver = catalogDriver();
    const context = await contextOn(driver);
    const result = await run('scroll_to_text', { text: 'red MUG' }, context);
    // The third of four items, centred: (2720 × 2.5 / 4) − 360 = 1340 px from the top.
    expect(result.extractedContent).toBe('Scrolled to its only occurrence of "red MUG" (in a <p>). The page is at 67%; 1340 px above, 660 px below.');
    expect((await snapshotOf(driver)).pixelsAbove).toBe(1340);
    expect((await run('scroll_to_text', { text: 'mug', nth: 4 }, context)).extractedContent).toBe(
      'The text "mug" appears only 3 times, so there is no occurrence 4; nothing moved.',
    );
  });

  it('go_back returns to the previous page, and knows when there is none', async () => {
    const driver = shopDriver();
    const first = await run('go_back', {}, await contextOn(driver));
    expect(first.extractedContent).toBe(`There is no earlier page in this tab's history to go back to; it stays on ${shopUrl}.`);
    expect(driver.methodsCalled).not.toContain('goBack');
    await driver.goto(mugsUrl);
    const back = await run('go_back', {}, await contextOn(driver));
    expect(back).toEqual({ extractedContent: `Went back to "Shop" (${shopUrl}).`, includeInMemory: true, stopSequence: true });
    expect(await driver.currentUrl()).toBe(shopUrl);
  });

  it('extract_content sends the page\u2019s title, text and elements to the extraction model', async () => {
    const driver = catalogDriver();
    const extractionLLM = new ScriptedLLM({ responses: [JSON.stringify({ extracted: 'The blue mug costs $12.' })] });
    const context = await contextOn(driver, { extractionLLM });
    const result = await run('extract_content', { goal: 'the price of the blue mug', include_links: true }, context);
    expect(result.extractedContent).toBe(
      `Extracted from ${catalogUrl} for "the price of the blue mug":\n<untrusted_content>\nThe blue mug costs $12.\n</untrusted_content>`,
    );
    const sent = extractionLLM.requests[0]?.lastUserText ?? '';
    expect(sent).toContain('# Catalog');
    expect(sent).toMatch(/Blue mug \$12\s+Add blue mug\s+Red mug \$9/);
    expect(sent).toContain('[Back to the shop](https://shop.test/)');
  });

  it('keeps refusing a page script it does not know, by id', async () => {
    const error = await rejectionOf(shopDriver().evaluate('main', { id: 'plannav.not-a-script@1', source: '() => 1' }, null));
    expect(BrowserError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('plannav.not-a-script@1');
  });
});

describe('FakeBrowserDriver under an Executor with the built-in actions', () => {
  it('completes a search task: types the query and clicks Search, then reads the results', async () => {
    const resultsUrl = 'https://shop.test/search?q=blue%20mug';
    const browser = new FakeBrowserDriver({
      startUrl: shopUrl,
      pages: {
        [shopUrl]: {
          title: 'Shop',
          content: [
            'Welcome to the shop',
            { tag: 'input', attributes: { name: 'q', placeholder: 'Search' } },
            {
              tag: 'button',
              text: 'Search',
              onClick: (driver) => driver.goto(`https://shop.test/search?q=${encodeURIComponent(driver.valueOf('q') ?? '')}`),
            },
          ],
        },
        [resultsUrl]: { title: 'Results', content: ['Blue mug $12', { tag: 'button', text: 'Add to cart' }] },
      },
    });
    const llm = new ScriptedLLM({
      respond: (request: ScriptedRequest) => {
        const state = request.lastUserText;
        if (request.agent === 'planner') {
          return state.includes('Blue mug $12')
            ? scriptedPlan({ done: true, finalAnswer: 'The blue mug costs $12.' })
            : scriptedPlan({ nextSteps: 'Search for a blue mug' });
        }
        if (state.includes('Blue mug $12')) return scriptedActions([{ done: { text: 'The blue mug costs $12.', success: true } }]);
        return scriptedActions([
          { input_text: { index: indexIn(state, 'name="q"'), text: 'blue mug' } },
          { click_element: { index: indexIn(state, 'button>Search') } },
        ]);
      },
    });
    const result = await new Executor({ sensitiveActions: false, task: 'What does a blue mug cost?', llm, browser }).execute();

    expect(result.status).toBe('ok');
    expect(result.finalAnswer).toBe('The blue mug costs $12.');
    expect(result.steps).toBe(2);
    expect(await browser.currentUrl()).toBe(resultsUrl);
    const actions = result.history.steps.flatMap((step) => step.actions);
    expect(actions.map((action) => [action.name, action.error])).toEqual([
      ['input_text', undefined],
      ['click_element', undefined],
      ['done', undefined],
    ]);
    expect(actions[0]?.result).toBe('Typed "blue mug" into element 1 (<input type=text> "Search").');
    expect(actions[1]?.result).toBe(`Clicked element 2 (<button> "Search"). The page navigated to ${resultsUrl}.`);
  });
});
