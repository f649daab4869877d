// An animated GIF of a run, sized for a README: a title frame with the task, then one frame per
// Navigator screenshot with its step number and next goal. Its renderer, encoder and font are optional peers, loaded on first use.

import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../errors';
import type { RunHistory, StepRecord } from '../history/types';
import { throwIfAborted } from '../util/abort';
import { boundedCall } from '../util/bounded-call';
import { describeThrown } from '../util/describe-thrown';
import { checkedHistory, writeAtomically } from './history-files';

/**
 * Options of {@link createRunGif}.
 * @example
 * ```ts
 * await createRunGif(result.history, 'docs/checkout.gif', { width: 640, frameDurationMs: 1500 });
 * ```
 * @public
 */
export interface RunGifOptions {
  /**
   * Width of the GIF in pixels, from 160 to 2000. The height follows the first screenshot's aspect
   * ratio (kept between 3:1 and 1:1; a taller page is cut at the bottom).
   * @defaultValue 800
   */
  readonly width?: number | undefined;
  /** How long each step's frame shows, in milliseconds (GIFs count in hundredths of a second). @defaultValue 2000 */
  readonly frameDurationMs?: number | undefined;
  /** How long the title frame shows, in milliseconds. @defaultValue 3000 */
  readonly titleDurationMs?: number | undefined;
  /** Whether the title frame lists every task of the session, follow-ups included, rather than the first only. @defaultValue false */
  readonly allTasks?: boolean | undefined;
  /**
   * Paths of extra TrueType or OpenType font files (`.ttf`, `.otf`, `.ttc`; not WOFF) for scripts the
   * bundled Noto Sans SC lacks: Korean, Arabic, Hebrew, Devanagari, Thai, emoji, … A character is
   * drawn with the first font that has it. No font of the machine is used unless it is listed here.
   * @example
   * ```ts
   * { fonts: ['/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf'] }
   * ```
   */
  readonly fonts?: readonly string[] | undefined;
  /** Cancels the rendering; the GIF is then not written. */
  readonly signal?: AbortSignal | undefined;
  /** Milliseconds the whole call may take; none when absent. */
  readonly timeout?: number | undefined;
}

/** What {@link createRunGif} wrote. @public */
export interface RunGifResult {
  /** The absolute path of the GIF. */
  readonly path: string;
  /** How many frames it holds: the title frame and one per drawn step. */
  readonly frames: number;
  /** Its width in pixels. */
  readonly width: number;
  /** Its height in pixels. */
  readonly height: number;
  /** Its size in bytes. */
  readonly bytes: number;
}

/**
 * The fonts createRunGif draws with before any of `options.fonts`, by package: Noto Sans for Latin,
 * Greek and Cyrillic, then Noto Sans SC for Chinese and Japanese (its own Greek lacks accented letters).
 */
const bundledFonts = [
  { packageName: '@expo-google-fonts/noto-sans', file: '@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf' },
  { packageName: '@expo-google-fonts/noto-sans-sc', file: '@expo-google-fonts/noto-sans-sc/400Regular/NotoSansSC_400Regular.ttf' },
] as const;

const defaults = { width: 800, frameDurationMs: 2000, titleDurationMs: 3000 } as const;

/** What createRunGif uses of `@resvg/resvg-js`. */
interface ResvgModule {
  readonly Resvg: new (
    svg: string,
    options: {
      readonly fitTo?: { readonly mode: 'width'; readonly value: number };
      readonly font?: { readonly fontFiles?: string[]; readonly loadSystemFonts?: boolean; readonly defaultFontFamily?: string };
    },
  ) => {
    render(): { readonly pixels: Uint8Array; readonly width: number; readonly height: number };
    getBBox(): { readonly width: number; readonly height: number } | undefined;
  };
}

/** What createRunGif uses of `gifenc` (it ships no types). */
interface GifencModule {
  GIFEncoder(): {
    writeFrame(index: Uint8Array, width: number, height: number, options: { palette: number[][]; delay: number; repeat?: number }): void;
    finish(): void;
    bytes(): Uint8Array;
  };
  quantize(rgba: Uint8Array, maxColors: number, options?: { format?: 'rgb565' | 'rgb444' | 'rgba4444' }): number[][];
  applyPalette(rgba: Uint8Array, palette: number[][], format?: 'rgb565' | 'rgb444' | 'rgba4444'): Uint8Array;
}

