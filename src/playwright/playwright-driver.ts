// PlaywrightDriver: plannav's BrowserDriver over playwright-core. It launches, attaches to or
// connects to Chromium, tracks tabs, settles after actions, and never closes what it did not create.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type ElementHandle, type Frame, type Page, type Request } from 'playwright-core';
import type {
  BrowserDriver,
  CallOptions,
  ClickOptions,
  ClickResult,
  ElementRef,
  FrameInfo,
  NavigationGuard,
  PageScript,
  ScreenshotOptions,
  ScrollRequest,
  TabInfo,
} from '../browser/types';
import { listenerRecorderArgument, listenerRecorderScript } from '../dom/listener-script';
import { BrowserError, ConfigError, URLNotAllowedError } from '../errors';
import { sleep } from '../util/abort';
import { asBrowserError, firstLine, guardedCall } from './call';
import { findChromium } from './find-chromium';
import { functionExpression, installExpression, portable, runInstalled } from './page-function';
import { drawHighlights, highlightLayerId, removeHighlights, type HighlightTarget } from './highlight';
import { disableSpeculativeLoading, NavigationGuardEnforcer } from './navigation-guard';
import {
  defaultChromiumArgs,
  resolveSettleOptions,
  type PlaywrightConnectOptions,
  type PlaywrightDriverOptions,
  type PlaywrightLaunchOptions,
  type ResolvedSettleOptions,
} from './options';

/** What the driver owns and must release on close; attached drivers own nothing. */
interface Ownership {
  readonly browser?: Browser | undefined;
  readonly context?: BrowserContext | undefined;
  readonly userDataDir?: string | undefined;
}

/** Requests of these kinds keep a page from settling; media streams and sockets never end. */
const trackedResourceTypes = new Set(['document', 'stylesheet', 'script', 'xhr', 'fetch', 'image', 'font']);

/** Network activity of one page, since the driver first saw it. */
class NetworkActivity {
  readonly inFlight = new Map<Request, number>();
  lastActivity = 0;

  /** Removes the listeners this tracker added to the page. */
  readonly dispose: () => void;

  constructor(page: Page) {
    const started = (request: Request): void => {
      if (!trackedResourceTypes.has(request.resourceType())) return;
      this.inFlight.set(request, Date.now());
      this.lastActivity = Date.now();
    };
    const done = (request: Request): void => {
      if (this.inFlight.delete(request)) this.lastActivity = Date.now();
    };
    page.on('request', started);
    page.on('requestfinished', done);
    page.on('requestfailed', done);
    this.dispose = () => {
      page.off('request', started);
      page.off('requestfinished', done);
      page.off('requestfailed', done);
      this.inFlight.clear();
    };
  }

  /** True when no recent request is in flight and nothing started or ended for `quietMs`. */
  isQuiet(now: number, quietMs: number, ignoreAfterMs: number): boolean {
    for (const started of this.inFlight.values()) if (now - started < ignoreAfterMs) return false;
    return now - this.lastActivity >= quietMs;
  }
}

/* v8 ignore start -- page functions: they run inside the page, where Node's coverage cannot see them */
/** Resolves in the page once the DOM has had no mutation for `quietMs`, or after `maxMs`. */
function waitForDomQuiet({ quietMs, maxMs }: { quietMs: number; maxMs: number }): Promise<boolean> {
  return new Promise((resolve) => {
    let quietTimer: ReturnType<typeof setTimeout> | undefined;
    let capTimer: ReturnType<typeof setTimeout> | undefined;
    const observer = new MutationObserver(() => {
      clearTimeout(quietTimer);
      quietTimer = setTimeout(() => finish(true), quietMs);
    });
    const finish = (quiet: boolean): void => {
      observer.disconnect();
      clearTimeout(quietTimer);
      clearTimeout(capTimer);
      resolve(quiet);
    };
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    quietTimer = setTimeout(() => finish(true), quietMs);
    capTimer = setTimeout(() => finish(false), maxMs);
  });
}

/**
 * The content box of each frame element in this frame's viewport, or null when the frame cannot
 * be seen: not rendered, transparent or hidden (itself or an ancestor), or covered where it is in
 * view (a modal dialog, an overlay). What cannot be seen is not snapshotted, like any element.
 */
function frameContentBoxes(nodes: Node[]): ({ x: number; y: number; width: number; height: number } | null)[] {
  let modal: Element | null = null;
  try {
    modal = document.querySelector(':modal');
  } catch {
    // an engine without :modal
  }
  const transparent = (element: Element): boolean => {
    for (let current: Element | null = element; current; current = current.parentElement ?? ((current.parentNode as ShadowRoot | null)?.host ?? null)) {
      if (window.getComputedStyle(current).opacity === '0') return true;
    }
    return false;
  };
  const covered = (element: Element, box: DOMRect): boolean => {
    // Behind a modal dialog the rest of the page is inert, in view or not.
    if (modal && modal !== element && !modal.contains(element)) return true;
    const left = Math.max(0, box.left);
    const right = Math.min(window.innerWidth, box.right);
    const top = Math.max(0, box.top);
    const bottom = Math.min(window.innerHeight, box.bottom);
    if (right - left < 1 || bottom - top < 1) return false; // out of view: cannot hit-test
    const root = element.getRootNode() as Document | ShadowRoot;
    const tester = typeof root.elementFromPoint === 'function' ? root : document;
    const points: [number, number][] = [[(left + right) / 2, (top + bottom) / 2]];
    if (right - left > 8 && bottom - top > 8) points.push([left + 4, top + 4], [right - 4, top + 4], [left + 4, bottom - 4], [right - 4, bottom - 4]);
    return !points.some(([x, y]) => tester.elementFromPoint(x, y) === element);
  };
  return nodes.map((node) => {
    const element = node as Element;
    if (!element || !element.isConnected) return null;
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) return null;
    const style = window.getComputedStyle(element);
    if (style.visibility === 'hidden' || style.visibility === 'collapse' || style.display === 'none') return null;
    if (typeof element.checkVisibility === 'function' && !element.checkVisibility({ opacityProperty: true, visibilityProperty: true } as CheckVisibilityOptions)) return null;
    if (transparent(element) || covered(element, box)) return null;
    const paddingLeft = parseFloat(style.paddingLeft || '0');
    const paddingTop = parseFloat(style.paddingTop || '0');
    return {
      x: box.left + element.clientLeft + paddingLeft,
      y: box.top + element.clientTop + paddingTop,
      width: element.clientWidth - paddingLeft - parseFloat(style.paddingRight || '0'),
      height: element.clientHeight - paddingTop - parseFloat(style.paddingBottom || '0'),
    };
  });
}

