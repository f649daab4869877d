// A scanner for canary secrets: finds any piece of 6 or more characters of a canary value in a
// text (a "sink": a request body, an event log, a saved file), case-insensitively, also after
// undoing the encodings a value may travel in (JSON escapes, HTML entities, percent-encoding,
// base64) and with separators between its characters (`7 3 0 5 9 1`, `Hq4L-w8Zt`, `tk9J3f**H8cQ`).
// It knows nothing of how plannav redacts: it only looks at what came out.

/** A secret value to look for, under the name the test gave it. */
export interface Canary {
  readonly name: string;
  readonly value: string;
}

/** A text that left the code under test, under a name that says where it was found. */
export interface Sink {
  readonly name: string;
  readonly text: string;
}

/** One piece of a canary found in a sink. */
export interface CanaryHit {
  readonly sink: string;
  readonly canary: string;
  /** The view of the sink it was found in: `raw`, `json`, `html`, `percent`, `base64`, `separated`, `one-per-element` or `lone-characters`. */
  readonly view: string;
  /** The matched characters as they stand in that view. */
  readonly piece: string;
  /** About 40 characters of the sink around the hit, newlines shown as `⏎`, the hit between `⟦` and `⟧` (and what a decoded view read there). */
  readonly context: string;
}

/** The shortest piece of a value that counts as the value (issue 21: "any piece of 6 or more characters"). */
export const minPieceLength = 6;

/**
 * Characters that may stand between the characters of a value without hiding it: spaces, line
 * breaks, dashes, dots and the marks markdown or highlighting put inside text.
 */
