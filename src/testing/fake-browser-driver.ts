// FakeBrowserDriver: an in-memory BrowserDriver with pages, tabs and elements, enough to run the
// loop and the built-in actions end to end without a browser. It answers the core's calls of the
// page runtime by script id from its own model; it runs no script code.

import type {
  BrowserDriver,
  CallOptions,
  ClickOptions,
  ClosedDialog,
  DialogAnswer,
  DialogReport,
  ElementRef,
  FrameInfo,
  NavigationGuard,
  PageDialog,
  PageScript,
  ScrollRequest,
  ScreenshotOptions,
  TabInfo,
} from '../browser/types';
import { runtimeScriptId } from '../dom/page-runtime';
import type { FrameSnapshot, SnapshotItem } from '../dom/types';
import { BrowserDisconnectedError, BrowserError, URLNotAllowedError } from '../errors';
import { raceAbort } from '../util/abort';
import { fakePageScripts, isDisabled, scrollDocument, selectedOptions, type LoadedDocument, type LoadedElement } from './fake-page-scripts';

/** An element of a fake page. @public */
export interface FakeElement {
  /** Lower-case tag name. */
  readonly tag: string;
  /** Visible text. */
  readonly text?: string | undefined;
  /**
   * Attributes shown to the model. The built-in actions also read the element's state here, as a
   * browser would: `type`, `value` (the initial value), `placeholder`, `maxlength`, `accept`,
   * `contenteditable`, ARIA attributes, and the boolean attributes `disabled`, `readonly`,
   * `multiple` and `checked`, which any value (even `''`) sets.
   * @example `{ name: 'email', type: 'email', readonly: '' }`
   */
  readonly attributes?: Readonly<Record<string, string>> | undefined;
  /** Clicking it loads this URL in the active tab (a link). */
  readonly href?: string | undefined;
  /** Runs when the element is clicked; may change pages, tabs or elements through the driver. */
  readonly onClick?: ((driver: FakeBrowserDriver) => void | Promise<void>) | undefined;
  // Issue 24, the missing actions: what the other gestures run.
  /** Runs when the mouse moves over the element (`hover`). */
  readonly onHover?: ((driver: FakeBrowserDriver) => void | Promise<void>) | undefined;
  /** Runs when the element is double-clicked (`doubleClick`). */
  readonly onDoubleClick?: ((driver: FakeBrowserDriver) => void | Promise<void>) | undefined;
  /** Runs when the element is right-clicked (`click` with `button: 'right'`), instead of `href` and `onClick`. */
  readonly onContextMenu?: ((driver: FakeBrowserDriver) => void | Promise<void>) | undefined;
  /** Runs when another element is dropped onto this one (`dragAndDrop`), with the dropped element. */
  readonly onDrop?: ((driver: FakeBrowserDriver, dropped: FakeElement) => void | Promise<void>) | undefined;
  /**
   * The option labels of a select element (a single select shows its first option until another
   * is chosen), or the suggestions (a datalist) of an input.
   */
  readonly options?: readonly string[] | undefined;
  /** Nesting depth, for indentation in the model's view. @defaultValue 0 */
  readonly depth?: number | undefined;
}

/** A fake page: a title, its interactive elements and text lines, in order. @public */
export interface FakePage {
  /** The page's title. */
  readonly title: string;
  /** Elements and plain text lines (strings), in document order. */
  readonly content: readonly (FakeElement | string)[];
  /** Pixels of content below the viewport. @defaultValue 0 */
  readonly pixelsBelow?: number | undefined;
}

/** Options of {@link FakeBrowserDriver}. @public */
export interface FakeBrowserDriverOptions {
  /** Pages by URL. Unknown URLs load an empty "Not found" page. */
  readonly pages?: Readonly<Record<string, FakePage>> | undefined;
  /** The first tab's URL. @defaultValue 'about:blank' */
  readonly startUrl?: string | undefined;
  /** Milliseconds every driver call takes (aborted by its signal). @defaultValue 0 */
  readonly latencyMs?: number | undefined;
}

/** A driver call, as recorded. @public */
export interface FakeDriverCall {
  /** The name of the `BrowserDriver` method called, such as `click`. */
  readonly method: string;
  /**
   * The call's arguments, simplified for assertions: an element appears as its index (a click
   * adds its element id), a script as its id, and signals and timeouts are left out.
   */
  readonly args: readonly unknown[];
}