/** Finds an element of the snapshot in its document: by id through the weak map, else by selector in the same document. */
function findSnapshotElement({ elementId, selector }: { elementId: string; selector: string | null }): Element | string {
  const state = (window as unknown as Record<string, { token?: string; elements?: Map<string, WeakRef<Element>> } | undefined>)['__plannavSnapshot'];
  if (!state || !state.token || !elementId.startsWith(`${state.token}-`)) return 'document';
  const reference = state.elements?.get(elementId);
  const element = reference?.deref();
  if (element && element.isConnected) return element;
  // Only when the page lost our map (a script replaced it) does the selector stand in; an element
  // known to be removed is never swapped for another that now matches.
  if (!reference && selector) {
    try {
      const found = document.querySelector(selector);
      if (found) return found;
    } catch {
      // an invalid selector is no fallback
    }
  }
  return 'removed';
}

/** Scrolls the page, or an element, by pixels or to a percentage; returns the new scroll top. */
function scrollInPage(
  element: Element | null,
  { deltaY, toPercent }: { deltaY: number | null; toPercent: number | null },
): number {
  const target = element ?? document.scrollingElement ?? document.documentElement;
  const viewport = element ? element.clientHeight : window.innerHeight;
  const range = Math.max(0, target.scrollHeight - viewport);
  const top = toPercent !== null ? (range * toPercent) / 100 : target.scrollTop + (deltaY ?? viewport * 0.8);
  if (element) element.scrollTo({ top, behavior: 'instant' });
  else window.scrollTo({ top, behavior: 'instant' });
  return target.scrollTop;
}

/** The option of a select matching a label or value, or the list of labels when none matches. */
function findOption(element: Element, wanted: string): { index: number } | { labels: string[] } {
  if (!(element instanceof HTMLSelectElement)) return { labels: [] };
  const clean = (value: string): string => value.replace(/\s+/g, ' ').trim().toLowerCase();
  const target = clean(wanted);
  const options = [...element.options];
  let index = options.findIndex((option) => (option.label || option.text).trim() === wanted.trim());
  if (index === -1) index = options.findIndex((option) => clean(option.label || option.text) === target);
  if (index === -1) index = options.findIndex((option) => clean(option.value) === target);
  if (index === -1) index = options.findIndex((option) => clean(option.label || option.text).includes(target));
  return index === -1 ? { labels: options.map((option) => option.label || option.text) } : { index };
}

/** Where a click must land, relative to the element's padding box, or why no point of it can be clicked. */
type ClickTarget =
  | { kind: 'centre' | 'offset'; x: number; y: number; coveredBy: string | null }
  | { kind: 'covered'; coveredBy: string | null }
  | { kind: 'unseen' }
  | { kind: 'disabled' };

/**
 * Scrolls the element into view and hit-tests it (through open and recorded closed shadow roots):
 * its centre when that is the element, else the visible point of it nearest the centre, else
 * `covered` with what lies on top (a name such as `div.cookie-banner`). Hit-testing first spares
 * the wait for actionability that a covered element would time out on.
 */
function clickTarget(element: Element): ClickTarget {
  if (element.matches(':disabled')) return { kind: 'disabled' };
  const closedRoots = (window as unknown as Record<string, WeakMap<Element, ShadowRoot> | undefined>)['__plannavShadowRoots'];
  const parentOf = (node: Element): Element | null => node.parentElement ?? ((node.parentNode as ShadowRoot | null)?.host ?? null);
  const visibleRects = (): DOMRect[] =>
    [...element.getClientRects()].filter((rect) => rect.width >= 1 && rect.height >= 1 && rect.right > 0 && rect.bottom > 0 && rect.left < window.innerWidth && rect.top < window.innerHeight);
  let rects = visibleRects();
  if (rects.length === 0) {
    element.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    rects = visibleRects();
  }
  if (rects.length === 0) return { kind: 'unseen' };
  const hitAt = (x: number, y: number): Element | null => {
    let hit = document.elementFromPoint(x, y);
    for (let depth = 0; hit && depth < 32; depth++) {
      const root = hit.shadowRoot ?? closedRoots?.get(hit);
      const deeper = root?.elementFromPoint(x, y);
      if (!deeper || deeper === hit) break;
      hit = deeper;
    }
    return hit;
  };
  const reaches = (hit: Element | null): boolean => {
    for (let node = hit, depth = 0; node && depth < 256; node = parentOf(node), depth++) {
      if (node === element) return true;
      // A click on the element's label reaches the element.
      if (node instanceof HTMLLabelElement && node.control === element) return true;
    }
    return false;
  };
  const contains = (outer: Element, inner: Element): boolean => {
    for (let node: Element | null = inner, depth = 0; node && depth < 256; node = parentOf(node), depth++) if (node === outer) return true;
    return false;
  };
  /** The outermost box of the covering layer that does not hold the element, named by tag, id or classes. */
  const describe = (hit: Element | null): string | null => {
    if (!hit) return null;
    let layer = hit;
    for (let parent = parentOf(layer); parent && parent !== document.body && parent !== document.documentElement && !contains(parent, element); parent = parentOf(parent)) layer = parent;
    const id = layer.id ? `#${layer.id}` : '';
    const classes = [...layer.classList].slice(0, id ? 1 : 2).map((name) => `.${name}`).join('');
    return `${layer.localName}${id}${classes}`.slice(0, 80);
  };
  const box = element.getBoundingClientRect();
  const style = window.getComputedStyle(element);
  const borderLeft = parseInt(style.borderLeftWidth || '0', 10) || 0;
  const borderTop = parseInt(style.borderTopWidth || '0', 10) || 0;
  const relative = (x: number, y: number): { x: number; y: number } => ({ x: x - box.left - borderLeft, y: y - box.top - borderTop });
  let coveredBy: string | null = null;
  for (const rect of rects.slice(0, 4)) {
    const left = Math.max(0, rect.left);
    const right = Math.min(window.innerWidth, rect.right);
    const top = Math.max(0, rect.top);
    const bottom = Math.min(window.innerHeight, rect.bottom);
    const centre = { x: (left + right) / 2, y: (top + bottom) / 2 };
    const centreHit = hitAt(centre.x, centre.y);
    if (reaches(centreHit)) return { kind: rect === rects[0] ? 'centre' : 'offset', ...relative(centre.x, centre.y), coveredBy };
    coveredBy ??= describe(centreHit);
    // Other points of a grid over the visible part, nearest the centre first, a pixel inside the edges.
    const fractions = [0.5, 0.3, 0.7, 0.15, 0.85, 0.03, 0.97];
    const points: { x: number; y: number }[] = [];
    for (const fx of fractions) {
      for (const fy of fractions) {
        const x = Math.min(right - 1, Math.max(left + 1, left + (right - left) * fx));
        const y = Math.min(bottom - 1, Math.max(top + 1, top + (bottom - top) * fy));
        points.push({ x, y });
      }
    }
    points.sort((a, b) => Math.hypot(a.x - centre.x, a.y - centre.y) - Math.hypot(b.x - centre.x, b.y - centre.y));
    for (const point of points) if (reaches(hitAt(point.x, point.y))) return { kind: 'offset', ...relative(point.x, point.y), coveredBy };
  }
  return { kind: 'covered', coveredBy };
}

