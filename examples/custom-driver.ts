// Plugging in your own browser: the shortest BrowserDriver that passes plannav's conformance kit
// (driverConformance in plannav/testing), here over a playwright-core BrowserContext. It has only the
// required members plus a real mouse (mouseClick) and keyboard (press): click, fill, select, scroll,
// going back and settling come from the core's defaults, which run through evaluate() and plannav's
// page runtime. Swap the Playwright calls for your browser's (Puppeteer, chrome.debugger, a remote one).

import type { BrowserContext, Frame, Page } from 'playwright-core';
import { BrowserDisconnectedError, BrowserError } from 'plannav';
import { pageScriptExpression, readPageScriptResult, resolveDriver } from 'plannav/driver';
import type { BrowserDriver, CallOptions, ClickOptions, FrameInfo, PageScript, ScreenshotOptions, TabInfo } from 'plannav/driver';

export class CustomDriver implements BrowserDriver {
  readonly specificationVersion = 'v1';
  // Ids stay the same while a tab or frame lives: element refs and the model's tab list carry them.
  private readonly ids = new WeakMap<Page | Frame, string>();
  private nextId = 1;
  private closing: Promise<void> | undefined;
  /** Set when the context closes by itself: the browser was closed or its process ended. */
  private gone = false;

  private constructor(
    private readonly context: BrowserContext,
    private active: Page,
  ) {
    // A tab the page opens (target=_blank, window.open) becomes the active tab, as the model expects.
    context.on('page', (opened) => (this.active = opened));
    context.on('close', () => (this.gone = true));
  }

  /**
   * Drives `context` and closes it on close(). The core installs its page runtime on first use; add
   * `context.addInitScript({ content: pageRuntime.installSource })` to also see click listeners that
   * pages add before that.
   */
  static async create(context: BrowserContext): Promise<CustomDriver> {
    return new CustomDriver(context, context.pages()[0] ?? (await context.newPage()));
  }

  tabs(options?: CallOptions): Promise<TabInfo[]> {
    return this.call(options, () => Promise.all(this.context.pages().map((page) => this.info(page))));
  }
  activeTab(options?: CallOptions): Promise<TabInfo> {
    return this.call(options, () => this.info(this.page()));
  }
  openTab(url: string, options?: CallOptions): Promise<TabInfo> {
    return this.call(options, async (timeout) => {
      this.active = await this.context.newPage();
      await this.load(url, timeout);
      return this.info(this.active);
    });
  }
  switchTab(tabId: string, options?: CallOptions): Promise<TabInfo> {
    return this.call(options, async () => {
      this.active = this.pageById(tabId);
      await this.active.bringToFront();
      return this.info(this.active);
    });
  }
  closeTab(tabId: string, options?: CallOptions): Promise<void> {
    return this.call(options, async () => {
      await this.pageById(tabId).close();
      // page() moves to another tab when the active one closed; keep one tab open to act in.
      if (this.context.pages().length === 0) this.active = await this.context.newPage();
    });
  }
  goto(url: string, options?: CallOptions): Promise<void> {
    return this.call(options, (timeout) => this.load(url, timeout));
  }

  /** The top frame first, then every child frame (cross-origin ones too) with its parent and its box. */
  frames(options?: CallOptions): Promise<FrameInfo[]> {
    return this.call(options, async () => {
      const main = this.page().mainFrame();
      const children = this.page()
        .frames()
        .filter((frame) => frame !== main && !frame.isDetached());
      const described = children.map(async (frame) => ({
        id: this.idOf(frame),
        parentId: this.idOf(frame.parentFrame() ?? main),
        url: frame.url(),
        ...(await this.box(frame)),
      }));
      return [{ id: this.idOf(main), url: main.url() }, ...(await Promise.all(described))];
    });
  }

  evaluate<TArg, TResult>(frameId: string, script: PageScript<TArg, TResult>, arg: TArg, options?: CallOptions): Promise<TResult> {
    return this.call(options, async () => {
      const frame = this.page()
        .frames()
        .find((candidate) => this.ids.get(candidate) === frameId);
      if (!frame || frame.isDetached()) throw new BrowserError(`The frame ${frameId} is gone. Read the page state again.`, { retryable: true });
      // One string crosses the protocol: the script's awaited value as JSON, unwrapped here.
      return readPageScriptResult<TResult>(await frame.evaluate(pageScriptExpression(script as PageScript<unknown, unknown>, arg)), script.id);
    });
  }

  screenshot(options?: ScreenshotOptions): Promise<Uint8Array> {
    return this.call(
      options,
      async (timeout) =>
        new Uint8Array(await this.page().screenshot({ type: 'jpeg', quality: options?.quality ?? 70, fullPage: options?.fullPage ?? false, timeout })),
    );
  }

