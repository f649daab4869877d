// Finds secret values in text as a page shows them (whole or in pieces, in any case, with spaces or
// separators between characters, split over elements, percent-, HTML-, JSON- or base64-encoded)
// and puts each one's placeholder in its place. It runs on every page read and every event, so it
// stays linear in the text: one pass that normalises the text, one lookup per position.

/** One value to find, and the name whose placeholder replaces it. */
export interface RedactionValue {
  readonly name: string;
  readonly value: string;
}

/** Options of {@link Redactor.redactJoined}. */
export interface JoinedRedactionOptions {
  /**
   * The segments are HTML: tags are skipped as separators (a value split by `<b>` is still one
   * value) and the placeholder is written HTML-escaped, so it survives the HTML's conversion.
   */
  readonly markup?: boolean | undefined;
}

/**
 * The length of a piece: any run of this many characters of a value (letters and digits, after
 * separators are dropped) counts as the value.
 */
export const pieceLength = 6;
/** Values shorter than this are found whole and contiguous only, with the case they were given. */
const caseInsensitiveLength = 6;

const letterOrDigit = /[\p{L}\p{N}]/u;
const vowels = /[aeiouyàáâäãåèéêëìíîïòóôöõùúûü]/;
const namedEntities: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  commat: '@',
  period: '.',
  num: '#',
  dollar: '$',
  percnt: '%',
  lowbar: '_',
  hyphen: '-',
  dash: '-',
  colon: ':',
  sol: '/',
  excl: '!',
  plus: '+',
  equals: '=',
  ast: '*',
};

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The placeholder of a name. */
function placeholderOf(name: string): string {
  return `<secret>${name}</secret>`;
}

function escapedPlaceholderOf(name: string): string {
  return `&lt;secret&gt;${name}&lt;/secret&gt;`;
}

