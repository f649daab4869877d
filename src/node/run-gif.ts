// An animated GIF of a run, sized for a README: a title frame with the task, then one frame per
// Navigator screenshot with its step number and next goal. Its renderer, encoder and font are optional peers, loaded on first use.

import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../errors';
import type { RunHistory, StepRecord } from '../history/types';
import { throwIfAborted } from '../util/abort';
import { boundedCall } from '../util/bounded-call';
import { type FontFace, readFontFace, readFontFile, svgText, Typesetter } from './gif-text';
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
  const total = pixels.length / 4;
  const allowed = total * blankPageNoise;
  // 4 bits a channel: JPEG noise stays in its bucket, text and its anti-aliased edges do not.
  const buckets = new Uint32Array(1 << 16);
  let most = 0;
  for (let offset = 0, seen = 1; offset < pixels.length; offset += 4, seen++) {
    const key =
      ((pixels[offset] as number) >> 4) |
      (((pixels[offset + 1] as number) >> 4) << 4) |
      (((pixels[offset + 2] as number) >> 4) << 8) |
      (((pixels[offset + 3] as number) >> 4) << 12);
    const count = (buckets[key] as number) + 1;
    buckets[key] = count;
    if (count > most) most = count;
    // More pixels already outside the fullest bucket than a blank page has: no bucket can hold the rest. A page that
    // shows anything ends here, usually within its first lines, instead of after every pixel.
    else if (seen - most > allowed) return false;
  }
  return total - most <= allowed;
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
