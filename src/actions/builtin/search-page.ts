// The `search_page` action: grep over the visible text of the page and its frames, with context
// around each match and a total count. No model call; it never changes the page.

import { z } from 'zod';
import type { FrameInfo } from '../../browser/types';
import type { PageTextAnswer, PageTextRequest } from '../../dom/page/actions/page-text';
import { callRuntime } from '../../dom/page-runtime';
import { ActionError } from '../../errors';
import { wrapUntrustedContent } from '../../security/injection-guard';
import { defineAction } from '../define-action';
import type { ActionContext } from '../types';
import { describeThrown } from '../../util/describe-thrown';

/** Validates what the page found in its text (the page controls the JSON it sends back). */
export const pageTextAnswerSchema: z.ZodType<PageTextAnswer> = z.object({
  total: z.number().int().nonnegative(),
  matches: z.array(z.object({ text: z.string(), before: z.string(), after: z.string() })).max(1000),
  truncated: z.boolean(),
  incomplete: z.boolean(),
  scrolledTo: z.string().max(200).nullable(),
});

/** The page text read per frame at most, in characters. */
export const maxPageTextChars = 300_000;
/** Milliseconds the matching may take in one frame before it stops and reports what it found. */
export const matchingBudgetMs = 1_500;
/** The longest listing of matches, in characters (about 5,000 tokens). */
const maxListingChars = 20_000;
/** The longest pattern accepted. */
const maxPatternLength = 500;

/** A pattern as the page's text search takes it. */
export interface TextPattern {
  readonly source: string;
  readonly flags: string;
}

/**
 * Why a regular expression could take forever (catastrophic backtracking), or `undefined` when
 * it has none of the shapes that do: a repeated group that itself repeats something (`(a+)+`,
 * `(\w*\s?)*`) or holds alternatives that may start alike (`(a|ab)*`, `(.|\s)+`). A heuristic:
 * it refuses some safe patterns and cannot catch every slow one, so the page search also caps the
 * text length and the time.
 */