/** A click dispatched in the page, for an element no mouse can reach; handlers run as for a real click. */
function dispatchClick(element: Element, { button, modifiers }: { button: 'left' | 'right' | 'middle'; modifiers: string[] }): void {
  const init: MouseEventInit = {
    bubbles: true,
    cancelable: true,
    composed: true,
    button: button === 'left' ? 0 : button === 'middle' ? 1 : 2,
    altKey: modifiers.includes('Alt'),
    ctrlKey: modifiers.includes('Control'),
    metaKey: modifiers.includes('Meta'),
    shiftKey: modifiers.includes('Shift'),
  };
  if (button === 'right') element.dispatchEvent(new MouseEvent('contextmenu', init));
  else if (button === 'middle') element.dispatchEvent(new MouseEvent('auxclick', init));
  else if (modifiers.length === 0 && element instanceof HTMLElement) element.click();
  else element.dispatchEvent(new MouseEvent('click', init));
}

/**
 * Sets the value of an input whose value has a machine format (date, time, month, week, range,
 * colour) through the prototype's setter, so frameworks that track the value (React) see the
 * change, then fires input and change. Returns the value the input kept, or null for other elements.
 */
function setFormattedValue(element: Element, value: string): string | null {
  const formatted = new Set(['date', 'time', 'datetime-local', 'month', 'week', 'range', 'color']);
  if (!(element instanceof HTMLInputElement) || !formatted.has(element.type)) return null;
  element.focus();
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set;
  if (setter) setter.call(element, value);
  else element.value = value;
  element.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  element.dispatchEvent(new Event('change', { bubbles: true }));
  return element.value;
}

/* v8 ignore stop */

/**
 * A `BrowserDriver` (the `plannav` contract) over Playwright (`playwright-core`, Chromium). Create one with
 * {@link PlaywrightDriver.launch}, {@link PlaywrightDriver.attach} or {@link PlaywrightDriver.connect}.
 *
 * @remarks
 * Tabs are the pages of one browser context; a page that a click opens (a `target=_blank` link,
 * `window.open`) becomes the active tab. After every action the driver waits until the page has
 * settled: navigation committed, network and DOM quiet, within `settle.maxWaitMs`. An init
 * script records click listeners added by page scripts, so the snapshot counts those elements
 * as interactive. `close()` releases only what the driver created.
 *
 * @example
 * ```ts
 * import { Executor } from 'plannav';
 * import { PlaywrightDriver } from 'plannav/playwright';
 *
 * await using browser = await PlaywrightDriver.launch();
 * await browser.goto('https://example.com');
 * const result = await new Executor({ task: 'Find the pricing page', llm, browser }).execute();
 * ```
 * @public
 */
export class PlaywrightDriver implements BrowserDriver {
  /** The version of the driver contract this class implements. */
  readonly specificationVersion = 'v1' as const;
  /** The Playwright context whose pages are this driver's tabs. */
  readonly context: BrowserContext;
  private readonly owned: Ownership;
  private readonly settleOptions: ResolvedSettleOptions;
  private readonly highlightElements: boolean;
  private readonly defaultTimeout: number;
  /** False when the driver made the context with page JavaScript off: the DOM cannot change by itself then. */
  private readonly pageScripts: boolean;
  private readonly tabIds = new WeakMap<Page, string>();
  private readonly tabOrder: Page[] = [];
  private readonly openers = new WeakMap<Page, string>();
  /** Titles as of the last load or action, so listing tabs costs no round trip to each page. */
  private readonly titles = new WeakMap<Page, string>();
  private readonly frameIds = new WeakMap<Frame, string>();
  /** The iframe element of each child frame seen, kept for measuring; disposed when the frame goes and on close. */
  private readonly frameElements = new Map<Frame, ElementHandle>();
  /** Removes the listeners the driver added to each page it tracks (attached pages belong to the user). */
  private readonly pageListeners = new Map<Page, () => void>();
  /** A blank page the driver opened in an attached context after its last tab closed; closed on close(). */
  private readonly createdPages = new Set<Page>();
  private readonly framesById = new Map<string, WeakRef<Frame>>();
  private readonly network = new WeakMap<Page, NetworkActivity>();
  private readonly onPage = (page: Page): void => this.adopt(page, true);
  private initScript: { dispose(): Promise<void> } | undefined;
  /** Enforces the guard given to setNavigationGuard(), while there is one. */
  private navigationGuard: NavigationGuardEnforcer | undefined;
  private guardChange: Promise<void> = Promise.resolve();
  private activePage: Page | undefined;
  private nextTab = 1;
  private nextFrame = 1;
  private closing: Promise<void> | undefined;

  private constructor(context: BrowserContext, owned: Ownership, options: PlaywrightDriverOptions & { readonly contextOptions?: { readonly javaScriptEnabled?: boolean | undefined } | undefined }) {
    this.context = context;
    this.pageScripts = options.contextOptions?.javaScriptEnabled !== false;
    this.owned = owned;
    this.settleOptions = resolveSettleOptions(options.settle);
    this.highlightElements = options.highlightElements ?? false;
    this.defaultTimeout = options.defaultTimeout ?? 15_000;
    if (!Number.isFinite(this.defaultTimeout) || this.defaultTimeout <= 0) {
      throw new ConfigError(`Option \`defaultTimeout\` must be a positive number of milliseconds, got ${String(options.defaultTimeout)}.`, {
        field: 'defaultTimeout',
      });
    }
  }