/** `text` encoded as base64 (UTF-8), and as base64url. */
function base64Forms(bytes: Uint8Array): string[] {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  const standard = btoa(binary);
  return [standard, standard.replace(/\+/g, '-').replace(/\//g, '_')];
}

/**
 * The base64 text a value takes inside any longer encoded string (a Basic auth header, a token):
 * for each of the three alignments, the characters that depend on the value's bytes alone.
 */
function embeddedBase64(value: string): string[] {
  const bytes = new TextEncoder().encode(value);
  const forms: string[] = [];
  for (let pad = 0; pad < 3; pad++) {
    const padded = new Uint8Array(pad + bytes.length);
    padded.set(bytes, pad);
    const end = Math.floor((pad + bytes.length) / 3) * 3;
    if (end <= pad) continue;
    const usable = padded.slice(0, end);
    for (const encoded of base64Forms(usable)) {
      // The first characters mix the padding with the value; skip those.
      const skip = Math.ceil((pad * 4) / 3);
      const inner = encoded.slice(skip);
      if (inner.length >= pieceLength) forms.push(inner);
    }
  }
  // A whole value at the start, with its '=' padding.
  for (const encoded of base64Forms(bytes)) forms.push(encoded);
  return [...new Set(forms)];
}

/** The exact forms a value takes on a page or in a URL, each as a regex source. */
function exactForms(value: string): string[] {
  // Percent escapes in either case (%2F, %2f).
  const percent = (text: string): string =>
    escapeRegex(text).replace(/%([0-9A-F])([0-9A-F])/g, (_, a: string, b: string) => `%[${a}${a.toLowerCase()}][${b}${b.toLowerCase()}]`);
  const html = value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
  const htmlHex = html.replace(/&#39;/g, '&#x27;');
  const json = JSON.stringify(value).slice(1, -1);
  const forms = new Set<string>([escapeRegex(value), escapeRegex(html), escapeRegex(htmlHex), escapeRegex(json)]);
  for (const encoded of [encodeURIComponent(value), encodeURI(value), encodeURIComponent(value).replace(/%20/g, '+')]) forms.add(percent(encoded));
  return [...forms];
}

/** A value reduced to its letters and digits, lower-cased, with the original character of each. */
function normalizeValue(value: string): { readonly normalized: string; readonly original: string } {
  const stream = streamOf([value], [0], false);
  let original = '';
  for (let index = 0; index < stream.text.length; index++) original += value.slice(stream.starts[index], stream.ends[index]);
  return { normalized: stream.text, original };
}

/**
 * Whether a piece of a value is unlike ordinary text, so that finding it anywhere means the value
 * leaked: it holds a digit, mixes upper and lower case, or is letters without a vowel. A piece of
 * letters alone in one case ("lovela", "forever") is an ordinary word: it counts only as part of
 * the whole value.
 */
export function isDistinctivePiece(original: string): boolean {
  if (/\p{N}/u.test(original)) return true;
  const letters = Array.from(original);
  const hasLower = letters.some((character) => character !== character.toUpperCase());
  // Upper case after the first letter: a title-cased word is still a word.
  const hasInnerUpper = letters.slice(1).some((character) => character !== character.toLowerCase());
  if (hasLower && hasInnerUpper) return true;
  return !vowels.test(original.toLowerCase());
}

/** The text reduced as values are: letters and digits, lower-cased, each mapped back to where it came from. */
interface Stream {
  readonly text: string;
  /** The same text as code units, for hashing without allocating. */
  readonly codes: Uint16Array;
  /** Global offset (over the joined segments) of the first original character behind each stream character. */
  readonly starts: Int32Array;
  /** Global offset just after the last original character behind each stream character. */
  readonly ends: Int32Array;
  /** Whether a separator, a tag or the start of the text comes right before each stream character. */
  readonly boundaryBefore: Uint8Array;
}

const placeholderAt = /<secret>[A-Za-z_][\w-]*<\/secret>/y;
const escapedPlaceholderAt = /&lt;secret&gt;[A-Za-z_][\w-]*&lt;\/secret&gt;/y;
const tagAt = /<[A-Za-z/!?][^>]*>?/y;
const entityAt = /&(#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z]{2,8});/y;
const percentAt = /%([0-9A-Fa-f]{2})/y;
const unicodeEscapeAt = /\\u([0-9A-Fa-f]{4})/y;

function matchAt(pattern: RegExp, text: string, position: number): RegExpExecArray | null {
  pattern.lastIndex = position;
  return pattern.exec(text);
}

function streamOf(segments: readonly string[], bases: readonly number[], markup: boolean): Stream {
  const total = segments.reduce((sum, segment) => sum + segment.length, 0);
  const starts = new Int32Array(total);
  const ends = new Int32Array(total);
  const boundaryBefore = new Uint8Array(total);
  const codes = new Uint16Array(total);
  let count = 0;
  let separated = true;
  /** Adds one character (a UTF-16 code unit) of text: a letter or digit lower-cased, anything else as a separator. */
  const emit = (code: number, start: number, end: number): void => {
    let lower: number;
    if (code < 128) {
      // ASCII first, without a regular expression: most page text is.
      if (code >= 65 && code <= 90) lower = code + 32;
      else if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57)) lower = code;
      else {
        separated = true;
        return;
      }
    } else {
      const character = String.fromCharCode(code);
      if (!letterOrDigit.test(character)) {
        separated = true;
        return;
      }
      const folded = character.toLowerCase();
      lower = folded.length === 1 ? folded.charCodeAt(0) : code;
    }
    codes[count] = lower;
    starts[count] = start;
    ends[count] = end;
    boundaryBefore[count] = separated ? 1 : 0;
    count++;
    separated = false;
  };
  segments.forEach((segment, segmentIndex) => {
    const base = bases[segmentIndex] as number;
    separated = true;
    for (let position = 0; position < segment.length;) {
      const code = segment.charCodeAt(position);
      if (code === 60 /* < */) {
        const placeholder = matchAt(placeholderAt, segment, position) ?? (markup ? matchAt(tagAt, segment, position) : null);
        if (placeholder) {
          separated = true;
          position += placeholder[0].length;
          continue;
        }
      } else if (code === 38 /* & */) {
        const escaped = matchAt(escapedPlaceholderAt, segment, position);
        if (escaped) {
          separated = true;
          position += escaped[0].length;
          continue;
        }
        const entity = matchAt(entityAt, segment, position);
        if (entity) {
          const body = entity[1] as string;
          const code =
            body.startsWith('#x') || body.startsWith('#X') ? parseInt(body.slice(2), 16) : body.startsWith('#') ? parseInt(body.slice(1), 10) : undefined;
          const decoded = code !== undefined ? (code <= 0x10ffff ? String.fromCodePoint(code) : '') : (namedEntities[body.toLowerCase()] ?? '');
          emit(decoded.length === 1 ? decoded.charCodeAt(0) : 32, base + position, base + position + entity[0].length);
          position += entity[0].length;
          continue;
        }
      } else if (code === 37 /* % */) {
        const percent = matchAt(percentAt, segment, position);
        if (percent) {
          emit(parseInt(percent[1] as string, 16), base + position, base + position + 3);
          position += 3;
          continue;
        }
      } else if (code === 92 /* \\ */) {
        const escape = matchAt(unicodeEscapeAt, segment, position);
        if (escape) {
          emit(parseInt(escape[1] as string, 16), base + position, base + position + 6);
          position += 6;
          continue;
        }
        // \n, \t, \" in JSON text: the letter after the backslash is not text.
        if (/[nrtbf"\\/]/.test(segment[position + 1] ?? '')) {
          separated = true;
          position += 2;
          continue;
        }
      }
      emit(code, base + position, base + position + 1);
      position++;
    }
  });
  let text = '';
  for (let from = 0; from < count; from += 8192) text += String.fromCharCode(...codes.subarray(from, Math.min(count, from + 8192)));
  return { text, codes, starts, ends, boundaryBefore };
}

/** A stretch of the joined text that holds a value: global offsets and whose placeholder goes there. */
interface Hit {
  readonly start: number;
  readonly end: number;
  readonly name: string;
  /** Whether the placeholder goes here; the other characters of a value shown one per box are only removed. */
  readonly placeholder: boolean;
}

/**
 * How far apart (in characters of the text) two characters that stand alone may be and still be
 * read as one value: boxes of one code with a label each ("(field: 7) (field: 3)", "Digit 1").
 */
const loneCharacterGap = 32;

/**
 * The redaction of a fixed set of values. Build one when the set changes; it is immutable and
 * cheap to call: a regular expression for the exact forms, a map of the pieces for the rest.
 */
export class Redactor {
  /** Exact forms of values shorter than {@link caseInsensitiveLength}, matched with their case. */
  private readonly exact: { readonly pattern: RegExp; readonly names: readonly string[] } | undefined;
  /** Exact forms of longer values, any case; and their base64 forms, with their case. */
  private readonly exactAnyCase: { readonly pattern: RegExp; readonly names: readonly string[] } | undefined;
  private readonly base64: { readonly pattern: RegExp; readonly names: readonly string[] } | undefined;
  /** Distinctive pieces of the values, by their normalised text. */
  private readonly pieces = new Map<string, string>();
  /** The pieces' hashes ({@link hashAt}), so that a position of the text is looked up without making a string. */
  private readonly pieceHashes = new Set<number>();
  /** Normalised whole values (at least a piece long), found when they stand apart from other text. */
  private readonly wholes: { readonly normalized: string; readonly name: string }[] = [];
  /** How much longer than itself a value may show in text (separators, encodings), for callers that cut text after redaction. */
  readonly margin: number;

  constructor(values: readonly RedactionValue[]) {
    const short: { source: string; name: string }[] = [];
    const long: { source: string; name: string }[] = [];
    const encoded: { source: string; name: string }[] = [];
    let longest = 0;
    for (const { name, value } of values) {
      longest = Math.max(longest, value.length);
      const forms = exactForms(value).map((source) => ({ source, name }));
      (value.length < caseInsensitiveLength ? short : long).push(...forms);
      if (value.length >= caseInsensitiveLength) encoded.push(...embeddedBase64(value).map((form) => ({ source: escapeRegex(form), name })));
      const { normalized, original } = normalizeValue(value);
      if (normalized.length < pieceLength) continue;
      this.wholes.push({ normalized, name });
      for (let start = 0; start + pieceLength <= normalized.length; start++) {
        const piece = normalized.slice(start, start + pieceLength);
        if (!this.pieces.has(piece) && isDistinctivePiece(original.slice(start, start + pieceLength))) {
          this.pieces.set(piece, name);
          this.pieceHashes.add(
            hashAt(
              Uint16Array.from(piece, (character) => character.charCodeAt(0)),
              0,
            ),
          );
        }
      }
    }
    this.exact = alternation(short, 'g');
    this.exactAnyCase = alternation(long, 'gi');
    this.base64 = alternation(encoded, 'g');
    this.margin = Math.min(10_000, longest * 6 + 16);
  }

  /** `text` with every value, whole or in pieces, replaced by its placeholder. */
  redact(text: string): string {
    if (!text) return text;
    return this.redactJoined([text])[0] as string;
  }

  /**
   * Segments of one text (the texts of a page's elements in document order, a match and its
   * context), redacted as if joined: a value split over segments is found, its placeholder put in
   * the segment where it starts and the rest of it removed from the others.
   */
  redactJoined(segments: readonly string[], options: JoinedRedactionOptions = {}): string[] {
    if (options.markup !== true) return this.redactSegments(segments, false, placeholderOf);
    // HTML: once with tags skipped (a value split by <b>), once with them read (a value in an attribute).
    return this.redactSegments(this.redactSegments(segments, true, escapedPlaceholderOf), false, escapedPlaceholderOf);
  }

  private redactSegments(segments: readonly string[], markup: boolean, placeholder: (name: string) => string): string[] {
    // The exact forms first: they catch short values and encodings the stream cannot read (base64).
    const exact = segments.map((segment) => {
      let text = segment;
      for (const redaction of [this.base64, this.exactAnyCase, this.exact]) {
        if (!redaction || !text) continue;
        text = text.replace(redaction.pattern, (...groups: unknown[]) => {
          const index = (groups.slice(1, -2) as (string | undefined)[]).findIndex((group) => group !== undefined);
          return placeholder(redaction.names[index] ?? 'secret');
        });
      }
      return text;
    });
    if (this.wholes.length === 0) return exact;
    const bases: number[] = [];
    let offset = 0;
    for (const segment of exact) {
      bases.push(offset);
      offset += segment.length;
    }
    const stream = streamOf(exact, bases, markup);
    const hits = this.findHits(stream);
    if (hits.length === 0) return exact;
    return exact.map((segment, index) => {
      const base = bases[index] as number;
      const end = base + segment.length;
      let result = '';
      let last = base;
      for (const hit of hits) {
        if (hit.end <= base || hit.start >= end) continue;
        const from = Math.max(hit.start, base);
        const to = Math.min(hit.end, end);
        result += segment.slice(last - base, from - base);
        // The placeholder goes where the value starts; the other segments lose their part of it.
        if (hit.start >= base && hit.placeholder) result += placeholder(hit.name);
        last = to;
      }
      return result + segment.slice(last - base);
    });
  }

  private findHits(stream: Stream): Hit[] {
    const { text } = stream;
    const covered: { start: number; end: number; name: string; placeholder: boolean }[] = [];
    const cover = (start: number, end: number, name: string): void => {
      covered.push({ start, end, name, placeholder: true });
    };
    this.scan(stream.codes, text, (start, end, name, whole) => {
      // A whole value of ordinary letters counts where it stands apart ("sun shine" for "sunshine"), not inside a longer word.
      if (!whole || (stream.boundaryBefore[start] === 1 && (end === text.length || stream.boundaryBefore[end] === 1))) cover(start, end, name);
    });
    this.scanLoneCharacters(stream, (indices, name) => {
      indices.forEach((index, position) => covered.push({ start: index, end: index + 1, name, placeholder: position === 0 }));
    });
    if (covered.length === 0) return [];
    covered.sort((a, b) => a.start - b.start || Number(b.placeholder) - Number(a.placeholder));
    const hits: Hit[] = [];
    const close = (range: (typeof covered)[number]): void => {
      hits.push({ start: stream.starts[range.start] as number, end: stream.ends[range.end - 1] as number, name: range.name, placeholder: range.placeholder });
    };
    let current = { ...(covered[0] as (typeof covered)[number]) };
    for (const next of covered.slice(1)) {
      if (next.start < current.end || (next.start === current.end && current.placeholder && next.placeholder)) {
        current.end = Math.max(current.end, next.end);
        current.placeholder ||= next.placeholder;
      } else {
        close(current);
        current = { ...next };
      }
    }
    close(current);
    return hits;
  }

  /** Calls `found` for each piece (and each whole value, `whole` true) in the normalised `text`. */
  private scan(codes: Uint16Array, text: string, found: (start: number, end: number, name: string, whole: boolean) => void): void {
    if (this.pieces.size > 0) {
      for (let position = 0; position + pieceLength <= text.length; position++) {
        if (!this.pieceHashes.has(hashAt(codes, position))) continue;
        const name = this.pieces.get(text.slice(position, position + pieceLength));
        if (name !== undefined) found(position, position + pieceLength, name, false);
      }
    }
    for (const { normalized, name } of this.wholes) {
      for (let position = text.indexOf(normalized); position !== -1; position = text.indexOf(normalized, position + 1)) {
        found(position, position + normalized.length, name, true);
      }
    }
  }

  /**
   * A value shown one character per box, with a label between boxes: the characters that stand
   * alone (a separator on each side), close to each other, read as one text. `found` gets the
   * stream indices of each value's characters.
   */
  private scanLoneCharacters(stream: Stream, found: (indices: readonly number[], name: string) => void): void {
    const length = stream.text.length;
    let run: number[] = [];
    const flush = (): void => {
      // Every second or third lone character too: a box's own label may hold one ("Digit 1").
      for (let stride = 1; stride <= 3; stride++) {
        for (let offset = 0; offset < stride; offset++) {
          const part = stride === 1 ? run : run.filter((_, position) => position % stride === offset);
          if (part.length < pieceLength) continue;
          const codes = Uint16Array.from(part, (index) => stream.codes[index] as number);
          this.scan(codes, String.fromCharCode(...codes), (start, end, name) => found(part.slice(start, end), name));
        }
      }
      run = [];
    };
    for (let index = 0; index < length; index++) {
      if (stream.boundaryBefore[index] !== 1 || (index + 1 < length && stream.boundaryBefore[index + 1] !== 1)) continue;
      const previous = run[run.length - 1];
      if (previous !== undefined && (stream.starts[index] as number) - (stream.ends[previous] as number) > loneCharacterGap) flush();
      run.push(index);
      // A run is read in parts so that spreading its codes stays within the call-argument limit.
      if (run.length >= 8192) flush();
    }
    flush();
  }
}

/** A hash of the piece of `codes` that starts at `at`. */
function hashAt(codes: Uint16Array, at: number): number {
  let hash = 0;
  for (let offset = 0; offset < pieceLength; offset++) hash = (Math.imul(hash, 31) + (codes[at + offset] as number)) | 0;
  return hash;
}

function alternation(forms: readonly { source: string; name: string }[], flags: string): { pattern: RegExp; names: string[] } | undefined {
  if (forms.length === 0) return undefined;
  const sorted = [...forms].sort((a, b) => b.source.length - a.source.length);
  return { pattern: new RegExp(sorted.map(({ source }) => `(${source})`).join('|'), flags), names: sorted.map(({ name }) => name) };
}
