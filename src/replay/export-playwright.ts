// Turns a recorded run into a standalone Playwright Test file, for a run worth keeping as a plain
// test in CI. Pure string building: no browser, no node: module, and recorded text only ever enters
// the script through ScriptStrings (JSON string literals and line comments, never template
// interpolation), which also keeps the values of option `env` out of it.

import { z } from 'zod';
import { normalizeUrl, searchUrl, type SearchEngine } from '../actions/builtin/navigation';
import { parseKeys } from '../actions/builtin/send-keys';
import { ConfigError, HistoryFormatError } from '../errors';
import type { ActionRecord, ElementFingerprint, RunHistory, StepBrowser, StepRecord } from '../history/types';
import { cssString, quote, ScriptStrings, ScriptWriter, shown, whitespace } from './script-strings';

/** Options of {@link exportPlaywrightScript}. @public */
export interface ExportPlaywrightOptions {
  /**
   * The module `test` and `expect` are imported from.
   * @defaultValue `'@playwright/test'`
   * @example `{ importFrom: 'playwright/test' }` with only the `playwright` package installed
   */
  readonly importFrom?: string | undefined;
  /**
   * The title of the test.
   * @defaultValue the first task's text
   * @example `{ testName: 'buys the cheapest blue mug' }`
   */
  readonly testName?: string | undefined;
  /**
   * Recorded input to read from the environment when the script runs, as environment variable
   * name → the text typed in the run. The recorded value is not written into the script (a
   * password typed in the run stays out of a file that gets committed): every string of the
   * script that holds it (the text an `input_text` types, a locator's name, a URL that holds it
   * as typed, `encodeURIComponent`- or `encodeURI`-encoded or form-encoded) reads
   * `process.env[name]` there instead, and the test's title and the comments show `<$NAME>`. The
   * script throws, naming the variable, when it is not set. Only strings and comments are
   * covered: a value that is also a word of the script's own code (`page`, `click`) stays in it.
   * @defaultValue none: the recorded text is typed as it was
   * @example `{ env: { SHOP_EMAIL: 'ada@example.com' } }`
   */
  readonly env?: Readonly<Record<string, string>> | undefined;
  /**
   * The test's timeout, in milliseconds (`test.setTimeout`).
   * @defaultValue Playwright's (30 seconds, or the config's `timeout`)
   * @example `{ timeoutMs: 120_000 }`
   */
  readonly timeoutMs?: number | undefined;
  /**
   * The address the recorded pages were under. URLs under it are written as paths (`/cart`), which
   * Playwright completes with the config's `use.baseURL`, so the script runs against another
   * server (a staging host, a test server on another port).
   * @defaultValue every URL as recorded
   * @example `{ baseURL: 'http://127.0.0.1:41234/' }`
   */
  readonly baseURL?: string | undefined;
}

const optionsSchema = z
  .object({
    importFrom: z.string().trim().min(1, 'must be a module name such as "@playwright/test"').optional(),
    testName: z.string().optional(),
    env: z
      .record(
        z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must map environment variable names (letters, digits, _) to texts'),
        z.string().min(1, 'must map names to non-empty recorded texts'),
      )
      .optional(),
    timeoutMs: z.number().int('must be a whole number of milliseconds').positive('must be a positive number of milliseconds').optional(),
    baseURL: z
      .string()
      .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), 'must be an absolute http or https URL')
      .optional(),
  })
  .strict();

type Options = z.output<typeof optionsSchema>;

/** The parameters of an action as a record; the model wrote them, so every read checks its type. */
function paramsOf(action: ActionRecord): Record<string, unknown> {
  return typeof action.params === 'object' && action.params !== null && !Array.isArray(action.params) ? (action.params as Record<string, unknown>) : {};
}

const stringParam = (params: Record<string, unknown>, key: string): string | undefined => (typeof params[key] === 'string' ? params[key] : undefined);
const numberParam = (params: Record<string, unknown>, key: string): number | undefined =>
  typeof params[key] === 'number' && Number.isFinite(params[key]) ? params[key] : undefined;

/** Test id attributes, Playwright's own (`getByTestId`) first. */
const testIdAttributes = ['data-testid', 'data-test-id', 'data-test', 'data-qa', 'data-cy'];

