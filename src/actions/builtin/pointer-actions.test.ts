// The issue-24 actions on FakeBrowserDriver: what each does through the driver, what it reports, and
// a driver that lacks a gesture (a driver with only the required members) getting a result that says so.
import { describe, expect, it } from 'vitest';
import { testActionContext } from '../../../test/helpers/action-context';
import type { PageState } from '../../browser/page-state';
import type { BrowserDriver } from '../../browser/types';
import { resolveDriver } from '../../dom/driver-defaults';
import { PageStateReader, defaultIncludeAttributes } from '../../dom/page-state-reader';
import { FakeBrowserDriver, type FakePage } from '../../testing/fake-browser-driver';
import { ActionRegistry } from '../registry';
import { builtinActions } from './index';

const registry = new ActionRegistry(builtinActions());
const url = 'https://shop.test/';

function shop(log: string[]): FakePage {
  return {
    title: 'Shop',
    content: [
      { tag: 'button', text: 'Account', onHover: () => void log.push('hover:account') },
      { tag: 'div', text: 'Title', attributes: { role: 'button' }, onDoubleClick: () => void log.push('double:title') },
      { tag: 'div', text: 'report.pdf', attributes: { role: 'button' }, onClick: () => void log.push('left'), onContextMenu: () => void log.push('menu') },
      { tag: 'div', text: 'Card', attributes: { role: 'button' } },
      { tag: 'div', text: 'Done column', attributes: { role: 'button' }, onDrop: (_driver, dropped) => void log.push(`drop:${dropped.text ?? ''}`) },
      { tag: 'button', text: 'Delete', onClick: (driver) => driver.openDialog({ type: 'confirm', message: 'Delete item 7?' }) },
      'Order shipped',
    ],
  };
}

async function setUp(): Promise<{ driver: FakeBrowserDriver; state: PageState; log: string[]; index: (text: string) => number }> {
  const log: string[] = [];
  const driver = new FakeBrowserDriver({ startUrl: url, pages: { [url]: shop(log) } });
  const state = await new PageStateReader(resolveDriver(driver), {
    viewportExpansion: 0,
    includeAttributes: defaultIncludeAttributes,
    maxTextLength: 100,
  }).capture({
    screenshot: false,
  });
  const index = (text: string): number => {
    const found = [...state.elements].find(([, ref]) => ref.text === text);
    if (!found) throw new Error(`no element ${text}`);
    return found[0];
  };
  return { driver, state, log, index };
}

/** A driver with the required members only: none of the new gestures, reload or dialogs. */
function bareDriver(fake: FakeBrowserDriver): BrowserDriver {
  return {
    specificationVersion: 'v1',
    tabs: (options) => fake.tabs(options),
    activeTab: (options) => fake.activeTab(options),
    openTab: (target, options) => fake.openTab(target, options),
    switchTab: (id, options) => fake.switchTab(id, options),
    closeTab: (id, options) => fake.closeTab(id, options),
    goto: (target, options) => fake.goto(target, options),
    frames: (options) => fake.frames(options),
    evaluate: (frameId, script, argument, options) => fake.evaluate(frameId, script, argument, options),
    screenshot: (options) => fake.screenshot(options),
    close: () => fake.close(),
    [Symbol.asyncDispose]: () => fake.close(),
  };
}

