// The normalised view of a text that the injection patterns read: case, compatibility forms,
// HTML entities, invisible characters, look-alike letters and spaced-out words folded, with a map
// from every character of the view back to the original, so a match can be flagged in place.

/**
 * Characters that change nothing a person sees but split a word for a regex: zero-width
 * characters, joiners, the soft hyphen, bidirectional controls, variation selectors, tags.
 */
const invisibleSource =
  '[\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u206f\\u3164\\ufe00-\\ufe0f\\ufeff\\uffa0\\u{e0000}-\\u{e007f}]';
// The class lists invisible code points one by one (variation selectors among them); none is meant
// to combine with another, which is what the rule warns about.
// eslint-disable-next-line no-misleading-character-class
const invisible = new RegExp(invisibleSource, 'u');
// eslint-disable-next-line no-misleading-character-class
export const invisibleAll = new RegExp(invisibleSource, 'gu');

/** Cyrillic and Greek letters that look like Latin ones, and quotes that look like `"`. */
const lookAlikes: Record<string, string> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  з: '3',
  і: 'i',
  ї: 'i',
  ј: 'j',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  ѕ: 's',
  ԁ: 'd',
  һ: 'h',
  ԛ: 'q',
  ԝ: 'w',
  ӏ: 'l',
  ү: 'y',
  ғ: 'f',
  А: 'a',
  В: 'b',
  Е: 'e',
  К: 'k',
  М: 'm',
  Н: 'h',
  О: 'o',
  Р: 'p',
  С: 'c',
  Т: 't',
  Х: 'x',
  У: 'y',
  І: 'i',
  Ј: 'j',
  Ѕ: 's',
  Ү: 'y',
  α: 'a',
  β: 'b',
  ε: 'e',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  γ: 'y',
  η: 'n',
  ϲ: 'c',
  ϳ: 'j',
  Α: 'a',
  Β: 'b',
  Ε: 'e',
  Ζ: 'z',
  Η: 'h',
  Ι: 'i',
  Κ: 'k',
  Μ: 'm',
  Ν: 'n',
  Ο: 'o',
  Ρ: 'p',
  Τ: 't',
  Υ: 'y',
  Χ: 'x',
  ɑ: 'a',
  ɡ: 'g',
  ı: 'i',
  ȷ: 'j',
  ʟ: 'l',
  ɴ: 'n',
  ʀ: 'r',
  ꜱ: 's',
};

/** Quotes that look like `"`, so fake JSON written with them is still read as JSON. */
const quoteLookAlikes = /[\u201c\u201d\u201e\u201f\u2033\u02ba\u00ab\u00bb]/u;