interface Tab {
  readonly id: string;
  readonly history: string[];
  position: number;
  /** The loaded document: its elements, with ids kept while it stays loaded. */
  document: LoadedDocument;
}

/** The id of the script that installs the page runtime (the fake has it in every document). */
const installScriptId = 'plannav.runtime-install';
const snapshotScriptId = runtimeScriptId('snapshot');
const changesScriptId = runtimeScriptId('changes');

const blankPage: FakePage = { title: '', content: [] };

/** A control's accessible name when it has no text of its own: aria-label, title, a field's placeholder, alt. */
function nameOf(element: FakeElement): string {
  const attributes = element.attributes ?? {};
  const field = element.tag === 'input' || element.tag === 'textarea';
  return (attributes['aria-label'] ?? attributes.title ?? (field ? attributes.placeholder : undefined) ?? attributes.alt ?? '').trim();
}
const notFoundPage: FakePage = { title: 'Not found', content: ['404 - page not found'] };
/** One small valid JPEG, for screenshots. */
const jpegBytes = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0xff, 0xd9]);

/**
 * An in-memory browser for tests: pages by URL, tabs, links, forms and click handlers. It records
 * every call in `calls`.
 *
 * The built-in actions work on it: it answers their page-runtime methods from its model (clicks, text
 * fields, selects and datalists, file inputs, page text for `search_page` and `scroll_to_text`,
 * scrolling, `go_back`, and a simple HTML rendering of the page for `extract_content`). It has no
 * ARIA listboxes, labels, nested scroll areas or frames: the page scrolls for any element, and the
 * viewport is 720 px high with the page's items spread evenly over its height. Elements of a
 * document that is no longer loaded answer as stale, as on a real page.
 *
 * @example
 * ```ts
 * const browser = new FakeBrowserDriver({
 *   startUrl: 'https://shop.test/',
 *   pages: { 'https://shop.test/': { title: 'Shop', content: [{ tag: 'a', text: 'Mugs', href: 'https://shop.test/mugs' }] } },
 * });
 * ```
 * @public
 */
export class FakeBrowserDriver implements BrowserDriver {
  /** The version of the `BrowserDriver` interface this driver implements. */
  readonly specificationVersion = 'v1' as const;
  /** Every call made to the driver, in order. */
  readonly calls: FakeDriverCall[] = [];
  private readonly pages: Map<string, FakePage>;
  private readonly tabList: Tab[] = [];
  private activeId: string;
  private nextTab = 1;
  private loads = 0;
  private closed = false;
  private guard: NavigationGuard | undefined;
  /** The document and element ids of the last snapshot, for the page-change probe. */
  private lastSnapshot: { document: Tab['document'] | undefined; elementIds: Set<string> } = { document: undefined, elementIds: new Set() };
  private readonly latencyMs: number;
  /** The dialog open in the active tab (issue 24), and the dialogs closed since `dialogs()` last reported. */
  private dialog: PageDialog | undefined;
  private closedDialogs: ClosedDialog[] = [];

  /** Creates a fake browser with one tab showing `options.startUrl` (a blank page by default). */
  constructor(options: FakeBrowserDriverOptions = {}) {
    this.pages = new Map(Object.entries(options.pages ?? {}));
    this.latencyMs = options.latencyMs ?? 0;
    this.activeId = this.createTab(options.startUrl ?? 'about:blank').id;
  }

  /** Adds or replaces a page; an open tab showing it keeps the old document until it reloads. */
  setPage(url: string, page: FakePage): void {
    this.pages.set(url, page);
  }

  /** Replaces the active document's content in place, as a script would: surviving elements keep their ids. */
  updateContent(content: readonly (FakeElement | string)[]): void {
    const document = this.active().document;
    const previous = document.items.filter((item): item is LoadedElement => typeof item !== 'string');
    document.items = content.map((item) => {
      if (typeof item === 'string') return item;
      const same = previous.find((loaded) => loaded.element === item);
      return same ?? this.loadElement(document, item);
    });
  }