/** Roles that name nothing a user sees: never a locator. */
const unnamedRoles = new Set(['generic', 'none', 'presentation']);

/** Tags and roles of the repeated items (rows, cards, list entries) in which alike elements sit. */
const itemTags = new Set(['li', 'tr', 'article']);
const itemRoles = new Set(['listitem', 'row', 'article']);

const fieldTags = new Set(['input', 'textarea', 'select']);

/**
 * A recorded name or text as a matcher: whole, case and spaces aside as the replay compares names
 * (`named()` in the script), or, when the recorder capped it (a trailing `…`), its start, which
 * Playwright matches as a case-insensitive substring.
 */
function matcher(recorded: string): { readonly text: string; readonly exact: boolean } {
  const text = whitespace(recorded);
  return text.endsWith('…') ? { text: text.slice(0, -1).trimEnd(), exact: false } : { text, exact: true };
}

/** `{ name: named("…") }` or `{ name: "…" }`, for getByRole. */
function nameOption(recorded: string, strings: ScriptStrings): string {
  const { text, exact } = matcher(recorded);
  return `{ name: ${exact ? strings.named(text) : strings.literal(text)} }`;
}

/** `named("…")` or `"…"`, for getByText, getByLabel and getByPlaceholder. */
function textArguments(recorded: string, strings: ScriptStrings): string {
  const { text, exact } = matcher(recorded);
  return exact ? strings.named(text) : strings.literal(text);
}

/**
 * The repeated item (list entry, row, card) the element sits in, as a locator to scope it by
 * (`locator('li').filter({ hasText: 'Blue mug' })`), when the item's recorded name is what tells
 * it apart from alike elements of other items: an "Add to cart" in a product's card. An element
 * whose own name opens its item's name (the product's link, the item's title) tells itself apart
 * and is not scoped, so a change elsewhere in the item (its price) does not break its locator.
 */
function itemScope(fingerprint: ElementFingerprint, strings: ScriptStrings): string | undefined {
  const item = fingerprint.ancestors.find((ancestor) => itemTags.has(ancestor.tagName) || (ancestor.role !== undefined && itemRoles.has(ancestor.role)));
  if (!item) return undefined;
  // The record's own name (its heading, its link), as the replay identifies it, when the fingerprint gives it: a price changed elsewhere in the card does not break the locator.
  const record = fingerprint.record?.scope === 'item' ? fingerprint.record.name : undefined;
  const itemName = matcher(record ?? item.name ?? '').text;
  const elementName = matcher(fingerprint.name || fingerprint.text).text;
  if (!itemName || itemName.toLowerCase().startsWith(elementName.toLowerCase())) return undefined;
  const items = itemTags.has(item.tagName) ? `locator(${strings.literal(item.tagName)})` : `getByRole(${strings.literal(item.role ?? '')})`;
  return `${items}.filter({ hasText: ${strings.literal(itemName)} })`;
}

/** A locator chain below the page or frame, most robust first, and the note the script should carry. */
function elementChain(fingerprint: ElementFingerprint, strings: ScriptStrings): { chain: string; scopable: boolean; note?: string } {
  const literal = (text: string): string => strings.literal(text);
  const { role, attributes, tagName } = fingerprint;
  const name = whitespace(fingerprint.name);
  const text = whitespace(fingerprint.text);
  if (role && !unnamedRoles.has(role) && name) return { chain: `getByRole(${literal(role)}, ${nameOption(name, strings)})`, scopable: true };
  for (const attribute of testIdAttributes) {
    const value = attributes[attribute];
    if (!value) continue;
    const chain = attribute === 'data-testid' ? `getByTestId(${literal(value)})` : `locator(${literal(`[${attribute}=${cssString(value)}]`)})`;
    return { chain, scopable: true };
  }
  const isField = fieldTags.has(tagName);
  if (isField && name) return { chain: `getByLabel(${textArguments(name, strings)})`, scopable: true };
  const placeholder = attributes.placeholder;
  if (isField && placeholder) return { chain: `getByPlaceholder(${textArguments(placeholder, strings)})`, scopable: true };
  if (text) return { chain: `getByText(${textArguments(text, strings)})`, scopable: true };
  if (fingerprint.cssPath) return { chain: `locator(${literal(fingerprint.cssPath)})`, scopable: false };
  if (fingerprint.xpath) return { chain: `locator(${literal(`xpath=${fingerprint.xpath}`)})`, scopable: false };
  return {
    chain: `locator(${literal(tagName || '*')}).first()`,
    scopable: false,
    note: 'Nothing but its tag was recorded for this element: the first one is taken.',
  };
}