  /**
   * Launches a local Chromium with a fresh profile in a temporary folder; `close()` ends the
   * browser and removes the folder.
   * @throws `BrowserError` when no browser could be started; the message says where it looked.
   */
  static async launch(options: PlaywrightLaunchOptions = {}): Promise<PlaywrightDriver> {
    const executablePath = options.executablePath ?? findChromium();
    const userDataDir = mkdtempSync(join(tmpdir(), 'plannav-chromium-'));
    let context: BrowserContext;
    try {
      disableSpeculativeLoading(userDataDir);
      context = await chromium.launchPersistentContext(userDataDir, {
        ...options.contextOptions,
        executablePath,
        headless: options.headless ?? true,
        args: [...defaultChromiumArgs, ...(options.args ?? [])],
        viewport: options.viewport ?? options.contextOptions?.viewport ?? { width: 1280, height: 1100 },
        timeout: options.launchTimeout ?? 30_000,
      });
    } catch (error) {
      rmSync(userDataDir, { recursive: true, force: true });
      const where = executablePath ?? "Playwright's own Chromium (none found at /usr/bin/chromium, chromium-browser, google-chrome, …)";
      throw new BrowserError(
        `Could not launch Chromium from ${where}: ${firstLine(error)}. Install Chromium or pass \`executablePath\`.`,
        { cause: error },
      );
    }
    // Whatever fails from here (bad options, an unreachable startUrl) must not leave the browser
    // running or its profile on disk.
    let driver: PlaywrightDriver | undefined;
    try {
      driver = new PlaywrightDriver(context, { context, userDataDir }, options);
      await driver.start(options.startUrl);
      return driver;
    } catch (error) {
      if (driver) await driver.close().catch(() => undefined);
      else {
        await context.close().catch(() => undefined);
        rmSync(userDataDir, { recursive: true, force: true, maxRetries: 3 });
      }
      throw error;
    }
  }

  /**
   * Drives a user's own Page (it becomes the active tab) or BrowserContext. The driver never
   * closes what it attached to: `close()` only removes its listeners and init script.
   */
  static async attach(target: Page | BrowserContext, options: PlaywrightDriverOptions = {}): Promise<PlaywrightDriver> {
    const isPage = 'mainFrame' in target;
    const context = isPage ? target.context() : target;
    const driver = new PlaywrightDriver(context, {}, options);
    try {
      await driver.start(undefined, isPage ? target : undefined);
    } catch (error) {
      await driver.close().catch(() => undefined);
      throw error;
    }
    return driver;
  }

  /**
   * Connects to a remote browser by a Playwright server's `wsEndpoint` or a Chromium `cdpUrl`
   * and opens a context of its own there; `close()` closes that context and disconnects.
   * @throws `ConfigError` unless exactly one of `wsEndpoint` and `cdpUrl` is given;
   * `BrowserError` when the connection fails.
   */
  static async connect(options: PlaywrightConnectOptions): Promise<PlaywrightDriver> {
    if (Boolean(options.wsEndpoint) === Boolean(options.cdpUrl)) {
      throw new ConfigError('PlaywrightDriver.connect needs exactly one of `wsEndpoint` (a Playwright server) and `cdpUrl` (a Chromium CDP endpoint).', {
        field: options.wsEndpoint ? 'cdpUrl' : 'wsEndpoint',
      });
    }
    const timeout = options.connectTimeout ?? 30_000;
    let browser: Browser;
    try {
      browser = options.wsEndpoint
        ? await chromium.connect(options.wsEndpoint, { headers: options.headers, timeout })
        : await chromium.connectOverCDP(options.cdpUrl as string, { headers: options.headers, timeout });
    } catch (error) {
      throw new BrowserError(`Could not connect to ${options.wsEndpoint ?? options.cdpUrl}: ${firstLine(error)}`, { cause: error });
    }
    let context: BrowserContext | undefined;
    let driver: PlaywrightDriver | undefined;
    try {
      context = await browser.newContext({ viewport: { width: 1280, height: 1100 }, ...options.contextOptions });
      driver = new PlaywrightDriver(context, { browser, context }, options);
      await driver.start();
      return driver;
    } catch (error) {
      // Close what was opened here and disconnect; the remote browser itself is not ours.
      if (driver) await driver.close().catch(() => undefined);
      else {
        await context?.close().catch(() => undefined);
        await browser.close().catch(() => undefined);
      }
      throw error;
    }
  }

  /** The active tab's Playwright page, for what the driver does not cover. */
  get page(): Page {
    return this.active();
  }

  /** Lists the open tabs (the context's pages), in the order they opened. */
  async tabs(options?: CallOptions): Promise<TabInfo[]> {
    return guardedCall('tabs()', options, this.defaultTimeout, async () => Promise.all(this.livePages().map((page) => this.info(page))));
  }

  /** The tab the driver acts on. */
  async activeTab(options?: CallOptions): Promise<TabInfo> {
    return guardedCall('activeTab()', options, this.defaultTimeout, async () => this.info(this.active()));
  }

  /** Opens a tab, makes it active, loads `url` and waits until it has settled. */
  async openTab(url: string, options?: CallOptions): Promise<TabInfo> {
    return guardedCall(`openTab(${url})`, options, this.defaultTimeout, async (timeout) => {
      this.navigationGuard?.assertAllowed(url, undefined);
      const page = await this.context.newPage();
      this.adopt(page, true);
      await this.navigate(page, url, timeout, options?.signal);
      return this.info(page);
    });
  }

  /** Makes a tab active and brings it to the front. */
  async switchTab(tabId: string, options?: CallOptions): Promise<TabInfo> {
    return guardedCall(`switchTab(${tabId})`, options, this.defaultTimeout, async () => {
      const page = this.pageById(tabId);
      this.activePage = page;
      await page.bringToFront();
      return this.info(page);
    });
  }

  /** Closes a tab; if it was active, the one before it becomes active (a blank one if none is left). */
  async closeTab(tabId: string, options?: CallOptions): Promise<void> {
    return guardedCall(`closeTab(${tabId})`, options, this.defaultTimeout, async () => {
      const page = this.pageById(tabId);
      const position = this.tabOrder.indexOf(page);
      await page.close();
      this.forget(page);
      if (this.activePage === page || this.activePage === undefined) {
        const remaining = this.livePages();
        this.activePage = remaining[Math.max(0, Math.min(position - 1, remaining.length - 1))];
        if (!this.activePage) {
          const blank = await this.context.newPage();
          // In a context the driver attached to, this page is the driver's: close() closes it.
          if (!this.owned.context) this.createdPages.add(blank);
          this.adopt(blank, true);
        }
      }
    });
  }

  /** Loads `url` in the active tab and waits until the page has settled. */
  async goto(url: string, options?: CallOptions): Promise<void> {
    return guardedCall(`goto(${url})`, options, this.defaultTimeout, (timeout) => this.navigate(this.active(), url, timeout, options?.signal));
  }

