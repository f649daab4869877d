// The text of the GIF's frames: reading a font file's names, character map and advances, and a
// typesetter that picks a font per character, measures lines and wraps them (resvg draws text but
// cannot measure it first). No renderer here: run-gif.ts draws what this lays out.

import { readFile } from 'node:fs/promises';
import { ConfigError } from '../errors';
import { describeThrown } from '../util/describe-thrown';

/** Text made safe for SVG: XML-escaped, and the characters XML forbids dropped. */
export function svgText(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '') // eslint-disable-line no-control-regex
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** What the typesetter needs of a font file: its family name, which characters it has, and how wide they are. */
export interface FontFace {
  readonly family: string;
  /** The font file, for the renderer. */
  readonly file: string;
  /** The advance of the glyph of `codePoint` in ems; `undefined` when the font has no glyph for it. */
  advance(codePoint: number): number | undefined;
}

/**
 * Reads the family name, character map (formats 4 and 12) and advance widths of a TrueType or
 * OpenType font (the first face of a collection). resvg picks fonts by family and cannot measure
 * text before it draws it, so the GIF picks a font for each character and wraps lines with these widths.
 * @internal
 */
export function readFontFace(bytes: Uint8Array, file: string): FontFace {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const invalid = (): ConfigError =>
    new ConfigError(`The font file ${file} is not a TrueType or OpenType font with a Unicode character map (WOFF and WOFF2 are not read).`, { field: 'fonts' });
  try {
    const directory = view.getUint32(0) === 0x74746366 /* 'ttcf' */ ? view.getUint32(12) : 0;
    const tables = new Map<string, number>();
    for (let index = 0; index < view.getUint16(directory + 4); index += 1) {
      const record = directory + 12 + index * 16;
      tables.set(String.fromCharCode(...bytes.subarray(record, record + 4)), view.getUint32(record + 8));
    }
    const [cmap, head, hhea, hmtx, name] = ['cmap', 'head', 'hhea', 'hmtx', 'name'].map((tag) => tables.get(tag));
    if (cmap === undefined || head === undefined || hhea === undefined || hmtx === undefined || name === undefined) throw invalid();
    const unitsPerEm = view.getUint16(head + 18);
    const metricsCount = view.getUint16(hhea + 34);
    let subtable: { format: 4 | 12; offset: number } | undefined;
    for (let index = 0; index < view.getUint16(cmap + 2); index += 1) {
      const record = cmap + 4 + index * 8;
      const [platform, encoding, offset] = [view.getUint16(record), view.getUint16(record + 2), cmap + view.getUint32(record + 4)];
      const format = view.getUint16(offset);
      const unicode = platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10));
      if (unicode && format === 12) subtable = { format, offset };
      else if (unicode && format === 4 && subtable?.format !== 12) subtable = { format, offset };
    }
    if (!subtable || unitsPerEm === 0) throw invalid();
    const glyphOf = characterMap(view, subtable);
    const cache = new Map<number, number | undefined>();
    return {
      family: familyName(view, name) ?? file,
      file,
      advance(codePoint) {
        if (cache.has(codePoint)) return cache.get(codePoint);
        const glyph = glyphOf(codePoint);
        const advance = glyph === 0 ? undefined : view.getUint16(hmtx + 4 * Math.min(glyph, metricsCount - 1)) / unitsPerEm;
        cache.set(codePoint, advance);
        return advance;
      },
    };
  } catch (error) {
    if (ConfigError.isInstance(error)) throw error;
    throw invalid(); // a RangeError: the file ends before its tables do
  }
}

/** The bytes of a font file; a ConfigError naming the file when it cannot be read. */
export async function readFontFile(file: string): Promise<Uint8Array> {
  try {
    return new Uint8Array(await readFile(file));
  } catch (error) {
    throw new ConfigError(`The font file ${file} of option \`fonts\` could not be read: ${describeThrown(error)}`, { field: 'fonts', cause: error });
  }
}