  /** The value of an input in the active document, by its element id or its `name` attribute. */
  valueOf(nameOrElementId: string): string | undefined {
    const loaded = this.loadedElements().find((item) => item.elementId === nameOrElementId || item.element.attributes?.name === nameOrElementId);
    return loaded?.value;
  }

  /** The methods called so far, in order. */
  get methodsCalled(): string[] {
    return this.calls.map((call) => call.method);
  }

  /** Lists the fake tabs, in the order they were opened. */
  async tabs(options?: CallOptions): Promise<TabInfo[]> {
    await this.enter('tabs', [], options);
    return this.tabList.map((tab) => this.info(tab));
  }

  /** The fake tab that calls act on. */
  async activeTab(options?: CallOptions): Promise<TabInfo> {
    await this.enter('activeTab', [], options);
    return this.info(this.active());
  }

  /** Opens a fake tab on `url` and makes it active. */
  async openTab(url: string, options?: CallOptions): Promise<TabInfo> {
    await this.enter('openTab', [url], options);
    this.assertAllowed(url, 'popup');
    const tab = this.createTab(url);
    this.activeId = tab.id;
    return this.info(tab);
  }

  /** Makes a fake tab active; throws a `BrowserError` for an unknown id. */
  async switchTab(tabId: string, options?: CallOptions): Promise<TabInfo> {
    await this.enter('switchTab', [tabId], options);
    const tab = this.tabList.find((item) => item.id === tabId);
    if (!tab) throw new BrowserError(`There is no tab with id ${tabId}.`);
    this.activeId = tab.id;
    return this.info(tab);
  }

  /** Closes a fake tab; closing the last one opens a blank tab. */
  async closeTab(tabId: string, options?: CallOptions): Promise<void> {
    await this.enter('closeTab', [tabId], options);
    const position = this.tabList.findIndex((item) => item.id === tabId);
    if (position === -1) throw new BrowserError(`There is no tab with id ${tabId}.`);
    this.tabList.splice(position, 1);
    if (this.tabList.length === 0) this.createTab('about:blank');
    if (this.activeId === tabId) this.activeId = (this.tabList[Math.max(0, position - 1)] as Tab).id;
  }

  /** Loads `url` in the active tab and adds it to the tab's history. */
  async goto(url: string, options?: CallOptions): Promise<void> {
    await this.enter('goto', [url], options);
    this.assertAllowed(url, 'navigation');
    this.navigate(url);
  }

  /** Loads the previous page of the active tab's history; does nothing on the first page. */
  async goBack(options?: CallOptions): Promise<void> {
    await this.enter('goBack', [], options);
    const tab = this.active();
    if (tab.position === 0) return;
    tab.position--;
    tab.document = this.load(tab.history[tab.position] as string);
  }

  /** The active tab's URL. */
  async currentUrl(options?: CallOptions): Promise<string> {
    await this.enter('currentUrl', [], options);
    return this.active().document.url;
  }

  /** Lists one frame, `main`: fake pages have no inner frames. */
  async frames(options?: CallOptions): Promise<FrameInfo[]> {
    await this.enter('frames', [], options);
    return [{ id: 'main', url: this.active().document.url }];
  }

  /**
   * Answers the core's calls of the page runtime by script id from the active fake page: the
   * install script, the DOM snapshot, the page-change probe and the built-in actions' methods.
   * Any other script, and a runtime method the fake cannot act out, throws a `BrowserError`
   * naming it.
   */
  async evaluate<TArg, TResult>(frameId: string, script: PageScript<TArg, TResult>, arg: TArg, options?: CallOptions): Promise<TResult> {
    await this.enter('evaluate', [frameId, script.id, arg], options);
    if (frameId !== 'main') throw new BrowserError(`There is no frame with id ${frameId}.`);
    if (this.dialog)
      throw new BrowserError(
        `A ${this.dialog.type} dialog is open in the tab: the page runs no script until it is answered. Answer it with handle_dialog first.`,
        { retryable: true },
      );
    // Every fake document has the runtime already: the install is a no-op that says so.
    if (script.id === installScriptId) return false as TResult;
    if (script.id === changesScriptId) return this.pageChanges() as TResult;
    if (script.id === snapshotScriptId) return this.snapshot() as TResult;
    const answer = fakePageScripts.get(script.id);
    if (!answer) {
      throw new BrowserError(
        `FakeBrowserDriver cannot run the page script ${script.id}: it answers only the core's calls of the page runtime (its install, the DOM snapshot, the page-change probe and the built-in actions' methods).`,
      );
    }
    const tab = this.active();
    return answer({ document: tab.document, canGoBack: tab.position > 0 }, arg as never) as TResult;
  }