  /** A real mouse: the core's default click hit-tests the element in the page, then clicks here (top-page CSS pixels). */
  mouseClick(x: number, y: number, options?: ClickOptions): Promise<void> {
    return this.call(options, async () => {
      const { keyboard, mouse } = this.page();
      for (const key of options?.modifiers ?? []) await keyboard.down(key);
      await mouse.click(x, y, { button: options?.button ?? 'left' });
      for (const key of options?.modifiers ?? []) await keyboard.up(key);
    });
  }

  /** A real keyboard (pages that check isTrusted accept it), then the core's default settle: Enter may submit a form. */
  press(keys: string, options?: CallOptions): Promise<void> {
    return this.call(options, async () => {
      for (const chord of keys.split(/\s+/).filter(Boolean)) await this.page().keyboard.press(chord);
      await resolveDriver(this).waitForSettled(options);
    });
  }

  close(): Promise<void> {
    this.closing ??= this.context.close();
    return this.closing;
  }
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Every member runs through here: a closed driver, an aborted signal and a passed timeout reject, and browser failures become BrowserErrors the model can read. */
  private async call<T>(options: CallOptions | undefined, body: (timeout: number) => Promise<T>): Promise<T> {
    // A driver with no browser left says so with this error, and the task ends at once.
    if (this.closing) throw new BrowserDisconnectedError('The driver is closed: open a new one.');
    if (this.gone) throw new BrowserDisconnectedError('The browser is gone: open a new driver.');
    const signal = options?.signal;
    signal?.throwIfAborted();
    const timeout = options?.timeout ?? 15_000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let abort = (): void => undefined;
    const limits = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new BrowserError(`The browser did not answer within ${timeout} ms.`, { retryable: true })), timeout);
      abort = () => reject(signal?.reason);
      signal?.addEventListener('abort', abort, { once: true });
    });
    const work = body(timeout);
    work.catch(() => undefined); // the race's loser must not go unhandled
    try {
      return await Promise.race([work, limits]);
    } catch (error) {
      if (BrowserError.isInstance(error) || signal?.aborted) throw error;
      throw new BrowserError(`The browser failed: ${String(error).split('\n')[0]}`, { cause: error, retryable: true });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
    }
  }

  private async load(url: string, timeout: number): Promise<void> {
    try {
      await this.page().goto(url, { waitUntil: 'load', timeout });
    } catch (error) {
      // A load that never answered is still pending, and Chromium runs no script in the tab until it
      // ends: stop it. Other failures commit an error page: wait for it, or it interrupts the next goto.
      if (error instanceof Error && error.name === 'TimeoutError')
        await (await this.context.newCDPSession(this.page())).send('Page.stopLoading').catch(() => undefined);
      else
        await this.page()
          .waitForURL(/^chrome-error:/, { waitUntil: 'commit', timeout: 2000 })
          .catch(() => undefined);
      throw new BrowserError(`Could not load ${url}: ${String(error).split('\n')[0]}`, { cause: error, retryable: true });
    }
  }

  /** The frame element's content box in its parent's viewport (inside border and padding); none when it is not rendered, so the core leaves the frame out. */
  private async box(frame: Frame): Promise<Pick<FrameInfo, 'offset' | 'size'>> {
    const element = await frame.frameElement().catch(() => undefined);
    const box = await element?.evaluate((node) => {
      const iframe = node as HTMLIFrameElement;
      const [rect, style] = [iframe.getBoundingClientRect(), getComputedStyle(iframe)];
      const [left, top] = [parseFloat(style.paddingLeft), parseFloat(style.paddingTop)];
      if (rect.width === 0 || rect.height === 0 || style.visibility !== 'visible') return null;
      return {
        x: rect.left + iframe.clientLeft + left,
        y: rect.top + iframe.clientTop + top,
        width: iframe.clientWidth - left - parseFloat(style.paddingRight),
        height: iframe.clientHeight - top - parseFloat(style.paddingBottom),
      };
    });
    void element?.dispose();
    return box ? { offset: { x: box.x, y: box.y }, size: { width: box.width, height: box.height } } : {};
  }

  /** The active page; when it has closed (by closeTab or by the page itself), the last open one. */
  private page(): Page {
    if (this.active.isClosed()) this.active = this.context.pages().at(-1) ?? this.active;
    return this.active;
  }

  private pageById(tabId: string): Page {
    const page = this.context.pages().find((candidate) => this.ids.get(candidate) === tabId);
    if (!page)
      throw new BrowserError(
        `There is no tab with id ${tabId}. Open tabs: ${this.context
          .pages()
          .map((open) => this.idOf(open))
          .join(', ')}.`,
      );
    return page;
  }

  private idOf(target: Page | Frame): string {
    let id = this.ids.get(target);
    if (!id) this.ids.set(target, (id = `${'mainFrame' in target ? 'tab' : 'frame'}-${this.nextId++}`));
    return id;
  }

  private async info(page: Page): Promise<TabInfo> {
    return { id: this.idOf(page), url: page.url(), title: await page.title().catch(() => '') };
  }
}
