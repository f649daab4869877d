// The Chromium driver core's members of issue 24, written once over the transport: hover, double
// click, drag and drop, a mouse click at a point, reload, and the tabs' JavaScript dialogs. A call
// never hangs on a dialog: one that needs the page while a dialog holds it fails at once, saying so.

import type {
  CallOptions,
  ClickOptions,
  ClickResult,
  ClosedDialog,
  DialogAnswer,
  DialogReport,
  DialogsOptions,
  ElementRef,
  FrameInfo,
  NavigationResponse,
  PageDialog,
  PageScript,
  ScreenshotOptions,
  ScrollRequest,
} from '../browser/types';
import { isLibraryTimeout } from './call';
import { dialogOpenError } from './dialogs';
import { ChromiumDriverCore, type CoreOptions, type CoreOwnership } from './driver-core';
import { loadBudget } from './pending-navigation';
import { doubleClickElement, dragElement, hoverElement } from './pointer-gestures';
import type { RuntimeFrame } from './runtime-calls';
import type { ChromiumElement, ChromiumPage, ChromiumTransport } from './transport';

/**
 * The Chromium driver core with the pointer gestures, reload and dialogs. A dialog the page opens
 * stays open until `handleDialog` answers it, or its window passes (the driver's `defaultTimeout`
 * from its opening, or the `answerWithinMs` a `dialogs()` call gives), and then it is dismissed;
 * `dialogs()` reports it meanwhile, and every dialog that closed, once. A call that needs the page
 * while a dialog is open rejects with a retryable `BrowserError` saying so; an action whose input
 * opened one resolves; `goto`, `goBack` and `reload` dismiss it first.
 * @public
 */
export class ChromiumActionsCore<P extends ChromiumPage<F>, F extends RuntimeFrame & object, E extends ChromiumElement> extends ChromiumDriverCore<P, F, E> {
  protected constructor(transport: ChromiumTransport<P, F, E>, owned: CoreOwnership, options: CoreOptions) {
    super(transport, owned, options);
    transport.dialogs.answerWithinMs = this.defaultTimeout;
  }

  /** Moves the mouse over an element of the last snapshot and leaves it there, then settles. */
  async hover(ref: ElementRef, options?: CallOptions): Promise<void> {
    return this.gesture('hover', [ref], options, (page, [element]) => hoverElement(this.transport, page, element as E, ref));
  }

  /** Double-clicks an element of the last snapshot (click, click, dblclick with detail 2), then settles. */
  async doubleClick(ref: ElementRef, options?: ClickOptions): Promise<void> {
    return this.gesture('doubleClick', [ref], options, (page, [element]) => doubleClickElement(this.transport, page, element as E, ref));
  }

  /** Drags `source` onto `target` with the real mouse (HTML5 drag events and pointer events alike), then settles. */
  async dragAndDrop(source: ElementRef, target: ElementRef, options?: CallOptions): Promise<void> {
    return this.gesture('dragAndDrop', [source, target], options, (page, [from, to]) =>
      dragElement(this.transport, page, { element: from as E, ref: source }, { element: to as E, ref: target }),
    );
  }

  /** A real mouse click at a point of the active tab's viewport, in CSS pixels; does not wait for the page to settle. */
  async mouseClick(x: number, y: number, options?: ClickOptions): Promise<void> {
    return this.guarded(`mouseClick(${x}, ${y})`, options, async () => {
      const page = this.pageWithoutDialog();
      const button = options?.button ?? 'left';
      await this.transport.dialogs.until(
        page,
        async () => {
          await this.transport.mouse(page, { type: 'move', x, y });
          await this.transport.mouse(page, { type: 'down', button, clickCount: 1 });
          await this.transport.mouse(page, { type: 'up', button, clickCount: 1 });
        },
        () => undefined,
      );
    });
  }

  /** Reloads the active tab and waits until it has settled; an open dialog is dismissed first. */
  async reload(options?: CallOptions): Promise<NavigationResponse | undefined> {
    return this.guarded('reload()', options, async (timeout, deadline) => {
      this.navigationsStarted++;
      const page = this.active();
      await this.dismissOpenDialog(page);
      let response: NavigationResponse | undefined;
      try {
        response = await this.transport.reload(page, loadBudget(timeout));
      } catch (error) {
        if (isLibraryTimeout(error)) throw await this.abandonLoad(page, page.url(), timeout, error);
        throw error;
      }
      await this.settle(page, timeout, options?.signal, deadline);
      return response;
    });
  }

  /** The dialog open in the active tab, and the dialogs closed since the last call (each once); never touches the page. */
  async dialogs(options?: DialogsOptions): Promise<DialogReport> {
    return this.guarded('dialogs()', options, async () => {
      const page = this.tabTracker.activePage;
      if (options?.answerWithinMs !== undefined) this.transport.dialogs.setWindow(page, options.answerWithinMs);
      const open = this.transport.dialogs.openOn(page);
      return { ...(open ? { open } : {}), closed: this.transport.dialogs.takeClosed() };
    });
  }

