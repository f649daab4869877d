// Finds the one JSON object in a model's text reply: reasoning blocks, code fences and prose
// around it are tolerated. It never evaluates anything, and its work grows linearly with the
// reply (a degenerate reply of a million `{` must not hold the process), up to a size limit.

/**
 * The longest reply {@link extractJson} reads, in characters. A longer one is not searched: it
 * counts as unusable output (the model is asked once more, then the call fails with a
 * `ChatModelOutputError` that says so). Real replies are far shorter; the output token limit
 * keeps them so.
 */
export const maxJsonReplyCharacters = 4_000_000;

/**
 * How many times the object finder starts again from a brace that an earlier pass read as part
 * of a string (a reply that broke off one object inside a string and began another). Each pass
 * is one walk over the rest of the reply, so this bounds the finder's work to a few walks.
 */
const maxFinderPasses = 4;

/**
 * How many object-like spans are parsed at most before the search gives up. A failed parse
 * costs an exception: a reply of a hundred thousand `{"a" }` would otherwise take seconds.
 */
const maxParseAttempts = 1_000;

const reasoningNames = ['think', 'thinking', 'reasoning'] as const;
const reasoningOpening = /<(think|thinking|reasoning)>/gi;
const reasoningClosing = /<\/(think|thinking|reasoning)>/i;
// The info string after an opening fence: a language tag, spaces, the line break. Every part is
// optional and nothing follows in the pattern, so it never backtracks.
const fenceInfo = /[a-zA-Z0-9_-]*[ \t]*\r?\n?/y;

const openBrace = 0x7b;
const closeBrace = 0x7d;
const closeBracket = 0x5d;
const quote = 0x22;
const backslash = 0x5c;
const comma = 0x2c;

function isJsonWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/** Writes 4000000 as "4,000,000" without depending on the runtime's locale data. */
export function groupDigits(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * Removes `<think>`-style reasoning from a model's reply, including an unclosed prefix.
 * A block runs from its opening tag to the first closing tag of the same name; an opening tag
 * with no closing tag after it stays, as does everything after it.
 */
export function stripReasoning(text: string): string {
  const closings = new Map(reasoningNames.map((name) => [name, new RegExp(`</${name}>`, 'gi')]));
  // A name whose closing tag was not found after some opening is not looked for again: every
  // later opening would scan to the end of the text for nothing.
  const unclosed = new Set<string>();
  const kept: string[] = [];
  let copiedTo = 0;
  const opening = new RegExp(reasoningOpening);
  for (let match = opening.exec(text); match; match = opening.exec(text)) {
    const name = (match[1] as string).toLowerCase();
    if (unclosed.has(name)) continue;
    const closing = closings.get(name as (typeof reasoningNames)[number]) as RegExp;
    closing.lastIndex = opening.lastIndex;
    if (!closing.exec(text)) {
      unclosed.add(name);
      continue;
    }
    kept.push(text.slice(copiedTo, match.index));
    copiedTo = closing.lastIndex;
    opening.lastIndex = copiedTo;
  }
  kept.push(text.slice(copiedTo));
  const withoutBlocks = kept.join('');
  // Reasoning whose opening tag was cut off: everything up to the first closing tag goes.
  const stray = reasoningClosing.exec(withoutBlocks);
  const result = stray ? withoutBlocks.slice(stray.index + stray[0].length) : withoutBlocks;
  return result.trim();
}

/** Removes commas before a closing brace or bracket, outside strings. */
function withoutTrailingCommas(text: string): string {
  const kept: string[] = [];
  let copiedTo = 0;
  let inString = false;
  for (let position = 0; position < text.length; position++) {
    const code = text.charCodeAt(position);
    if (inString) {
      if (code === backslash) position++;
      else if (code === quote) inString = false;
    } else if (code === quote) {
      inString = true;
    } else if (code === comma) {
      // The look-ahead stops at the first other character: at worst the next comma.
      let next = position + 1;
      while (next < text.length && isJsonWhitespace(text.charCodeAt(next))) next++;
      const following = text.charCodeAt(next);
      if (following === closeBrace || following === closeBracket) {
        kept.push(text.slice(copiedTo, position));
        copiedTo = position + 1;
      }
    }
  }
  if (copiedTo === 0) return text;
  kept.push(text.slice(copiedTo));
  return kept.join('');
}

function tryParse(candidate: string): { ok: true; value: unknown } | undefined {
  const trimmed = candidate.trim();
  if (!trimmed) return undefined;
  try {
    return { ok: true, value: JSON.parse(trimmed) as unknown };
  } catch {
    // perhaps only trailing commas are wrong
  }
  const repaired = withoutTrailingCommas(trimmed);
  if (repaired === trimmed) return undefined;
  try {
    return { ok: true, value: JSON.parse(repaired) as unknown };
  } catch {
    return undefined;
  }
}

/** Yields the body of each code fence, in order. */
function* fencedBlocks(text: string): Generator<string> {
  let opening = text.indexOf('```');
  while (opening !== -1) {
    fenceInfo.lastIndex = opening + 3;
    fenceInfo.exec(text);
    const bodyStart = fenceInfo.lastIndex;
    const closing = text.indexOf('```', bodyStart);
    // No closing fence after this one means none after any later one either.
    if (closing === -1) return;
    yield text.slice(bodyStart, closing);
    opening = text.indexOf('```', closing + 3);
  }
}

/** A span of the text, `end` exclusive. */
interface Span {
  readonly start: number;
  readonly end: number;
}

/**
 * One walk from `from`: the outermost balanced `{…}` spans, in order, honouring strings and
 * escapes. Quotes between objects are prose and open no string. A brace that never closes is
 * skipped and the spans inside it still count. `restartAt` is the first brace read as part of a
 * string inside a brace that never closed: a fresh walk from there reads it as an object.
 */
function walkObjects(text: string, from: number): { spans: Span[]; restartAt: number | undefined } {
  const spans: Span[] = [];
  const open: number[] = [];
  let inString = false;
  let braceInString: number | undefined;
  for (let position = text.indexOf('{', from); position !== -1 && position < text.length; position++) {
    if (open.length === 0) {
      // Between objects: jump to the next brace.
      position = text.indexOf('{', position);
      if (position === -1) break;
      open.push(position);
      inString = false;
      braceInString = undefined;
      continue;
    }
    const code = text.charCodeAt(position);
    if (inString) {
      if (code === backslash) position++;
      else if (code === quote) inString = false;
      else if (code === openBrace) braceInString ??= position;
    } else if (code === quote) {
      inString = true;
    } else if (code === openBrace) {
      open.push(position);
    } else if (code === closeBrace) {
      const start = open.pop() as number;
      // The spans found inside this one give way to it: only outermost spans are candidates.
      while (spans.length > 0 && (spans[spans.length - 1] as Span).start > start) spans.pop();
      spans.push({ start, end: position + 1 });
    }
  }
  return { spans, restartAt: open.length > 0 ? braceInString : undefined };
}

/**
 * Every candidate object span of `text`, by position: the outermost balanced spans of a first
 * walk, then of a few more walks from braces that an unclosed string had swallowed. Linear: at
 * most {@link maxFinderPasses} walks.
 */
function objectCandidates(text: string): Span[] {
  const first = walkObjects(text, 0);
  if (first.restartAt === undefined) return first.spans;
  const found = new Map<number, Span>(first.spans.map((span) => [span.start, span]));
  let from: number | undefined = first.restartAt;
  for (let pass = 1; pass < maxFinderPasses && from !== undefined; pass++) {
    const walk = walkObjects(text, from);
    for (const span of walk.spans) if (!found.has(span.start)) found.set(span.start, span);
    from = walk.restartAt;
  }
  return [...found.values()].sort((left, right) => left.start - right.start);
}

/** Whether a span can be a JSON object at all: `{` then `"` or `}`, after whitespace. Saves parsing prose. */
function looksLikeObject(text: string, span: Span): boolean {
  let position = span.start + 1;
  while (position < span.end && isJsonWhitespace(text.charCodeAt(position))) position++;
  const code = text.charCodeAt(position);
  return code === quote || code === closeBrace;
}

/** The outcome of {@link extractJson}. */
export type ExtractJsonResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

/**
 * Extracts one JSON value from a model's reply: the whole text, else the first code fence that
 * parses, else the first balanced object in the text that parses. Trailing commas are forgiven.
 * A reply longer than {@link maxJsonReplyCharacters} is not searched.
 */
export function extractJson(text: string): ExtractJsonResult {
  if (text.length > maxJsonReplyCharacters) {
    return {
      ok: false,
      error: `The reply is ${groupDigits(text.length)} characters long; replies longer than ${groupDigits(maxJsonReplyCharacters)} characters are not searched for JSON.`,
    };
  }
  const cleaned = stripReasoning(text);
  if (!cleaned) return { ok: false, error: 'The reply was empty.' };
  const whole = tryParse(cleaned);
  if (whole) return whole;
  for (const block of fencedBlocks(cleaned)) {
    const fenced = tryParse(block);
    if (fenced) return fenced;
  }
  let attempts = 0;
  for (const span of objectCandidates(cleaned)) {
    if (!looksLikeObject(cleaned, span)) continue;
    if (++attempts > maxParseAttempts) break;
    const parsed = tryParse(cleaned.slice(span.start, span.end));
    if (parsed) return parsed;
  }
  return { ok: false, error: 'The reply did not contain a JSON object.' };
}
