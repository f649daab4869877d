// The page runtime's action methods as FakeBrowserDriver answers them (by the id of the script that
// calls each) from its in-memory document. Internal to plannav/testing: it must not touch tabs, history or the guard.

import type { z } from 'zod';
import { clickLandingSchema, clickTargetAnswerSchema } from '../actions/builtin/click-element';
import { dropdownAnswerSchema, selectNativeAnswerSchema } from '../actions/builtin/dropdown';
import type { ElementArgument } from '../actions/builtin/element-script';
import { fieldAnswerSchema, fieldValueAnswerSchema } from '../actions/builtin/input-text';
import { scrollTargetAnswerSchema } from '../actions/builtin/scroll';
import { pageTextAnswerSchema } from '../actions/builtin/search-page';
import { fileInputAnswerSchema, fileNamesAnswerSchema } from '../actions/builtin/upload-file';
import type { ClickTargetAnswer } from '../dom/page/actions/click';
import type { DropdownAnswer, DropdownOption, DropdownRequest, SelectNativeAnswer, SelectNativeRequest } from '../dom/page/actions/dropdown';
import type { ExtractHtmlOptions, ExtractHtmlResult } from '../dom/page/actions/extract-html';
import type { FieldAnswer, FieldValueAnswer } from '../dom/page/actions/input';
import type { PageTextAnswer, PageTextMatch, PageTextRequest } from '../dom/page/actions/page-text';
import type { TextEvidenceAnswer, TextEvidenceRequest } from '../dom/page/actions/evidence';
import type { ReactionAnswer } from '../dom/page/actions/reaction';
import type { ScrollTargetAnswer, ScrollTargetRequest } from '../dom/page/actions/scroll';
import type { FileInputAnswer, FileNamesAnswer } from '../dom/page/actions/upload';
import { runtimeScriptId, type RuntimeMethodName } from '../dom/page-runtime';
import { BrowserError } from '../errors';
import type { FakeElement } from './fake-browser-driver';

/** An element of a loaded fake document, with the state the page gives it. */
export interface LoadedElement {
  readonly elementId: string;
  readonly element: FakeElement;
  /** A field's value; for an editable element, the text typed into it. */
  value: string;
  /** Text was typed into the element: an editable element shows `value` instead of its text. */
  typed: boolean;
  /** The paths set on a file input, in order. */
  files: readonly string[];
  /** The selected options of a multiple select. */
  selected: readonly string[];
}

/** A fake document as loaded in a tab: its elements keep their ids while it stays loaded. */
export interface LoadedDocument {
  readonly url: string;
  readonly title: string;
  /** Starts every element id of this document, so an id of another document is known as stale. */
  readonly token: string;
  /** The number the next element id of this document ends with. */
  nextElement: number;
  /** The HTTP status the document came with (0 for a blank page). */
  readonly status: number;
  items: (LoadedElement | string)[];
  scrollY: number;
  pixelsBelow: number;
}

/** What a runtime method sees of its tab: the document, and whether there is an earlier page. */
export interface FakeFrame {
  readonly document: LoadedDocument;
  readonly canGoBack: boolean;
}

/**
 * The height of the fake viewport, in pixels (Playwright's default). A fake page is
 * `pixelsBelow` taller than the viewport, and its items are spread evenly over its height.
 */
const fakeViewportHeight = 720;

/** HTML input types that take typed text, as the page's inspectField counts them. */
const textTypes = new Set([
  '',
  'text',
  'search',
  'email',
  'url',
  'tel',
  'password',
  'number',
  'date',
  'time',
  'datetime-local',
  'month',
  'week',
  'range',
  'color',
]);

const collapse = (text: string): string => text.replace(/\s+/g, ' ').trim();
const cap = (text: string, limit: number): string => (text.length > limit ? `${text.slice(0, limit)}…` : text);

function attribute(element: FakeElement, name: string): string | undefined {
  return element.attributes?.[name];
}

/** An HTML boolean attribute: set by its presence, whatever its value. */
function flag(element: FakeElement, name: string): boolean {
  return attribute(element, name) !== undefined;
}