const separator = /[\s\-_.·|*`~«»[\]()/+•⋅]/u;

/** A view of a sink: a decoded text, and for each of its characters the offset in the sink's text it came from. */
interface View {
  readonly name: string;
  readonly text: string;
  readonly origin: readonly number[];
}

function identity(name: string, text: string): View {
  return { name, text, origin: Array.from({ length: text.length }, (_unused, index) => index) };
}

/**
 * Replaces every match of `pattern` in a view by what `replace` gives, keeping track of where each
 * character came from: a replacement's characters come from its match's, spread evenly.
 */
function replaceTracked(view: View, name: string, pattern: RegExp, replace: (match: RegExpExecArray) => string): View {
  let text = '';
  const origin: number[] = [];
  let last = 0;
  const keep = (from: number, to: number): void => {
    text += view.text.slice(from, to);
    for (let index = from; index < to; index++) origin.push(view.origin[index] as number);
  };
  for (const match of view.text.matchAll(pattern)) {
    keep(last, match.index);
    const replacement = replace(match);
    text += replacement;
    // Spread over the characters of the match, so a hit shows the encoded text it came from.
    const scale = match[0].length / Math.max(1, replacement.length);
    for (let offset = 0; offset < replacement.length; offset++) origin.push(view.origin[match.index + Math.floor(offset * scale)] as number);
    last = match.index + match[0].length;
  }
  keep(last, view.text.length);
  return { name, text, origin };
}

const namedEntities: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', sol: '/', plus: '+', equals: '=' };

function unescapeJson(view: View): View {
  const unicode = replaceTracked(view, 'json', /\\u([0-9a-fA-F]{4})/g, (match) => String.fromCharCode(Number.parseInt(match[1] as string, 16)));
  return replaceTracked(unicode, 'json', /\\(["\\/nrt])/g, (match) => (/[nrt]/.test(match[1] as string) ? ' ' : (match[1] as string)));
}

function decodeHtmlEntities(view: View): View {
  return replaceTracked(view, 'html', /&(#x[0-9a-fA-F]+|#\d+|[a-zA-Z]+);/g, (match) => {
    const entity = match[1] as string;
    if (/^#x/i.test(entity)) return String.fromCodePoint(Number.parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(Number.parseInt(entity.slice(1), 10));
    return namedEntities[entity.toLowerCase()] ?? match[0];
  });
}

/** Decodes every run of `%XX` escapes (three rounds, for double encoding); a run that is not UTF-8 is read byte by byte. */
function decodePercent(view: View): View {
  let current = view;
  for (let round = 0; round < 3; round++) {
    const next = replaceTracked(current, 'percent', /(?:%[0-9a-fA-F]{2})+/g, (match) => {
      try {
        return decodeURIComponent(match[0]);
      } catch {
        return match[0].replace(/%([0-9a-fA-F]{2})/g, (_whole, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
      }
    });
    if (next.text === current.text) return next;
    current = next;
  }
  return current;
}

/** The printable text hidden in base64 (or base64url) tokens of 8 or more characters, each decoded token on a line of its own. */
function decodeBase64Tokens(view: View): View {
  let text = '';
  const origin: number[] = [];
  for (const match of view.text.matchAll(/(data:image\/[a-z+]+;base64,)?([A-Za-z0-9+/_-]{8,4096}={0,2})/g)) {
    // Images are pixels, not text.
    if (match[1]) continue;
    const token = (match[2] as string).replace(/-/g, '+').replace(/_/g, '/');
    // Also from the 2nd and 3rd character, for a token glued to other base64-safe characters.
    for (let shift = 0; shift < 3; shift++) {
      const part = token.slice(shift);
      const usable = part.slice(0, part.length - (part.replace(/=+$/, '').length % 4 === 1 ? 1 : 0));
      const candidate = Buffer.from(usable, 'base64').toString('utf8');
      const printable = Array.from(candidate).filter((character) => /[\x20-\x7e]/.test(character)).length;
      if (candidate.length < minPieceLength || printable / candidate.length < 0.9) continue;
      const start = match.index + shift + (match[1]?.length ?? 0);
      text += `${candidate}\n`;
      for (let index = 0; index <= candidate.length; index++)
        origin.push(view.origin[start + Math.min(usable.length - 1, Math.floor((index * 4) / 3))] as number);
    }
  }
  return { name: 'base64', text, origin };
}

/** Characters standing alone in a quoted value or an element (`value="7"`, `<span>7</span>`), joined: a value shown one character per element. */
function singleCharacters(view: View): View {
  let text = '';
  const origin: number[] = [];
  for (const match of view.text.matchAll(/(?<=["'>])([A-Za-z0-9])(?=["'<])/g)) {
    text += match[1] as string;
    origin.push(view.origin[match.index] as number);
  }
  return { name: 'one-per-element', text, origin };
}

/**
 * Characters that stand alone between other characters (`(field: 7) (field: 3)`), joined while
 * each is at most 24 characters from the one before: a value spread over labelled boxes.
 */
function loneCharacters(view: View): View {
  let text = '';
  const origin: number[] = [];
  let previous = -Infinity;
  for (const match of view.text.matchAll(/(?<![A-Za-z0-9])([A-Za-z0-9])(?![A-Za-z0-9])/g)) {
    if (match.index - previous > 24) {
      text += '\u0000';
      origin.push(view.origin[match.index] as number);
    }
    text += match[1] as string;
    origin.push(view.origin[match.index] as number);
    previous = match.index;
  }
  return { name: 'lone-characters', text, origin };
}

/** The text without separators, each kept character with its origin. */
function withoutSeparators(view: View): View {
  let text = '';
  const origin: number[] = [];
  for (let index = 0; index < view.text.length; index++) {
    const character = view.text[index] as string;
    if (separator.test(character)) continue;
    text += character;
    origin.push(view.origin[index] as number);
  }
  return { name: 'separated', text, origin };
}

function stripSeparators(value: string): string {
  return Array.from(value)
    .filter((character) => !separator.test(character))
    .join('');
}

/** One canary as a view compares it: its name, its value lower-cased (without separators for that view). */
interface Needle {
  readonly name: string;
  readonly value: string;
  readonly original: string;
}

/** Every piece of `minPieceLength` characters of the needles, with where each starts in its value. */
function pieceIndex(needles: readonly Needle[]): Map<string, Array<{ needle: Needle; offset: number }>> {
  const index = new Map<string, Array<{ needle: Needle; offset: number }>>();
  for (const needle of needles) {
    for (let offset = 0; offset + minPieceLength <= needle.value.length; offset++) {
      const piece = needle.value.slice(offset, offset + minPieceLength);
      index.set(piece, [...(index.get(piece) ?? []), { needle, offset }]);
    }
  }
  return index;
}

/** Where each maximal piece (≥ `minPieceLength` characters) of a needle starts and ends in `haystack` (lower-cased). */
function findPieces(haystack: string, index: Map<string, Array<{ needle: Needle; offset: number }>>): Array<{ needle: Needle; start: number; end: number }> {
  const found: Array<{ needle: Needle; start: number; end: number }> = [];
  // The end of the last hit per needle, so a long hit is reported once, not once per piece.
  const reachedBy = new Map<string, number>();
  for (let position = 0; position + minPieceLength <= haystack.length; position++) {
    const candidates = index.get(haystack.slice(position, position + minPieceLength));
    if (!candidates) continue;
    for (const { needle, offset } of candidates) {
      let length = minPieceLength;
      while (offset + length < needle.value.length && haystack[position + length] === needle.value[offset + length]) length++;
      const last = found.findLast((hit) => hit.needle === needle);
      if (last?.start === position) last.end = Math.max(last.end, position + length);
      else if ((reachedBy.get(needle.name) ?? -1) <= position) found.push({ needle, start: position, end: position + length });
      else continue;
      reachedBy.set(needle.name, Math.max(reachedBy.get(needle.name) ?? -1, position + length));
    }
  }
  return found;
}

/**
 * A digits-only value meets ordinary numbers (timestamps, sizes): a hit shorter than 8 digits
 * inside a run of 12 or more digits that holds no more of the value is another number.
 */
function isUnrelatedNumber(text: string, start: number, end: number, value: string): boolean {
  if (!/^\d+$/.test(value) || end - start >= 8) return false;
  let runStart = start;
  let runEnd = end;
  while (runStart > 0 && /\d/.test(text[runStart - 1] as string)) runStart--;
  while (runEnd < text.length && /\d/.test(text[runEnd] as string)) runEnd++;
  return runEnd - runStart >= 12;
}

function flat(part: string): string {
  return part.replace(/\r?\n/g, '⏎').replace(/\t/g, ' ');
}

/** About 40 characters of the sink around a hit, the hit between ⟦ and ⟧; for a decoded view, what it decoded to. */
function showContext(text: string, from: number, to: number, view: string, piece: string): string {
  const before = text.slice(Math.max(0, from - 20), from);
  const after = text.slice(to, to + 20);
  const hit = to - from > 40 ? `${text.slice(from, from + 20)}…${text.slice(to - 20, to)}` : text.slice(from, to);
  const shown = `${from > 20 ? '…' : ''}${flat(before)}⟦${flat(hit)}⟧${flat(after)}${to + 20 < text.length ? '…' : ''}`;
  return view === 'raw' ? shown : `${shown}  ⇐ ${view}: ${flat(piece)}`;
}

/** The views a sink is scanned in, in order: each later one finds only what the earlier ones did not. */
function viewsOf(text: string): View[] {
  const raw = identity('raw', text);
  const json = unescapeJson(raw);
  const html = decodeHtmlEntities(json);
  const percent = decodePercent(html);
  return [
    raw,
    json,
    html,
    percent,
    decodeBase64Tokens(raw),
    decodeBase64Tokens(percent),
    withoutSeparators(percent),
    singleCharacters(percent),
    loneCharacters(percent),
  ];
}

/**
 * Every piece of a canary in every sink. A hit is reported by the first view that finds it: a later
 * view's hit over characters of the sink already reported for the same canary is left out.
 */
export function scanSinks(sinks: readonly Sink[], canaries: readonly Canary[]): CanaryHit[] {
  const hits: CanaryHit[] = [];
  const plainIndex = pieceIndex(canaries.map((canary) => ({ name: canary.name, value: canary.value.toLowerCase(), original: canary.value })));
  const separatedIndex = pieceIndex(
    canaries.map((canary) => ({ name: canary.name, value: stripSeparators(canary.value).toLowerCase(), original: canary.value })),
  );
  for (const sink of sinks) {
    /** Per canary, the sink's characters already reported (start and end offsets). */
    const covered = new Map<string, Array<[number, number]>>();
    for (const view of viewsOf(sink.text)) {
      const lower = view.text.toLowerCase();
      const index = ['separated', 'one-per-element', 'lone-characters'].includes(view.name) ? separatedIndex : plainIndex;
      for (const { needle, start, end } of findPieces(lower, index)) {
        const from = view.origin[start] as number;
        const to = Math.max(from + 1, (view.origin[end - 1] as number) + 1);
        const piece = view.text.slice(start, end);
        if (isUnrelatedNumber(view.text, start, end, needle.original)) continue;
        const spans = covered.get(needle.name) ?? [];
        if (spans.some(([spanFrom, spanTo]) => from < spanTo && to > spanFrom)) continue;
        spans.push([from, to]);
        covered.set(needle.name, spans);
        hits.push({ sink: sink.name, canary: needle.name, view: view.name, piece, context: showContext(sink.text, from, to, view.name, piece) });
      }
    }
  }
  return hits;
}

/**
 * A table of hits per sink, for a failure message, then the distinct contexts of each sink's hits
 * (the same context repeated is shown once, with how often), at most `perSink` lines each.
 */
export function formatHitTable(sinkNames: readonly string[], hits: readonly CanaryHit[], perSink = 12): string {
  const lines: string[] = ['sink | hits | canaries', '---- | ---- | --------'];
  for (const name of sinkNames) {
    const own = hits.filter((hit) => hit.sink === name);
    const canaries = [...new Set(own.map((hit) => hit.canary))].join(', ');
    lines.push(`${name} | ${own.length} | ${canaries || '-'}`);
  }
  const byView = new Map<string, number>();
  for (const hit of hits) byView.set(hit.view, (byView.get(hit.view) ?? 0) + 1);
  if (hits.length > 0) lines.push('', `found in: ${[...byView].map(([view, count]) => `${view} ${count}`).join(', ')}`);
  for (const name of sinkNames) {
    const own = hits.filter((hit) => hit.sink === name);
    if (own.length === 0) continue;
    const distinct = new Map<string, number>();
    for (const hit of own) {
      const line = `[${hit.canary}/${hit.view}] ${hit.context}`;
      distinct.set(line, (distinct.get(line) ?? 0) + 1);
    }
    lines.push('', `${name}: ${own.length} hit(s), ${distinct.size} distinct`);
    for (const [line, count] of [...distinct].slice(0, perSink)) lines.push(`  ${count > 1 ? `${count}× ` : ''}${line}`);
    if (distinct.size > perSink) lines.push(`  … and ${distinct.size - perSink} more distinct`);
  }
  return lines.join('\n');
}
