// A Playwright trace and video of what a launched PlaywrightDriver does: the options, their check,
// and the recording that starts with the context and is written as trace.zip once, on save or close.

import { mkdirSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { BrowserContext, BrowserContextOptions } from 'playwright-core';
import { BrowserError, ConfigError } from '../errors';
import { firstLine } from '../chromium/call';

/**
 * Where and how `PlaywrightDriver.launch` records a Playwright trace of the run: `trace.zip`
 * in `dir`, written when the driver closes (or at `saveTrace()`), to open with
 * `npx playwright show-trace <dir>/trace.zip` or at trace.playwright.dev.
 * @example
 * ```ts
 * await using driver = await PlaywrightDriver.launch({ trace: { dir: 'runs/checkout' } });
 * ```
 * @public
 */
export interface PlaywrightTraceOptions {
  /** The folder that receives `trace.zip`; created when missing. A trace.zip already there is replaced. */
  readonly dir: string;
  /**
   * Record a screenshot of the page as it changes (the trace's filmstrip).
   * @defaultValue true
   */
  readonly screenshots?: boolean | undefined;
  /**
   * Record a DOM snapshot before and after each driver call, to inspect the page as it was.
   * @defaultValue true
   */
  readonly snapshots?: boolean | undefined;
}

/**
 * Where `PlaywrightDriver.launch` records a video of each tab: one `.webm` file per tab in
 * `dir`, complete once the driver has closed.
 * @public
 */
export interface PlaywrightVideoOptions {
  /** The folder that receives the videos; created when missing. */
  readonly dir: string;
  /**
   * The videos' size in pixels.
   * @defaultValue the viewport, scaled down to fit 800 × 800
   */
  readonly size?: { readonly width: number; readonly height: number } | undefined;
}

/** The name of the trace file in the trace's folder. */
export const traceFileName = 'trace.zip';

function checkDir(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ConfigError(`Option \`${field}\` of PlaywrightDriver.launch must be the path of a folder, got ${JSON.stringify(value) ?? String(value)}.`, {
      field,
    });
  }
  return resolve(value);
}

/**
 * The checked `trace` and `video` options, their folders made absolute and created.
 * @throws `ConfigError` naming the option at fault, before any browser starts.
 */
export function checkRecordingOptions(options: { readonly trace?: PlaywrightTraceOptions | undefined; readonly video?: PlaywrightVideoOptions | undefined }): {
  readonly trace?: PlaywrightTraceOptions | undefined;
  readonly video?: PlaywrightVideoOptions | undefined;
} {
  const { trace, video } = options;
  for (const [field, value] of [
    ['trace', trace],
    ['video', video],
  ] as const) {
    if (value !== undefined && (typeof value !== 'object' || value === null)) {
      throw new ConfigError(`Option \`${field}\` of PlaywrightDriver.launch must be an object such as { dir: 'runs/trace' }.`, { field });
    }
  }
  for (const flag of ['screenshots', 'snapshots'] as const) {
    const value = trace?.[flag];
    if (value !== undefined && typeof value !== 'boolean') {
      throw new ConfigError(`Option \`trace.${flag}\` of PlaywrightDriver.launch must be true or false.`, { field: `trace.${flag}` });
    }
  }
  const size = video?.size;
  if (size !== undefined && !(Number.isInteger(size?.width) && Number.isInteger(size?.height) && size.width > 0 && size.height > 0)) {
    throw new ConfigError('Option `video.size` of PlaywrightDriver.launch must be { width, height } in whole pixels above 0.', { field: 'video.size' });
  }
  const checked = {
    trace: trace ? { ...trace, dir: checkDir(trace.dir, 'trace.dir') } : undefined,
    video: video ? { ...video, dir: checkDir(video.dir, 'video.dir') } : undefined,
  };
  for (const [field, dir] of [
    ['trace.dir', checked.trace?.dir],
    ['video.dir', checked.video?.dir],
  ] as const) {
    if (dir === undefined) continue;
    try {
      mkdirSync(dir, { recursive: true });
    } catch (error) {
      throw new ConfigError(`Option \`${field}\` of PlaywrightDriver.launch names ${dir}, which cannot be created: ${firstLine(error)}`, {
        field,
        cause: error,
      });
    }
  }
  return checked;
}