  /** Goes back in the active tab's history and waits until the page has settled. */
  async goBack(options?: CallOptions): Promise<void> {
    return guardedCall('goBack()', options, this.defaultTimeout, async (timeout) => {
      const page = this.active();
      await page.goBack({ waitUntil: 'commit', timeout });
      await this.settle(page, timeout, options?.signal);
    });
  }

  /** The active tab's URL. */
  async currentUrl(options?: CallOptions): Promise<string> {
    return guardedCall('currentUrl()', options, this.defaultTimeout, async () => this.active().url());
  }

  /** The rendered frames of the active tab, top frame first, with each child frame's box in its parent. */
  async frames(options?: CallOptions): Promise<FrameInfo[]> {
    return guardedCall('frames()', options, this.defaultTimeout, async () => {
      const page = this.active();
      const main = page.mainFrame();
      // Error pages of frames that failed to load (blocked, offline) hold nothing to act on.
      const frames = [main, ...page.frames().filter((frame) => frame !== main && !frame.isDetached() && !frame.url().startsWith('chrome-error:'))];
      this.pruneFrames();
      const boxes = await this.frameBoxes(frames.slice(1));
      return frames.map((frame): FrameInfo => {
        const parent = frame.parentFrame();
        if (!parent) return { id: this.frameId(frame), url: frame.url() };
        const box = boxes.get(frame);
        return {
          id: this.frameId(frame),
          parentId: this.frameId(parent),
          url: frame.url(),
          offset: box ? { x: box.x, y: box.y } : undefined,
          size: box ? { width: box.width, height: box.height } : undefined,
        };
      });
    });
  }

  /** Runs a core page script in a frame; the script is installed once per document and then called by id. */
  async evaluate<TArg, TResult>(frameId: string, script: PageScript<TArg, TResult>, arg: TArg, options?: CallOptions): Promise<TResult> {
    return guardedCall(`evaluate(${script.id})`, options, this.defaultTimeout, async () => {
      const frame = this.frameById(frameId);
      // The script is installed once per document and then called by id; its result comes back
      // as JSON text. Both save most of an evaluate's cost (sending, compiling, serialising).
      const call = { id: script.id, arg: arg as unknown };
      let json = await frame.evaluate(portable(runInstalled), call);
      if (json === null) {
        await frame.evaluate(installExpression(script.id, script.run as (argument: unknown) => unknown));
        json = await frame.evaluate(portable(runInstalled), call);
      }
      if (json === null) throw new BrowserError(`The page kept the script ${script.id} from being installed.`);
      // The page can tamper with what comes back (it controls JSON.stringify): the caller
      // validates the value; here it must at least be the JSON envelope.
      let envelope: unknown;
      try {
        envelope = typeof json === 'string' ? JSON.parse(json) : undefined;
      } catch {
        envelope = undefined;
      }
      if (typeof envelope !== 'object' || envelope === null || !('value' in envelope)) {
        throw new BrowserError(`The page returned a malformed result for ${script.id}.`, { retryable: true });
      }
      return (envelope as { value: TResult }).value;
    });
  }

  /**
   * Clicks an element of the last snapshot and waits until the page has settled; a new tab it
   * opens becomes active. The element is hit-tested first: the mouse clicks its centre
   * (`pointer`), or another visible point of it when the centre is covered (`pointer-offset`);
   * when no point can be reached the click is dispatched in the page (`dom`), naming what covered it.
   * @throws `BrowserError` when the element is gone or disabled.
   */
  async click(ref: ElementRef, options?: ClickOptions): Promise<ClickResult> {
    return guardedCall(`click on element ${ref.index}`, options, this.defaultTimeout, async (timeout) => {
      const page = this.active();
      const element = await this.locate(ref);
      const button = options?.button ?? 'left';
      const modifiers = options?.modifiers ? [...options.modifiers] : [];
      let result: ClickResult;
      try {
        const target = await element.evaluate(portable(clickTarget)).catch((error: unknown) => {
          throw staleElement(ref, `the page changed (${firstLine(error)})`);
        });
        if (target.kind === 'disabled') {
          throw new BrowserError(`Element ${ref.index} (<${ref.tagName}>) is disabled, so clicking it does nothing. Fill in what the form still needs, or choose another element.`);
        }
        const coveredBy = target.kind === 'unseen' ? undefined : (target.coveredBy ?? undefined);
        result = { method: 'dom', ...(coveredBy ? { coveredBy } : {}) };
        if (target.kind === 'centre' || target.kind === 'offset') {
          try {
            // The hit test above stands in for Playwright's actionability checks, which would wait out the timeout on a covered element.
            await element.click({ position: { x: target.x, y: target.y }, force: true, button, modifiers, timeout: Math.min(timeout, 5000) });
            result = target.kind === 'centre' ? { method: 'pointer' } : { method: 'pointer-offset', ...(coveredBy ? { coveredBy } : {}) };
          } catch (error) {
            // Detached or moved away between the hit test and the click: the page's own handlers still get a dispatched click.
            if (!/timeout|not stable|outside of the viewport|not visible|not attached|detached/i.test(firstLine(error))) throw error;
          }
        }
        if (result.method === 'dom') await element.evaluate(portable(dispatchClick), { button, modifiers });
      } finally {
        void element.dispose().catch(() => undefined);
      }
      await this.settle(this.activePage ?? page, timeout, options?.signal);
      return result;
    });
  }

  /** Replaces the value of an input, textarea or editable element of the last snapshot. */
  async fill(ref: ElementRef, text: string, options?: CallOptions): Promise<void> {
    return guardedCall(`fill on element ${ref.index}`, options, this.defaultTimeout, async (timeout) => {
      const element = await this.locate(ref);
      try {
        // Inputs with a machine format get their value set in the page: older Playwright versions
        // refuse a range value the input rounds or clamps, and fill skips the setter React tracks.
        const kept = await element.evaluate(portable(setFormattedValue), text);
        if (kept === '' && text.trim() !== '') {
          throw new BrowserError(`Element ${ref.index} (<${ref.tagName}>) did not take "${text}": give the value in the input's own format (such as 2011-10-11, 15:45 or 2011-W41).`);
        }
        if (kept === null) await element.fill(text, { timeout: Math.min(timeout, 5000) });
      } catch (error) {
        if (/not an <input>|not an input|Element is not/i.test(firstLine(error))) {
          throw new BrowserError(`Element ${ref.index} is a <${ref.tagName}>, which cannot take text: ${firstLine(error)}`, { cause: error });
        }
        throw error;
      } finally {
        void element.dispose().catch(() => undefined);
      }
      await this.settle(this.active(), timeout, options?.signal);
    });
  }