/** The input's type as the browser reports it (`text` when absent); empty for other tags. */
function inputType(element: FakeElement): string {
  return element.tag === 'input' ? (attribute(element, 'type') ?? 'text').toLowerCase() : '';
}

/** Tags a `disabled` attribute disables, as HTML has it. */
const disableable = new Set(['button', 'input', 'select', 'textarea', 'option', 'optgroup', 'fieldset']);

/** Whether the page runtime leaves the element out as disabled (`disabled` on a form control, or `aria-disabled="true"`). */
export function isDisabled(element: FakeElement): boolean {
  return (disableable.has(element.tag) && flag(element, 'disabled')) || attribute(element, 'aria-disabled') === 'true';
}

/** The text the element shows: what was typed into it, else its own text. */
function shownText(loaded: LoadedElement): string {
  return loaded.typed ? loaded.value : (loaded.element.text ?? '');
}

/**
 * What the page reads as the element's value: a field's value (a checkbox or radio without one
 * has the browser's `on`), else its rendered text (a select's option labels, one per line).
 */
function domValue(loaded: LoadedElement): string {
  const { element } = loaded;
  if (element.tag === 'input') return (inputType(element) === 'checkbox' || inputType(element) === 'radio') && !loaded.value ? 'on' : loaded.value;
  if (element.tag === 'textarea') return loaded.value;
  if (element.tag === 'select') return (element.options ?? []).join('\n');
  return shownText(loaded);
}

/** The labels of the options a select shows as selected; a single select shows its first option until another is chosen. */
export function selectedOptions(loaded: LoadedElement): readonly string[] {
  const options = loaded.element.options ?? [];
  if (flag(loaded.element, 'multiple')) return loaded.selected;
  if (options.includes(loaded.value)) return [loaded.value];
  return options.length > 0 ? [options[0] as string] : [];
}

/** Moves the page to a percentage of its scroll range or by pixels, within its content. */
export function scrollDocument(document: LoadedDocument, movement: { readonly toPercent?: number | undefined; readonly deltaY?: number | undefined }): void {
  const total = document.scrollY + document.pixelsBelow;
  const target = movement.toPercent !== undefined ? (total * movement.toPercent) / 100 : document.scrollY + (movement.deltaY ?? 0);
  const next = Math.min(total, Math.max(0, target));
  document.pixelsBelow = total - next;
  document.scrollY = next;
}

function loadedElements(document: LoadedDocument): LoadedElement[] {
  return document.items.filter((item): item is LoadedElement => typeof item !== 'string');
}

/** The element an element method names, or why it is stale (the page runtime's two reasons). */
function findElement(document: LoadedDocument, elementId: string): LoadedElement | string {
  if (!elementId.startsWith(`${document.token}-`)) return 'the page has loaded a new document since';
  return loadedElements(document).find((item) => item.elementId === elementId) ?? 'it was removed from the page';
}

/**
 * Checks an answer against its method's schema: an answer the actions would refuse as malformed
 * is a defect of this fake, and should say so rather than look like a page problem.
 */
function checked<T>(method: RuntimeMethodName, schema: z.ZodType<T>, answer: T): T {
  const parsed = schema.safeParse(answer);
  if (!parsed.success) throw new Error(`FakeBrowserDriver answered the page runtime's ${method} with something its schema refuses: ${parsed.error.message}`);
  return answer;
}

function clickTarget(frame: FakeFrame, argument: ElementArgument): ClickTargetAnswer {
  const loaded = findElement(frame.document, argument.elementId);
  if (typeof loaded === 'string') return { status: 'stale', reason: loaded };
  const element = loaded.element;
  const type = inputType(element);
  const control = ['select', 'input', 'textarea'].includes(element.tag);
  const name = collapse(
    attribute(element, 'aria-label') ||
      (control ? '' : shownText(loaded)) ||
      attribute(element, 'title') ||
      attribute(element, 'alt') ||
      attribute(element, 'placeholder') ||
      attribute(element, 'name') ||
      (type === 'submit' || type === 'button' ? loaded.value : ''),
  );
  const short = cap(name, 60);
  const description = `<${element.tag}${type ? ` type=${type}` : ''}>${short ? ` ${JSON.stringify(short)}` : ''}`;
  const kind = element.tag === 'select' ? 'select' : type === 'file' ? 'file' : 'other';
  return { status: 'ok', kind, description };
}