describe('pointer actions', () => {
  it('hover_element, double_click_element and right_click_element call their gesture on the element the model meant', async () => {
    const { driver, state, log, index } = await setUp();
    const context = testActionContext({ driver, state });
    const hovered = await registry.run('hover_element', { index: index('Account') }, context);
    expect(hovered.error).toBeUndefined();
    expect(hovered.extractedContent).toMatch(/^Hovered over element \d+ \(<button> "Account"\)/);
    // What opens on hover is read in the next state.
    expect(hovered.stopSequence).toBe(true);
    const doubled = await registry.run('double_click_element', { index: index('Title') }, context);
    expect(doubled.extractedContent).toMatch(/^Double-clicked element \d+/);
    const right = await registry.run('right_click_element', { index: index('report.pdf') }, context);
    expect(right.error).toBeUndefined();
    expect(log).toEqual(['hover:account', 'double:title', 'menu']);
    expect(driver.calls.filter((call) => call.method === 'click').map((call) => call.args.at(-1))).toEqual(['right']);
  });

  it('drag_and_drop drops the element onto the target, and refuses a drop onto itself or onto an index not in the state', async () => {
    const { driver, state, log, index } = await setUp();
    const context = testActionContext({ driver, state });
    const dropped = await registry.run('drag_and_drop', { index: index('Card'), targetIndex: index('Done column') }, context);
    expect(dropped.error).toBeUndefined();
    expect(dropped.extractedContent).toMatch(/^Dragged element \d+ .*"Card".* onto element \d+ .*"Done column"/);
    expect(log).toEqual(['drop:Card']);
    const itself = await registry.run('drag_and_drop', { index: index('Card'), targetIndex: index('Card') }, context);
    expect(itself.error).toMatch(/cannot be dropped onto itself/);
    const nowhere = await registry.run('drag_and_drop', { index: index('Card'), targetIndex: 999 }, context);
    expect(nowhere.error).toMatch(/no element with index 999 \(targetIndex\)/);
    expect(driver.methodsCalled.filter((method) => method === 'dragAndDrop')).toHaveLength(1);
  });

  it('click_coordinates clicks the point with mouseClick and settles', async () => {
    const { driver } = await setUp();
    const result = await registry.run('click_coordinates', { x: 120, y: 48.5 }, testActionContext({ driver }));
    expect(result.error).toBeUndefined();
    expect(driver.calls.find((call) => call.method === 'mouseClick')?.args).toEqual([120, 48.5]);
    expect(driver.methodsCalled.indexOf('waitForSettled')).toBeGreaterThan(driver.methodsCalled.indexOf('mouseClick'));
    expect((await registry.run('click_coordinates', { x: -1, y: 3 }, testActionContext({ driver }))).error).toMatch(/x: /);
    const outside = await registry.run('click_coordinates', { x: 10, y: 720 }, testActionContext({ driver }));
    expect(outside.error).toBe(
      'The point (10, 720) is outside the viewport, which is 1280×720 CSS pixels: give a point inside it, as the screenshot shows it.',
    );
    expect(driver.methodsCalled.filter((method) => method === 'mouseClick')).toHaveLength(1);
  });

  it('says the driver cannot do a gesture it lacks, without touching the page', async () => {
    const { driver, state, index } = await setUp();
    const context = testActionContext({ driver: bareDriver(driver), state });
    for (const [action, params, words] of [
      ['hover_element', { index: index('Account') }, 'cannot hover over elements: it has no hover() member'],
      ['double_click_element', { index: index('Title') }, 'cannot double-click: it has no doubleClick() member'],
      ['drag_and_drop', { index: index('Card'), targetIndex: index('Done column') }, 'cannot drag and drop: it has no dragAndDrop() member'],
      ['click_coordinates', { x: 1, y: 1 }, 'cannot click at coordinates: it has no mouseClick() member'],
      ['handle_dialog', { accept: true }, 'cannot answer dialogs: it has no handleDialog() member'],
    ] as const) {
      expect((await registry.run(action, params, context)).error, action).toContain(words);
    }
  });
});

describe('reload_page', () => {
  it('reloads through the driver: a new document', async () => {
    const { driver, state } = await setUp();
    const result = await registry.run('reload_page', {}, testActionContext({ driver, state }));
    expect(result.error).toBeUndefined();
    expect(result.extractedContent).toBe(`Reloaded ${url}.`);
    expect(driver.methodsCalled).toContain('reload');
  });

  it('asks for no reload of a page the URL policy denies', async () => {
    const { driver } = await setUp();
    const result = await registry.run('reload_page', {}, testActionContext({ driver, denyUrl: () => true }));
    expect(result.error).toMatch(/not allowed/);
    expect(driver.methodsCalled).not.toContain('reload');
    expect(driver.methodsCalled).not.toContain('goto');
  });

  it('loads the URL again with goto on a driver without reload', async () => {
    const { driver } = await setUp();
    const result = await registry.run('reload_page', {}, testActionContext({ driver: bareDriver(driver) }));
    expect(result.error).toBeUndefined();
    expect(driver.calls.filter((call) => call.method === 'goto').map((call) => call.args[0])).toEqual([url]);
  });
});