  /** Selects the option with this label (or value) in a select of the last snapshot; returns the selected values. */
  async selectOption(ref: ElementRef, label: string, options?: CallOptions): Promise<string[]> {
    return guardedCall(`selectOption on element ${ref.index}`, options, this.defaultTimeout, async (timeout) => {
      const element = await this.locate(ref);
      try {
        const found = await element.evaluate(portable(findOption), label);
        if ('labels' in found) {
          const listed = found.labels.length > 0 ? ` Options: ${found.labels.join(', ')}.` : ` It is a <${ref.tagName}>, not a select.`;
          throw new BrowserError(`Element ${ref.index} has no option "${label}".${listed}`);
        }
        const values = await element.selectOption({ index: found.index }, { timeout: Math.min(timeout, 5000) });
        await this.settle(this.active(), timeout, options?.signal);
        return values;
      } finally {
        void element.dispose().catch(() => undefined);
      }
    });
  }

  /** Sets the files of a file input of the last snapshot. */
  async uploadFiles(ref: ElementRef, paths: readonly string[], options?: CallOptions): Promise<void> {
    return guardedCall(`uploadFiles on element ${ref.index}`, options, this.defaultTimeout, async (timeout) => {
      const element = await this.locate(ref);
      try {
        await element.setInputFiles([...paths], { timeout: Math.min(timeout, 5000) });
      } catch (error) {
        const message = firstLine(error);
        const path = paths.find((candidate) => message.includes(candidate)) ?? paths.join(', ');
        if (/ENOENT/.test(message)) throw new BrowserError(`Cannot upload ${path}: there is no such file.`, { cause: error });
        if (/EISDIR|does not support directories/.test(message)) throw new BrowserError(`Cannot upload ${path}: it is a folder; give the path of a file in it.`, { cause: error });
        if (/Not an input|not an input|input\[type=file\]/.test(message)) {
          throw new BrowserError(`Element ${ref.index} (<${ref.tagName}>) is not a file input.`, { cause: error });
        }
        throw error;
      } finally {
        void element.dispose().catch(() => undefined);
      }
      await this.settle(this.active(), timeout, options?.signal);
    });
  }

  /** Presses keys on the focused element, such as `Enter` or `Control+A`, and waits until the page has settled. */
  async press(keys: string, options?: CallOptions): Promise<void> {
    return guardedCall(`press(${keys})`, options, this.defaultTimeout, async (timeout) => {
      const page = this.active();
      await page.keyboard.press(keys);
      await this.settle(this.activePage ?? page, timeout, options?.signal);
    });
  }

  /** Scrolls the page, or inside an element of the last snapshot, by pixels or to a percentage. */
  async scroll(options: ScrollRequest): Promise<void> {
    return guardedCall('scroll()', options, this.defaultTimeout, async (timeout) => {
      const request = { deltaY: options.deltaY ?? null, toPercent: options.toPercent ?? null };
      if (options.ref) {
        const element = await this.locate(options.ref);
        try {
          await element.evaluate(portable(scrollInPage), request);
        } finally {
          void element.dispose().catch(() => undefined);
        }
      } else {
        // The same page function as for an element, called with no element: the page scrolls.
        await this.active().mainFrame().evaluate(`(() => {
  var __name = function (target) { return target; };
  return (${functionExpression(scrollInPage)})(null, ${JSON.stringify(request)});
})()`);
      }
      await this.settle(this.active(), timeout, options.signal);
    });
  }

  /** A JPEG of the viewport (or the whole page); with `highlightElements`, the given elements carry index boxes. */
  async screenshot(options?: ScreenshotOptions): Promise<Uint8Array> {
    return guardedCall('screenshot()', options, this.defaultTimeout, async (timeout) => {
      const page = this.active();
      const highlighted = this.highlightElements && options?.elements && options.elements.length > 0 ? await this.drawHighlights(options.elements) : [];
      try {
        const bytes = await page.screenshot({ type: 'jpeg', quality: options?.quality ?? 70, fullPage: options?.fullPage ?? false, timeout });
        return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      } finally {
        await Promise.all(highlighted.map((frame) => frame.evaluate(portable(removeHighlights), highlightLayerId).catch(() => undefined)));
      }
    });
  }

  /** Waits until the active page has settled (navigation committed, network and DOM quiet), within the settle bound. */
  async waitForSettled(options?: CallOptions): Promise<void> {
    return guardedCall('waitForSettled()', options, this.defaultTimeout, (timeout) => this.settle(this.active(), timeout, options?.signal));
  }

  /**
   * Enforces `guard` on every navigation the browser makes in this driver's context, not only the
   * ones the driver starts: links, forms, location changes, meta refresh, redirect hops, popups,
   * frames and speculative loads. A denied navigation is stopped before any request is sent and
   * reported to `guard.blocked`; `goto` and `openTab` reject it with a `URLNotAllowedError`.
   * `undefined` removes the guard. Speculation rules cannot be intercepted: a launched browser
   * never runs them, and in other browsers they are removed from documents while a guard is set.
   */
  async setNavigationGuard(guard: NavigationGuard | undefined, options?: CallOptions): Promise<void> {
    return guardedCall('setNavigationGuard()', options, this.defaultTimeout, () => {
      // One change at a time, so two calls cannot install two enforcers.
      const change = this.guardChange.then(async () => {
        if (this.closing) throw new BrowserError('The driver is closed: open a new one.');
        if (guard && this.navigationGuard) return this.navigationGuard.replace(guard);
        const previous = this.navigationGuard;
        this.navigationGuard = undefined;
        await previous?.dispose();
        if (!guard) return;
        this.navigationGuard = await NavigationGuardEnforcer.install(this.context, guard, {
          ownsBrowser: this.owned.userDataDir !== undefined,
          tabId: (page) => this.tabIds.get(page),
          popupClosing: (popup, opener) => {
            if (this.activePage === popup && opener && this.tabIds.has(opener) && !opener.isClosed()) this.activePage = opener;
          },
        });
      });
      this.guardChange = change.catch(() => undefined);
      return change;
    });
  }

  /** Closes what the driver created (browser, context, profile folder); only detaches from what it attached to. Idempotent. */
  async close(): Promise<void> {
    this.closing ??= this.release();
    return this.closing;
  }