function inspectField(frame: FakeFrame, argument: ElementArgument): FieldAnswer {
  const loaded = findElement(frame.document, argument.elementId);
  if (typeof loaded === 'string') return { status: 'stale', reason: loaded };
  const element = loaded.element;
  const input = element.tag === 'input';
  const type = input ? inputType(element) : element.tag;
  const editable = attribute(element, 'contenteditable');
  let kind: Extract<FieldAnswer, { status: 'ok' }>['kind'] = 'none';
  if (element.tag === 'select') kind = 'select';
  else if (input && (type === 'checkbox' || type === 'radio')) kind = 'toggle';
  else if (input && type === 'file') kind = 'file';
  else if (input && !textTypes.has(type)) kind = 'button';
  else if (input || element.tag === 'textarea') kind = 'value';
  else if (editable !== undefined && editable !== 'false') kind = 'content';
  // Only a datalist: the fake has no ARIA lists, and a combobox said to offer suggestions would
  // only make input_text wait for a list that cannot appear (the result reads the same).
  const suggestions = input && element.options !== undefined;
  const name = collapse(
    attribute(element, 'aria-label') || attribute(element, 'placeholder') || attribute(element, 'name') || attribute(element, 'title') || '',
  );
  const short = cap(name, 60);
  const textField = input || element.tag === 'textarea';
  const maxLength = Number.parseInt(attribute(element, 'maxlength') ?? '', 10);
  return {
    status: 'ok',
    kind,
    type,
    tagName: element.tag,
    description: `<${element.tag}${input ? ` type=${type}` : ''}>${short ? ` ${JSON.stringify(short)}` : ''}`,
    targetId: null,
    suggestions,
    password: type === 'password',
    readOnly: (textField && flag(element, 'readonly')) || attribute(element, 'aria-readonly') === 'true',
    disabled: isDisabled(element),
    maxLength: textField && Number.isInteger(maxLength) && maxLength >= 0 ? maxLength : null,
  };
}

function fieldValue(frame: FakeFrame, argument: ElementArgument): FieldValueAnswer {
  const loaded = findElement(frame.document, argument.elementId);
  if (typeof loaded === 'string') return { status: 'stale', reason: loaded };
  const value = domValue(loaded);
  const secret = inputType(loaded.element) === 'password';
  return { status: 'ok', value: secret ? null : value.slice(0, 100_000), length: value.length };
}

function readDropdown(frame: FakeFrame, argument: DropdownRequest): DropdownAnswer {
  const loaded = findElement(frame.document, argument.elementId);
  if (typeof loaded === 'string') return { status: 'stale', reason: loaded };
  const element = loaded.element;
  const role = attribute(element, 'role') ?? '';
  const name = cap(
    collapse(
      attribute(element, 'aria-label') ||
        attribute(element, 'placeholder') ||
        attribute(element, 'name') ||
        (element.tag === 'select' ? '' : shownText(loaded)),
    ),
    60,
  );
  const description = `<${element.tag}${role ? ` role=${role}` : ''}>${name ? ` "${name}"` : ''}`;
  const limit = 500;
  const option = (text: string, value: string | null, selected: boolean): DropdownOption => ({
    text,
    value,
    selected,
    disabled: false,
    group: null,
    elementId: null,
  });

  if (element.tag === 'select') {
    const all = element.options ?? [];
    const selected = selectedOptions(loaded);
    const options = all.slice(0, limit).map((text) => option(text, text, selected.includes(text)));
    return {
      status: 'ok',
      kind: 'native',
      multiple: flag(element, 'multiple'),
      options,
      total: all.length,
      display: cap(selected.join(', '), 1000),
      description,
      within: false,
    };
  }
  const display = cap(domValue(loaded), 1000);
  if (element.tag === 'input' && element.options !== undefined) {
    const wanted = (argument.filter ?? '').toLowerCase();
    const all = element.options.filter((text) => !wanted || text.toLowerCase().includes(wanted));
    const options = all.slice(0, limit).map((text) => option(text, null, false));
    return { status: 'ok', kind: 'datalist', multiple: false, options, total: all.length, display, description, within: false };
  }
  // The fake has no ARIA lists: a trigger reads as one whose list is closed, so a click cannot open it.
  const trigger =
    role === 'combobox' ||
    (flag(element, 'aria-haspopup') && attribute(element, 'aria-haspopup') !== 'false') ||
    flag(element, 'aria-expanded') ||
    flag(element, 'aria-autocomplete');
  return { status: 'ok', kind: trigger ? 'closed' : 'none', multiple: false, options: [], total: 0, display, description, within: false };
}

