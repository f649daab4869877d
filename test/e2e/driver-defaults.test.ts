// The core's defaults for a driver that implements only the required members and mouseClick
// (src/dom/driver-defaults.ts), in headless Chromium: clicks inside frames, forged answers.
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BrowserDriver, FrameInfo, PageScript, ResolvedBrowserDriver } from '../../src/browser/types';
import { findChromium } from '../../src/chromium/find-chromium';
import { resolveDriver } from '../../src/dom/driver-defaults';
import { pageRuntime, pageScriptExpression, readPageScriptResult } from '../../src/dom/page-runtime';
import { defaultIncludeAttributes, PageStateReader } from '../../src/dom/page-state-reader';

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: findChromium(), args: ['--no-sandbox', '--disable-gpu'] });
});

afterAll(async () => {
  await browser?.close();
});

beforeEach(async () => {
  await page?.close();
  page = await browser.newPage({ viewport: { width: 800, height: 600 } });
});

/** A driver with the required members and a real mouse; everything else is the core's default. */
function minimalDriver(target: Page): { driver: ResolvedBrowserDriver; clicks: [number, number][] } {
  const ids = new WeakMap<Frame, string>();
  const frames = new Map<string, Frame>();
  const idOf = (frame: Frame): string => {
    let id = ids.get(frame);
    if (!id) {
      id = `frame-${frames.size + 1}`;
      ids.set(frame, id);
      frames.set(id, frame);
    }
    return id;
  };
  const clicks: [number, number][] = [];
  const tab = async () => ({ id: 'tab-1', url: target.url(), title: await target.title() });
  const driver: BrowserDriver = {
    specificationVersion: 'v1',
    tabs: async () => [await tab()],
    activeTab: tab,
    openTab: async () => tab(),
    switchTab: async () => tab(),
    closeTab: async () => undefined,
    goto: async (url) => {
      await target.goto(url);
    },
    frames: async (): Promise<FrameInfo[]> =>
      Promise.all(
        target.frames().map(async (frame): Promise<FrameInfo> => {
          const parent = frame.parentFrame();
          if (!parent) return { id: idOf(frame), url: frame.url() };
          const box = await (
            await frame.frameElement()
          ).evaluate((node) => {
            const element = node as Element;
            const rect = element.getBoundingClientRect();
            return { x: rect.left + element.clientLeft, y: rect.top + element.clientTop, width: element.clientWidth, height: element.clientHeight };
          });
          return { id: idOf(frame), parentId: idOf(parent), url: frame.url(), offset: { x: box.x, y: box.y }, size: { width: box.width, height: box.height } };
        }),
      ),
    evaluate: async <TArg, TResult>(frameId: string, script: PageScript<TArg, TResult>, argument: TArg): Promise<TResult> =>
      readPageScriptResult<TResult>(await frames.get(frameId)!.evaluate(pageScriptExpression(script as PageScript<unknown, unknown>, argument)), script.id),
    mouseClick: async (x, y) => {
      clicks.push([x, y]);
      await target.mouse.click(x, y);
    },
    screenshot: async () => new Uint8Array(),
    close: async () => undefined,
    [Symbol.asyncDispose]: async () => undefined,
  };
  return { driver: resolveDriver(driver), clicks };
}

describe('the default click', () => {
  it('clicks a button of an iframe with the mouse, inside the frame', async () => {
    await page.setContent(
      `<iframe style="border:0;width:400px;height:200px;margin:40px" srcdoc="<button onclick=&quot;parent.document.title='inner clicked'&quot;>Pay</button>"></iframe>`,
    );
    await page.waitForTimeout(200);
    const { driver, clicks } = minimalDriver(page);
    const state = await new PageStateReader(driver, { viewportExpansion: 0, includeAttributes: defaultIncludeAttributes, maxTextLength: 100 }).capture({
      screenshot: false,
    });
    const button = [...state.elements.values()].find((ref) => ref.tagName === 'button')!;
    expect(await driver.click(button)).toEqual({ method: 'pointer' });
    expect(await page.title()).toBe('inner clicked');
    expect(clicks).toHaveLength(1);
    const [[x, y]] = clicks as [[number, number]];
    expect(x).toBeGreaterThan(40);
    expect(y).toBeGreaterThan(40);
  });

  it('dispatches the click in the frame when its point lies outside the part of the frame that shows', async () => {
    // The frame is taller than the page's viewport: its button is in the frame's own viewport, below the top page's.
    await page.setContent(
      `<iframe style="border:0;width:600px;height:2000px;margin-top:100px" srcdoc="<body style='margin:0'><div style='height:1500px'></div><button onclick=&quot;parent.document.title='inner clicked'&quot;>Pay</button></body>"></iframe>`,
    );
    await page.waitForTimeout(200);
    const { driver, clicks } = minimalDriver(page);
    const state = await new PageStateReader(driver, { viewportExpansion: -1, includeAttributes: defaultIncludeAttributes, maxTextLength: 100 }).capture({
      screenshot: false,
    });
    const button = [...state.elements.values()].find((ref) => ref.tagName === 'button')!;
    expect(await driver.click(button)).toEqual({ method: 'dom' });
    expect(await page.title()).toBe('inner clicked');
    expect(clicks).toEqual([]);
  });

  it('never lets a frame aim the mouse at its parent page by forging the runtime', async () => {
    const forged = `Object.defineProperty(window, ${JSON.stringify(pageRuntime.version)}, { value: { call: (method) => method === 'clickPoint' ? { kind: 'centre', x: -250, y: -180, coveredBy: null } : true } });`;
    await page.setContent(`<button style="position:absolute;left:40px;top:20px;width:200px;height:60px" onclick="document.title='account deleted'">Delete account</button>
      <iframe style="position:absolute;left:300px;top:200px;width:300px;height:150px;border:0" srcdoc="<script>${forged.replace(/"/g, '&quot;')}</script><button>Ad</button>"></iframe>`);
    await page.waitForTimeout(200);
    const { driver, clicks } = minimalDriver(page);
    const child = (await driver.frames())[1]!;
    await driver.click({ index: 1, frameId: child.id, elementId: 'x-1', tagName: 'button' }).catch(() => undefined);
    expect(clicks).toEqual([]);
    expect(await page.title()).not.toBe('account deleted');
  });
});

describe('a page that forges the runtime globals', () => {
  it('still gets a snapshot when it predefined the listener recorder before the runtime came', async () => {
    await page.setContent('<script>window["__plannavRecorder@1"] = 1;</script><button>Hi</button><p>Some text</p>');
    const { driver } = minimalDriver(page);
    const state = await new PageStateReader(driver, { viewportExpansion: 0, includeAttributes: defaultIncludeAttributes, maxTextLength: 100 }).capture({
      screenshot: false,
    });
    expect(state.elementsText).toContain('<button>Hi />');
    expect(state.elementsText).toContain('Some text');
  });
});
