// The split between the Chromium driver core (driver-core.ts) and the library under it, after
// Playwright's own Page/PageDelegate. The core writes every flow of the BrowserDriver contract ONCE:
// the call wrapper (budget, cancel, errors, a gone browser), tabs (open, switch, close, the active
// one), goto with its guard and retry, settling, the stop of a stuck load, each element action
// (click's hit test, hover and fallback; fill's formatted values; select's option search; upload's
// file checks; scroll), highlights, the navigation and request guards' install, and close.
// A transport (src/playwright/transport.ts, src/puppeteer/transport.ts) supplies only what the
// library does its own way: its pages and frames, loading a URL, the input primitives (hover,
// pointer click, typing, choosing an option, setting files, keys), a screenshot, a CDP session,
// the guards' library halves, and what to release on close.

import type { ClickOptions, ElementRef, FrameInfo, NavigationGuard, NavigationResponse, ScreenshotOptions } from '../browser/types';
import type { elementMethods } from '../dom/page/driver/index';
import type { PlannavError } from '../errors';
import type { DialogWatch } from './dialogs';
import type { PendingNavigation, NavigationRequest } from './pending-navigation';
import type { BrowserSession, RequestGuardOptions } from './request-guard';
import type { RuntimeFrame } from './runtime-calls';
import type { TabHooks, TabTracker, TrackedPage } from './tabs';

/** The runtime's element methods, as the page defines them. */
export type ElementMethods = typeof elementMethods;

/** What the core needs of a page: Playwright's and Puppeteer's `Page` both have it. */
export interface ChromiumPage<F = unknown> extends TrackedPage {
  mainFrame(): F;
  bringToFront(): Promise<void>;
  close(): Promise<void>;
}

/** What the core needs of an element handle. */
export interface ChromiumElement {
  dispose(): Promise<unknown>;
}

/** A point in an element's own box, as the runtime's hit test gives it. */
export interface ElementPoint {
  readonly x: number;
  readonly y: number;
}

/**
 * What became of a pointer click: `made`; `not-sent` when no press was sent (the element moved away or went, before
 * any input); `timed-out` when the library gave up waiting, which may be before or after the press reached the page.
 */
export type PointerOutcome = 'made' | 'not-sent' | 'timed-out';

/** How a pointer click is made; `startedLoad` says whether the click started a load meanwhile. */
export interface PointerClick {
  readonly button: NonNullable<ClickOptions['button']>;
  readonly modifiers: readonly NonNullable<ClickOptions['modifiers']>[number][];
  readonly timeout: number;
  readonly startedLoad: () => boolean;
}

/** One step of the real mouse: a move (in `steps` small moves) to a point, a press or a release where it is. */
export type MouseStep =
  | { readonly type: 'move'; readonly x: number; readonly y: number; readonly steps?: number | undefined }
  | { readonly type: 'down' | 'up'; readonly button: NonNullable<ClickOptions['button']>; readonly clickCount: number };

/** A CDP session to one page, enough for `Page.stopLoading`. */
export interface PageSession {
  send(method: 'Page.stopLoading'): Promise<unknown>;
  detach(): Promise<unknown>;
}

/** The frame ids of one library's frames (chromium/frame-registry.ts). */
export interface FrameIds<P, F> {
  describe(page: P): Promise<FrameInfo[]>;
  frameById(frameId: string): F;
  find(frameId: string): F | undefined;
  frameId(frame: F): string;
  clear(): Promise<void>;
}

/** The settling of one library's pages (src/playwright/settle.ts, src/puppeteer/settle.ts). */
export interface PageSettler<P> {
  watch(page: P): () => void;
  pendingNavigation(page: P): PendingNavigation<NavigationRequest> | undefined;
  deadline(timeout: number): number;
  waitUntilSettled(page: P, deadline: number, signal: AbortSignal | undefined): Promise<void>;
}

/** The navigation guard's library half, as installed by a transport. */
export interface GuardEnforcer<P> {
  navigate<T>(page: P, url: string, load: () => Promise<T>): Promise<T>;
  assertAllowed(url: string, tabId: string | undefined): void;
  replace(guard: NavigationGuard): void;
  dispose(): Promise<void>;
  /** Starts guarding a tab the driver adopted, when the library needs it told. */
  watch?(page: P): void;
}