  /** Same as `close()`, for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private async release(): Promise<void> {
    this.context.off('page', this.onPage);
    await this.guardChange;
    await this.navigationGuard?.dispose();
    this.navigationGuard = undefined;
    // Attached pages stay the user's: leave nothing of the driver's on them.
    for (const remove of this.pageListeners.values()) remove();
    this.pageListeners.clear();
    const handles = [...this.frameElements.values()];
    this.frameElements.clear();
    this.framesById.clear();
    await Promise.all(handles.map((handle) => handle.dispose().catch(() => undefined)));
    const problems: unknown[] = [];
    const created = [...this.createdPages];
    this.createdPages.clear();
    await Promise.all(created.map((page) => page.close().catch(() => undefined)));
    if (!this.owned.context) await this.initScript?.dispose().catch((error: unknown) => problems.push(error));
    if (this.owned.context) await this.owned.context.close().catch((error: unknown) => problems.push(error));
    if (this.owned.browser) await this.owned.browser.close().catch((error: unknown) => problems.push(error));
    if (this.owned.userDataDir) rmSync(this.owned.userDataDir, { recursive: true, force: true, maxRetries: 3 });
    this.activePage = undefined;
    if (problems.length > 0 && this.owned.context) throw asBrowserError('close()', problems[0]);
  }

  /** Installs the listener recorder, adopts the context's pages and makes one active. */
  private async start(startUrl?: string, preferred?: Page): Promise<void> {
    const disposable: unknown = await this.context.addInitScript(portable(listenerRecorderScript.run), listenerRecorderArgument);
    if (disposable && typeof (disposable as { dispose?: unknown }).dispose === 'function') this.initScript = disposable as { dispose(): Promise<void> };
    for (const page of this.context.pages()) this.adopt(page, false);
    this.context.on('page', this.onPage);
    if (preferred) this.adopt(preferred, true);
    if (!this.activePage) this.adopt(this.context.pages()[0] ?? (await this.context.newPage()), true);
    // Documents loaded before the driver came get the recorder now (it sees listeners added from here on).
    await Promise.all(
      this.livePages().flatMap((page) => page.frames().map((frame) => frame.evaluate(portable(listenerRecorderScript.run), listenerRecorderArgument).catch(() => false))),
    );
    if (startUrl && startUrl !== 'about:blank') await this.navigate(this.active(), startUrl, this.defaultTimeout, undefined);
  }

  /** Starts tracking a page as a tab; a page opened by the page (a popup) becomes active. */
  private adopt(page: Page, activate: boolean): void {
    if (!this.tabIds.has(page)) {
      this.tabIds.set(page, `tab-${this.nextTab++}`);
      this.tabOrder.push(page);
      const network = new NetworkActivity(page);
      this.network.set(page, network);
      const closed = (): void => this.forget(page);
      const refresh = (): void => void this.refreshTitle(page);
      const navigated = (frame: Frame): void => {
        if (frame === page.mainFrame()) refresh();
      };
      page.on('close', closed);
      page.on('domcontentloaded', refresh);
      page.on('load', refresh);
      page.on('framenavigated', navigated);
      this.pageListeners.set(page, () => {
        network.dispose();
        page.off('close', closed);
        page.off('domcontentloaded', refresh);
        page.off('load', refresh);
        page.off('framenavigated', navigated);
      });
      void page
        .opener()
        .then((opener) => {
          const openerId = opener ? this.tabIds.get(opener) : undefined;
          if (openerId) this.openers.set(page, openerId);
        })
        .catch(() => undefined);
    }
    if (activate && !page.isClosed()) this.activePage = page;
  }

  private forget(page: Page): void {
    this.pageListeners.get(page)?.();
    this.pageListeners.delete(page);
    this.createdPages.delete(page);
    const position = this.tabOrder.indexOf(page);
    if (position !== -1) this.tabOrder.splice(position, 1);
    if (this.activePage === page) this.activePage = this.tabOrder[Math.max(0, position - 1)];
  }

  private livePages(): Page[] {
    return this.tabOrder.filter((page) => !page.isClosed());
  }

  private active(): Page {
    if (this.closing) throw new BrowserError('The driver is closed: open a new one.');
    const page = this.activePage && !this.activePage.isClosed() ? this.activePage : this.livePages().at(-1);
    if (!page) throw new BrowserError('No tab is open: open one with openTab().');
    this.activePage = page;
    return page;
  }

  private pageById(tabId: string): Page {
    const page = this.livePages().find((candidate) => this.tabIds.get(candidate) === tabId);
    if (!page) {
      const known = this.livePages().map((candidate) => this.tabIds.get(candidate)).join(', ');
      throw new BrowserError(`There is no tab with id ${tabId}. Open tabs: ${known || 'none'}.`);
    }
    return page;
  }

  private async refreshTitle(page: Page): Promise<string> {
    const title = await page.title().catch(() => this.titles.get(page) ?? '');
    this.titles.set(page, title);
    return title;
  }

  private async info(page: Page): Promise<TabInfo> {
    const title = this.titles.get(page) ?? (await this.refreshTitle(page));
    const openerId = this.openers.get(page);
    return { id: this.tabIds.get(page) ?? 'unknown', url: page.url(), title, ...(openerId ? { openerId } : {}) };
  }

  private frameId(frame: Frame): string {
    let id = this.frameIds.get(frame);
    if (id === undefined) {
      id = `frame-${this.nextFrame++}`;
      this.frameIds.set(frame, id);
      this.framesById.set(id, new WeakRef(frame));
    }
    return id;
  }

  /** Forgets frames that are gone (of any tab), and disposes the frame elements kept for them. */
  private pruneFrames(): void {
    for (const [id, reference] of this.framesById) {
      const frame = reference.deref();
      if (!frame || frame.isDetached()) this.framesById.delete(id);
    }
    for (const [frame, handle] of this.frameElements) {
      if (!frame.isDetached()) continue;
      this.frameElements.delete(frame);
      void handle.dispose().catch(() => undefined);
    }
  }

  private frameById(frameId: string): Frame {
    const frame = this.framesById.get(frameId)?.deref();
    if (!frame || frame.isDetached()) {
      this.framesById.delete(frameId);
      throw new BrowserError(`The frame ${frameId} is gone (it navigated or was removed). Read the page state again.`, { retryable: true });
    }
    return frame;
  }