  /** Clicks a fake element: follows its `href`, then runs its `onClick` (a right click runs `onContextMenu` alone). */
  async click(ref: ElementRef, options?: ClickOptions): Promise<void> {
    await this.enter('click', [ref.index, ref.elementId, ...(options?.button === 'right' ? ['right'] : [])], options);
    const loaded = this.find(ref);
    if (options?.button === 'right') {
      if (loaded.element.onContextMenu) await raceAbort(Promise.resolve(loaded.element.onContextMenu(this)), options.signal);
      return;
    }
    // A link to a denied URL is stopped like a real browser's guard stops it: the page stays.
    if (loaded.element.href && this.allows(loaded.element.href, 'navigation')) this.navigate(loaded.element.href);
    if (loaded.element.onClick) await raceAbort(Promise.resolve(loaded.element.onClick(this)), options?.signal);
  }

  /** Sets the value of an input, a textarea or an editable element; throws a `BrowserError` for any other element. */
  async fill(ref: ElementRef, text: string, options?: CallOptions): Promise<void> {
    await this.enter('fill', [ref.index, text], options);
    const loaded = this.find(ref);
    if (!['input', 'textarea'].includes(loaded.element.tag) && loaded.element.attributes?.contenteditable === undefined) {
      throw new BrowserError(`Element ${ref.index} is a <${loaded.element.tag}>, which cannot take text.`);
    }
    loaded.value = text;
    loaded.typed = true;
  }

  /**
   * Selects an option of a fake select element by its label (in a multiple select, that option
   * alone); throws a `BrowserError` for a label it does not have.
   */
  async selectOption(ref: ElementRef, label: string, options?: CallOptions): Promise<string[]> {
    await this.enter('selectOption', [ref.index, label], options);
    const loaded = this.find(ref);
    const choices = loaded.element.options ?? [];
    if (!choices.includes(label)) throw new BrowserError(`Element ${ref.index} has no option "${label}". Options: ${choices.join(', ')}.`);
    loaded.value = label;
    loaded.selected = [label];
    return [label];
  }

  /** Sets the input's files (their names are the paths' last parts) and its value to the paths, joined by commas; no file is read. */
  async uploadFiles(ref: ElementRef, paths: readonly string[], options?: CallOptions): Promise<void> {
    await this.enter('uploadFiles', [ref.index, [...paths]], options);
    const loaded = this.find(ref);
    loaded.files = [...paths];
    loaded.value = paths.join(', ');
  }

  /** Records the key press; it changes nothing on the page. */
  async press(keys: string, options?: CallOptions): Promise<void> {
    await this.enter('press', [keys], options);
  }

  /** Scrolls the active page within its content; with a `ref`, the page scrolls all the same. */
  async scroll(options: ScrollRequest): Promise<void> {
    await this.enter('scroll', [{ index: options.ref?.index, deltaY: options.deltaY, toPercent: options.toPercent }], options);
    scrollDocument(this.active().document, options);
  }

  /** Returns a tiny valid JPEG, the same every time. */
  async screenshot(options?: ScreenshotOptions): Promise<Uint8Array> {
    await this.enter('screenshot', [], options);
    return jpegBytes.slice();
  }

  /** Resolves at once (after `latencyMs`): fake pages are always settled. */
  async waitForSettled(options?: CallOptions): Promise<void> {
    await this.enter('waitForSettled', [], options);
  }

  /**
   * Checks `goto`, `openTab` and link clicks against the guard: a denied URL is not loaded, the
   * guard hears of it, and `goto`/`openTab` reject with `URLNotAllowedError`.
   */
  async setNavigationGuard(guard: NavigationGuard | undefined, options?: CallOptions): Promise<void> {
    await this.enter('setNavigationGuard', [guard === undefined ? 'none' : 'guard'], options);
    this.guard = guard;
  }

  // Issue 24, the missing actions: gestures, reload and dialogs.