interface GifToolkit {
  readonly resvg: ResvgModule;
  readonly gifenc: GifencModule;
  readonly fontFiles: readonly string[];
}

/** Resolves a package file from this module, in the ESM build and the CommonJS one alike. */
function resolvePackageFile(specifier: string): string {
  // Not `typeof require === 'function' ? require : …`: the ESM bundle turns `require` into a shim
  // that exists but has no `.resolve`. `import.meta.url` is there in every build: tsup's CommonJS
  // output derives it from `__filename`.
  return createRequire(import.meta.url).resolve(specifier);
}

/** Loads the optional peers, or throws a ConfigError that names the command installing the missing ones. */
async function loadGifToolkit(): Promise<GifToolkit> {
  const missing: string[] = [];
  const causes: unknown[] = [];
  const attempt = async <T>(name: string, load: () => Promise<T> | T): Promise<T | undefined> => {
    try {
      return await load();
    } catch (error) {
      missing.push(name);
      causes.push(error);
      return undefined;
    }
  };
  const resvg = await attempt('@resvg/resvg-js', async () => (await import('@resvg/resvg-js')) as unknown as ResvgModule);
  const gifenc = await attempt('gifenc', async () => {
    // @ts-expect-error gifenc ships no type declarations; GifencModule says what is used of it.
    const loaded = (await import('gifenc')) as GifencModule & { default?: GifencModule };
    // Node's import() of its CommonJS build may put the functions on `default` only.
    return typeof loaded.GIFEncoder === 'function' ? loaded : (loaded.default as GifencModule);
  });
  const fontFiles: string[] = [];
  for (const font of bundledFonts) {
    const file = await attempt(font.packageName, () => resolvePackageFile(font.file));
    if (file !== undefined) fontFiles.push(file);
  }
  if (!resvg || !gifenc || missing.length > 0) {
    throw new ConfigError(
      `createRunGif needs the optional package${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, which could not be loaded. ` +
        `Install them with: npm install ${missing.join(' ')}`,
      { cause: causes.length === 1 ? causes[0] : new AggregateError(causes, 'Loading the GIF packages failed.') },
    );
  }
  return { resvg, gifenc, fontFiles };
}

function checkOptions(options: RunGifOptions): void {
  const { width, frameDurationMs, titleDurationMs, fonts } = options;
  if (width !== undefined && (!Number.isInteger(width) || width < 160 || width > 2000)) {
    throw new ConfigError(`Option \`width\` of createRunGif must be a whole number of pixels from 160 to 2000; got ${String(width)}.`, { field: 'width' });
  }
  for (const [field, value] of [
    ['frameDurationMs', frameDurationMs],
    ['titleDurationMs', titleDurationMs],
  ] as const) {
    if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value) || value < 20)) {
      throw new ConfigError(`Option \`${field}\` of createRunGif must be a number of milliseconds, at least 20; got ${String(value)}.`, { field });
    }
  }
  if (fonts !== undefined && (!Array.isArray(fonts) || fonts.some((font) => typeof font !== 'string' || font === ''))) {
    throw new ConfigError('Option `fonts` of createRunGif must be an array of font file paths.', { field: 'fonts' });
  }
}

/** The pixel size of a PNG or JPEG from its header; `undefined` when the bytes are neither. */
function imageSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length >= 24 && view.getUint32(0) === 0x89504e47 && view.getUint32(12) === 0x49484452) {
    return { width: view.getUint32(16), height: view.getUint32(20) };
  }
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return undefined;
  let offset = 2;
  while (offset + 9 < bytes.length) {
    if (bytes[offset] !== 0xff) return undefined;
    const marker = bytes[offset + 1] as number;
    if (marker === 0xff) {
      offset += 1; // fill byte
      continue;
    }
    const length = view.getUint16(offset + 2);
    // SOF0…SOF15 carry the size, except DHT (C4), JPG (C8) and DAC (CC), which share the range.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: view.getUint16(offset + 5), width: view.getUint16(offset + 7) };
    }
    offset += 2 + length;
  }
  return undefined;
}

