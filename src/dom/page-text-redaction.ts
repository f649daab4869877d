// Secret values taken out of page text where it enters Node: every answer of the page runtime
// (the snapshot, a text search, the page's HTML, any other) is redacted before anything cuts, joins,
// marks or searches it. This module knows the answers' shapes, not the secrets: the run that holds
// them binds its redaction to the driver. It must not change an answer when nothing is bound.

/** What redacts page text: `SecretStore` is one. */
export interface PageTextRedaction {
  /** `text` with every value, whole or in pieces, replaced by its placeholder. */
  redact(text: string): string;
  /** Segments of one text redacted as one (a value split over them is found); `markup` for HTML. */
  redactJoined(segments: readonly string[], options?: { readonly markup?: boolean | undefined }): string[];
  /** How much longer than a limit page text is read, so that a value at a cut is seen whole. */
  readonly redactionMargin: number;
}

const bound = new WeakMap<object, Set<PageTextRedaction>>();

/**
 * Redacts every answer the page runtime gives through `driver` with `redaction`, until the
 * returned function is called. Several runs may share a driver: each one's redaction applies.
 */
export function bindPageTextRedaction(driver: object, redaction: PageTextRedaction): () => void {
  let set = bound.get(driver);
  if (!set) bound.set(driver, (set = new Set()));
  set.add(redaction);
  return () => {
    set.delete(redaction);
  };
}

/** The redactions bound to `driver`. */
export function pageTextRedactions(driver: object): PageTextRedaction[] {
  const set = bound.get(driver);
  return set ? [...set] : [];
}

/** The placeholder as redaction writes it, for cuts that must not split one. */
const placeholderPattern = /<secret>[A-Za-z_][\w-]*<\/secret>/g;

/**
 * Cuts `text` to at most `limit` characters, marked with `…` as the page's own cut is, never inside
 * a placeholder (one the cut would split is left out whole).
 */