describe('handle_dialog', () => {
  it('answers the open dialog and says what it said; the page state showed it meanwhile', async () => {
    const { driver, state, index } = await setUp();
    const context = testActionContext({ driver, state });
    await registry.run('click_element', { index: index('Delete') }, context);
    const reader = new PageStateReader(resolveDriver(driver), { viewportExpansion: 0, includeAttributes: defaultIncludeAttributes, maxTextLength: 100 });
    const blocked = await reader.capture({ screenshot: false });
    expect(blocked.dialog).toEqual({ type: 'confirm', message: 'Delete item 7?' });
    expect(blocked.elements.size).toBe(0);
    const result = await registry.run('handle_dialog', { accept: true }, context);
    expect(result.extractedContent).toBe('The confirm dialog said "Delete item 7?"; accepted it.');
    expect(result.data).toEqual({ dialog: { type: 'confirm', message: 'Delete item 7?', accepted: true, answeredBy: 'request' } });
    expect((await reader.capture({ screenshot: false })).dialog).toBeUndefined();
    const none = await registry.run('handle_dialog', { accept: false }, context);
    expect(none.error).toMatch(/No dialog is open/);
  });

  it("types a prompt's answer, or takes its default", async () => {
    const { driver } = await setUp();
    const context = testActionContext({ driver });
    driver.openDialog({ type: 'prompt', message: 'New name?', defaultValue: 'Untitled' });
    expect((await registry.run('handle_dialog', { accept: true, text: 'Report' }, context)).extractedContent).toBe(
      'The prompt dialog said "New name?"; accepted it with "Report".',
    );
    driver.openDialog({ type: 'prompt', message: 'New name?', defaultValue: 'Untitled' });
    expect((await registry.run('handle_dialog', { accept: true }, context)).extractedContent).toContain('with "Untitled"');
  });
});

describe('wait_for_text', () => {
  it('returns at once for text the page shows, and fails in time for text it never shows', async () => {
    const { driver } = await setUp();
    const context = testActionContext({ driver });
    const shown = await registry.run('wait_for_text', { text: 'order  SHIPPED' }, context);
    expect(shown.error).toBeUndefined();
    expect(shown.extractedContent).toMatch(/^"order SHIPPED" shows in the page/);
    const never = await registry.run('wait_for_text', { text: 'Refund sent', timeoutMs: 200 }, context);
    expect(never.error).toBe('"Refund sent" did not show in the page after 200 ms. Read the page again: it may need an action, or another text.');
    const stays = await registry.run('wait_for_text', { text: 'Order shipped', gone: true, timeoutMs: 200 }, context);
    expect(stays.error).toMatch(/^"Order shipped" still shows in the page after 200 ms/);
  });

  it('returns once the text is gone', async () => {
    const { driver } = await setUp();
    const context = testActionContext({ driver });
    setTimeout(() => driver.updateContent(['Nothing to see']), 100);
    const gone = await registry.run('wait_for_text', { text: 'Order shipped', gone: true, timeoutMs: 5000 }, context);
    expect(gone.error).toBeUndefined();
    expect(gone.extractedContent).toMatch(/no longer shows/);
  });

  it('refuses a wait longer than a minute, and an empty text', async () => {
    const context = testActionContext();
    expect((await registry.run('wait_for_text', { text: 'x', timeoutMs: 60_001 }, context)).error).toMatch(/timeoutMs/);
    expect((await registry.run('wait_for_text', { text: '' }, context)).error).toMatch(/text/);
  });
});
