import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { Resvg } from '@resvg/resvg-js';
import { GifReader } from 'omggif';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError, HistoryFormatError } from '../errors';
import type { RunHistory } from '../history/types';
import { loadShopRun } from '../../test/fixtures/history/shop-run';
import { createRunGif } from './run-gif';

const notoSans = createRequire(import.meta.url).resolve('@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf');

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'plannav-gif-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** Every frame of a GIF file, as RGBA pixels. */
async function decode(path: string): Promise<{ width: number; height: number; frames: Uint8Array[]; delays: number[] }> {
  const reader = new GifReader(await readFile(path));
  const frames: Uint8Array[] = [];
  const delays: number[] = [];
  for (let index = 0; index < reader.numFrames(); index += 1) {
    const pixels = new Uint8Array(reader.width * reader.height * 4);
    reader.decodeAndBlitFrameRGBA(index, pixels);
    frames.push(pixels);
    delays.push(reader.frameInfo(index).delay);
  }
  return { width: reader.width, height: reader.height, frames, delays };
}

/** How many pixels of a region differ by more than a little between two frames of the same size. */
function differingPixels(a: Uint8Array, b: Uint8Array, width: number, region: { top: number; bottom: number }): number {
  let count = 0;
  for (let y = region.top; y < region.bottom; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const at = (y * width + x) * 4;
      if (Math.abs((a[at] as number) - (b[at] as number)) + Math.abs((a[at + 1] as number) - (b[at + 1] as number)) > 60) count += 1;
    }
  }
  return count;
}

/** A history of one task with this text and no step, for title frames alone. */
function titleOnly(task: string): RunHistory {
  const run = loadShopRun();
  return { ...run, tasks: [{ ...(run.tasks[0] as RunHistory['tasks'][number]), task }], steps: [], screenshots: new Map() };
}