/** The glyph lookup of a cmap subtable: format 12 (groups of code points) or format 4 (segments of the BMP). */
function characterMap(view: DataView, subtable: { format: 4 | 12; offset: number }): (codePoint: number) => number {
  const { offset } = subtable;
  if (subtable.format === 12) {
    const count = view.getUint32(offset + 12);
    return (codePoint) => {
      let low = 0;
      let high = count - 1;
      while (low <= high) {
        const middle = (low + high) >> 1;
        const group = offset + 16 + middle * 12;
        if (codePoint < view.getUint32(group)) high = middle - 1;
        else if (codePoint > view.getUint32(group + 4)) low = middle + 1;
        else return view.getUint32(group + 8) + codePoint - view.getUint32(group);
      }
      return 0;
    };
  }
  const segmentsTimesTwo = view.getUint16(offset + 6);
  const ends = offset + 14;
  const starts = ends + segmentsTimesTwo + 2;
  const deltas = starts + segmentsTimesTwo;
  const rangeOffsets = deltas + segmentsTimesTwo;
  return (codePoint) => {
    if (codePoint > 0xffff) return 0;
    for (let segment = 0; segment < segmentsTimesTwo; segment += 2) {
      if (codePoint > view.getUint16(ends + segment)) continue;
      const start = view.getUint16(starts + segment);
      if (codePoint < start) return 0;
      const delta = view.getUint16(deltas + segment);
      const rangeOffset = view.getUint16(rangeOffsets + segment);
      if (rangeOffset === 0) return (codePoint + delta) & 0xffff;
      const glyph = view.getUint16(rangeOffsets + segment + rangeOffset + 2 * (codePoint - start));
      return glyph === 0 ? 0 : (glyph + delta) & 0xffff;
    }
    return 0;
  };
}

/** The family name of the `name` table: the typographic family (16) when there is one, else the family (1). */
function familyName(view: DataView, table: number): string | undefined {
  const found = new Map<number, string>();
  const strings = table + view.getUint16(table + 4);
  for (let index = 0; index < view.getUint16(table + 2); index += 1) {
    const record = table + 6 + index * 12;
    const [platform, encoding, language, nameId, length, offset] = [0, 2, 4, 6, 8, 10].map((field) => view.getUint16(record + field)) as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    if ((nameId !== 1 && nameId !== 16) || found.has(nameId)) continue;
    const start = strings + offset;
    if (platform === 3 && (encoding === 1 || encoding === 10) && language === 0x409) {
      let text = '';
      for (let at = 0; at + 1 < length; at += 2) text += String.fromCharCode(view.getUint16(start + at));
      found.set(nameId, text);
    } else if (platform === 1 && encoding === 0) {
      found.set(nameId, String.fromCharCode(...new Uint8Array(view.buffer, view.byteOffset + start, length)));
    }
  }
  return found.get(16) ?? found.get(1);
}

/** Characters that never need a glyph of their own: joiners, variation selectors, directional marks. */
function isInvisible(character: string): boolean {
  const codePoint = character.codePointAt(0) as number;
  return (
    (codePoint >= 0x200b && codePoint <= 0x200f) ||
    (codePoint >= 0x202a && codePoint <= 0x202e) ||
    (codePoint >= 0x2060 && codePoint <= 0x2064) ||
    (codePoint >= 0xfe00 && codePoint <= 0xfe0f) ||
    (codePoint >= 0xe0100 && codePoint <= 0xe01ef)
  );
}
const rightToLeftCharacter = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;
const strongCharacter = /\p{L}/u;
const letterOrDigit = /[\p{L}\p{N}]/u;
const wideCharacter =
  /^[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1faff}\u{20000}-\u{3fffd}]/u;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
/** Scripts a run may not mix; Chinese and Japanese characters and kana count as one. */
const scripts: readonly (readonly [string, RegExp])[] = (
  [
    'Latin',
    'Greek',
    'Cyrillic',
    'Armenian',
    'Hebrew',
    'Arabic',
    'Syriac',
    'Thaana',
    'Devanagari',
    'Bengali',
    'Gurmukhi',
    'Gujarati',
    'Oriya',
    'Tamil',
    'Telugu',
    'Kannada',
    'Malayalam',
    'Sinhala',
    'Thai',
    'Lao',
    'Tibetan',
    'Myanmar',
    'Georgian',
    'Hangul',
    'Ethiopic',
    'Khmer',
    'Mongolian',
  ] as const
).map((name) => [name, new RegExp(`^\\p{Script=${name}}`, 'u')] as const);
/** Scripts whose letters take a shape from their neighbours, so their words are measured by rendering them. */
const shapedScript =
  /[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}\p{Script=Thai}\p{Script=Lao}\p{Script=Tibetan}\p{Script=Myanmar}\p{Script=Khmer}\p{Script=Mongolian}]/u;
const cjkScript = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30fc]/u;