function selectNative(frame: FakeFrame, argument: SelectNativeRequest): SelectNativeAnswer {
  const loaded = findElement(frame.document, argument.elementId);
  if (typeof loaded === 'string') return { status: 'stale', reason: loaded };
  if (loaded.element.tag !== 'select') return { status: 'ok', selected: [] };
  const selected = (loaded.element.options ?? []).filter((_, position) => argument.indices.includes(position));
  loaded.selected = selected;
  loaded.value = selected.join(', ');
  return { status: 'ok', selected };
}

/** One line of the page's visible text and the item it belongs to. */
interface TextLine {
  readonly start: number;
  readonly item: number;
  readonly tag: string;
}

/** The page's visible text, one line per item: text lines and element texts; form fields show none (as on a real page). */
function pageText(document: LoadedDocument, maxChars: number): { text: string; lines: TextLine[]; truncated: boolean } {
  const lines: TextLine[] = [];
  let text = '';
  for (const [position, item] of document.items.entries()) {
    const line =
      typeof item === 'string' ? collapse(item) : ['input', 'select', 'textarea', 'option'].includes(item.element.tag) ? '' : collapse(shownText(item));
    if (!line) continue;
    // Each item is a block of its own, ended by a line break, as the page reads blocks.
    lines.push({ start: text.length, item: position, tag: typeof item === 'string' ? 'p' : item.element.tag });
    text += `${line}\n`;
    if (text.length > maxChars) return { text: text.slice(0, maxChars), lines, truncated: true };
  }
  return { text, lines, truncated: false };
}

function searchPageText(frame: FakeFrame, argument: PageTextRequest): PageTextAnswer {
  const document = frame.document;
  const { text, lines, truncated } = pageText(document, argument.maxTextChars);
  const pattern = new RegExp(argument.source, argument.flags.includes('g') ? argument.flags : `${argument.flags}g`);
  const matches: PageTextMatch[] = [];
  const started = Date.now();
  let total = 0;
  let incomplete = false;
  let target: number | undefined;
  // Bounded: lastIndex only moves forward, and empty matches step it on by one.
  for (let steps = 0; steps <= text.length + 1; steps++) {
    const match = pattern.exec(text);
    if (!match) break;
    if (match[0].length === 0) {
      pattern.lastIndex = match.index + 1;
      continue;
    }
    total++;
    if (argument.mode === 'search' && matches.length < Math.min(argument.maxResults, 1000)) {
      const end = match.index + match[0].length;
      matches.push({
        text: match[0].slice(0, 300),
        before: text.slice(Math.max(0, match.index - argument.contextChars), match.index),
        after: text.slice(end, end + argument.contextChars),
      });
    }
    if (argument.mode === 'scroll' && total === argument.nth) {
      target = match.index;
      break;
    }
    if (total >= 10_000 || Date.now() - started > argument.timeBudgetMs) {
      incomplete = true;
      break;
    }
  }
  let scrolledTo: string | null = null;
  const line = target === undefined ? undefined : lines.filter((candidate) => candidate.start <= target).at(-1);
  if (line) {
    // Centre the item's share of the page's height in the viewport.
    const height = document.scrollY + fakeViewportHeight + document.pixelsBelow;
    const middle = (height * (line.item + 0.5)) / Math.max(1, document.items.length);
    scrollDocument(document, { deltaY: middle - fakeViewportHeight / 2 - document.scrollY });
    scrolledTo = `<${line.tag}>`;
  }
  return { total, matches, truncated, incomplete, scrolledTo };
}

