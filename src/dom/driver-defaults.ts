// The core's defaults for the optional members of BrowserDriver: element methods, key presses,
// scrolling, going back and settling done through `evaluate` and the page runtime, so that a
// driver needs only its tabs, frames, evaluate, a screenshot and close.

import { browserDriverProblem } from '../browser/driver-check';
import type { BrowserDriver, CallOptions, ClickOptions, ClickResult, ElementRef, ResolvedBrowserDriver, ScrollRequest } from '../browser/types';
import { BrowserError, ConfigError } from '../errors';
import { sleep } from '../util/abort';
import { callRuntime } from './page-runtime';
import { absoluteOffsets } from './page-state-reader';

/** How long the default settle waits for the DOM to be quiet, and at most. */
const settleQuietMs = 200;
const settleMaxMs = 3000;
/** How long a 0 ms timer may take to fire before the page is taken for one whose scripts are off. */
const timerProbeMs = 30;

const optionalMembers = ['goBack', 'currentUrl', 'click', 'fill', 'selectOption', 'uploadFiles', 'press', 'scroll', 'waitForSettled'] as const;

/** The recoverable error for an element of the last snapshot that is gone. */
function staleElement(ref: ElementRef, gone: unknown): BrowserError {
  const reason = gone === 'document' ? 'the page has loaded a new document since' : 'it was removed from the page';
  return new BrowserError(`Element ${ref.index} (<${ref.tagName}>) is no longer on the page: ${reason}. Read the new page state and choose again.`, {
    retryable: true,
  });
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The page answered a runtime method with something that is not its answer (a page can forge it). */
function malformed(method: string): BrowserError {
  return new BrowserError(`The page returned a malformed answer to ${method}; read the page again.`, { retryable: true });
}

const goneOf = (answer: unknown): unknown => (typeof answer === 'object' && answer !== null && 'gone' in answer ? answer.gone : undefined);
const locatorOf = (ref: ElementRef): { elementId: string; selector: string | null } => ({ elementId: ref.elementId, selector: ref.selector ?? null });

/** The defaults, bound to one driver. */
class DriverDefaults {
  constructor(private readonly driver: BrowserDriver) {}

  private async topFrameId(options: CallOptions | undefined): Promise<string> {
    const [top] = await this.driver.frames(options);
    if (!top) throw new BrowserError('The active tab has no frame to act in: open a page first.', { retryable: true });
    return top.id;
  }

  private settle(options: CallOptions | undefined): Promise<void> {
    return this.driver.waitForSettled ? this.driver.waitForSettled(options) : this.waitForSettled(options);
  }

  /** Waits in the page until the DOM is quiet; Node keeps the bound, since a page with scripts off never fires its timers. */
  async waitForSettled(options?: CallOptions): Promise<void> {
    const deadline = Date.now() + Math.min(settleMaxMs, options?.timeout ?? settleMaxMs);
    for (let attempt = 0; attempt < 3 && Date.now() < deadline; attempt++) {
      const remaining = Math.max(1, deadline - Date.now());
      try {
        const frameId = await this.topFrameId(options);
        // Where the page runs no timers (scripts off), nothing can change the DOM, and the in-page
        // wait, which counts its quiet window with a timer, would last until the bound.
        if ((await callRuntime(this.driver, frameId, 'timerProbe', undefined, options)) === 'armed') {
          await sleep(timerProbeMs, options?.signal);
          if ((await callRuntime(this.driver, frameId, 'timerProbeFired', undefined, options)) === false) return;
        }
        const quiet = callRuntime(this.driver, frameId, 'domQuiet', { quietMs: settleQuietMs, maxMs: remaining }, options);
        // Node keeps the bound (a page with scripts off never fires its timers); the bound's timer
        // ends with the wait.
        const bound = new AbortController();
        const stop = (): void => bound.abort();
        options?.signal?.addEventListener('abort', stop, { once: true });
        try {
          await Promise.race([quiet, sleep(remaining + 50, bound.signal).catch(() => undefined)]);
        } finally {
          options?.signal?.removeEventListener('abort', stop);
          bound.abort();
        }
        if (options?.signal?.aborted) throw options.signal.reason;
        return;
      } catch (error) {
        if (options?.signal?.aborted) throw error;
        // A navigation replaced the document under the wait: wait again in the new one.
        await sleep(Math.min(50, Math.max(0, deadline - Date.now())), options?.signal);
      }
    }
  }

  async currentUrl(options?: CallOptions): Promise<string> {
    return (await this.driver.activeTab(options)).url;
  }

  async goBack(options?: CallOptions): Promise<void> {
    await callRuntime(this.driver, await this.topFrameId(options), 'goBack', undefined, options);
    // history.back() navigates after the call returns; give it a moment to start.
    await sleep(100, options?.signal);
    await this.settle(options);
  }

  async click(ref: ElementRef, options?: ClickOptions): Promise<ClickResult> {
    const target = await callRuntime(this.driver, ref.frameId, 'clickPoint', locatorOf(ref), options);
    if (!isRecord(target)) throw malformed('clickPoint');
    if ('gone' in target) throw staleElement(ref, target.gone);
    if (target.kind === 'disabled') {
      throw new BrowserError(
        `Element ${ref.index} (<${ref.tagName}>) is disabled, so clicking it does nothing. Fill in what the form still needs, or choose another element.`,
      );
    }
    const coveredBy = 'coveredBy' in target && typeof target.coveredBy === 'string' ? target.coveredBy : undefined;
    let result: ClickResult = { method: 'dom', ...(coveredBy ? { coveredBy } : {}) };
    if ((target.kind === 'centre' || target.kind === 'offset') && this.driver.mouseClick) {
      const point = await this.topPoint(ref.frameId, target.x, target.y, options);
      if (point) {
        await this.driver.mouseClick(point.x, point.y, options);
        result = target.kind === 'centre' ? { method: 'pointer' } : { method: 'pointer-offset', ...(coveredBy ? { coveredBy } : {}) };
      }
    }
    if (result.method === 'dom') {
      const modifiers = options?.modifiers ? [...options.modifiers] : [];
      const done = await callRuntime(
        this.driver,
        ref.frameId,
        'dispatchClick',
        { locator: locatorOf(ref), button: options?.button ?? 'left', modifiers },
        options,
      );
      const missing = goneOf(done);
      if (missing !== undefined) throw staleElement(ref, missing);
    }
    await this.settle(options);
    return result;
  }

  /**
   * A point of a frame's viewport in the top page's viewport, or undefined when it is not a point
   * the mouse can click there: outside the part of the frame that shows (a tall iframe scrolled
   * by its parent, a frame's answer forged to aim at its parent page), or of a frame whose box
   * the driver does not know. The click then stays inside the frame, dispatched in its document.
   */
  private async topPoint(frameId: string, x: unknown, y: unknown, options: CallOptions | undefined): Promise<{ x: number; y: number } | undefined> {
    if (typeof x !== 'number' || typeof y !== 'number' || !Number.isFinite(x) || !Number.isFinite(y)) return undefined;
    const frames = await this.driver.frames(options);
    const top = frames[0];
    if (!top) return undefined;
    const viewport = await callRuntime(this.driver, top.id, 'viewportSize', undefined, options);
    if (!isRecord(viewport) || typeof viewport.width !== 'number' || typeof viewport.height !== 'number') return undefined;
    const offsets = absoluteOffsets(frames);
    const byId = new Map(frames.map((frame) => [frame.id, frame]));
    let visible = { left: 0, top: 0, right: viewport.width, bottom: viewport.height };
    // Bounded by the number of frames, so a malformed parent chain cannot loop.
    for (let frame = byId.get(frameId), level = 0; frame && frame.parentId !== undefined && level <= frames.length; frame = byId.get(frame.parentId), level++) {
      const offset = offsets.get(frame.id);
      if (!offset || !frame.size) return undefined;
      visible = {
        left: Math.max(visible.left, offset.x),
        top: Math.max(visible.top, offset.y),
        right: Math.min(visible.right, offset.x + frame.size.width),
        bottom: Math.min(visible.bottom, offset.y + frame.size.height),
      };
    }
    const offset = offsets.get(frameId);
    if (!offset) return undefined;
    const point = { x: offset.x + x, y: offset.y + y };
    return point.x > visible.left && point.x < visible.right && point.y > visible.top && point.y < visible.bottom ? point : undefined;
  }

  async fill(ref: ElementRef, text: string, options?: CallOptions): Promise<void> {
    const answer = await callRuntime(this.driver, ref.frameId, 'fill', { locator: locatorOf(ref), text }, options);
    if (!isRecord(answer)) throw malformed('fill');
    const gone = goneOf(answer);
    if (gone !== undefined) throw staleElement(ref, gone);
    const kept = (answer as { kept: unknown }).kept;
    if (kept === null) throw new BrowserError(`Element ${ref.index} is a <${ref.tagName}>, which cannot take text.`);
    if (kept === '' && text.trim() !== '') {
      throw new BrowserError(
        `Element ${ref.index} (<${ref.tagName}>) did not take "${text}": give the value in the input's own format (such as 2011-10-11, 15:45 or 2011-W41).`,
      );
    }
    await this.settle(options);
  }

  async selectOption(ref: ElementRef, label: string, options?: CallOptions): Promise<string[]> {
    const answer = await callRuntime(this.driver, ref.frameId, 'select', { locator: locatorOf(ref), label }, options);
    if (!isRecord(answer)) throw malformed('select');
    const gone = goneOf(answer);
    if (gone !== undefined) throw staleElement(ref, gone);
    if ('labels' in answer) {
      const labels = Array.isArray(answer.labels) ? answer.labels.map(String) : [];
      const listed = labels.length > 0 ? ` Options: ${labels.join(', ')}.` : ` It is a <${ref.tagName}>, not a select.`;
      throw new BrowserError(`Element ${ref.index} has no option "${label}".${listed}`);
    }
    await this.settle(options);
    return Array.isArray((answer as { values?: unknown }).values) ? (answer as { values: unknown[] }).values.map(String) : [];
  }

  async uploadFiles(ref: ElementRef): Promise<void> {
    throw new BrowserError(
      `This browser driver cannot upload files (element ${ref.index}): a page script cannot choose files. Use a driver that implements uploadFiles.`,
    );
  }

  async press(keys: string, options?: CallOptions): Promise<void> {
    // The key goes to the frame that holds the focus: the top frame's, else the first child frame's.
    for (const frame of await this.driver.frames(options)) {
      const pressed = await callRuntime(this.driver, frame.id, 'pressKeys', { keys }, options).catch((error: unknown) => {
        if (options?.signal?.aborted) throw error;
        return false; // a frame that went away holds no focus
      });
      if (pressed) {
        await this.settle(options);
        return;
      }
    }
    throw new BrowserError(`Nothing has the focus, so ${keys} went nowhere: click or fill a field first.`);
  }

  async scroll(request: ScrollRequest): Promise<void> {
    const frameId = request.ref ? request.ref.frameId : await this.topFrameId(request);
    const arg = { locator: request.ref ? locatorOf(request.ref) : null, deltaY: request.deltaY ?? null, toPercent: request.toPercent ?? null };
    const answer = await callRuntime(this.driver, frameId, 'scroll', arg, request);
    const gone = goneOf(answer);
    if (gone !== undefined && request.ref) throw staleElement(request.ref, gone);
    await this.settle(request);
  }
}

/**
 * The driver with the core's default for each optional member it leaves out; a driver that has
 * them all is returned as it is.
 * @throws `ConfigError` (field `browser`) when `driver` is not a BrowserDriver, such as a
 * Playwright Page; the message names the call that makes a driver of it.
 */
export function resolveDriver(driver: BrowserDriver): ResolvedBrowserDriver {
  // Called directly by driver authors and tests, it checks what the entry points check.
  const problem = browserDriverProblem(driver);
  if (problem !== undefined) throw new ConfigError(`The browser given to resolveDriver ${problem}.`, { field: 'browser' });
  if (optionalMembers.every((member) => typeof driver[member] === 'function')) return driver as ResolvedBrowserDriver;
  const defaults = new DriverDefaults(driver);
  const pick = <K extends (typeof optionalMembers)[number]>(member: K): NonNullable<BrowserDriver[K]> => {
    const own = driver[member];
    return (typeof own === 'function' ? own.bind(driver) : defaults[member].bind(defaults)) as NonNullable<BrowserDriver[K]>;
  };
  return {
    specificationVersion: driver.specificationVersion,
    tabs: driver.tabs.bind(driver),
    activeTab: driver.activeTab.bind(driver),
    openTab: driver.openTab.bind(driver),
    switchTab: driver.switchTab.bind(driver),
    closeTab: driver.closeTab.bind(driver),
    goto: driver.goto.bind(driver),
    frames: driver.frames.bind(driver),
    evaluate: driver.evaluate.bind(driver),
    screenshot: driver.screenshot.bind(driver),
    close: driver.close.bind(driver),
    [Symbol.asyncDispose]: driver[Symbol.asyncDispose].bind(driver),
    ...(driver.mouseClick ? { mouseClick: driver.mouseClick.bind(driver) } : {}),
    ...(driver.setNavigationGuard ? { setNavigationGuard: driver.setNavigationGuard.bind(driver) } : {}),
    // Downloads and PDFs (issue 24): the driver's own, when it has them; no default.
    ...(driver.onDownload ? { onDownload: driver.onDownload.bind(driver) } : {}),
    ...(driver.waitForDownloads ? { waitForDownloads: driver.waitForDownloads.bind(driver) } : {}),
    ...(driver.savePdf ? { savePdf: driver.savePdf.bind(driver) } : {}),
    ...(driver.readPdfText ? { readPdfText: driver.readPdfText.bind(driver) } : {}),
    // Issue 24, the missing actions: members with no default, passed on where the driver has them.
    ...(driver.hover ? { hover: driver.hover.bind(driver) } : {}),
    ...(driver.doubleClick ? { doubleClick: driver.doubleClick.bind(driver) } : {}),
    ...(driver.dragAndDrop ? { dragAndDrop: driver.dragAndDrop.bind(driver) } : {}),
    ...(driver.reload ? { reload: driver.reload.bind(driver) } : {}),
    ...(driver.dialogs ? { dialogs: driver.dialogs.bind(driver) } : {}),
    ...(driver.handleDialog ? { handleDialog: driver.handleDialog.bind(driver) } : {}),
    goBack: pick('goBack'),
    currentUrl: pick('currentUrl'),
    click: pick('click'),
    fill: pick('fill'),
    selectOption: pick('selectOption'),
    uploadFiles: pick('uploadFiles'),
    press: pick('press'),
    scroll: pick('scroll'),
    waitForSettled: pick('waitForSettled'),
  };
}