/** The script of a grapheme's first character; `undefined` for spaces, digits, punctuation and symbols, which take their neighbours'. */
function scriptOf(grapheme: string): string | undefined {
  if (cjkScript.test(grapheme)) return 'CJK';
  return scripts.find(([, pattern]) => pattern.test(grapheme))?.[0];
}

/** A run of text drawn with one font. */
interface TextRun {
  readonly text: string;
  readonly family: string;
}

/**
 * Lays out text with a list of fonts, first choice first: picks for each grapheme the first font
 * that has all its characters (so Arabic or Devanagari stay in one font and are shaped as words),
 * measures lines with the fonts' advances, and wraps them.
 * @internal
 */
export class Typesetter {
  readonly #faces: readonly FontFace[];
  readonly #measureShaped: ((text: string, face: FontFace) => number | undefined) | undefined;
  readonly #shapedWidths = new Map<string, number | undefined>();

  /**
   * A typesetter over `faces`, in order of preference; the first draws what no font has (as boxes).
   * `measureShaped` measures a word in ems as the renderer draws it, for scripts whose letters change
   * shape with their neighbours (Arabic, Indic, Thai, …), where the fonts' own advances are far off.
   */
  constructor(faces: readonly FontFace[], measureShaped?: (text: string, face: FontFace) => number | undefined) {
    this.#faces = faces;
    this.#measureShaped = measureShaped;
  }