/** The frame an element was in, when it was not the page's own document (best effort: found by the iframe's `src`). */
function frameRoot(frameUrl: string, pageUrl: string | undefined, strings: ScriptStrings): { root: string; note?: string } {
  if (!frameUrl || pageUrl === undefined || frameUrl === pageUrl) return { root: 'page' };
  const parsed = URL.canParse(frameUrl) ? new URL(frameUrl) : undefined;
  const file = parsed?.pathname.split('/').filter(Boolean).pop() ?? '';
  const selector = parsed && /^https?:$/.test(parsed.protocol) ? `iframe[src*=${cssString(file || parsed.host)}]` : 'iframe';
  return {
    root: `page.frameLocator(${strings.literal(selector)})${selector === 'iframe' ? '.first()' : ''}`,
    note: `In the frame ${frameUrl} (best effort: the iframe is found by its src).`,
  };
}

/** The step an action belongs to, and where the browser was after it. */
interface Position {
  readonly step: StepRecord;
  /** The next step that saw the browser, for where an action left it. */
  readonly next: StepBrowser | undefined;
}

/** What writing the script needs besides the history. */
interface Context {
  readonly options: Options;
  readonly writer: ScriptWriter;
  readonly strings: ScriptStrings;
}

/** A URL as the script writes it: relative to `baseURL` when it is under it. */
function urlLiteral(url: string, context: Context): string {
  const { options, strings } = context;
  const base = options.baseURL;
  if (base === undefined) return strings.literal(url);
  const prefix = base.endsWith('/') ? base : `${base}/`;
  if (url !== base && !url.startsWith(prefix)) return strings.literal(url);
  const rest = url === base ? '' : url.slice(prefix.length);
  return strings.literal(new URL(prefix).pathname === '/' ? `/${rest}` : `./${rest}`);
}

/** The position of a recorded tab in the browser's tab list: what `context.pages()` holds in the same order. */
function tabPosition(browser: StepBrowser | undefined, requested: unknown): number | undefined {
  const tabs = browser?.tabList ?? [];
  const wanted = typeof requested === 'number' || typeof requested === 'string' ? String(requested).trim() : '';
  if (!wanted) return undefined;
  const exact = tabs.findIndex((tab) => tab.id === wanted);
  if (exact >= 0 || !/^\d+$/.test(wanted)) return exact >= 0 ? exact : undefined;
  const numbered = tabs.flatMap((tab, index) => (/(\d+)$/.exec(tab.id)?.[1] === wanted ? [index] : []));
  return numbered.length === 1 ? numbered[0] : undefined;
}

const navigatingActions = new Set(['go_to_url', 'search', 'go_back', 'open_tab', 'switch_tab', 'close_tab']);
const tabActions = new Set(['open_tab', 'switch_tab', 'close_tab']);
/** Actions that read the page or the conversation and change nothing a script must redo. */
const readingActions = new Set(['get_dropdown_options', 'extract_content', 'search_page', 'cache_content']);

/** The locator of the element an action acted on, or `undefined` (with a comment written) when none was recorded. */
function locatorOf(action: ActionRecord, position: Position, context: Context): string | undefined {
  const { writer, strings } = context;
  const fingerprint = action.fingerprint;
  if (!fingerprint) {
    const selector = action.element?.selector;
    if (selector) {
      writer.comment('No fingerprint was recorded for this element: it is found by its CSS selector.');
      return `page.locator(${strings.literal(selector)})`;
    }
    const index = action.element?.index ?? numberParam(paramsOf(action), 'index');
    writer.comment(`${action.name} on element ${index ?? '?'}: the run recorded nothing to find the element by, so this step is not in the script.`);
    return undefined;
  }
  const frame = frameRoot(fingerprint.frameUrl, position.step.browser?.url, strings);
  const element = elementChain(fingerprint, strings);
  const scope = element.scopable ? itemScope(fingerprint, strings) : undefined;
  if (frame.note) writer.comment(frame.note);
  if (element.note) writer.comment(element.note);
  return [frame.root, scope, element.chain].filter((part) => part !== undefined).join('.');
}