  /**
   * The content box of each child frame's element in its parent's viewport; none for frames that
   * are not rendered. The frame elements are looked up once per frame and kept; the boxes are
   * read with one evaluate per parent frame, since pages with ads hold dozens of frames.
   */
  private async frameBoxes(frames: readonly Frame[]): Promise<Map<Frame, { x: number; y: number; width: number; height: number }>> {
    const byParent = new Map<Frame, { frame: Frame; element: ElementHandle }[]>();
    await Promise.all(
      frames.map(async (frame) => {
        const parent = frame.parentFrame();
        if (!parent) return;
        let element = this.frameElements.get(frame);
        if (!element) {
          element = await frame.frameElement().catch(() => undefined);
          if (!element) return;
          this.frameElements.set(frame, element);
        }
        const siblings = byParent.get(parent) ?? [];
        siblings.push({ frame, element });
        byParent.set(parent, siblings);
      }),
    );
    const boxes = new Map<Frame, { x: number; y: number; width: number; height: number }>();
    await Promise.all(
      [...byParent].map(async ([parent, children]) => {
        const measured = await parent.evaluate(portable(frameContentBoxes), children.map((child) => child.element)).catch(() => undefined);
        children.forEach((child, position) => {
          const box = measured?.[position];
          if (box) boxes.set(child.frame, box);
        });
      }),
    );
    return boxes;
  }

  /** The element behind a snapshot ref, or a recoverable BrowserError saying it is gone. */
  private async locate(ref: ElementRef): Promise<ElementHandle<Element>> {
    let frame: Frame;
    try {
      frame = this.frameById(ref.frameId);
    } catch {
      throw staleElement(ref, 'its frame is gone');
    }
    let handle;
    try {
      handle = await frame.evaluateHandle(portable(findSnapshotElement), { elementId: ref.elementId, selector: ref.selector ?? null });
    } catch (error) {
      throw staleElement(ref, `the page changed (${firstLine(error)})`);
    }
    const element = handle.asElement();
    if (element) return element as ElementHandle<Element>;
    const reason = String(await handle.jsonValue().catch(() => 'removed'));
    void handle.dispose().catch(() => undefined);
    throw staleElement(ref, reason === 'document' ? 'the page has loaded a new document since' : 'it was removed from the page');
  }

  private async navigate(page: Page, url: string, timeout: number, signal: AbortSignal | undefined): Promise<void> {
    const load = (): Promise<unknown> => page.goto(url, { waitUntil: 'commit', timeout });
    try {
      await (this.navigationGuard ? this.navigationGuard.navigate(page, url, load) : load());
    } catch (error) {
      if (URLNotAllowedError.isInstance(error)) throw error;
      // Chromium goes on to commit its error page after the failure: wait for it, or the next
      // navigation of this tab is interrupted by it.
      await this.settle(page, Math.min(timeout, 5_000), signal).catch(() => undefined);
      throw new BrowserError(`Could not load ${url}: ${firstLine(error)}`, { cause: error, retryable: true });
    }
    await this.settle(page, timeout, signal);
  }

  /**
   * Waits until the page has settled: its document committed and parsed, no tracked request in
   * flight and no DOM mutation for the quiet windows, within the settle bound and the call's
   * time. Never fails: a busy page just ends the wait.
   */
  private async settle(page: Page, timeout: number, signal: AbortSignal | undefined): Promise<void> {
    const deadline = Date.now() + Math.min(this.settleOptions.maxWaitMs, Math.max(0, timeout - 50));
    await this.waitUntilSettled(page, deadline, signal);
    // An action may change the title without a navigation (a single-page app); read it once here,
    // within what is left of the bound (at least a short moment): a page busy with a long script
    // cannot answer, and then the title read at its last load stands.
    const title = this.refreshTitle(page);
    let bound: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([title, new Promise<void>((done) => (bound = setTimeout(done, Math.max(50, deadline - Date.now()))))]);
    clearTimeout(bound);
  }

  private async waitUntilSettled(page: Page, deadline: number, signal: AbortSignal | undefined): Promise<void> {
    const { domQuietMs, networkQuietMs, ignoreRequestsAfterMs } = this.settleOptions;
    const remaining = (): number => Math.max(0, deadline - Date.now());
    await page.waitForLoadState('domcontentloaded', { timeout: Math.max(1, remaining()) }).catch(() => undefined);
    const activity = this.network.get(page);
    // Bounded by the deadline: every pass waits at least the DOM window or a short pause.
    for (let pass = 0; pass < 100 && remaining() > 0; pass++) {
      if (!this.pageScripts) {
        if (!activity || activity.isQuiet(Date.now(), networkQuietMs, ignoreRequestsAfterMs)) return;
        await sleep(Math.min(50, remaining()), signal);
        continue;
      }
      const inPage = page
        .mainFrame()
        .evaluate(portable(waitForDomQuiet), { quietMs: domQuietMs, maxMs: Math.max(1, remaining()) })
        .catch(() => false); // a navigation destroyed the context: wait again in the new document
      // With page JavaScript off the page's timers never fire: Node keeps the bound.
      let bound: ReturnType<typeof setTimeout> | undefined;
      const domQuiet = await Promise.race([inPage, new Promise<boolean>((done) => (bound = setTimeout(() => done(true), remaining() + 20)))]);
      clearTimeout(bound);
      const networkQuiet = !activity || activity.isQuiet(Date.now(), networkQuietMs, ignoreRequestsAfterMs);
      if (domQuiet && networkQuiet) return;
      if (!domQuiet) await page.waitForLoadState('domcontentloaded', { timeout: Math.max(1, remaining()) }).catch(() => undefined);
      else await sleep(Math.min(50, remaining()), signal);
    }
  }

  /** Draws index boxes in every frame that holds some of the elements; returns those frames. */
  private async drawHighlights(elements: readonly ElementRef[]): Promise<Frame[]> {
    const byFrame = new Map<string, HighlightTarget[]>();
    for (const element of elements) {
      const targets = byFrame.get(element.frameId) ?? [];
      targets.push({ elementId: element.elementId, index: element.index });
      byFrame.set(element.frameId, targets);
    }
    const drawn: Frame[] = [];
    await Promise.all(
      [...byFrame].map(async ([frameId, targets]) => {
        const frame = this.framesById.get(frameId)?.deref();
        if (!frame || frame.isDetached()) return;
        if ((await frame.evaluate(portable(drawHighlights), { layerId: highlightLayerId, targets }).catch(() => 0)) > 0) drawn.push(frame);
      }),
    );
    return drawn;
  }
}

/** The recoverable error an action gets when the element the model chose is no longer there. */
function staleElement(ref: ElementRef, reason: string): BrowserError {
  return new BrowserError(
    `Element ${ref.index} (<${ref.tagName}>) is no longer on the page: ${reason}. Read the new page state and choose again.`,
    { retryable: true },
  );
}