export function cutAroundPlaceholders(text: string, limit: number, mark = '…'): string {
  if (text.length <= limit) return text;
  let end = limit;
  for (const match of text.matchAll(placeholderPattern)) {
    if (match.index >= limit) break;
    if (match.index + match[0].length > limit) end = match.index;
  }
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}${mark}`;
}

/** The last `limit` characters of `text`, never starting inside a placeholder (one the cut would split is kept whole). */
export function tailAroundPlaceholders(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let start = text.length - limit;
  for (const match of text.matchAll(placeholderPattern)) {
    if (match.index < start && match.index + match[0].length > start) start = match.index;
  }
  return text.slice(start);
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The argument a runtime method is called with when its answer will be redacted: the page cuts
 * its text longer (by the redaction's margin), so that the cut the model sees is made here, after
 * redaction, and never leaves a piece of a value behind.
 */
export function widenedArgument(method: string, argument: unknown, margin: number): unknown {
  if (margin <= 0 || !isRecord(argument)) return argument;
  if (method === 'snapshot' && typeof argument.maxTextLength === 'number') return { ...argument, maxTextLength: argument.maxTextLength + margin };
  if (method === 'pageText' && typeof argument.contextChars === 'number') return { ...argument, contextChars: argument.contextChars + margin };
  return argument;
}

/** Every string of `value` (a JSON answer) redacted on its own. */
function redactStrings(value: unknown, redaction: PageTextRedaction, depth = 0): unknown {
  if (typeof value === 'string') return redaction.redact(value);
  if (depth > 64 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, redaction, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactStrings(item, redaction, depth + 1)]));
}

/** A snapshot's texts and attribute values in document order, redacted as one text, then cut where the page would have cut them. */
function redactSnapshot(answer: Record<string, unknown>, redaction: PageTextRedaction, limit: number): Record<string, unknown> {
  const items = answer.items as unknown[];
  // Where each segment goes back: [item, 'text'] or [item, 'attributes', name].
  const places: { item: Record<string, unknown>; attribute?: string }[] = [];
  const segments: string[] = [];
  for (const item of items) {
    if (!isRecord(item)) continue;
    if (typeof item.text === 'string') {
      places.push({ item });
      segments.push(item.text);
    }
    if (isRecord(item.attributes)) {
      for (const [name, value] of Object.entries(item.attributes)) {
        if (typeof value !== 'string' || value === '') continue;
        places.push({ item, attribute: name });
        segments.push(value);
      }
    }
  }
  // Read three ways, each as one text: each attribute across the elements (one box's `value` after
  // another's, with labels between them in the view), the texts alone, then everything in document order.
  const views = new Map<string, number[]>();
  places.forEach(({ attribute }, position) => {
    const key = attribute === undefined ? '' : `@${attribute}`;
    let view = views.get(key);
    if (!view) views.set(key, (view = []));
    view.push(position);
  });
  for (const positions of [...views.values(), places.map((_, position) => position)]) {
    const parts = redaction.redactJoined(positions.map((position) => segments[position] as string));
    positions.forEach((position, index) => {
      segments[position] = parts[index] as string;
    });
  }
  const redacted = segments;
  const copies = new Map<Record<string, unknown>, Record<string, unknown>>();
  const copyOf = (item: Record<string, unknown>): Record<string, unknown> => {
    let copy = copies.get(item);
    if (!copy) copies.set(item, (copy = { ...item, attributes: isRecord(item.attributes) ? { ...item.attributes } : item.attributes }));
    return copy;
  };
  const cutLines = (text: string): string =>
    text
      .split('\n')
      .map((line) => cutAroundPlaceholders(line, limit))
      .join('\n');
  places.forEach(({ item, attribute }, position) => {
    const text = redacted[position] as string;
    const copy = copyOf(item);
    if (attribute === undefined) copy.text = cutLines(text);
    // A link's target and a select's option list have limits of their own; every other value is cut as text.
    else (copy.attributes as Record<string, unknown>)[attribute] = attribute === 'href' || attribute === 'options' ? text : cutAroundPlaceholders(text, limit);
  });
  return {
    ...answer,
    url: typeof answer.url === 'string' ? redaction.redact(answer.url) : answer.url,
    title: typeof answer.title === 'string' ? redaction.redact(answer.title) : answer.title,
    items: items.map((item) => (isRecord(item) ? (copies.get(item) ?? item) : item)),
  };
}

/**
 * The matches of a text search, each with its context redacted as one text and cut to the asked
 * context here; a match that falls on a value is left out (and not counted), so a search cannot
 * tell what a value holds.
 */
function redactPageText(answer: Record<string, unknown>, redaction: PageTextRedaction, contextChars: number): Record<string, unknown> {
  const matches = answer.matches as unknown[];
  let dropped = 0;
  const kept: unknown[] = [];
  for (const match of matches) {
    if (!isRecord(match) || typeof match.text !== 'string' || typeof match.before !== 'string' || typeof match.after !== 'string') {
      kept.push(redactStrings(match, redaction));
      continue;
    }
    const [before = '', text = '', after = ''] = redaction.redactJoined([match.before, match.text, match.after]);
    if (text !== match.text) {
      dropped++;
      continue;
    }
    kept.push({ ...match, before: tailAroundPlaceholders(before, contextChars), text, after: cutAroundPlaceholders(after, contextChars, '') });
  }
  const total = typeof answer.total === 'number' ? Math.max(0, answer.total - dropped) : answer.total;
  return { ...(redactStrings({ ...answer, matches: [] }, redaction) as Record<string, unknown>), total, matches: kept };
}

/**
 * A runtime method's answer with every secret value in it redacted, for the argument it was asked
 * with (before widening). Shapes it does not know are redacted string by string.
 */
export function redactRuntimeAnswer(method: string, argument: unknown, answer: unknown, redaction: PageTextRedaction): unknown {
  if (!isRecord(answer)) return redactStrings(answer, redaction);
  if (method === 'snapshot' && Array.isArray(answer.items) && isRecord(argument) && typeof argument.maxTextLength === 'number') {
    return redactSnapshot(answer, redaction, Math.max(8, argument.maxTextLength));
  }
  if (method === 'pageText' && Array.isArray(answer.matches) && isRecord(argument) && typeof argument.contextChars === 'number') {
    return redactPageText(answer, redaction, argument.contextChars);
  }
  if (method === 'extractHtml' && typeof answer.html === 'string') {
    const [html = ''] = redaction.redactJoined([answer.html], { markup: true });
    return { ...(redactStrings({ ...answer, html: '' }, redaction) as Record<string, unknown>), html };
  }
  return redactStrings(answer, redaction);
}