/** Text made safe for SVG: XML-escaped, and the characters XML forbids dropped. */
function svgText(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '') // eslint-disable-line no-control-regex
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** What the typesetter needs of a font file: its family name, which characters it has, and how wide they are. */
interface FontFace {
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
async function readFontFile(file: string): Promise<Uint8Array> {
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

interface FrameGeometry {
  readonly width: number;
  readonly height: number;
}

const colors = { background: '#0f172a', band: '#020617', accent: '#3b82f6', text: '#f8fafc', muted: '#94a3b8' } as const;

function svgDocument(geometry: FrameGeometry, body: string): string {
  const { width, height } = geometry;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    `<rect width="${width}" height="${height}" fill="${colors.background}"/>${body}</svg>`
  );
}

/** The title frame: the task (or every task, numbered) in large type, and a line on how the run went. */
function titleSvg(type: Typesetter, geometry: FrameGeometry, tasks: readonly string[], footer: string): string {
  const { width, height } = geometry;
  const margin = Math.round(width * 0.07);
  const fontSize = Math.max(14, Math.round(width / 26));
  const lineHeight = fontSize * 1.4;
  const labelSize = Math.round(fontSize * 0.6);
  const available = height - margin * 2 - labelSize * 2.4 - labelSize * 2;
  const maxLines = Math.max(1, Math.floor(available / lineHeight));
  const maxWidth = ((width - margin * 2) / fontSize) * 0.96;
  const lines: string[] = [];
  for (const [index, task] of tasks.entries()) {
    const room = maxLines - lines.length;
    if (room <= 0) break;
    lines.push(...type.wrap(tasks.length > 1 ? `${index + 1}. ${task}` : task, maxWidth, room));
  }
  const blockHeight = labelSize * 2.4 + lines.length * lineHeight;
  const top = Math.max(margin, Math.round((height - blockHeight) / 2));
  const label = tasks.length > 1 ? 'TASKS' : 'TASK';
  return svgDocument(
    geometry,
    `<rect x="${margin}" y="${top}" width="${Math.round(labelSize * 3)}" height="${Math.max(3, Math.round(labelSize / 4))}" fill="${colors.accent}"/>` +
      type.svg([label], { x: margin, right: width - margin, firstBaseline: top + labelSize * 1.6, lineHeight, fontSize: labelSize, fill: colors.muted }) +
      type.svg(lines, { x: margin, right: width - margin, firstBaseline: top + labelSize * 2.4 + fontSize, lineHeight, fontSize, fill: colors.text }) +
      type.svg([footer], { x: margin, right: width - margin, firstBaseline: height - margin * 0.6, lineHeight, fontSize: labelSize, fill: colors.muted }),
  );
}

/** A step frame: the screenshot across the width, from its top, and a band at the bottom with the step and its goal. */
function stepSvg(type: Typesetter, geometry: FrameGeometry, image: { dataUri: string; width: number; height: number }, label: string, goal: string): string {
  const { width, height } = geometry;
  const fontSize = Math.max(12, Math.round(width / 40));
  const labelSize = Math.round(fontSize * 0.8);
  const padding = Math.round(fontSize * 0.75);
  const lineHeight = fontSize * 1.38;
  const lines = type.wrap(goal, ((width - padding * 2) / fontSize) * 0.96, 3);
  const bandHeight = Math.round(padding * 2 + labelSize * 1.5 + lines.length * lineHeight);
  const bandTop = height - bandHeight;
  const imageHeight = Math.round((width * image.height) / image.width);
  const pillWidth = Math.round(type.width(label) * labelSize + labelSize * 1.2);
  return svgDocument(
    geometry,
    `<image x="0" y="0" width="${width}" height="${imageHeight}" preserveAspectRatio="none" href="${svgText(image.dataUri)}"/>` +
      `<rect x="0" y="${bandTop}" width="${width}" height="${bandHeight}" fill="${colors.band}" fill-opacity="0.84"/>` +
      `<rect x="${padding}" y="${bandTop + padding - Math.round(labelSize * 0.2)}" width="${pillWidth}" height="${Math.round(labelSize * 1.4)}" rx="${Math.round(labelSize * 0.35)}" fill="${colors.accent}"/>` +
      type.svg([label], {
        x: padding + labelSize * 0.6,
        right: width - padding,
        firstBaseline: bandTop + padding + labelSize * 0.95,
        lineHeight,
        fontSize: labelSize,
        fill: colors.text,
      }) +
      type.svg(lines, {
        x: padding,
        right: width - padding,
        firstBaseline: bandTop + padding + labelSize * 1.5 + fontSize,
        lineHeight,
        fontSize,
        fill: colors.text,
      }),
  );
}

/** The Navigator's next goal from its model output; the step's action names when it wrote none. */
function nextGoal(step: StepRecord): string {
  const output = step.modelOutput as { current_state?: { next_goal?: unknown } } | null | undefined;
  const goal = typeof output === 'object' && output !== null ? output.current_state?.next_goal : undefined;
  if (typeof goal === 'string' && goal.trim() !== '') return goal;
  return step.actions.map((action) => action.name).join(', ');
}

/**
 * At most this share of a screenshot's pixels may differ from its main colour for it to count as a
 * blank page: about 90 pixels of a 1280×720 screenshot, less than one short word, so a page that
 * shows any text at all is drawn.
 */
const blankPageNoise = 1 / 10_000;

/**
 * Whether a screenshot is a blank page (about:blank, a page still loading): all its pixels but
 * {@link blankPageNoise} of them fall in one colour bucket. Judged at the screenshot's own size:
 * shrunk to a thumbnail, a white page with a heading and a paragraph blurs into white.
 * A screenshot that cannot be decoded counts as blank.
 */
function isBlank(toolkit: GifToolkit, dataUri: string, size: { width: number; height: number }): boolean {
  // A transparent background: an image that fails to decode leaves every pixel transparent, one bucket.
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size.width}" height="${size.height}"><image width="${size.width}" height="${size.height}" preserveAspectRatio="none" href="${svgText(dataUri)}"/></svg>`;
  const { pixels } = new toolkit.resvg.Resvg(svg, { font: { loadSystemFonts: false } }).render();
  // 4 bits a channel: JPEG noise stays in its bucket, text and its anti-aliased edges do not.
  const buckets = new Map<number, number>();
  let most = 0;
  for (let offset = 0; offset < pixels.length; offset += 4) {
    const key =
      ((pixels[offset] as number) >> 4) |
      (((pixels[offset + 1] as number) >> 4) << 4) |
      (((pixels[offset + 2] as number) >> 4) << 8) |
      (((pixels[offset + 3] as number) >> 4) << 12);
    const count = (buckets.get(key) ?? 0) + 1;
    buckets.set(key, count);
    most = Math.max(most, count);
  }
  const total = pixels.length / 4;
  return total - most <= total * blankPageNoise;
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** The Navigator steps worth a frame, with their screenshot decoded enough to lay out. */
function drawableSteps(toolkit: GifToolkit, history: RunHistory): { step: StepRecord; image: { dataUri: string; width: number; height: number } }[] {
  const drawable: { step: StepRecord; image: { dataUri: string; width: number; height: number } }[] = [];
  for (const step of history.steps) {
    if (step.actor !== 'navigator' || !step.screenshot) continue;
    const bytes = history.screenshots.get(step.screenshot.part);
    const size = bytes ? imageSize(bytes) : undefined;
    if (!bytes || !size || size.width === 0 || size.height === 0) continue;
    // Only the two media types the format allows reach the data: URI, whatever the history says.
    const mediaType = step.screenshot.mediaType === 'image/png' ? 'image/png' : 'image/jpeg';
    const dataUri = `data:${mediaType};base64,${base64(bytes)}`;
    if (isBlank(toolkit, dataUri, size)) continue;
    drawable.push({ step, image: { dataUri, ...size } });
  }
  return drawable;
}

function runSummary(history: RunHistory): string {
  const navigatorSteps = history.steps.filter((step) => step.actor === 'navigator').length;
  const status = history.tasks.at(-1)?.status;
  const parts = [`${navigatorSteps} step${navigatorSteps === 1 ? '' : 's'}`];
  if (status) parts.push(status === 'ok' ? 'done' : status);
  return parts.join(' · ');
}

/**
 * Draws a run as an animated GIF, sized for a README: a title frame with the task, then one frame
 * per Navigator step that has a screenshot, with the step number and the Navigator's next goal in a
 * band over the screenshot. Blank pages (a screenshot of a single colour but for a few pixels, such
 * as about:blank) are skipped; a page that shows any text is drawn. A run with no screenshot to
 * draw still gets a GIF: its title frame alone.
 *
 * @remarks
 * Node only. Needs the optional peer dependencies `@resvg/resvg-js` (renders each frame),
 * `gifenc` (encodes), `@expo-google-fonts/noto-sans` and `@expo-google-fonts/noto-sans-sc` (the
 * fonts, so the GIF looks the same on every machine); without them it throws a `ConfigError` naming the `npm install` command. The
 * bundled font draws Latin, Cyrillic, Greek, Chinese and Japanese; add fonts with
 * {@link RunGifOptions.fonts} for Korean, Arabic, Hebrew, Devanagari or emoji (they are shaped, and
 * right-to-left lines are set from the right). The GIF is written to a temporary file and renamed,
 * so `path` never holds half a GIF; its folder is created when missing.
 *
 * @param history - The run's history, such as `result.history` or `await loadHistory(file)`.
 * @param path - Where to write the GIF.
 * @throws `HistoryFormatError` naming the field at fault when `history` is not a valid history
 * (one built or edited by hand), before anything is drawn.
 * @example
 * ```ts
 * import { createRunGif } from 'plannav/node';
 *
 * const result = await executor.execute();
 * const gif = await createRunGif(result.history, 'docs/checkout.gif');
 * console.log(`${gif.frames} frames, ${gif.width}×${gif.height}, ${gif.bytes} bytes`);
 * ```
 * @public
 */
export async function createRunGif(history: RunHistory, path: string, options: RunGifOptions = {}): Promise<RunGifResult> {
  checkOptions(options);
  // Every field of the format checked (a media type is one of two, a step number a number) before any reaches an SVG.
  const checked = checkedHistory(history);
  const toolkit = await loadGifToolkit();
  const width = options.width ?? defaults.width;
  const frameDelay = options.frameDurationMs ?? defaults.frameDurationMs;
  const titleDelay = options.titleDurationMs ?? defaults.titleDurationMs;
  const fontFiles = [...toolkit.fontFiles, ...(options.fonts ?? []).map((font) => resolve(font))];
  const faces = await Promise.all(fontFiles.map(async (file) => readFontFace(await readFontFile(file), file)));
  // A word of a shaped script is measured by drawing it at 100 px with its font alone (the ink's width, close to its advance).
  const measureShaped = (text: string, face: FontFace): number | undefined => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="200"><text x="10" y="150" font-size="100" font-family="${svgText(`'${face.family.replace(/'/g, '')}'`)}">${svgText(text)}</text></svg>`;
    const box = new toolkit.resvg.Resvg(svg, { font: { fontFiles: [face.file], loadSystemFonts: false } }).getBBox();
    return box ? box.width / 100 + 0.08 : undefined;
  };
  const type = new Typesetter(faces, measureShaped);
  const target = resolve(path);
  return boundedCall('createRunGif', options, async (signal) => {
    const steps = drawableSteps(toolkit, checked);
    const first = steps[0]?.image;
    // Between 3:1 and 1:1, so a full-page screenshot does not make a GIF taller than it is wide.
    const aspect = first ? Math.min(1, Math.max(1 / 3, first.height / first.width)) : 9 / 16;
    const geometry = { width, height: Math.round(width * aspect) };
    const render = (svg: string): Uint8Array => {
      const rendered = new toolkit.resvg.Resvg(svg, { font: { fontFiles, loadSystemFonts: false, defaultFontFamily: type.defaultFamily } }).render();
      return rendered.pixels;
    };
    const encoder = toolkit.gifenc.GIFEncoder();
    const addFrame = (rgba: Uint8Array, delay: number): void => {
      const palette = toolkit.gifenc.quantize(rgba, 256, { format: 'rgb565' });
      const index = toolkit.gifenc.applyPalette(rgba, palette, 'rgb565');
      encoder.writeFrame(index, geometry.width, geometry.height, { palette, delay, repeat: 0 });
    };
    const tasks = options.allTasks ? checked.tasks.map((task) => task.task) : checked.tasks.slice(0, 1).map((task) => task.task);
    addFrame(render(titleSvg(type, geometry, tasks, runSummary(checked))), titleDelay);
    const severalTasks = checked.tasks.length > 1;
    for (const { step, image } of steps) {
      throwIfAborted(signal);
      const label = severalTasks ? `Task ${step.taskIndex + 1} · Step ${step.step}` : `Step ${step.step}`;
      addFrame(render(stepSvg(type, geometry, image, label, nextGoal(step))), frameDelay);
    }
    encoder.finish();
    const bytes = encoder.bytes();
    throwIfAborted(signal);
    await mkdir(dirname(target), { recursive: true });
    await writeAtomically(target, bytes);
    return { path: target, frames: steps.length + 1, width: geometry.width, height: geometry.height, bytes: bytes.byteLength };
  });
}