  /** Runs the element's `onHover`. */
  async hover(ref: ElementRef, options?: CallOptions): Promise<void> {
    await this.enter('hover', [ref.index], options);
    const loaded = this.find(ref);
    if (loaded.element.onHover) await raceAbort(Promise.resolve(loaded.element.onHover(this)), options?.signal);
  }

  /** Runs the element's `onDoubleClick`. */
  async doubleClick(ref: ElementRef, options?: ClickOptions): Promise<void> {
    await this.enter('doubleClick', [ref.index], options);
    const loaded = this.find(ref);
    if (loaded.element.onDoubleClick) await raceAbort(Promise.resolve(loaded.element.onDoubleClick(this)), options?.signal);
  }

  /** Runs the target's `onDrop` with the source element. */
  async dragAndDrop(source: ElementRef, target: ElementRef, options?: CallOptions): Promise<void> {
    await this.enter('dragAndDrop', [source.index, target.index], options);
    const dragged = this.find(source);
    const onto = this.find(target);
    if (onto.element.onDrop) await raceAbort(Promise.resolve(onto.element.onDrop(this, dragged.element)), options?.signal);
  }

  /** Records the click at a point; fake pages have no layout, so it changes nothing. */
  async mouseClick(x: number, y: number, options?: ClickOptions): Promise<void> {
    await this.enter('mouseClick', [x, y], options);
  }

  /** Loads the active tab's page again: a fresh document, new element ids. */
  async reload(options?: CallOptions): Promise<void> {
    await this.enter('reload', [], options);
    const tab = this.active();
    tab.document = this.load(tab.document.url);
  }

  /**
   * Opens a JavaScript dialog in the active tab, as a page's `alert()`, `confirm()` or `prompt()`
   * would (call it from an element's `onClick`); it stays open until `handleDialog` answers it, and
   * `evaluate` rejects meanwhile, as a real page runs no script then.
   */
  openDialog(dialog: PageDialog): void {
    this.dialog = { type: dialog.type, message: dialog.message, ...(dialog.defaultValue !== undefined ? { defaultValue: dialog.defaultValue } : {}) };
  }

  /** The open dialog, and the dialogs closed since the last call. */
  async dialogs(options?: CallOptions): Promise<DialogReport> {
    await this.enter('dialogs', [], options);
    const closed = this.closedDialogs;
    this.closedDialogs = [];
    return { ...(this.dialog ? { open: this.dialog } : {}), closed };
  }

  /** Answers the open dialog; throws a `BrowserError` when none is open. */
  async handleDialog(answer: DialogAnswer, options?: CallOptions): Promise<ClosedDialog> {
    await this.enter('handleDialog', [answer.accept, ...(answer.text !== undefined ? [answer.text] : [])], options);
    const open = this.dialog;
    if (!open) throw new BrowserError('No dialog is open in the active tab: there is nothing to answer. Read the page again.');
    this.dialog = undefined;
    const text = answer.accept && open.type === 'prompt' ? (answer.text ?? open.defaultValue ?? '') : undefined;
    return { ...open, accepted: answer.accept, ...(text !== undefined ? { text } : {}), answeredBy: 'request' };
  }

  /** Closes the fake browser; every later call throws a `BrowserError`. Idempotent. */
  async close(): Promise<void> {
    if (!this.closed) this.calls.push({ method: 'close', args: [] });
    this.closed = true;
  }

  /** Same as `close()`, for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private async enter(method: string, args: unknown[], options: CallOptions | undefined): Promise<void> {
    if (this.closed) throw new BrowserDisconnectedError(`The browser is closed: ${method}() cannot run.`);
    this.calls.push({ method, args });
    if (options?.signal?.aborted) throw new BrowserError(`${method}() was aborted.`, { cause: options.signal.reason });
    if (this.latencyMs > 0) await raceAbort(new Promise((resolve) => setTimeout(resolve, this.latencyMs)), options?.signal);
  }

  private allows(url: string, kind: 'navigation' | 'popup'): boolean {
    const decision = this.guard?.check(url);
    if (!decision || decision.allowed) return true;
    this.guard?.blocked({ url, reason: decision.reason, kind, tabId: this.activeId });
    return false;
  }

  private assertAllowed(url: string, kind: 'navigation' | 'popup'): void {
    if (!this.allows(url, kind)) throw new URLNotAllowedError(url);
  }

  /** Answers the page-change probe: a document loaded since the last snapshot, or elements it did not list. */
  private pageChanges(): { newDocument: boolean; newElements: number } {
    const document = this.active().document;
    if (document !== this.lastSnapshot.document) return { newDocument: true, newElements: 0 };
    const elementIds = this.lastSnapshot.elementIds;
    return { newDocument: false, newElements: this.loadedElements().filter((item) => !elementIds.has(item.elementId)).length };
  }

