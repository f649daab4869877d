// The contract between plannav and a browser: what a driver (Playwright, Puppeteer, a Chrome
// extension, a remote browser) implements. Types only; no implementation lives here.

import type { StorageState, StorageStateOptions } from './storage-state';

/** Options every asynchronous driver call accepts. @public */
export interface CallOptions {
  /** Aborts the call; the driver should reject promptly. */
  readonly signal?: AbortSignal | undefined;
  /** Milliseconds after which the call should give up. */
  readonly timeout?: number | undefined;
}

/** A browser tab. @public */
export interface TabInfo {
  /** The driver's id for the tab, stable while the tab lives. */
  readonly id: string;
  /** The URL loaded in the tab. */
  readonly url: string;
  /** The title of the tab's page; may be empty. */
  readonly title: string;
  /**
   * The id of the tab whose page opened this one (a link with `target=_blank`, `window.open`),
   * when the driver knows it; the model is told, so it knows where the new tab came from.
   */
  readonly openerId?: string | undefined;
}

/** A frame of the active tab the snapshot script can run in. @public */
export interface FrameInfo {
  /** The driver's id for the frame. */
  readonly id: string;
  /** The id of the parent frame; absent for the top frame. */
  readonly parentId?: string | undefined;
  /** The URL of the frame's document. */
  readonly url: string;
  /**
   * The top-left corner of the frame element's box in the parent frame's viewport, used to map
   * coordinates to the top page. Absent for the top frame, and for a child frame the user cannot
   * see: not rendered (display:none, detached), transparent (opacity 0 on it or an ancestor),
   * hidden, covered by an overlay or behind an open modal dialog. The core leaves such frames out
   * of the snapshot; a driver must leave `offset` out for them (the core cannot see the parent's
   * layers from inside the frame).
   */
  readonly offset?: { readonly x: number; readonly y: number } | undefined;
  /**
   * The size of the frame's viewport (its element's content box), when the driver knows it; with
   * `offset` it lets the core skip frames outside the viewport and tracking pixels.
   */
  readonly size?: { readonly width: number; readonly height: number } | undefined;
}

/**
 * A script the core runs inside a page frame: the source text of a self-contained function
 * expression, such as `(argument) => document.title`. A driver evaluates `(${source})(argument)`
 * in the frame's document (with the argument as JSON), awaits the value when it is a promise, and
 * returns it JSON-serialised and parsed back, so `undefined` inside objects is dropped. The core's
 * own scripts call the page runtime ({@link pageRuntime}); test drivers may answer them by `id`.
 * Make your own with {@link definePageScript}.
 * @public
 */
export interface PageScript<TArg, TResult> {
  /** A stable identifier, such as `plannav.runtime/snapshot`. */
  readonly id: string;
  /** The function expression to run in the page, as source text; its only argument is JSON-serialisable. */
  readonly source: string;
  /** Carries the argument and result types; never set. */
  readonly types?: { readonly argument: TArg; readonly result: TResult } | undefined;
}

/** An element of the snapshot the model saw, as the driver must find it again. @public */
export interface ElementRef {
  /** The index the model used. */
  readonly index: number;
  /** The frame the element lives in. */
  readonly frameId: string;
  /** The element's id in the page, assigned by the snapshot script and kept while the element lives. */
  readonly elementId: string;
  /** The element's tag name, lower case. */
  readonly tagName: string;
  /**
   * What the model's view shows for the element after its tag: its own visible text or, for a
   * control without text, its accessible name (label, aria-label, title, placeholder, alt); its
   * lines joined by ` / ` and cut to 100 characters; `''` when it shows none. Set on every element
   * of a {@link PageState}, so code can find an element by its text without parsing `elementsText`.
   */
  readonly text?: string | undefined;
  /**
   * A CSS selector that found only this element when the snapshot was taken (by id, name or test id),
   * for logs and debugging. The core finds elements by `elementId` alone: a removed element is never
   * swapped for another that a selector would now find.
   */
  readonly selector?: string | undefined;
}

