// The state message: the browser as it is now, the step counter and the results the model has
// not seen yet. Everything a page wrote or chose sits inside <untrusted_content> blocks, with our
// tags neutralised; detection (security/injection-guard.ts) flags patterns in it, as a signal.

import type { PageState } from '../browser/page-state';
import type { ActionResult } from '../actions/types';
import type { InjectionFinding } from '../events';
import type { ContentPart } from '../llm/types';
import { guardText, injectionFlag, mergeFindings, neutralizePromptTags, wrapUntrustedContent } from '../security/injection-guard';

/**
 * Neutralises, in text that comes from a page, every tag that could pass for our own, whatever
 * its spacing, case, entities, look-alike brackets or zero-width characters: its `<` becomes `‹`.
 * Deleting the tags instead would let nested ones rebuild a real tag (`<user_req<user_request>uest>`).
 */
export function neutralizeOurTags(text: string): string {
  return neutralizePromptTags(text);
}

/**
 * An action's result or error as the model reads it: our tags neutralised, and every line after
 * the first indented, so text a page put into a result (an attribute with a line break, a
 * heading) cannot start a line that looks like another result or a part of the prompt.
 */
export function resultText(text: string): string {
  // A result may hold page content marked as such (`wrapUntrustedContent`, as extract_content
  // does): such a block keeps its real tags around its neutralised body. Every other tag is
  // neutralised, so no result can close a block it did not open.
  const parts: string[] = [];
  let last = 0;
  for (const match of text.matchAll(/<untrusted_content>\n([\s\S]*?)\n<\/untrusted_content>/g)) {
    parts.push(neutralizeOurTags(text.slice(last, match.index)), `<untrusted_content>\n${neutralizeOurTags(match[1] ?? '')}\n</untrusted_content>`);
    last = match.index + match[0].length;
  }
  parts.push(neutralizeOurTags(text.slice(last)));
  return parts.join('').replace(/\r\n?|[\n\u2028\u2029]/g, '\n  ');
}

/** A URL as a person reads it: percent-escapes decoded where that is valid (an instruction in a query reads as words). */
function readableUrl(url: string): string {
  try {
    return decodeURI(url);
  } catch {
    return url;
  }
}

/**
 * A tab as one line of JSON. Its title and URL come from the page: they sit inside the untrusted
 * block with the page's text, and no angle bracket of theirs reaches the model as one (JSON's
 * `\u003c` escapes). With detection on, the title is guarded like page text and the URL (decoded)
 * is scanned, with a warning beside it (a flag inside it would spoil an address the model copies).
 */
function tabLine(
  tab: { id: string; url: string; title: string; openerId?: string | undefined },
  detect: boolean,
  report: (url: string, findings: readonly InjectionFinding[]) => void,
  pageFindings: readonly InjectionFinding[] = [],
): string {
  const opened = tab.openerId === undefined ? {} : { openedBy: tab.openerId };
  const shownUrl = readableUrl(tab.url);
  const title = detect ? guardText(tab.title) : { text: neutralizeOurTags(tab.title), findings: [] };
  const url = detect ? guardText(shownUrl, 'url') : { text: shownUrl, findings: [] };
  const warning = url.findings.length > 0 ? { warning: `${injectionFlag} in the URL` } : {};
  report(tab.url, mergeFindings([pageFindings, title.findings, url.findings]));
  return JSON.stringify({ id: tab.id, url: shownUrl, title: title.text, ...opened, ...warning })
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e');
}

/**
 * An action's result or error inside its own untrusted block: results quote pages (a clicked
 * element's text, extracted content, an error a page caused). A block the result already holds
 * is opened, so blocks never nest and nothing in the result can close the outer one.
 */
export function untrustedResult(label: string, text: string): string {
  const unwrapped = text.replace(/<untrusted_content>\n([\s\S]*?)\n<\/untrusted_content>/g, '$1');
  return `${label}:\n${wrapUntrustedContent(unwrapped.replace(/\r\n?|[\u2028\u2029]/g, '\n'))}`;
}