/** What a library supplies to the core: about a dozen primitives, no flow of its own. */
export interface ChromiumTransport<P extends ChromiumPage<F>, F extends RuntimeFrame & object, E extends ChromiumElement> {
  /** Settling of this library's pages, and ids for its frames. */
  readonly settler: PageSettler<P>;
  readonly frames: FrameIds<P, F>;
  /** A tab tracker over this library's pages, with the core's hooks. */
  tabTracker(hooks: TabHooks<P>): TabTracker<P>;
  /** Listens for new pages and adopts the existing ones (`preferred` active, else the first or a new one), runtime installed. */
  start(tabs: TabTracker<P>, preferred: P | undefined): Promise<void>;
  /** The library's own watch of a new tab beyond settling (dialogs, the runtime script); returns its stop. */
  watch(page: P): () => void;
  /** A new page of the context; `ready` resolves once the page runtime is in it. */
  newPage(): Promise<P>;
  ready(page: P): Promise<void>;
  /** Loads `url` and resolves once it committed; on failure, the reason to report (after Chromium's error page came). */
  goto(page: P, url: string, budget: number): Promise<NavigationResponse | undefined>;
  loadFailure(page: P, error: unknown): Promise<string>;
  /** Goes back in history; false when there is no earlier page. */
  goBack(page: P, budget: number): Promise<boolean>;
  /** A CDP session to the page (to stop a load the tab cannot answer about). */
  session(page: P): Promise<PageSession>;
  /** Calls a runtime element method on an element handle; looks a ref up in a frame. */
  onElement<M extends keyof ElementMethods>(element: E, method: M, argument: Parameters<ElementMethods[M]>[1]): Promise<ReturnType<ElementMethods[M]>>;
  lookUp(frame: F, ref: ElementRef): Promise<E | 'document' | 'removed'>;
  /** Input primitives: hover (false: could not reach it) and click at a point of the element, type, choose, set files, keys. */
  hover(page: P, element: E, point: ElementPoint, click: PointerClick): Promise<boolean>;
  pointerClick(page: P, element: E, point: ElementPoint, click: PointerClick): Promise<PointerOutcome>;
  typeText(page: P, element: E, ref: ElementRef, text: string, timeout: number): Promise<void>;
  chooseOption(element: E, index: number, timeout: number): Promise<string[]>;
  setFiles(element: E, ref: ElementRef, files: readonly string[], count: number, timeout: number): Promise<void>;
  press(page: P, keys: string): Promise<void>;
  screenshot(page: P, options: ScreenshotOptions | undefined, timeout: number): Promise<Uint8Array>;
  // Issue 24, the missing actions: the mouse at a point of the viewport, reload, and the tabs' dialogs.
  /** A point of an element's padding box (as the hit test gives it) in the top page's viewport; undefined when it has no box. */
  viewportPoint(element: E, point: ElementPoint): Promise<ElementPoint | undefined>;
  /** One step of the real mouse in the top page's viewport (the press and release at the mouse's place). */
  mouse(page: P, step: MouseStep): Promise<void>;
  /** Reloads the page and resolves once the new document committed. */
  reload(page: P, budget: number): Promise<NavigationResponse | undefined>;
  /** The dialogs of the driver's tabs: the transport's `watch` hands each one over. */
  readonly dialogs: DialogWatch<P>;
  /** The guards' library halves. */
  installGuard(guard: NavigationGuard, tabs: TabTracker<P>): Promise<GuardEnforcer<P>>;
  openRequestGuard(): Promise<{ session: BrowserSession; options: RequestGuardOptions }>;
  /** The library's words for a failure, as plannav's error. */
  asBrowserError(what: string, error: unknown): PlannavError;
  /** Calls `listener` when the browser goes away; returns the function that stops listening. */
  onGone(listener: () => void): () => void;
  /** Whether pages the driver opens close with what it owns (so close() need not close them one by one). */
  readonly ownsPages: boolean;
  /** Stops listening for pages; then leaves the user's pages clean and closes what the driver owns (`pages`: its tabs). Returns the failures. */
  stopListening(): void;
  release(pages: readonly P[]): Promise<unknown[]>;
}
