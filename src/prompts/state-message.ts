// The state message: the browser as it is now, the step counter and the results the model has
// not seen yet. Page content is marked untrusted so it cannot pose as instructions.

import type { PageState } from '../browser/page-state';
import type { ActionResult } from '../actions/types';
import type { ContentPart } from '../llm/types';

/** The `<` that opens one of our own tags, whatever the spacing or case. */
const ourTagOpening = /<(?=\s*\/?\s*(?:untrusted_content|user_request|plan)\b)/gi;

/**
 * Neutralises, in text that comes from a page, every tag that could pass for our own: its `<`
 * becomes `‹`. Deleting the tags instead would let nested ones rebuild a real tag
 * (`<user_req<user_request>uest>`).
 */
export function neutralizeOurTags(text: string): string {
  return text.replace(ourTagOpening, '\u2039');
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

/** Wraps page content so the model treats it as data; tags that could fake our own are neutralised. */
export function wrapUntrustedContent(content: string): string {
  return `<untrusted_content>\n${neutralizeOurTags(content)}\n</untrusted_content>`;
}

/**
 * A tab as one line of JSON. Its title and URL come from the page and stand outside the untrusted
 * block, so no angle bracket of theirs reaches the model as one (JSON's `\u003c` escapes).
 */
function tabLine(tab: { id: string; url: string; title: string; openerId?: string | undefined }): string {
  const opened = tab.openerId === undefined ? {} : { openedBy: tab.openerId };
  return JSON.stringify({ id: tab.id, url: tab.url, title: tab.title, ...opened })
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e');
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
}

function formatLocalTime(date: Date): string {
  const pad = (value: number): string => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** Builds the state message's content: text, and the screenshot when asked. */
export function buildStateMessage(input: StateMessageInput): string | ContentPart[] {
  const { state } = input;
  const otherTabs = state.tabs.filter((tab) => tab.id !== state.activeTabId);
  const lines = [
    '[Current browser state]',
    `Current tab: ${tabLine({ id: state.activeTabId, url: state.url, title: state.title, openerId: state.tabs.find((tab) => tab.id === state.activeTabId)?.openerId })}`,
  ];
  if (otherTabs.length > 0) {
    lines.push('Other tabs:', ...otherTabs.map((tab) => `- ${tabLine(tab)}`));
  }
  lines.push('Interactive elements of the current page:');
  if (state.elementsText.trim()) {
    const above = state.pixelsAbove > 0 ? `... ${state.pixelsAbove} pixels above - scroll up to see more ...\n` : '[Start of page]\n';
    const below = state.pixelsBelow > 0 ? `\n... ${state.pixelsBelow} pixels below - scroll down to see more ...` : '\n[End of page]';
    lines.push(wrapUntrustedContent(above + state.elementsText + below));
  } else {
    lines.push('(empty page)');
  }
  lines.push(`Current step: ${input.step}/${input.maxSteps}`, `Current date and time: ${formatLocalTime(input.now ?? new Date())}`);
  input.transientResults.forEach((result, position) => {
    const label = `${position + 1}/${input.transientResults.length}`;
    // Results can echo page content (a clicked element's text, extracted text): neutralised too.
    if (result.extractedContent) lines.push(`Action result ${label}: ${resultText(result.extractedContent)}`);
    if (result.error) lines.push(`Action error ${label}: ${resultText(result.error)}`);
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