/** What the state message is built from. */
export interface StateMessageInput {
  readonly state: PageState;
  readonly step: number;
  readonly maxSteps: number;
  /** Results of the previous step not kept in memory: shown once, here. */
  readonly transientResults: readonly ActionResult[];
  /** Attach the screenshot as an image part. */
  readonly includeScreenshot: boolean;
  readonly now?: Date | undefined;
  /**
   * Hears what the injection guard found, once per page shown (the current one, then each other
   * tab), with that page's URL. The text is guarded whether or not this is given.
   */
  readonly onInjection?: ((url: string, findings: readonly InjectionFinding[]) => void) | undefined;
  /**
   * Run the injection guard's detection (flags and findings). Off, page text is only kept inside
   * the boundary with our tags neutralised. @defaultValue true
   */
  readonly detectInjections?: boolean | undefined;
}

/** The open dialog and the dialogs closed since the last state, as page text (the page wrote their messages). */
function dialogLines(state: PageState): string[] {
  const lines: string[] = [];
  const quote = (text: string): string => JSON.stringify(neutralizeOurTags(text).slice(0, 500));
  if (state.closedDialogs && state.closedDialogs.length > 0) {
    lines.push('Dialogs the page showed since your last step:');
    for (const dialog of state.closedDialogs) {
      const answer = dialog.accepted ? `accepted${dialog.text !== undefined ? ` with ${quote(dialog.text)}` : ''}` : 'dismissed';
      const by = dialog.answeredBy === 'timeout' ? ' because nobody answered it in time' : dialog.answeredBy === 'driver' ? ' by the browser' : '';
      lines.push(`- ${dialog.type} ${quote(dialog.message)}: ${answer}${by}`);
    }
  }
  if (state.dialog) {
    const preset = state.dialog.defaultValue !== undefined ? ` (default answer ${quote(state.dialog.defaultValue)})` : '';
    lines.push(`Open dialog (${state.dialog.type}): ${quote(state.dialog.message)}${preset}`);
  }
  return lines;
}

function formatLocalTime(date: Date): string {
  const pad = (value: number): string => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** Builds the state message's content: text, and the screenshot when asked. */
export function buildStateMessage(input: StateMessageInput): string | ContentPart[] {
  const { state } = input;
  const report = (url: string, findings: readonly InjectionFinding[]): void => {
    if (findings.length > 0) input.onInjection?.(url, findings);
  };
  const detect = input.detectInjections ?? true;
  const otherTabs = state.tabs.filter((tab) => tab.id !== state.activeTabId);
  // The page's own text, guarded before any model reads it; its findings go with its tab line.
  const elements = detect ? guardText(state.elementsText) : { text: state.elementsText, findings: [] };
  const current = { id: state.activeTabId, url: state.url, title: state.title, openerId: state.tabs.find((tab) => tab.id === state.activeTabId)?.openerId };
  // Everything the pages chose (titles, URLs, text) in one untrusted block; our own lines outside.
  const page = [`Current tab: ${tabLine(current, detect, report, elements.findings)}`];
  if (otherTabs.length > 0) {
    page.push('Other tabs:', ...otherTabs.map((tab) => `- ${tabLine(tab, detect, report)}`));
  }
  page.push('Interactive elements of the current page:');
  if (elements.text.trim()) {
    const above = state.pixelsAbove > 0 ? `... ${state.pixelsAbove} pixels above - scroll up to see more ...\n` : '[Start of page]\n';
    const below = state.pixelsBelow > 0 ? `\n... ${state.pixelsBelow} pixels below - scroll down to see more ...` : '\n[End of page]';
    page.push(above + elements.text + below);
  } else {
    page.push('(empty page)');
  }
  page.push(...dialogLines(state));
  const lines = ['[Current browser state]', wrapUntrustedContent(page.join('\n'))];
  if (state.dialog) {
    lines.push(
      `A ${state.dialog.type} dialog is open in the current tab (its text is above): the page is blocked until it is answered. Answer it with handle_dialog (accept: true for OK, false for Cancel; text for a prompt's answer).`,
    );
  }
  lines.push(`Current step: ${input.step}/${input.maxSteps}`, `Current date and time: ${formatLocalTime(input.now ?? new Date())}`);
  input.transientResults.forEach((result, position) => {
    const label = `${position + 1}/${input.transientResults.length}`;
    // Results can echo page content (a clicked element's text, extracted text): inside the boundary.
    if (result.extractedContent) lines.push(untrustedResult(`Action result ${label}`, result.extractedContent));
    if (result.error) lines.push(untrustedResult(`Action error ${label}`, result.error));
  });
  const text = lines.join('\n');
  if (input.includeScreenshot && state.screenshot) {
    return [
      { type: 'text', text },
      { type: 'image', data: state.screenshot, mediaType: 'image/jpeg' },
    ];
  }
  return text;
}