export function catastrophicRegexReason(source: string): string | undefined {
  type Group = { repeatsInside: boolean; firsts: string[]; atBranchStart: boolean };
  const stack: Group[] = [{ repeatsInside: false, firsts: [], atBranchStart: true }];
  let last: { group: Group } | 'atom' | undefined;
  let inClass = false;
  const current = (): Group => stack[stack.length - 1] as Group;
  const startsBranch = (first: string): void => {
    const group = current();
    if (group.atBranchStart) {
      group.firsts.push(first);
      group.atBranchStart = false;
    }
  };
  for (let position = 0; position < source.length;) {
    const character = source[position] as string;
    if (inClass) {
      if (character === '\\') position += 2;
      else {
        if (character === ']') inClass = false;
        position++;
      }
      continue;
    }
    if (character === '\\') {
      const next = source[position + 1] ?? '';
      // A letter escape is a class (\d, \w, \s) or a special atom: it may start like anything.
      startsBranch(/[a-zA-Z0-9]/.test(next) ? '*' : next);
      last = 'atom';
      position += 2;
      continue;
    }
    if (character === '[') {
      startsBranch('*');
      inClass = true;
      last = 'atom';
      position++;
      continue;
    }
    if (character === '(') {
      startsBranch('*');
      stack.push({ repeatsInside: false, firsts: [], atBranchStart: true });
      const prefix = /^\(\?(?::|=|!|<=|<!|<[A-Za-z_$][\w$]*>)/.exec(source.slice(position));
      position += prefix ? prefix[0].length : 1;
      last = undefined;
      continue;
    }
    if (character === ')') {
      if (stack.length > 1) {
        const group = stack.pop() as Group;
        if (group.repeatsInside) current().repeatsInside = true;
        last = { group };
      } else last = 'atom';
      position++;
      continue;
    }
    if (character === '|') {
      current().atBranchStart = true;
      last = undefined;
      position++;
      continue;
    }
    const quantifier = /^(?:[*+?]|\{(\d+)(,(\d*))?\})\??/.exec(source.slice(position));
    if (quantifier && last !== undefined) {
      const token = quantifier[0];
      const maximum = quantifier[3];
      const repeats = token.startsWith('*') || token.startsWith('+') || (quantifier[2] !== undefined && (maximum === '' || Number(maximum) > 1));
      if (repeats && typeof last === 'object') {
        const { group } = last;
        if (group.repeatsInside) return 'it repeats a group that itself repeats something, such as (a+)+';
        const firsts = group.firsts;
        if (firsts.length > 1 && (firsts.includes('*') || new Set(firsts.map((first) => first.toLowerCase())).size < firsts.length)) {
          return 'it repeats a group whose alternatives can start alike, such as (a|ab)* or (.|\\s)+';
        }
      }
      // Any quantifier (even ?) inside a group makes repeating that group risky.
      current().repeatsInside = true;
      position += token.length;
      last = undefined;
      continue;
    }
    startsBranch(character === '.' || character === '^' || character === '$' ? '*' : character);
    last = 'atom';
    position++;
  }
  return undefined;
}

/** Escapes text for a regular expression; any run of whitespace matches any run of whitespace. */
export function plainTextPattern(text: string): string {
  return text
    .trim()
    .split(/\s+/)
    .map((word) => word.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
    .join('\\s+');
}

/**
 * The pattern the page's text search runs. Plain text is escaped; a regular expression is compiled here
 * first (a syntax error is the model's to fix) and refused when it could backtrack for ever.
 * @throws `ActionError` (recoverable) for an invalid or dangerous regular expression.
 */
export function textPattern(action: string, pattern: string, options: { regex: boolean; caseSensitive: boolean }): TextPattern {
  const flags = `gm${options.caseSensitive ? '' : 'i'}`;
  if (!options.regex) {
    const source = plainTextPattern(pattern);
    if (!source) throw new ActionError(action, 'The text to find is empty: give some visible text.');
    return { source, flags };
  }
  if (pattern.length > maxPatternLength)
    throw new ActionError(action, `The regular expression is too long (${pattern.length} characters, at most ${maxPatternLength}).`);
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    const message = describeThrown(error);
    throw new ActionError(action, `Invalid regular expression ${JSON.stringify(pattern)}: ${message}. Fix it, or search plain text with regex: false.`);
  }
  const danger = catastrophicRegexReason(pattern);
  if (danger) {
    throw new ActionError(
      action,
      `The regular expression ${JSON.stringify(pattern)} could take forever on a long page: ${danger}. Rewrite it without nested repetition, or search plain text with regex: false.`,
    );
  }
  return { source: pattern, flags };
}

/**
 * The frames whose text the user can see: the top frame and every child frame rendered all the
 * way up (the driver leaves `offset` out for frames that are hidden, covered or not rendered).
 */
export async function visibleFrames(context: ActionContext): Promise<FrameInfo[]> {
  const frames = await context.driver.frames({ signal: context.signal });
  const byId = new Map(frames.map((frame) => [frame.id, frame]));
  return frames.filter((frame) => {
    let current: FrameInfo | undefined = frame;
    // Bounded by the number of frames, so a malformed parent chain cannot loop.
    for (let level = 0; current?.parentId !== undefined && level <= frames.length; level++) {
      if (!current.offset) return false;
      current = byId.get(current.parentId);
    }
    return current !== undefined && current.parentId === undefined;
  });
}

/** The frame's answer to the page-text method, validated; `undefined` when the frame is gone. */
export async function readPageText(action: string, context: ActionContext, frame: FrameInfo, argument: PageTextRequest): Promise<PageTextAnswer | undefined> {
  let raw: unknown;
  try {
    raw = await callRuntime(context.driver, frame.id, 'pageText', argument, { signal: context.signal });
  } catch (error) {
    // The top frame must answer; a child frame that went away while we searched is skipped.
    if (frame.parentId === undefined) throw error;
    return undefined;
  }
  const parsed = pageTextAnswerSchema.safeParse(raw);
  if (!parsed.success) {
    if (frame.parentId === undefined) throw new ActionError(action, 'The page returned a malformed text search result; read the page again.');
    return undefined;
  }
  return parsed.data;
}

/** One line of context: line breaks of the page shown as ` | `, ends marked when cut. */
function oneLine(text: string): string {
  return text.replace(/[ \t]*\n+[ \t]*/g, ' | ').replace(/\s+/g, ' ');
}

/** Searches the page's visible text for a word, phrase or regular expression. */
export const searchPageAction = defineAction({
  name: 'search_page',
  description:
    'Find text on the current page without reading it all: lists each match of a word, phrase or regular expression with the text around it, and the number of matches. Searches the whole page (not only the visible part) and its frames. Does not scroll.',
  schema: z.object({
    pattern: z.string().min(1).max(500).describe('The text to find, or a regular expression when regex is true'),
    regex: z.boolean().default(false).describe('Treat pattern as a JavaScript regular expression; ^ and $ match at line ends'),
    case_sensitive: z.boolean().default(false).describe('Match upper and lower case exactly'),
    context_chars: z.number().int().min(0).max(1000).default(150).describe('Characters of surrounding text shown on each side of a match'),
    max_results: z.number().int().min(1).max(100).default(25).describe('How many matches to list; all are counted'),
  }),
  handler: async ({ pattern, regex, case_sensitive: caseSensitive, context_chars: contextChars, max_results: maxResults }, context) => {
    const compiled = textPattern('search_page', pattern, { regex, caseSensitive });
    const frames = await visibleFrames(context);
    const listed: { match: string; before: string; after: string; frame: FrameInfo }[] = [];
    let total = 0;
    let incomplete = false;
    let truncated = false;
    for (const frame of frames) {
      const result = await readPageText('search_page', context, frame, {
        ...compiled,
        mode: 'search',
        nth: 0,
        contextChars,
        maxResults: Math.max(0, maxResults - listed.length),
        maxTextChars: maxPageTextChars,
        timeBudgetMs: matchingBudgetMs,
      });
      if (!result) continue;
      total += result.total;
      incomplete ||= result.incomplete;
      truncated ||= result.truncated;
      for (const match of result.matches.slice(0, maxResults - listed.length)) listed.push({ ...match, match: match.text, frame });
    }
    const what = regex ? `the regular expression ${JSON.stringify(pattern)}` : JSON.stringify(pattern);
    const notes: string[] = [];
    if (truncated) notes.push(`Only the first ${maxPageTextChars} characters of text per frame were searched.`);
    if (incomplete) notes.push('The search stopped early (too many matches or too slow a pattern): the count is a lower bound.');
    if (total === 0) {
      return { extractedContent: [`No match for ${what} in the page's visible text.`, ...notes].join(' '), includeInMemory: true };
    }
    const lines: string[] = [];
    let length = 0;
    // The listing stays readable in one step: a long context on many matches is cut short.
    for (const [position, { match, before, after, frame }] of listed.entries()) {
      const start = before.length === contextChars && contextChars > 0 ? '…' : '';
      const end = after.length === contextChars && contextChars > 0 ? '…' : '';
      const where = frame.parentId === undefined ? '' : ` (in frame ${frame.url})`;
      const leading = oneLine(before).replace(/^ ?\| /, '');
      const trailing = oneLine(after).replace(/ \| ?$/, '');
      const line = `${position + 1}. ${start}${leading}**${oneLine(match)}**${trailing}${end}${where}`;
      if (lines.length > 0 && length + line.length > maxListingChars) {
        notes.unshift(`${listed.length - lines.length} more matches were left out to keep this short; lower context_chars or max_results to see them.`);
        break;
      }
      lines.push(line);
      length += line.length + 1;
    }
    const count = `${total}${incomplete ? '+' : ''} match${total === 1 ? '' : 'es'}`;
    const header = lines.length < total ? `Found ${count} for ${what}; the first ${lines.length}:` : `Found ${count} for ${what}:`;
    // The matches are page text: marked as such, so the model reads them as data, never as orders.
    return { extractedContent: [header, wrapUntrustedContent(lines.join('\n')), ...notes].join('\n'), includeInMemory: true };
  },
});