  #faceOf(grapheme: string, current: FontFace | undefined): FontFace {
    const characters = Array.from(grapheme)
      .filter((character) => !isInvisible(character))
      .map((character) => character.codePointAt(0) as number);
    const covers = (face: FontFace): boolean => characters.every((codePoint) => face.advance(codePoint) !== undefined);
    // Spaces and punctuation stay in the run they are in, so a word of Arabic and the space after it shape together.
    if (current && !letterOrDigit.test(grapheme) && covers(current)) return current;
    return this.#faces.find(covers) ?? (this.#faces[0] as FontFace);
  }

  /** The width of `text` in ems, as the chosen fonts draw it (without kerning). */
  width(text: string): number {
    if (this.#measureShaped && shapedScript.test(text) && !text.includes(' ')) {
      const face = this.#faceOf(text, undefined);
      const key = `${face.family}\u0000${text}`;
      if (!this.#shapedWidths.has(key)) this.#shapedWidths.set(key, this.#measureShaped(text, face));
      const measured = this.#shapedWidths.get(key);
      if (measured !== undefined) return measured;
    }
    let width = 0;
    let face: FontFace | undefined;
    for (const { segment } of graphemes.segment(text)) {
      face = this.#faceOf(segment, face);
      // Only the first character of a cluster advances; a font without it still takes a box's room.
      const first = Array.from(segment).find((character) => !isInvisible(character));
      width += first === undefined ? 0 : (face.advance(first.codePointAt(0) as number) ?? 1);
    }
    return width;
  }

  /** The family of the first font, which draws what no font has. */
  get defaultFamily(): string {
    return (this.#faces[0] as FontFace).family;
  }

  /**
   * `text` cut into runs of one font and one script each: resvg shapes a run with the script of
   * its first letter, so Arabic after Hebrew in one run would lose its joins. Spaces, digits and
   * punctuation belong to the run they follow.
   */
  runs(text: string): TextRun[] {
    const runs: { text: string; family: string; script: string }[] = [];
    let face: FontFace | undefined;
    for (const { segment } of graphemes.segment(text)) {
      face = this.#faceOf(segment, face);
      const last = runs.at(-1);
      const script = scriptOf(segment) ?? last?.script ?? '';
      if (last && last.family === face.family && (last.script === script || last.script === '')) {
        last.text += segment;
        last.script = script;
      } else runs.push({ text: segment, family: face.family, script });
    }
    return runs.map(({ text: runText, family }) => ({ text: runText, family }));
  }

  /**
   * Wraps `text` into at most `maxLines` lines of at most `maxWidth` ems: at spaces, and between
   * any two CJK characters (they need no space to break); a word longer than a line is cut between
   * graphemes. The last line ends with `…` when the text did not fit.
   */
  wrap(text: string, maxWidth: number, maxLines: number): string[] {
    const clean = text.replace(/\s+/g, ' ').trim();
    if (clean === '' || maxLines < 1) return [];
    // Units that never break inside: a run of other graphemes up to a space or a wide character.
    const units: string[] = [];
    for (const { segment } of graphemes.segment(clean)) {
      const last = units.at(-1);
      const breaks = segment === ' ' || wideCharacter.test(segment) || last === undefined || last === ' ' || wideCharacter.test(last);
      if (breaks) units.push(segment);
      else units[units.length - 1] = last + segment;
    }
    const lines: string[] = [];
    let line = '';
    for (const unit of units) {
      if (line === '' && unit === ' ') continue;
      if (this.width(line + unit) <= maxWidth) {
        line += unit;
        continue;
      }
      if (line.trim() !== '') lines.push(line.trimEnd());
      line = '';
      if (unit === ' ') continue;
      if (this.width(unit) <= maxWidth) {
        line = unit;
        continue;
      }
      for (const { segment } of graphemes.segment(unit)) {
        if (line !== '' && this.width(line + segment) > maxWidth) {
          lines.push(line);
          line = '';
        }
        line += segment;
      }
    }
    if (line.trim() !== '') lines.push(line.trimEnd());
    if (lines.length <= maxLines) return lines;
    const kept = lines.slice(0, maxLines);
    const last = [...graphemes.segment(kept[maxLines - 1] as string)].map((part) => part.segment);
    while (last.length > 0 && this.width(`${last.join('').trimEnd()}…`) > maxWidth) last.pop();
    kept[maxLines - 1] = `${last.join('').trimEnd()}…`;
    return kept;
  }

  /**
   * SVG for `lines`, a baseline each, one `<text>` per word of one font, each placed where this
   * typesetter measured it. resvg shapes a `<text>` that mixes fonts wrongly (accented Greek after
   * Chinese loses its accents) and lays the words of Hebrew or Arabic left to right, while a single
   * word it shapes right; so the words are ordered here, by a word-level form of the Unicode bidi
   * algorithm: a line reads in the direction of its first strong letter, a run of words of the other
   * direction in its own, and spaces and punctuation go with the words around them.
   */
  svg(lines: readonly string[], layout: { x: number; right: number; firstBaseline: number; lineHeight: number; fontSize: number; fill: string }): string {
    let svg = '';
    for (const [index, line] of lines.entries()) {
      const baseRtl = isRightToLeft(line);
      const y = Math.round(layout.firstBaseline + index * layout.lineHeight);
      const tokens = this.runs(line).flatMap((run) =>
        (run.text.match(/ +|[^ ]+/g) ?? []).map((text) => ({
          text,
          family: run.family,
          width: this.width(text) * layout.fontSize,
          rtl: text.startsWith(' ') ? undefined : strongDirection(text),
        })),
      );
      // A token with no strong letter takes the direction of its neighbours when they agree, else the line's.
      const directions = tokens.map((token, at) => {
        if (token.rtl !== undefined) return token.rtl;
        const before = tokens
          .slice(0, at)
          .reverse()
          .find((other) => other.rtl !== undefined)?.rtl;
        const after = tokens.slice(at + 1).find((other) => other.rtl !== undefined)?.rtl;
        return before !== undefined && before === after ? before : baseRtl;
      });
      const groups: { rtl: boolean; tokens: typeof tokens }[] = [];
      for (const [at, token] of tokens.entries()) {
        const last = groups.at(-1);
        if (last && last.rtl === directions[at]) last.tokens.push(token);
        else groups.push({ rtl: directions[at] as boolean, tokens: [token] });
      }
      const visual = (baseRtl ? groups.reverse() : groups).flatMap((group) => (group.rtl ? [...group.tokens].reverse() : group.tokens));
      const total = visual.reduce((sum, token) => sum + token.width, 0);
      let cursor = baseRtl ? layout.right - total : layout.x;
      for (const token of visual) {
        if (token.text.trim() !== '') {
          const family = svgText(`'${token.family.replace(/'/g, '')}'`);
          svg += `<text x="${cursor.toFixed(1)}" y="${y}" font-family="${family}" font-size="${layout.fontSize}" fill="${layout.fill}">${svgText(token.text)}</text>`;
        }
        cursor += token.width;
      }
    }
    return svg;
  }
}

/** Whether `text` reads right to left by its first strong letter; `undefined` when it has none (digits, punctuation). */
function strongDirection(text: string): boolean | undefined {
  for (const character of text) {
    if (rightToLeftCharacter.test(character)) return true;
    if (strongCharacter.test(character)) return false;
  }
  return undefined;
}

/** Whether a line of `text` reads right to left: its first strong letter is Hebrew, Arabic or kin. */
function isRightToLeft(text: string): boolean {
  return strongDirection(text) ?? false;
}