describe('createRunGif', () => {
  it('draws a title frame and one frame per Navigator step with a screenshot, skipping the blank page', async () => {
    const path = join(folder, 'nested', 'shop.gif');
    const result = await createRunGif(loadShopRun(), path);

    // Steps 1 (about:blank) and 4 (no screenshot) have no frame; 2 and 3 do.
    expect(result).toEqual({ path, frames: 3, width: 800, height: 500, bytes: (await readFile(path)).byteLength });
    const gif = await decode(path);
    expect(gif.frames).toHaveLength(3);
    expect([gif.width, gif.height]).toEqual([800, 500]); // 640×400 screenshots, kept at 16:10
    expect(gif.delays).toEqual([300, 200, 200]); // hundredths of a second
    // No temporary file is left beside it.
    expect(await readdir(join(folder, 'nested'))).toEqual(['shop.gif']);
  });

  it('follows the width and durations it is given', async () => {
    const path = join(folder, 'small.gif');
    const result = await createRunGif(loadShopRun(), path, { width: 320, frameDurationMs: 500, titleDurationMs: 1000 });
    const gif = await decode(path);
    expect([result.width, result.height, gif.width, gif.height]).toEqual([320, 200, 320, 200]);
    expect(gif.delays).toEqual([100, 50, 50]);
  });

  it('writes the title frame alone when no step has a screenshot to draw', async () => {
    const run = loadShopRun();
    const path = join(folder, 'title-only.gif');
    const result = await createRunGif({ ...run, screenshots: new Map() }, path);
    expect(result.frames).toBe(1);
    expect((await decode(path)).frames).toHaveLength(1);
  });

  it('draws a plain page, white with a heading and a paragraph, and skips only a page of one colour', async () => {
    // Screenshots at a browser's usual 1280×720: one all white (about:blank), one an ordinary page with little text.
    const screenshot = (body: string): Uint8Array => {
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1280" height="720"><rect width="1280" height="720" fill="#fff"/>${body}</svg>`;
      return new Resvg(svg, { font: { fontFiles: [notoSans], loadSystemFonts: false, defaultFontFamily: 'Noto Sans' } }).render().asPng();
    };
    const plainPage = screenshot(
      '<text x="40" y="80" font-size="32" font-weight="bold">Page one</text>' +
        '<text x="40" y="130" font-size="16">This is page one of a plain site: a white page with a heading and a paragraph of ordinary text.</text>',
    );
    const run = loadShopRun();
    const steps = run.steps.map((step) => (step.screenshot ? { ...step, screenshot: { ...step.screenshot, mediaType: 'image/png' as const } } : step));
    const screenshots = new Map([
      ['step-1.jpg', screenshot('')],
      ['step-2.jpg', plainPage],
      ['step-3.jpg', plainPage],
    ]);
    const result = await createRunGif({ ...run, steps, screenshots }, join(folder, 'plain.gif'));
    expect(result.frames).toBe(3); // the title, then steps 2 and 3; step 1 is blank
  });

  it('draws the glyphs of Chinese, Japanese and Latin text, not boxes', async () => {
    const frame = async (task: string): Promise<Uint8Array> => {
      const path = join(folder, `title-${task.length}-${Math.random()}.gif`);
      await createRunGif(titleOnly(task), path);
      return (await decode(path)).frames[0] as Uint8Array;
    };
    const [japanese, chinese, latin, latinOther, empty] = await Promise.all(
      ['日本の買物', '中文购物车', 'Checkout', 'Shipping', ''].map((task) => frame(task)),
    );
    // The title's text sits in the middle band of the 800×450 frame (no screenshot: 16:9).
    const region = { top: 150, bottom: 300 };
    // Five characters each: as boxes of the missing glyphs they would look alike.
    expect(differingPixels(japanese as Uint8Array, chinese as Uint8Array, 800, region)).toBeGreaterThan(300);
    expect(differingPixels(japanese as Uint8Array, empty as Uint8Array, 800, region)).toBeGreaterThan(300);
    expect(differingPixels(chinese as Uint8Array, empty as Uint8Array, 800, region)).toBeGreaterThan(300);
    expect(differingPixels(latin as Uint8Array, latinOther as Uint8Array, 800, region)).toBeGreaterThan(200);
    expect(differingPixels(latin as Uint8Array, empty as Uint8Array, 800, region)).toBeGreaterThan(200);
  });

  it('draws accented Greek and Cyrillic with the bundled fonts', async () => {
    const render = async (task: string): Promise<Uint8Array> => {
      const path = join(folder, `greek-${Math.random()}.gif`);
      await createRunGif(titleOnly(task), path);
      return (await decode(path)).frames[0] as Uint8Array;
    };
    const [accented, plain, cyrillic, empty] = await Promise.all(['Ελληνικά έ ή ί', 'Ελληνικα ε η ι', 'Корзина', ''].map((task) => render(task)));
    expect(differingPixels(accented as Uint8Array, plain as Uint8Array, 800, { top: 150, bottom: 300 })).toBeGreaterThan(20);
    expect(differingPixels(cyrillic as Uint8Array, empty as Uint8Array, 800, { top: 150, bottom: 300 })).toBeGreaterThan(200);
  });

  it('rejects options out of range and fonts it cannot read, naming them', async () => {
    const run = loadShopRun();
    await expect(createRunGif(run, join(folder, 'x.gif'), { width: 10 })).rejects.toThrow(
      /Option `width` of createRunGif must be a whole number of pixels from 160 to 2000; got 10/,
    );
    const missingFont = join(folder, 'missing.ttf');
    const error = await createRunGif(run, join(folder, 'x.gif'), { fonts: [missingFont] }).catch((thrown: unknown) => thrown);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as ConfigError).message).toContain(missingFont);
    const notAFont = join(folder, 'not-a-font.ttf');
    await import('node:fs/promises').then(({ writeFile }) => writeFile(notAFont, 'wOF2 not a font'));
    await expect(createRunGif(run, join(folder, 'x.gif'), { fonts: [notAFont] })).rejects.toThrow(/is not a TrueType or OpenType font/);
  });

  it('refuses a history that is not valid, naming the field, and writes nothing', async () => {
    const path = join(folder, 'invalid.gif');
    const run = loadShopRun();
    const hostileMediaType: RunHistory = {
      ...run,
      steps: run.steps.map((step) =>
        step.screenshot ? { ...step, screenshot: { ...step.screenshot, mediaType: 'image/jpeg"/><image href="https://evil/x.png' as 'image/jpeg' } } : step,
      ),
    };
    const error: unknown = await createRunGif(hostileMediaType, path).catch((caught: unknown) => caught);
    expect(HistoryFormatError.isInstance(error)).toBe(true);
    expect((error as HistoryFormatError).field).toBe('steps[1].screenshot.mediaType');
    const hostileStep: RunHistory = {
      ...run,
      steps: run.steps.map((step, index) => (index === 2 ? { ...step, step: '"><meta http-equiv=refresh content=0;url=//evil>' as unknown as number } : step)),
    };
    await expect(createRunGif(hostileStep, path)).rejects.toMatchObject({ name: 'HistoryFormatError', field: 'steps[2].step' });
    await expect(readFile(path)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('does not write a GIF when cancelled', async () => {
    const path = join(folder, 'cancelled.gif');
    await expect(createRunGif(loadShopRun(), path, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'RequestCancelledError' });
    await expect(readFile(path)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('createRunGif without its optional packages', () => {
  it('throws a ConfigError naming the npm install command', async () => {
    vi.resetModules();
    vi.doMock('@resvg/resvg-js', () => {
      throw Object.assign(new Error("Cannot find package '@resvg/resvg-js'"), { code: 'ERR_MODULE_NOT_FOUND' });
    });
    try {
      const { createRunGif: fresh } = await import('./run-gif');
      const error = await fresh(loadShopRun(), join(folder, 'never.gif')).catch((thrown: unknown) => thrown);
      expect(ConfigError.isInstance(error)).toBe(true);
      expect((error as ConfigError).message).toContain('Install them with: npm install @resvg/resvg-js');
    } finally {
      vi.doUnmock('@resvg/resvg-js');
      vi.resetModules();
    }
  });
});
