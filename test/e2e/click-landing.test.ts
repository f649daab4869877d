// click_element reports what happened, with both drivers in headless Chromium (issue 21): a click
// waits for a target still growing into place under the pointer, checks where its events landed,
// tries once more when they missed, and never says "Clicked" when they did.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clickElementAction } from '../../src/actions/builtin/click-element';
import { ActionRegistry } from '../../src/actions/registry';
import type { PageState } from '../../src/browser/page-state';
import type { BrowserDriver } from '../../src/browser/types';
import { PageStateReader } from '../../src/dom/page-state-reader';
import { PlaywrightDriver } from '../../src/playwright/index';
import { PuppeteerDriver } from '../../src/puppeteer/index';
import { testActionContext } from '../helpers/action-context';
import { startFixtureServer, type FixtureServer } from './fixture-server';
import { indexWith, scriptOptions } from './snapshot-helpers';

const registry = new ActionRegistry([clickElementAction]);

const drivers: readonly [string, () => Promise<BrowserDriver & { close(): Promise<void> }>][] = [
  ['PlaywrightDriver', () => PlaywrightDriver.launch({ settle: { maxWaitMs: 1000 } })],
  ['PuppeteerDriver', () => PuppeteerDriver.launch({ settle: { maxWaitMs: 1000 } })],
];

describe.each(drivers)('click_element with %s', (_name, launch) => {
  let server: FixtureServer;
  let driver: BrowserDriver & { close(): Promise<void> };

  beforeAll(async () => {
    server = await startFixtureServer();
    driver = await launch();
  });

  afterAll(async () => {
    await driver?.close();
    await server?.close();
  });

  async function capture(path?: string): Promise<PageState> {
    if (path !== undefined) await driver.goto(server.url(path));
    return new PageStateReader(driver, scriptOptions()).capture({ screenshot: false });
  }

  async function click(state: PageState, needle: string): Promise<string> {
    const result = await registry.run('click_element', { index: indexWith(state.elementsText, needle) }, testActionContext({ driver, state }));
    expect(result.error).toBeUndefined();
    return result.extractedContent ?? '';
  }

  /** What the page's handlers logged, as the next state shows it. */
  async function logged(): Promise<string> {
    const state = await capture();
    return /[a-z]+;[a-z;]*/.exec(state.elementsText)?.[0] ?? '';
  }

  it('waits for an icon that starts 0 px wide on hover and grows, and clicks it, not its post', async () => {
    const state = await capture('click-landing.html');
    const text = await click(state, 'Like');
    expect(text).toMatch(/^Clicked element \d+ \(<span> "Like"\)\./);
    expect(await logged()).toBe('liked;');
  });

  it('never says Clicked when the release and the click land on a layer laid over the element on the press', async () => {
    const state = await capture('click-landing.html');
    const text = await click(state, 'Grab handle');
    expect(text).not.toMatch(/^Clicked/);
    expect(text).toMatch(
      /^Did not click element \d+ \(<button> "Grab handle"\): the release on <div>, the click on <body>; a second try missed too: the release on <div>, the click on <body>\. Read the page again/,
    );
    // Tried once more, never a third time; the handle's own click never ran.
    expect(await logged()).toBe('dropped;dropped;');
  });

  it('clicks an ordinary button once and says so', async () => {
    const state = await capture('click-landing.html');
    expect(await click(state, 'Plain button')).toMatch(/^Clicked element \d+ \(<button> "Plain button"\)\.$/);
    expect(await logged()).toBe('plain;');
  });
});