function scrollTarget(frame: FakeFrame, argument: ScrollTargetRequest): ScrollTargetAnswer {
  const document = frame.document;
  if (argument.elementId !== null) {
    const loaded = findElement(document, argument.elementId);
    if (typeof loaded === 'string') return { status: 'stale', reason: loaded };
  }
  // The fake has no scroll areas: an element's scroll area is the page.
  if (argument.scroll) scrollDocument(document, { toPercent: argument.scroll.toPercent ?? undefined, deltaY: argument.scroll.deltaY ?? undefined });
  return {
    status: 'ok',
    kind: 'document',
    top: document.scrollY,
    scrollHeight: document.scrollY + fakeViewportHeight + document.pixelsBelow,
    viewport: fakeViewportHeight,
    label: '',
  };
}

function findFileInput(frame: FakeFrame, argument: ElementArgument): FileInputAnswer {
  const loaded = findElement(frame.document, argument.elementId);
  if (typeof loaded === 'string') return { status: 'stale', reason: loaded };
  const element = loaded.element;
  const name = cap(collapse(attribute(element, 'aria-label') || shownText(loaded) || attribute(element, 'name') || ''), 60);
  const description = `<${element.tag}>${name ? ` ${JSON.stringify(name)}` : ''}`;
  // The fake has no labels or nesting: only a file input itself holds a file input.
  if (inputType(element) !== 'file') return { status: 'none', description };
  return {
    status: 'ok',
    targetId: null,
    via: 'self',
    multiple: flag(element, 'multiple'),
    accept: (attribute(element, 'accept') ?? '').slice(0, 1000),
    description,
  };
}

function fileNames(frame: FakeFrame, argument: ElementArgument): FileNamesAnswer {
  const loaded = findElement(frame.document, argument.elementId);
  if (typeof loaded === 'string') return { status: 'stale', reason: 'it was removed from the page' };
  return { status: 'ok', names: loaded.files.slice(0, 1000).map((path) => (path.split(/[\\/]/).pop() ?? path).slice(0, 1000)) };
}