  /**
   * Answers the dialog open in the active tab and waits until the page has settled.
   * @throws `BrowserError` when no dialog is open.
   */
  async handleDialog(answer: DialogAnswer, options?: CallOptions): Promise<ClosedDialog> {
    return this.guarded('handleDialog()', options, async (timeout, deadline) => {
      const page = this.active();
      const closed = await this.transport.dialogs.answer(page, answer);
      // The closed dialog is this call's answer: it is not reported again.
      this.transport.dialogs.takeClosed();
      if (!page.isClosed() && !this.transport.dialogs.openOn(page)) await this.settle(this.tabTracker.activePage ?? page, timeout, options?.signal, deadline);
      return closed;
    });
  }

  // What the core does in the page, made safe against dialogs: fail at once while one is open,
  // and stop waiting when the call's own input opens one.

  override async evaluate<TArg, TResult>(frameId: string, script: PageScript<TArg, TResult>, arg: TArg, options?: CallOptions): Promise<TResult> {
    const page = this.pageWithoutDialog();
    return this.transport.dialogs.until(
      page,
      () => super.evaluate(frameId, script, arg, options),
      (dialog) => {
        throw dialogOpenError(dialog);
      },
    );
  }

  override async frames(options?: CallOptions): Promise<FrameInfo[]> {
    this.pageWithoutDialog();
    return super.frames(options);
  }

  override async click(ref: ElementRef, options?: ClickOptions): Promise<ClickResult> {
    const page = this.pageWithoutDialog();
    return this.transport.dialogs.until(
      page,
      () => super.click(ref, options),
      () => ({ method: 'pointer' }),
    );
  }

  override async fill(ref: ElementRef, text: string, options?: CallOptions): Promise<void> {
    const page = this.pageWithoutDialog();
    return this.transport.dialogs.until(
      page,
      () => super.fill(ref, text, options),
      () => undefined,
    );
  }

  override async selectOption(ref: ElementRef, label: string, options?: CallOptions): Promise<string[]> {
    const page = this.pageWithoutDialog();
    return this.transport.dialogs.until(
      page,
      () => super.selectOption(ref, label, options),
      () => [label],
    );
  }

  override async press(keys: string, options?: CallOptions): Promise<void> {
    const page = this.pageWithoutDialog();
    return this.transport.dialogs.until(
      page,
      () => super.press(keys, options),
      () => undefined,
    );
  }

  override async scroll(options: ScrollRequest): Promise<void> {
    const page = this.pageWithoutDialog();
    return this.transport.dialogs.until(
      page,
      () => super.scroll(options),
      () => undefined,
    );
  }

  override async screenshot(options?: ScreenshotOptions): Promise<Uint8Array> {
    this.pageWithoutDialog();
    return super.screenshot(options);
  }

  /** With a dialog open there is nothing to wait for: the page runs no script until it is answered. */
  override async waitForSettled(options?: CallOptions): Promise<void> {
    if (this.transport.dialogs.openOn(this.tabTracker.activePage)) return;
    return super.waitForSettled(options);
  }

  /** A navigation the driver is asked for goes on: a dialog open in the tab is dismissed first. */
  override async goto(url: string, options?: CallOptions): Promise<NavigationResponse | undefined> {
    await this.dismissOpenDialog(this.tabTracker.activePage);
    return super.goto(url, options);
  }

  override async goBack(options?: CallOptions): Promise<void> {
    await this.dismissOpenDialog(this.tabTracker.activePage);
    return super.goBack(options);
  }

  /** Stops the dialogs' timers, then closes as the core does. */
  override async close(): Promise<void> {
    this.transport.dialogs.dispose();
    return super.close();
  }

  /** The active tab; a dialog open in it rejects the call at once (the page would not answer). */
  private pageWithoutDialog(): P {
    const page = this.active();
    const open: PageDialog | undefined = this.transport.dialogs.openOn(page);
    if (open) throw dialogOpenError(open);
    return page;
  }

  private async dismissOpenDialog(page: P | undefined): Promise<void> {
    if (page && this.transport.dialogs.openOn(page)) await this.transport.dialogs.answer(page, { accept: false }, 'driver').catch(() => undefined);
  }

  /** One gesture on elements of the last snapshot: locate them, act, let the handles go, and settle unless a dialog opened. */
  private async gesture(
    name: string,
    refs: readonly ElementRef[],
    options: CallOptions | undefined,
    act: (page: P, elements: readonly E[]) => Promise<void>,
  ): Promise<void> {
    return this.guarded(`${name} on element ${refs.map((ref) => ref.index).join(' and ')}`, options, async (timeout, deadline) => {
      const page = this.pageWithoutDialog();
      const elements: E[] = [];
      try {
        for (const ref of refs) elements.push(await this.locate(ref));
        await this.transport.dialogs.until(
          page,
          () => act(page, elements),
          () => undefined,
        );
      } finally {
        for (const element of elements) void element.dispose().catch(() => undefined);
      }
      if (page.isClosed() || this.transport.dialogs.openOn(page)) return;
      await this.settle(this.tabTracker.activePage ?? page, timeout, options?.signal, deadline);
    });
  }
}