const namedEntities: Record<string, string> = {
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  amp: '&',
  lsqb: '[',
  rsqb: ']',
  lbrack: '[',
  rbrack: ']',
  sol: '/',
  colon: ':',
  vert: '|',
  verbar: '|',
  nbsp: ' ',
  lcub: '{',
  rcub: '}',
  lbrace: '{',
  rbrace: '}',
};
const markdownEscaped = /^[!-/:-@[-`{-~]$/;
const entity = /^&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|([a-z]{2,8}));?/i;

/**
 * The text as the patterns read it, one code unit per character, with where each came from in
 * the original: `starts[i]` and `ends[i]` bound the original characters behind `view[i]`.
 */
export interface NormalisedView {
  readonly view: string;
  readonly starts: readonly number[];
  readonly ends: readonly number[];
}

/** Folds case, compatibility forms (fullwidth, mathematical letters), HTML entities, invisible characters. */
function firstPass(text: string): { chars: string[]; starts: number[]; ends: number[] } {
  const chars: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  let index = 0;
  while (index < text.length) {
    let code = text.codePointAt(index) as number;
    // A markdown escape (`\_`, `\<`, as htmlToMarkdown writes them) hides nothing from a model:
    // the backslash is left out of the view.
    if (code === 0x5c && markdownEscaped.test(text[index + 1] ?? '')) {
      index++;
      continue;
    }
    // Plain ASCII other than `&` needs no folding: the common case, kept fast.
    if (code < 0x80 && code !== 0x26) {
      chars.push(text[index] as string);
      starts.push(index);
      ends.push(index + 1);
      index++;
      continue;
    }
    let length = code > 0xffff ? 2 : 1;
    let raw = String.fromCodePoint(code);
    if (raw === '&') {
      const match = entity.exec(text.slice(index, index + 12));
      const decoded = match
        ? match[1] !== undefined
          ? Number(match[1])
          : match[2] !== undefined
            ? Number.parseInt(match[2], 16)
            : namedEntities[(match[3] as string).toLowerCase()]?.codePointAt(0)
        : undefined;
      if (match && decoded !== undefined && decoded <= 0x10ffff) {
        code = decoded;
        raw = String.fromCodePoint(code);
        length = match[0].length;
      }
    }
    const end = index + length;
    if (!invisible.test(raw)) {
      const folded = quoteLookAlikes.test(raw) ? '"' : raw.normalize('NFKC');
      for (const char of folded) {
        chars.push(char);
        starts.push(index);
        ends.push(end);
      }
    }
    index = end;
  }
  return { chars, starts, ends };
}

const latinLetter = /[a-z]/i;
const isAscii = (char: string): boolean => char.charCodeAt(0) < 0x80;
const letter = /[\p{L}\p{M}]/u;
const cyrillic = /\p{Script=Cyrillic}/u;
const greek = /\p{Script=Greek}/u;

/**
 * Folds look-alike letters only inside words that mix scripts (`ignоre` with a Cyrillic о), so
 * Russian and Greek text keep their own letters for their own patterns.
 */
function foldWords(chars: readonly string[]): string[] {
  const out = [...chars];
  let start = 0;
  while (start < chars.length) {
    if (!letter.test(chars[start] as string)) {
      start++;
      continue;
    }
    let end = start;
    while (end < chars.length && letter.test(chars[end] as string)) end++;
    const word = chars.slice(start, end);
    // A word wholly in Cyrillic or Greek stays as it is, even when all its letters have Latin
    // twins: Russian "все" is not "bce".
    const fold =
      (!word.every(isAscii) && word.some((char) => latinLetter.test(char))) ||
      (word.some((char) => cyrillic.test(char)) && word.some((char) => greek.test(char)));
    for (let position = start; position < end; position++) {
      const char = chars[position] as string;
      out[position] = (fold ? lookAlikes[char] : undefined) ?? char.toLowerCase();
    }
    start = end;
  }
  return out.map((char) => char.toLowerCase());
}

/**
 * Joins letters spaced out one by one (`i g n o r e`, `i.g.n.o.r.e`): a run of at least three
 * single letters, each separated by one space, dot, hyphen, underscore or asterisk.
 */
const spacedLetters = /(?<![\p{L}\p{N}])\p{L}(?:[ ._*-]\p{L}){2,}(?![\p{L}\p{N}])/gu;

export function normalise(text: string): NormalisedView {
  const first = firstPass(text);
  // Look-alike folding reads the letters before lower-casing: Η looks like H, η like n.
  const chars = foldWords(first.chars);
  const joined = chars.join('');
  const keep = new Array<boolean>(chars.length).fill(true);
  let offsets: number[] | undefined;
  for (const match of joined.matchAll(spacedLetters)) {
    // matchAll works on code units; `chars` holds code points, so map unit offsets to positions.
    offsets ??= unitToPosition(chars);
    const from = offsets[match.index] as number;
    const to = offsets[match.index + match[0].length] as number;
    for (let position = from + 1; position < to; position += 2) keep[position] = false;
  }
  const view: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  chars.forEach((char, position) => {
    if (!keep[position]) return;
    // One entry per code unit, so regex indexes into the view map straight to the original.
    for (let unit = 0; unit < char.length; unit++) {
      view.push(char[unit] as string);
      starts.push(first.starts[position] as number);
      ends.push(first.ends[position] as number);
    }
  });
  return { view: view.join(''), starts, ends };
}

function unitToPosition(chars: readonly string[]): number[] {
  const offsets: number[] = [];
  chars.forEach((char, position) => {
    for (let unit = 0; unit < char.length; unit++) offsets.push(position);
  });
  offsets.push(chars.length);
  return offsets;
}