/**
 * What the server answered to the main document of a `goto`.
 * @public
 */
export interface NavigationResponse {
  /** The HTTP status, such as 200, 404 or 503. */
  readonly status: number;
  /** The response headers, names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
}

/** Options of a click. @public */
export interface ClickOptions extends CallOptions {
  /** The mouse button to click with; `left` when absent. */
  readonly button?: 'left' | 'right' | 'middle' | undefined;
  /** Keys held down during the click. */
  readonly modifiers?: readonly ('Alt' | 'Control' | 'Meta' | 'Shift')[] | undefined;
}

/** What to scroll and how far. @public */
export interface ScrollRequest extends CallOptions {
  /** Scroll inside this element instead of the page. */
  readonly ref?: ElementRef | undefined;
  /** Scroll by this many pixels (negative is up). */
  readonly deltaY?: number | undefined;
  /** Scroll to this percentage (0 to 100) of the scrollable height. */
  readonly toPercent?: number | undefined;
}

/** Options of a screenshot. @public */
export interface ScreenshotOptions extends CallOptions {
  /** JPEG quality from 0 to 100. @defaultValue 70 */
  readonly quality?: number | undefined;
  /** The whole page instead of the viewport. @defaultValue false */
  readonly fullPage?: boolean | undefined;
  /**
   * The indexed elements of the state being captured. A driver that draws index labels on
   * screenshots (set-of-mark images for vision models) outlines these; others ignore them.
   */
  readonly elements?: readonly ElementRef[] | undefined;
}

/** How a click reached its element. @public */
export interface ClickResult {
  /**
   * `pointer`: a mouse click at the element's centre. `pointer-offset`: the centre was covered,
   * so the mouse clicked another visible point of the element. `dom`: no point of the element
   * could be reached (covered, animating, off screen), so the driver dispatched the click in the
   * page; handlers run, but the browser's own reactions to a real click may not.
   */
  readonly method: 'pointer' | 'pointer-offset' | 'dom';
  /** What covered the element, when the driver knows it (such as `div.cookie-banner`). */
  readonly coveredBy?: string | undefined;
}

/** The verdict on one URL. @public */
export interface UrlDecision {
  /** Whether the browser may load the URL. */
  readonly allowed: boolean;
  /** Why, in words the model and a log reader understand (such as `host evil.example is on the deny list`). */
  readonly reason: string;
}

/** A navigation a driver stopped because its {@link NavigationGuard} denied the URL. @public */
export interface BlockedNavigation {
  /** The denied URL. */
  readonly url: string;
  /** The guard's reason. */
  readonly reason: string;
  /**
   * What started it: `navigation` (a page or the driver loading a URL: links, forms, location
   * changes, meta refresh), `redirect` (a hop of a redirect chain), `popup` (a new tab or
   * window), `frame` (an iframe's document), `prefetch` (a speculative prefetch or prerender) or
   * `request` (any other request of a page, worker or service worker: `fetch`, XHR, an image, a
   * beacon, a ping, a WebSocket; only with the guard's `scope: 'all-requests'`). A WebSocket
   * refused by its host alone is reported with its host's URL, `https://host:port/`. `download`:
   * a download the driver cancelled (its URL denied) that no other kind reported.
   */
  readonly kind: 'navigation' | 'redirect' | 'popup' | 'frame' | 'prefetch' | 'request' | 'download';
  /** The tab it happened in, when the driver knows it. */
  readonly tabId?: string | undefined;
}

/**
 * Decides which URLs the browser may load. A driver that supports it asks the guard before every
 * navigation request the browser makes (including redirect hops, popups, frames and prefetches)
 * and stops denied ones before any request is sent; with `scope: 'all-requests'`, before every
 * request of every frame, worker and service worker.
 * @public
 */
export interface NavigationGuard {
  /** The verdict on a URL, as the browser would request it. */
  check(url: string): UrlDecision;
  /** Called by the driver for each navigation (or, with `all-requests`, each request) it stopped. */
  blocked(navigation: BlockedNavigation): void;
  /**
   * What the driver checks: `navigation`, the documents of tabs and frames (see
   * {@link BlockedNavigation.kind}); `all-requests`, every request as well (`fetch`, XHR,
   * images, scripts, beacons, pings, WebSockets, WebRTC's STUN and TURN servers and remote
   * peers), of every frame, worker and service worker, each stopped one reported with kind
   * `request`. A driver that cannot check every request enforces
   * `navigation` and says so in what `setNavigationGuard` resolves with.
   * @defaultValue 'navigation'
   */
  readonly scope?: NavigationGuardScope | undefined;
  /**
   * The policy's lists as plain data (`UrlPolicy.toRules()`), for checks a driver must make where
   * `check` cannot be called synchronously: in a proxy deciding on a tunnel's host, inside pages and
   * workers (the bundled drivers' WebSocket and WebRTC checks with `all-requests`). Optional: without them
   * such checks are not made, and the driver says so in `unenforced`.
   */
  readonly rules?: UrlPolicyRules | undefined;
}

/** What a {@link NavigationGuard} covers: see {@link NavigationGuard.scope}. @public */
export type NavigationGuardScope = 'navigation' | 'all-requests';

/** What a driver's `setNavigationGuard` enforces, as it resolves. @public */
export interface NavigationGuardStatus {
  /**
   * The scope the driver enforces. A driver that resolves with nothing is taken to enforce
   * `navigation` only, and the Executor warns (`URL_POLICY_REQUESTS_NOT_ENFORCED`) when the
   * guard asked for `all-requests`.
   */
  readonly scope: NavigationGuardScope;
  /**
   * Requests the driver lets through although the scope is `all-requests`, in words for a log
   * (such as `WebSocket handshakes`); the Executor puts them in a warning.
   */
  readonly unenforced?: readonly string[] | undefined;
}

/**
 * A {@link UrlPolicy}'s compiled lists as plain data (JSON-serialisable), for a checker that runs
 * where the policy object cannot, such as inside a page: hosts in the normal form of the policy,
 * URL entries as the key `check` compares (scheme, host, port, path, query).
 * @public
 */
export interface UrlPolicyRules {
  readonly allow: readonly UrlPolicyRule[];
  readonly deny: readonly UrlPolicyRule[];
}

/** One entry of {@link UrlPolicyRules}. @public */
export type UrlPolicyRule = { readonly kind: 'host'; readonly host: string; readonly subdomainsOnly: boolean } | { readonly kind: 'url'; readonly key: string };

/**
 * A browser as plannav drives it. Implement this to plug in any browser (Puppeteer, a Chrome
 * extension's `chrome.debugger`, a remote browser). Everything the model sees and most of what
 * it does runs as the core's page runtime through `frames()` and `evaluate()`, so every driver
 * sees the same elements with the same numbers.
 *
 * The required members are the tabs, loading, frames, `evaluate`, a screenshot and `close`. The
 * element methods (`click`, `fill`, `selectOption`, `press`, `scroll`), `goBack`, `currentUrl`
 * and `waitForSettled` are optional: where a driver leaves one out, the core does it through
 * `evaluate` and the page runtime (see {@link ResolvedBrowserDriver}). Implement them to use the
 * browser's real input instead: trusted clicks and key presses that pages checking `isTrusted`
 * accept. `mouseClick` alone already gives the default `click` a real mouse. `uploadFiles` has no
 * default: a page script cannot pick files.
 *
 * Contract for every member:
 * - Each takes `{ signal, timeout }` and rejects promptly when the signal aborts (with the
 *   signal's reason or an `AbortError`) and when the timeout passes (a `BrowserError` whose
 *   `retryable` is true).
 * - A call that gives up on a load (its timeout passed, or its signal aborted, before the new
 *   document committed) stops that load, so the tab answers the next calls and stays on its page:
 *   while a top-level load is pending, Chromium runs no script in the tab. Use CDP
 *   `Page.stopLoading`; `window.stop()` through `evaluate` cannot run then.
 * - Once the browser is gone (`close()` was called, its process ended, the connection dropped),
 *   every member rejects with a `BrowserDisconnectedError`, which ends a task at once instead of
 *   using up its failures on a browser that cannot come back.
 * - A failure the model can recover from (a gone element or frame, a page that did not load) is
 *   a `BrowserError` with a message the model reads.
 * - Element methods take an {@link ElementRef} of the last snapshot. An element that is gone, or
 *   of a document that has since been replaced, is a `BrowserError` (`retryable: true`) saying
 *   so; find the element with {@link elementLookupExpression} (handles) or act through the
 *   runtime's methods by id, never by a selector of your own.
 * - Frames: `frames()` lists the active tab's frames, top frame first, each with the box of its
 *   frame element in its parent's viewport, so the core maps child frames onto the top page.
 * - Check yours with `registerConformance(driverConformance({ createDriver }), it)` from `plannav/testing`.
 * @public
 */
export interface BrowserDriver {
  /** The version of this interface the driver implements. */
  readonly specificationVersion: 'v1';
  /** Lists the open tabs, in the order they were opened. */
  tabs(options?: CallOptions): Promise<TabInfo[]>;
  /** The tab the driver acts on. A tab the page opens (a popup, `target=_blank`) becomes the active tab. */
  activeTab(options?: CallOptions): Promise<TabInfo>;
  /** Opens a tab, makes it active and loads `url` in it. */
  openTab(url: string, options?: CallOptions): Promise<TabInfo>;
  /** Makes a tab active. @throws `BrowserError` naming the open tabs when there is no such tab. */
  switchTab(tabId: string, options?: CallOptions): Promise<TabInfo>;
  /** Closes a tab; if it was active, another becomes active. */
  closeTab(tabId: string, options?: CallOptions): Promise<void>;
  /**
   * Loads `url` in the active tab and resolves once the document has committed and settled. When
   * the load fails, reject (a retryable `BrowserError`) only once the tab is ready for the next
   * load (Chromium commits an error page after the failure). When it does not commit within the
   * timeout, stop it before rejecting, so the tab can be read again. Resolve with the main
   * document's {@link NavigationResponse} when the browser reports one (optional: a collection
   * then retries a 5xx or 429 answer as a transient failure, honouring `Retry-After`).
   */
  // void: a driver written before the answer was asked for still implements the contract.
  // eslint-disable-next-line @typescript-eslint/no-invalid-void-type
  goto(url: string, options?: CallOptions): Promise<NavigationResponse | void>;
  /**
   * Goes back in the active tab's history and waits until the page has settled.
   * Optional: the default runs `history.back()` in the page, then settles.
   */
  goBack?(options?: CallOptions): Promise<void>;
  /** The active tab's URL. Optional: the default reads it from `activeTab()`. */
  currentUrl?(options?: CallOptions): Promise<string>;
  /**
   * The frames of the active tab, top frame first. A child frame carries its parent's id and the
   * box of its frame element (`offset`, `size`) in the parent's viewport; leave `offset` out for
   * a frame the user cannot see. Ids stay the same while a frame lives.
   */
  frames(options?: CallOptions): Promise<FrameInfo[]>;
  /**
   * Runs a page script in a frame of the active tab: evaluate `(${script.source})(argument)` in
   * the frame's document, await the value, and return it JSON-serialised and parsed back
   * ({@link pageScriptExpression} and {@link readPageScriptResult} do both ends).
   * @throws `BrowserError` (retryable) when the frame is gone.
   */
  evaluate<TArg, TResult>(frameId: string, script: PageScript<TArg, TResult>, arg: TArg, options?: CallOptions): Promise<TResult>;
  /**
   * Clicks an element of the last snapshot, then waits until the page has settled; reports how
   * the click was made. Optional: the default hit-tests the element in the page, clicks the point
   * it finds with `mouseClick` (or dispatches the click in the page when the driver has none, or
   * no point can be reached), then settles.
   */
  // eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- a driver's click may resolve to nothing, as `async click() {}` does
  click?(ref: ElementRef, options?: ClickOptions): Promise<ClickResult | void>;
  /**
   * Input primitive: a real mouse click at a point of the active tab's top-level viewport, in CSS
   * pixels. Optional; the default `click` uses it when present.
   */
  mouseClick?(x: number, y: number, options?: ClickOptions): Promise<void>;
  /**
   * Replaces the value of an input, textarea or editable element, then settles. Optional: the
   * default sets the value in the page through the element's value setter (frameworks see it)
   * and fires input and change.
   */
  fill?(ref: ElementRef, text: string, options?: CallOptions): Promise<void>;
  /**
   * Selects the option with this label (or value) in a select element; returns the selected
   * values. @throws `BrowserError` listing the options when none matches. Optional: the default
   * selects it in the page and fires input and change.
   */
  selectOption?(ref: ElementRef, label: string, options?: CallOptions): Promise<string[]>;
  /** Sets the files of a file input. Optional, with no default: `upload_file` then says the driver cannot upload. */
  uploadFiles?(ref: ElementRef, paths: readonly string[], options?: CallOptions): Promise<void>;
  /**
   * Presses keys on the focused element, such as `Enter` or `Control+A` (several separated by
   * spaces), then settles. Optional: the default dispatches the key events in the page, with the
   * default actions of Enter, Tab, Backspace and printable keys; such events are not trusted.
   */
  press?(keys: string, options?: CallOptions): Promise<void>;
  /** Scrolls the page or an element, then settles. Optional: the default scrolls in the page. */
  scroll?(options: ScrollRequest): Promise<void>;
  /** A JPEG of the viewport (or the whole page). */
  screenshot(options?: ScreenshotOptions): Promise<Uint8Array>;
  /**
   * Resolves when the page has settled after an action (navigation committed, network and DOM
   * quiet), within a bound of a few seconds; never rejects for a busy page. Optional: the default
   * waits in the page for the DOM to be quiet, within the same bound.
   */
  waitForSettled?(options?: CallOptions): Promise<void>;
  /**
   * Enforces a URL policy on every navigation the browser makes (`undefined` removes it), and on
   * every request when the guard's `scope` is `all-requests`; resolves with the scope it
   * enforces (see {@link NavigationGuardStatus}). The Executor installs its policy through this
   * at the start of each task and removes it at its `close()`, so it also holds between tasks; a
   * call with another guard replaces the one set. A navigation the browser refuses itself
   * (Chromium's refusal of a `data:` URL in a tab) is reported to `guard.blocked` too, where the
   * driver can see it. Optional: without it the Executor checks only the URLs the model asks for
   * and the pages that end up loaded.
   */
  // eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- a driver written before `scope` resolves to nothing
  setNavigationGuard?(guard: NavigationGuard | undefined, options?: CallOptions): Promise<NavigationGuardStatus | void>;
  // Downloads and PDFs (issue 24): optional; without them downloads are not reported, and `save_pdf` and PDF reading say the driver cannot.
  /**
   * Calls `listener` with each download of any tab once it ended: saved (with its path in the
   * driver's downloads folder), blocked by the URL policy, over the size cap, or failed. Returns
   * the function that stops listening.
   */
  onDownload?(listener: (download: DownloadReport) => void): () => void;
  /** Resolves once no download is in progress, or when the call's time is up (never rejects for that). */
  waitForDownloads?(options?: CallOptions): Promise<void>;
  /** Prints the active tab as PDF into the downloads folder (under a safe, unique name) and says where. */
  savePdf?(options?: SavePdfOptions): Promise<SavedFile>;
  /** The text of a PDF: the one the active tab shows, or a file of the downloads folder (no other path is read). */
  readPdfText?(source: PdfSource, options?: CallOptions): Promise<PdfText>;
  // Staying logged in (issue 24): the browser's storage state.
  /**
   * The browser's storage state (cookies, localStorage of the origins the driver has seen, IndexedDB
   * where the driver can read it) in Playwright's format; with `path`, also written to that file
   * (mode 0600). Optional. Its values are secrets: never log them or give them to the model.
   */
  storageState?(options?: StorageStateOptions): Promise<StorageState>;
  // Issue 24, the missing actions: pointer gestures, reload and the page's JavaScript dialogs.
  /**
   * Moves the mouse over an element of the last snapshot (menus that open on hover) and leaves it
   * there, then settles. Optional, with no default: `hover_element` then says the driver cannot hover.
   */
  hover?(ref: ElementRef, options?: CallOptions): Promise<void>;
  /**
   * Double-clicks an element of the last snapshot with the real mouse (two clicks, then a
   * `dblclick` whose `detail` is 2), then settles. Optional, with no default.
   */
  doubleClick?(ref: ElementRef, options?: ClickOptions): Promise<void>;
  /**
   * Drags `source` onto `target` (elements of the last snapshot) with the real mouse: press on the
   * source, move in steps to the target, release; pages built on HTML5 drag events and pages that
   * follow pointer or mouse events both see a drag. Then settles. Optional, with no default.
   */
  dragAndDrop?(source: ElementRef, target: ElementRef, options?: CallOptions): Promise<void>;
  /**
   * Reloads the active tab and waits until it has settled, as `goto` does. Optional: the default
   * loads the tab's URL again with `goto`.
   */
  // eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- as goto: a driver may resolve with nothing
  reload?(options?: CallOptions): Promise<NavigationResponse | void>;
  /**
   * The JavaScript dialog open in the active tab now (`open`), and the dialogs closed since the
   * last call (`closed`: answered with `handleDialog`, or answered by the driver itself, each
   * reported once). While a dialog is open the page runs no script: a driver must answer this
   * without touching the page. A dialog nobody answers is dismissed by the driver after a while
   * (`answerWithinMs` from its opening when given, else the driver's own time) and reported as
   * closed. Optional, with no default: a driver without it answers dialogs its own way, unseen by
   * the model.
   */
  dialogs?(options?: DialogsOptions): Promise<DialogReport>;
  /**
   * Answers the dialog open in the active tab: accept (with `text` as a `prompt()`'s answer) or
   * dismiss; resolves with what it said and what was answered, once the page has settled.
   * @throws `BrowserError` when no dialog is open.
   */
  handleDialog?(answer: DialogAnswer, options?: CallOptions): Promise<ClosedDialog>;
  /** Releases what the driver created. Idempotent. */
  close(): Promise<void>;
  /** Same as `close()`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

// Issue 24, the missing actions: the page's JavaScript dialogs as the driver reports them.
/** A JavaScript dialog the page opened (`alert`, `confirm`, `prompt`, `beforeunload`). @public */
export interface PageDialog {
  /** The kind of dialog. */
  readonly type: 'alert' | 'confirm' | 'prompt' | 'beforeunload';
  /** The text the page showed in it (page text: untrusted). */
  readonly message: string;
  /** A `prompt()`'s default answer, when it has one. */
  readonly defaultValue?: string | undefined;
}

/** How to answer a dialog: accept (OK) or dismiss (Cancel). @public */
export interface DialogAnswer {
  /** True for OK, false for Cancel. An `alert` has only OK: either closes it. */
  readonly accept: boolean;
  /** The answer typed into a `prompt()` when accepting it; ignored by other dialogs. */
  readonly text?: string | undefined;
}

/** A dialog that has closed, with what it said and how it was answered. @public */
export interface ClosedDialog extends PageDialog {
  /** Whether it was accepted (OK) rather than dismissed. */
  readonly accepted: boolean;
  /** The text a `prompt()` was answered with, when accepted. */
  readonly text?: string | undefined;
  /**
   * Who answered: `request` (a `handleDialog` call), `timeout` (nobody answered within the driver's
   * time, so the driver dismissed it), or `driver` (dismissed to go on with a navigation the driver
   * was asked for: `goto`, `goBack`, `reload`).
   */
  readonly answeredBy: 'request' | 'timeout' | 'driver';
}

/** Options of {@link BrowserDriver.dialogs}. @public */
export interface DialogsOptions extends CallOptions {
  /**
   * Milliseconds from its opening the dialog open now may wait for an answer before the driver
   * dismisses it (the Executor gives its action timeout); longer or shorter than it had.
   */
  readonly answerWithinMs?: number | undefined;
}

/** What {@link BrowserDriver.dialogs} reports. @public */
export interface DialogReport {
  /** The dialog open in the active tab now. */
  readonly open?: PageDialog | undefined;
  /** The dialogs that closed since the last report, oldest first. */
  readonly closed: readonly ClosedDialog[];
}

/**
 * A driver as the core and actions use it: every optional member of {@link BrowserDriver} is
 * there, the driver's own or the core's default (`uploadFiles` rejects when the driver has none).
 * `ActionContext.driver` has this type.
 * @public
 */
export type ResolvedBrowserDriver = BrowserDriver &
  Required<Pick<BrowserDriver, 'goBack' | 'currentUrl' | 'click' | 'fill' | 'selectOption' | 'uploadFiles' | 'press' | 'scroll' | 'waitForSettled'>>;

// Downloads and PDFs (issue 24).

/**
 * How a download ended: `saved` in the downloads folder; `blocked` by the URL policy (nothing
 * kept); `too-large`, stopped at the size cap (the partial file removed); `failed` (cancelled by
 * the page or the server, or the file could not be moved into the folder).
 * @public
 */
export type DownloadStatus = 'saved' | 'blocked' | 'too-large' | 'failed';

/** A download a driver caught, as `onDownload` reports it once it ended. @public */
export interface DownloadReport {
  /** The URL the file came from (`blob:` and `data:` URLs included). */
  readonly url: string;
  /** The file name the page or the server suggested, as given (untrusted: it is not the name on disk). */
  readonly suggestedFilename: string;
  /** Where the file is, for `saved`: an absolute path in the downloads folder, under a safe, unique name. */
  readonly path?: string | undefined;
  /** The file's size in bytes, for `saved` (and the bytes received when it was stopped, for `too-large`). */
  readonly bytes?: number | undefined;
  /** The file's media type, from its name's extension (or its first bytes), for `saved`. */
  readonly mimeType?: string | undefined;
  /** How it ended. */
  readonly status: DownloadStatus;
  /** Why it was not saved, in words the model and a log reader understand. */
  readonly reason?: string | undefined;
}

/** Options of a driver's `savePdf`. @public */
export interface SavePdfOptions extends CallOptions {
  /** The file name wanted; made safe and unique, `.pdf` added when missing. @defaultValue the page's title */
  readonly filename?: string | undefined;
}

/** A file a driver wrote into its downloads folder. @public */
export interface SavedFile {
  /** The absolute path of the file. */
  readonly path: string;
  /** Its size in bytes. */
  readonly bytes: number;
  /** Its media type, such as `application/pdf`. */
  readonly mimeType: string;
}

/** Which PDF `readPdfText` reads: the one the active tab shows, or a file of the downloads folder. @public */
export type PdfSource = { readonly tab: 'active' } | { readonly path: string };

/** The text of a PDF, page by page joined with blank lines. @public */
export interface PdfText {
  /** The text, in reading order as the PDF stores it. */
  readonly text: string;
  /** How many pages the PDF has. */
  readonly pages: number;
  /** True when only the first pages were read (the text bound was reached). */
  readonly truncated: boolean;
}