/** Writes one successful action as Playwright code. */
function writeAction(action: ActionRecord, position: Position, context: Context): void {
  const { writer, strings } = context;
  const literal = (text: string): string => strings.literal(text);
  const shown = (value: unknown, max?: number): string => strings.shown(value, max);
  const params = paramsOf(action);
  const unreadable = (): void => writer.comment(`${action.name}: recorded with parameters this export cannot read (${shown(action.params)}).`);
  switch (action.name) {
    case 'go_to_url':
    case 'open_tab': {
      const url = stringParam(params, 'url');
      if (url === undefined) return unreadable();
      let target = url;
      try {
        target = normalizeUrl(action.name, url).url;
      } catch {
        // The action refused it too; the recorded text is the best guess.
      }
      if (action.name === 'open_tab') writer.line('page = await context.newPage();');
      writer.line(`await page.goto(${urlLiteral(target, context)});`);
      return;
    }
    case 'search': {
      const query = stringParam(params, 'query');
      if (query === undefined) return unreadable();
      const engine = stringParam(params, 'engine');
      const known: SearchEngine = engine === 'google' || engine === 'bing' ? engine : 'duckduckgo';
      writer.line(`await page.goto(${literal(searchUrl(query, known))});`);
      return;
    }
    case 'go_back':
      writer.line('await page.goBack();');
      return;
    case 'wait': {
      const seconds = numberParam(params, 'seconds') ?? 3;
      writer.line(`await page.waitForTimeout(${Math.round(seconds * 1000)});`);
      return;
    }
    case 'click_element': {
      const locator = locatorOf(action, position, context);
      if (locator) writer.line(`await ${locator}.click();`);
      return;
    }
    case 'hover_element':
    case 'double_click_element':
    case 'right_click_element': {
      const locator = locatorOf(action, position, context);
      const call = { hover_element: 'hover()', double_click_element: 'dblclick()', right_click_element: 'click({ button: "right" })' }[action.name];
      if (locator) writer.line(`await ${locator}.${call};`);
      return;
    }
    case 'click_coordinates': {
      // The model's coordinates are the viewport's CSS pixels, as Playwright's mouse takes them.
      const x = numberParam(params, 'x');
      const y = numberParam(params, 'y');
      if (x === undefined || y === undefined) return unreadable();
      writer.line(`await page.mouse.click(${x}, ${y});`);
      return;
    }
    case 'reload_page':
      writer.line('await page.reload();');
      return;
    case 'wait_for_text': {
      const text = stringParam(params, 'text');
      if (text === undefined) return unreadable();
      const timeout = numberParam(params, 'timeoutMs');
      const options = timeout === undefined ? '' : `{ timeout: ${timeout} }`;
      if (params.gone === true) writer.line(`await expect(page.getByText(${literal(text)})).toHaveCount(0${options ? `, ${options}` : ''});`);
      else writer.line(`await expect(page.getByText(${literal(text)}).first()).toBeVisible(${options});`);
      return;
    }
    case 'save_pdf':
      writer.line(`await page.pdf({ path: ${literal(stringParam(params, 'filename') ?? 'page.pdf')} });`);
      return;
    case 'drag_and_drop':
      writer.comment(`drag_and_drop ${shown(action.params)}: the run recorded nothing to find the drop target by; not in the script.`);
      return;
    case 'handle_dialog':
      writer.comment(
        `handle_dialog ${shown(action.params)}: Playwright dismisses a dialog unless a handler is set before the action that opens it; to answer it, add \`page.once('dialog', (dialog) => dialog.accept())\` above that action.`,
      );
      return;
    case 'input_text': {
      const text = stringParam(params, 'text');
      if (text === undefined) return unreadable();
      const locator = locatorOf(action, position, context);
      if (locator) writer.line(`await ${locator}.fill(${literal(text)});`);
      return;
    }
    case 'select_dropdown_option': {
      const raw = params.text;
      const texts = typeof raw === 'string' ? [raw] : Array.isArray(raw) && raw.every((item) => typeof item === 'string') ? raw : undefined;
      if (!texts || texts.length === 0) return unreadable();
      const locator = locatorOf(action, position, context);
      if (!locator) return;
      if (action.fingerprint?.tagName === 'select' || (!action.fingerprint && action.element?.tagName === 'select')) {
        const labels = texts.map((text) => `{ label: ${literal(text)} }`);
        writer.line(`await ${locator}.selectOption(${labels.length === 1 ? labels[0] : `[${labels.join(', ')}]`});`);
        return;
      }
      writer.comment('A dropdown that is not a <select>: opened, then its option clicked.');
      writer.line(`await ${locator}.click();`);
      for (const text of texts) writer.line(`await page.getByRole("option", { name: ${context.strings.named(text)} }).click();`);
      return;
    }
    case 'upload_file': {
      const raw = params.path;
      const paths = typeof raw === 'string' ? [raw] : Array.isArray(raw) && raw.every((item) => typeof item === 'string') ? raw : undefined;
      if (!paths) return unreadable();
      const locator = locatorOf(action, position, context);
      if (locator) writer.line(`await ${locator}.setInputFiles(${paths.length === 1 ? literal(paths[0] ?? '') : `[${paths.map(literal).join(', ')}]`});`);
      return;
    }
    case 'send_keys': {
      const keys = stringParam(params, 'keys');
      if (keys === undefined) return unreadable();
      let chords: string[];
      try {
        chords = parseKeys(keys);
      } catch {
        writer.comment(`send_keys ${shown(keys)}: keys this export does not know.`);
        return;
      }
      for (const chord of chords) writer.line(`await page.keyboard.press(${literal(chord)});`);
      return;
    }
    case 'switch_tab':
    case 'close_tab': {
      const index = tabPosition(position.step.browser, params.tab_id);
      if (index === undefined) {
        writer.comment(
          `${action.name} ${shown(params.tab_id)}: the recording does not say which of the open tabs that was, so this step is not in the script.`,
        );
        return;
      }
      if (action.name === 'switch_tab') {
        writer.line(`page = context.pages()[${index}];`);
        writer.line('await page.bringToFront();');
        return;
      }
      writer.line(`await context.pages()[${index}].close();`);
      const active = position.next ? position.next.tabList.findIndex((tab) => tab.id === position.next?.activeTabId) : -1;
      if (active >= 0) writer.line(`page = context.pages()[${active}];`);
      return;
    }
    case 'scroll_to_percent':
    case 'scroll_to_top':
    case 'scroll_to_bottom': {
      const percent = action.name === 'scroll_to_top' ? 0 : action.name === 'scroll_to_bottom' ? 100 : numberParam(params, 'percent');
      if (percent === undefined) return unreadable();
      if (numberParam(params, 'index') !== undefined) writer.comment('Recorded in the scroll area of an element; the page is scrolled here.');
      writer.line(
        `await page.evaluate((percent) => window.scrollTo(0, ((document.documentElement.scrollHeight - window.innerHeight) * percent) / 100), ${percent});`,
      );
      return;
    }
    case 'next_page':
    case 'previous_page': {
      if (numberParam(params, 'index') !== undefined) {
        // The wheel scrolls whatever is under the mouse: the element's scroll area.
        const locator = locatorOf(action, position, context);
        if (locator) writer.line(`await ${locator}.hover();`);
      }
      writer.line(`await page.mouse.wheel(0, ${action.name === 'previous_page' ? '-' : ''}(page.viewportSize()?.height ?? 720));`);
      return;
    }
    case 'scroll_to_text': {
      const text = stringParam(params, 'text');
      if (text === undefined) return unreadable();
      const nth = Math.max(1, Math.trunc(numberParam(params, 'nth') ?? 1));
      writer.line(`await page.getByText(${literal(text)}).nth(${nth - 1}).scrollIntoViewIfNeeded();`);
      return;
    }
    case 'done': {
      const success = action.success === false ? 'failure' : 'success';
      writer.comment(`done (${success}): ${shown(stringParam(params, 'text') ?? '', 2000)}`);
      return;
    }
    case 'ask_human':
      writer.comment(`ask_human: ${shown(stringParam(params, 'question') ?? action.params)}`);
      if (action.result) writer.comment(`  answered: ${shown(action.result)}`);
      return;
    default:
      if (readingActions.has(action.name)) {
        writer.comment(`${action.name} ${shown(action.params)}: reads the page, nothing to replay.`);
        return;
      }
      writer.comment(`${action.name} ${shown(action.params)}: an action Playwright has no counterpart for; not in the script.`);
  }
}