const escapeText = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttribute = (text: string): string => escapeText(text).replace(/"/g, '&quot;');

/** A link's absolute URL, as the page runtime keeps it: web and mail schemes only. */
function absoluteUrl(href: string, base: string): string | undefined {
  try {
    const url = new URL(href, base);
    return ['http:', 'https:', 'mailto:', 'tel:', 'ftp:'].includes(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** One element as the extraction HTML shows it: links with their URL, fields as bracketed text as the page runtime writes them. */
function elementHtml(loaded: LoadedElement, base: string): string {
  const element = loaded.element;
  const text = escapeText(collapse(shownText(loaded)));
  const field = (value: string): string => escapeText(cap(collapse(value), 300));
  if (attribute(element, 'aria-hidden') === 'true') return '';
  switch (element.tag) {
    case 'a': {
      const url = element.href ?? attribute(element, 'href');
      const absolute = url === undefined ? undefined : absoluteUrl(url, base);
      return absolute && text ? `<a href="${escapeAttribute(absolute)}">${text}</a>` : text;
    }
    case 'select': {
      const options = element.options ?? [];
      return `(selected: ${selectedOptions(loaded).map(field).join(', ') || 'none'}; options: ${options.slice(0, 50).map(field).join(' / ')}${options.length > 50 ? ` / … ${options.length} in all` : ''})`;
    }
    case 'textarea':
      return loaded.value.trim() ? `(field: ${field(loaded.value)})` : '';
    case 'input': {
      const type = inputType(element);
      if (type === 'checkbox' || type === 'radio') return flag(element, 'checked') ? '(checked)' : '(not checked)';
      if (type === 'submit' || type === 'button' || type === 'reset') return field(loaded.value || element.text || '');
      if (textTypes.has(type) && type !== 'password' && loaded.value.trim()) return `(field: ${field(loaded.value)})`;
      // hidden, password and file inputs show nothing worth extracting.
      return '';
    }
    default:
      return text;
  }
}

function extractHtml(frame: FakeFrame, options: ExtractHtmlOptions): ExtractHtmlResult {
  const document = frame.document;
  const maxChars = Math.max(1000, options.maxChars);
  const parts: string[] = document.title ? [`<h1>${escapeText(collapse(document.title))}</h1>`] : [];
  for (const item of document.items) {
    const body = typeof item === 'string' ? escapeText(collapse(item)) : elementHtml(item, document.url);
    if (body) parts.push(`<p>${body}</p>`);
  }
  const html = parts.join('');
  return { url: document.url, title: document.title, html: html.slice(0, maxChars), truncated: html.length > maxChars };
}

type Answer = (frame: FakeFrame, argument: never) => unknown;

/** The implicit ARIA roles of the tags fake pages use. */
const implicitRoles: Readonly<Record<string, string>> = { a: 'link', button: 'button', select: 'combobox', textarea: 'textbox', h1: 'heading', h2: 'heading' };

/** An element's fingerprint as the page runtime's `fingerprints` gives it: from its tag, text and attributes, its place among the items, its box. */
function fingerprintOf(document: LoadedDocument, loaded: LoadedElement): unknown {
  const { element } = loaded;
  const attributes = Object.fromEntries(
    Object.entries(element.attributes ?? {}).filter(([name]) =>
      ['id', 'name', 'type', 'href', 'placeholder', 'aria-label', 'title', 'alt', 'role', 'for', 'data-testid'].includes(name),
    ),
  );
  if (element.href !== undefined) attributes.href = element.href;
  const type = inputType(element);
  const role =
    attribute(element, 'role') ??
    (element.tag === 'input' ? (type === 'checkbox' ? 'checkbox' : type === 'submit' ? 'button' : 'textbox') : implicitRoles[element.tag]);
  const elements = loadedElements(document);
  const sameTag = elements.filter((item) => item.element.tag === element.tag);
  const position = sameTag.indexOf(loaded) + 1;
  const index = document.items.indexOf(loaded);
  const step = (fakeViewportHeight + document.scrollY + document.pixelsBelow) / Math.max(1, document.items.length);
  const text = cap(collapse(shownText(loaded)), 200);
  return {
    tagName: element.tag,
    ...(role ? { role } : {}),
    name: cap(collapse(attribute(element, 'aria-label') ?? (element.text || attribute(element, 'placeholder') || '')), 200),
    text,
    attributes,
    xpath: `/html/body/${element.tag}${sameTag.length > 1 ? `[${position}]` : ''}`,
    cssPath: attributes.id ? `#${attributes.id}` : `body > ${element.tag}:nth-of-type(${position})`,
    ancestors: [{ tagName: 'body' }],
    box: { x: 8, y: Math.round(index * step), width: 200, height: 20 },
  };
}

/**
 * A method the fake cannot act out: it answers with an error naming the method, never with an
 * answer a real page would not give.
 */
function unsupported(method: RuntimeMethodName, why: string): Answer {
  return () => {
    throw new BrowserError(`FakeBrowserDriver cannot run the page runtime's ${method}: ${why}.`);
  };
}

/** The addresses of the document's elements whose `rel` holds `next`, absolute, once each, as the page's nextLinks reads them. */
function nextLinksOf(document: LoadedDocument): string[] {
  const next: string[] = [];
  for (const item of document.items) {
    if (typeof item === 'string' || item.element.href === undefined) continue;
    const rel = (item.element.attributes?.rel ?? '').toLowerCase().split(/\s+/);
    const href = new URL(item.element.href, document.url).href;
    if (rel.includes('next') && /^https?:/i.test(href) && !next.includes(href)) next.push(href);
  }
  return next;
}

/** A fake page's text split like the page's textEvidence: fake pages have no styles, so all their text is seen; alt, aria-label and title are not. */
function textEvidence(frame: FakeFrame, argument: TextEvidenceRequest): TextEvidenceAnswer {
  const seen = collapse(pageText(frame.document, argument.maxChars).text).slice(0, argument.maxChars);
  const unseen: string[] = [];
  for (const item of frame.document.items) {
    if (typeof item === 'string') continue;
    for (const name of ['alt', 'aria-label', 'title', 'aria-description']) {
      const value = attribute(item.element, name);
      if (value) unseen.push(value);
    }
  }
  return { seen, unseen: unseen.join(' ').slice(0, argument.maxChars) };
}

/** Fake pages change only through click handlers and updateContent, never on their own after typing. */
const noReaction: ReactionAnswer = { outcome: 'unchanged', waitedMs: 0 };

/** The action methods of the page runtime as the fake answers them; each answer is checked against the action's schema. */
const actionAnswers: { readonly [M in RuntimeMethodName]?: Answer } = {
  clickTarget: (frame, argument: ElementArgument) => checked('clickTarget', clickTargetAnswerSchema, clickTarget(frame, argument)),
  // Fake clicks run the element's own handlers: they always land where they were aimed.
  watchClick: (frame, argument: ElementArgument) => {
    const found = findElement(frame.document, argument.elementId);
    return typeof found === 'string' ? { status: 'stale', reason: found } : { status: 'ok' };
  },
  clickLanding: () => checked('clickLanding', clickLandingSchema, { status: 'ok', landed: true, press: null, release: null, click: null }),
  awaitStableBox: (frame, argument: { readonly locator: ElementArgument }) => {
    const found = findElement(frame.document, argument.locator.elementId);
    return typeof found === 'string' ? { status: 'stale', reason: found } : { status: 'ok', stable: true };
  },
  inspectField: (frame, argument: ElementArgument) => checked('inspectField', fieldAnswerSchema, inspectField(frame, argument)),
  fieldValue: (frame, argument: ElementArgument) => checked('fieldValue', fieldValueAnswerSchema, fieldValue(frame, argument)),
  watchTyping: (frame, argument: ElementArgument) => typeof findElement(frame.document, argument.elementId) !== 'string',
  awaitReaction: () => noReaction,
  readDropdown: (frame, argument: DropdownRequest) => checked('readDropdown', dropdownAnswerSchema, readDropdown(frame, argument)),
  selectNative: (frame, argument: SelectNativeRequest) => checked('selectNative', selectNativeAnswerSchema, selectNative(frame, argument)),
  pageText: (frame, argument: PageTextRequest) => checked('pageText', pageTextAnswerSchema, searchPageText(frame, argument)),
  textEvidence: (frame, argument: TextEvidenceRequest) => textEvidence(frame, argument),
  scrollTarget: (frame, argument: ScrollTargetRequest) => checked('scrollTarget', scrollTargetAnswerSchema, scrollTarget(frame, argument)),
  scrollFrameIntoView: unsupported('scrollFrameIntoView', 'fake pages have no inner frames'),
  findFileInput: (frame, argument: ElementArgument) => checked('findFileInput', fileInputAnswerSchema, findFileInput(frame, argument)),
  fileNames: (frame, argument: ElementArgument) => checked('fileNames', fileNamesAnswerSchema, fileNames(frame, argument)),
  extractHtml: (frame, argument: ExtractHtmlOptions) => extractHtml(frame, argument),
  canGoBack: (frame) => frame.canGoBack,
  hasFocus: unsupported('hasFocus', 'fake pages have no keyboard focus'),
  nextLinks: (frame) => ({ next: nextLinksOf(frame.document), status: frame.document.status }),
  // click_coordinates: the fake viewport, as wide as Playwright's default.
  viewportSize: () => ({ width: 1280, height: fakeViewportHeight }),
  // wait_for_text: fake pages show all their text (they have no styles).
  textShown: (frame, argument: { readonly text: string }) =>
    collapse(pageText(frame.document, Number.MAX_SAFE_INTEGER).text).toLowerCase().includes(collapse(argument.text).toLowerCase()),
  fingerprints: (frame, argument: { readonly elements: readonly { readonly elementId: string }[] }) =>
    argument.elements.map(({ elementId }) => {
      const found = findElement(frame.document, elementId);
      return typeof found === 'string' ? null : fingerprintOf(frame.document, found);
    }),
};

/** The answer to each action method of the page runtime, by the id of the script that calls it. */
export const fakePageScripts: ReadonlyMap<string, Answer> = new Map(
  Object.entries(actionAnswers).map(([method, answer]) => [runtimeScriptId(method as RuntimeMethodName), answer]),
);