  /** An element as a document loads it, with an id that starts with the document's token. */
  private loadElement(document: LoadedDocument, element: FakeElement): LoadedElement {
    return { elementId: `${document.token}-${document.nextElement++}`, element, value: element.attributes?.value ?? '', typed: false, files: [], selected: [] };
  }

  private load(url: string): Tab['document'] {
    this.loads++;
    const page = url === 'about:blank' ? blankPage : (this.pages.get(url) ?? notFoundPage);
    const document: LoadedDocument = {
      url,
      title: page.title,
      token: `fake-${this.loads}`,
      nextElement: 0,
      // The HTTP status the page runtime reads from the navigation: a blank page has none.
      status: url === 'about:blank' ? 0 : this.pages.has(url) ? 200 : 404,
      items: [],
      scrollY: 0,
      pixelsBelow: page.pixelsBelow ?? 0,
    };
    document.items = page.content.map((item) => (typeof item === 'string' ? item : this.loadElement(document, item)));
    return document;
  }

  private createTab(url: string): Tab {
    const tab: Tab = { id: `tab-${this.nextTab++}`, history: [url], position: 0, document: this.load(url) };
    this.tabList.push(tab);
    return tab;
  }

  private navigate(url: string): void {
    const tab = this.active();
    tab.history.splice(tab.position + 1, tab.history.length, url);
    tab.position = tab.history.length - 1;
    tab.document = this.load(url);
  }

  private active(): Tab {
    return this.tabList.find((tab) => tab.id === this.activeId) as Tab;
  }

  private info(tab: Tab): TabInfo {
    return { id: tab.id, url: tab.document.url, title: tab.document.title };
  }

  private loadedElements(): LoadedElement[] {
    return this.active().document.items.filter((item): item is LoadedElement => typeof item !== 'string');
  }

  private find(ref: ElementRef): LoadedElement {
    const loaded = this.loadedElements().find((item) => item.elementId === ref.elementId);
    if (!loaded) throw new BrowserError(`Element ${ref.index} is no longer on the page (it was removed or the page changed).`);
    return loaded;
  }

  private snapshot(): FrameSnapshot {
    const document = this.active().document;
    this.lastSnapshot = { document, elementIds: new Set(this.loadedElements().map((item) => item.elementId)) };
    // As the page runtime lists them: disabled controls are not listed, a control without text of
    // its own is known by its name, and a select shows its options and what is selected.
    const items: SnapshotItem[] = document.items.flatMap((item): SnapshotItem[] => {
      if (typeof item === 'string') return [{ kind: 'text', text: item, depth: 0 }];
      const { element } = item;
      if (isDisabled(element)) return [];
      const attributes: Record<string, string> = { ...(element.attributes ?? {}) };
      if (element.href) attributes.href = element.href;
      if (item.value && attributes.type !== 'password' && element.tag !== 'select') attributes.value = item.value;
      else delete attributes.value;
      if (element.tag === 'select') {
        const selected = selectedOptions(item);
        if (selected.length > 0) attributes.selected = selected.join(', ');
        const options = element.options ?? [];
        attributes.options = options.slice(0, 12).join('|') + (options.length > 12 ? `|…${options.length - 12} more` : '');
      }
      const text = element.text || nameOf(element);
      for (const name of ['aria-label', 'title', 'placeholder', 'alt'])
        if (attributes[name] !== undefined && attributes[name].trim() === text.trim()) delete attributes[name];
      return [{ kind: 'element', elementId: item.elementId, tagName: element.tag, attributes, text, depth: element.depth ?? 0 }];
    });
    return { url: document.url, title: document.title, items, pixelsAbove: document.scrollY, pixelsBelow: document.pixelsBelow };
  }
}