/** The first step after `index` that saw the browser. */
function nextBrowser(steps: readonly StepRecord[], index: number): StepBrowser | undefined {
  return steps.slice(index + 1).find((step) => step.browser !== undefined)?.browser;
}

/** Writes a task's Navigator steps; `allSteps` are the session's, for where the browser went after the last of them. */
function writeSteps(steps: readonly StepRecord[], allSteps: readonly StepRecord[], context: Context): void {
  const { writer, strings } = context;
  for (const step of steps) {
    if (step.actor !== 'navigator' || step.actions.length === 0) continue;
    const position: Position = { step, next: nextBrowser(allSteps, allSteps.indexOf(step)) };
    writer.line('');
    writer.comment(`Step ${step.step}`);
    let lastWritten: ActionRecord | undefined;
    for (const action of step.actions) {
      if (action.error) {
        writer.comment(`Left out: ${action.name} ${strings.shown(action.params)} failed when recorded: ${strings.shown(action.error.message)}`);
        continue;
      }
      writeAction(action, position, context);
      lastWritten = action;
    }
    // Where the recording says the browser ended, after an action that went somewhere.
    const url = position.next?.url;
    const moved = url !== undefined && url !== step.browser?.url;
    if (url && /^(?:https?|file):/.test(url) && (moved || (lastWritten && navigatingActions.has(lastWritten.name)))) {
      writer.line(`await expect(page).toHaveURL(${urlLiteral(url, context)});`);
    }
  }
}

