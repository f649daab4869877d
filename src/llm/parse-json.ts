// Finds the one JSON object in a model's text reply: reasoning blocks, code fences and prose
// around it are tolerated. It never evaluates anything; it only parses.

const reasoningBlock = /<(think|thinking|reasoning)>[\s\S]*?<\/\1>/gi;
const strayReasoningEnd = /^[\s\S]*?<\/(think|thinking|reasoning)>/i;
const fence = /```[a-zA-Z0-9_-]*[ \t]*\r?\n?([\s\S]*?)```/g;

/** Removes `<think>`-style reasoning from a model's reply, including an unclosed prefix. */
export function stripReasoning(text: string): string {
  return text.replace(reasoningBlock, '').replace(strayReasoningEnd, '').trim();
}

/** Removes commas before a closing brace or bracket, outside strings. */
function withoutTrailingCommas(text: string): string {
  let result = '';
  let inString = false;
  for (let position = 0; position < text.length; position++) {
    const character = text[position] as string;
    if (inString) {
      if (character === '\\') {
        result += character + (text[position + 1] ?? '');
        position++;
        continue;
      }
      if (character === '"') inString = false;
    } else if (character === '"') {
      inString = true;
    } else if (character === ',' && /^\s*[}\]]/.test(text.slice(position + 1))) {
      continue;
    }
    result += character;
  }
  return result;
}

function tryParse(candidate: string): { ok: true; value: unknown } | undefined {
  const trimmed = candidate.trim();
  if (!trimmed) return undefined;
  for (const attempt of [trimmed, withoutTrailingCommas(trimmed)]) {
    try {
      return { ok: true, value: JSON.parse(attempt) as unknown };
    } catch {
      // try the next form
    }
  }
  return undefined;
}

/** Returns each top-level balanced `{…}` span of `text`, in order, honouring strings and escapes. */
function balancedObjects(text: string): string[] {
  const spans: string[] = [];
  let start = text.indexOf('{');
  while (start !== -1) {
    let depth = 0;
    let inString = false;
    let end = -1;
    for (let position = start; position < text.length && end === -1; position++) {
      const character = text[position];
      if (inString) {
        if (character === '\\') position++;
        else if (character === '"') inString = false;
      } else if (character === '"') inString = true;
      else if (character === '{') depth++;
      else if (character === '}' && --depth === 0) end = position;
    }
    if (end === -1) {
      start = text.indexOf('{', start + 1);
      continue;
    }
    spans.push(text.slice(start, end + 1));
    start = text.indexOf('{', end + 1);
  }
  return spans;
}

/** The outcome of {@link extractJson}. */
export type ExtractJsonResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

/**
 * Extracts one JSON value from a model's reply: the whole text, else the first code fence that
 * parses, else the first balanced object in the text.
 */
export function extractJson(text: string): ExtractJsonResult {
  const cleaned = stripReasoning(text);
  if (!cleaned) return { ok: false, error: 'The reply was empty.' };
  const whole = tryParse(cleaned);
  if (whole) return whole;
  for (const match of cleaned.matchAll(fence)) {
    const fenced = tryParse(match[1] ?? '');
    if (fenced) return fenced;
  }
  for (const span of balancedObjects(cleaned)) {
    const parsed = tryParse(span);
    if (parsed) return parsed;
  }
  return { ok: false, error: 'The reply did not contain a JSON object.' };
}