/** The context options that record videos, when asked. */
export function videoContextOptions(video: PlaywrightVideoOptions | undefined): Pick<BrowserContextOptions, 'recordVideo'> {
  return video ? { recordVideo: { dir: video.dir, ...(video.size ? { size: { width: video.size.width, height: video.size.height } } : {}) } } : {};
}

/**
 * A launch that failed because video recording needs Playwright's own FFmpeg build, which
 * Playwright downloads apart from its browsers: the error says so, rather than to install Chromium.
 */
export function explainRecordingFailure(recording: { readonly video?: PlaywrightVideoOptions | undefined }): (error: unknown) => never {
  return (error) => {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    if (recording.video && /ffmpeg/i.test(firstLine(cause))) {
      throw new BrowserError(
        "Recording a video needs Playwright's FFmpeg, which is not installed: run `npx playwright install ffmpeg`, or launch without the `video` option.",
        { cause: error },
      );
    }
    throw error;
  };
}

/**
 * A Playwright trace being recorded in one context, in chunks: `save()` writes what was recorded
 * since the start or the last save and records on; `finish()` writes the rest and stops.
 */
export class TraceRecording {
  /** The last write, so writes happen one after the other. */
  private writing: Promise<unknown> = Promise.resolve();
  private finishing: Promise<string | undefined> | undefined;
  private contextClosed = false;

  private constructor(
    private readonly context: BrowserContext,
    private readonly options: PlaywrightTraceOptions,
  ) {
    context.once('close', () => (this.contextClosed = true));
  }

  /** Starts tracing `context`. @throws `BrowserError` when Playwright cannot. */
  static async start(context: BrowserContext, options: PlaywrightTraceOptions): Promise<TraceRecording> {
    try {
      await context.tracing.start({ screenshots: options.screenshots ?? true, snapshots: options.snapshots ?? true });
      await context.tracing.startChunk({ title: 'plannav' });
    } catch (error) {
      throw new BrowserError(`Could not start the Playwright trace: ${firstLine(error)}`, { cause: error });
    }
    return new TraceRecording(context, options);
  }

  /** Where a trace goes: `path` made absolute, or `trace.zip` in the trace's folder. */
  private target(path: string | undefined): string {
    return path === undefined ? join(this.options.dir, traceFileName) : isAbsolute(path) ? path : resolve(path);
  }

  /**
   * Writes what was recorded since the start or the last save to `path` (default: `trace.zip` in
   * the trace's folder) and records on. Undefined once the recording has finished or the browser is gone.
   * @throws `BrowserError` when the trace could not be written.
   */
  save(path?: string): Promise<string | undefined> {
    const target = this.target(path);
    return this.queue(async () => {
      if (this.finishing || this.contextClosed) return undefined;
      await this.context.tracing.stopChunk({ path: target });
      await this.context.tracing.startChunk({ title: 'plannav' });
      return target;
    }, target);
  }

  /**
   * Writes what was recorded since the start or the last save to `trace.zip` in the trace's
   * folder, and stops. Later calls give the same answer; undefined when the browser was gone first.
   * @throws `BrowserError` when the trace could not be written.
   */
  finish(): Promise<string | undefined> {
    const target = this.target(undefined);
    this.finishing ??= this.queue(async () => {
      if (this.contextClosed) return undefined;
      await this.context.tracing.stopChunk({ path: target });
      await this.context.tracing.stop();
      return target;
    }, target);
    return this.finishing;
  }

  private queue(write: () => Promise<string | undefined>, target: string): Promise<string | undefined> {
    const result = this.writing.then(write).catch((error: unknown) => {
      // The browser ended while the trace was written: what it held is lost with it.
      if (this.contextClosed) return undefined;
      throw new BrowserError(`Could not write the Playwright trace to ${target}: ${firstLine(error)}`, { cause: error });
    });
    this.writing = result.catch(() => undefined);
    return result;
  }
}