function checkHistory(history: RunHistory): void {
  const candidate = history as Partial<RunHistory> | undefined;
  if (typeof candidate !== 'object' || candidate === null || candidate.schemaVersion !== 2) {
    throw new HistoryFormatError(
      `exportPlaywrightScript() takes a version 2 history (a run's \`history\`, or a saved file read back with its loader, which migrates older ones); got schemaVersion ${shown((candidate as { schemaVersion?: unknown } | undefined)?.schemaVersion)}.`,
      { field: 'schemaVersion' },
    );
  }
  if (!Array.isArray(candidate.steps) || !Array.isArray(candidate.tasks)) {
    throw new HistoryFormatError('exportPlaywrightScript() needs a history with `tasks` and `steps` arrays.', {
      field: Array.isArray(candidate.steps) ? 'tasks' : 'steps',
    });
  }
}

function checkOptions(input: ExportPlaywrightOptions | undefined): Options {
  const parsed = optionsSchema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  if (issue?.code === 'unrecognized_keys') {
    throw new ConfigError(`Unknown option \`${issue.keys[0] ?? ''}\` of exportPlaywrightScript(). Check its spelling.`, { field: issue.keys[0] });
  }
  const field = issue?.path.map(String).join('.') ?? '';
  // A bad key of `env` carries the key's own message one level down.
  const message = issue?.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : (issue?.message ?? 'is invalid');
  throw new ConfigError(`Option \`${field}\` of exportPlaywrightScript() ${message}.`, { field });
}

/**
 * Writes a recorded run as a standalone Playwright Test file: one test, the session's tasks in
 * order (each a `test.step` when there are several, since a follow-up starts where the task before
 * it left the browser). Each action becomes Playwright code; the element it acted on is found by
 * its recorded fingerprint, most robust first (role and accessible name, test id, label,
 * placeholder, text, then the recorded CSS path), scoped to its list item when the item's name
 * tells alike elements apart. After an action that moved the browser the script expects the URL
 * the recording saw next. Failed actions are left out, and reading actions, `done` and the final
 * answer become comments.
 *
 * @param history - The run's history (`ExecutionResult.history`, schema version 2).
 * @param options - The import, the test's title and timeout, environment variables and a base URL.
 * @returns The script's source text, for a file such as `recorded.spec.ts`.
 * @throws `HistoryFormatError` when `history` is not a version 2 history; `ConfigError` for an invalid option.
 * @example
 * ```ts
 * const result = await executor.execute();
 * const script = exportPlaywrightScript(result.history, { importFrom: '@playwright/test', timeoutMs: 60_000 });
 * await writeFile('tests/recorded.spec.ts', script);
 * ```
 * @public
 */
export function exportPlaywrightScript(history: RunHistory, options?: ExportPlaywrightOptions): string {
  checkHistory(history);
  const resolved = checkOptions(options);
  const strings = new ScriptStrings(resolved.env ?? {});
  const body = new ScriptWriter(strings);
  const context: Context = { options: resolved, writer: body, strings };
  const exported = history.steps.filter((step) => step.actor === 'navigator').flatMap((step) => step.actions);
  const usesTabs = exported.some((action) => !action.error && tabActions.has(action.name));
  const tasks = history.tasks.length > 0 ? history.tasks : [{ taskId: '', task: 'Recorded run', finalAnswer: undefined, status: undefined, error: undefined }];
  const title = resolved.testName ?? tasks[0]?.task ?? 'Recorded run';

  const parameters = usesTabs ? '{ page: firstPage, context }' : '{ page }';
  body.block(`test(${strings.title(title)}, async (${parameters}) => {`, '});', () => {
    if (resolved.timeoutMs !== undefined) body.line(`test.setTimeout(${resolved.timeoutMs});`);
    if (usesTabs) body.line('let page = firstPage;');
    for (const task of tasks) {
      const steps = history.tasks.length > 0 ? history.steps.filter((step) => step.taskId === task.taskId) : history.steps;
      const writeTask = (): void => {
        writeSteps(steps, history.steps, context);
        body.line('');
        if (task.finalAnswer !== undefined) body.comment(`Final answer: ${task.finalAnswer}`);
        else if (task.status !== undefined) body.comment(`The task ended ${task.status}${task.error ? `: ${task.error.message}` : ''}.`);
      };
      if (tasks.length > 1) body.block(`await test.step(${strings.title(task.task)}, async () => {`, '});', writeTask);
      else writeTask();
    }
  });

  const header = new ScriptWriter(strings);
  header.comment(`Written by plannav's exportPlaywrightScript() from a recorded run of ${tasks.length === 1 ? '1 task' : `${tasks.length} tasks`}.`);
  if (resolved.baseURL !== undefined) {
    header.comment(`Pages under ${resolved.baseURL} are written as paths: set \`use.baseURL\` in the Playwright config.`);
  }
  // A module specifier must be one string literal; it is the caller's option, not recorded text.
  header.line(`import { test, expect } from ${quote(resolved.importFrom ?? '@playwright/test')};`);
  if (strings.usesVariables) {
    header.line('');
    header.comment('Recorded input read from the environment (the export option `env`).');
    header.block('function variable(name: string): string {', '}', () => {
      header.line('const value = process.env[name];');
      header.line('if (value === undefined) throw new Error("Set the environment variable " + name + ": the recorded run typed it.");');
      header.line('return value;');
    });
  }
  if (strings.usesNamed) {
    header.line('');
    header.comment('A name as the replay matches it: the whole name, any case, any spaces.');
    header.block('function named(text: string): RegExp {', '}', () => {
      header.line(`const words = text.trim().split(/\\s+/).map((word) => word.replace(/[.*+?^\${}()|[\\]\\\\]/g, "\\\\$&"));`);
      header.line('return new RegExp("^\\\\s*" + words.join("\\\\s+") + "\\\\s*$", "i");');
    });
  }
  if (strings.usesFormEncoding) {
    header.line('');
    header.comment('A text as a form submitted with GET puts it into a URL (application/x-www-form-urlencoded).');
    header.block('function formEncoded(text: string): string {', '}', () => {
      header.line('return new URLSearchParams([["", text]]).toString().slice(1);');
    });
  }
  header.line('');
  return `${header.toString()}${body.toString()}`;
}
