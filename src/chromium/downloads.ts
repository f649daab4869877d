// Downloads for both Chromium drivers, over one browser-level CDP session: every download of the
// driver's browser context (any tab, new tabs, blob: and data: URLs) is checked against the URL policy,
// capped in size, and moved under a safe, unique name into the app's folder. It never writes outside it.

import {
  closeSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve, sep } from 'node:path';
import type { DownloadReport, NavigationGuard, SavedFile } from '../browser/types';
import { BrowserError, ConfigError } from '../errors';
import { mediaTypeOf, numberedName, safeFileName } from './download-names';
import { guardVerdict } from './navigation-guard';

/**
 * Where a driver saves downloads and how big one may be.
 * @public
 */
export interface DownloadsOptions {
  /**
   * The folder downloads (and `savePdf` files) are saved in; made when missing, and left in place
   * on `close()`. Without `downloads`, a fresh temporary folder of the driver's, removed on `close()`.
   */
  readonly dir: string;
  /**
   * The largest file kept, in bytes: a bigger one is cancelled, its partial file removed, and
   * reported as `too-large`.
   * @defaultValue 104857600 (100 MB)
   */
  readonly maxBytes?: number | undefined;
}

/** How long a URL the guard was told of is not told again as a download. */
const reportMemoryMs = 30_000;

/** The default size cap: 100 MB. */
export const defaultMaxDownloadBytes = 100 * 1024 * 1024;

/** The CDP events of the Browser domain's downloads, as far as they are read here. */
export interface DownloadWillBegin {
  readonly frameId: string;
  readonly guid: string;
  readonly url: string;
  readonly suggestedFilename: string;
}

/** A download's progress; `filePath` once completed (Chromium 125 and later). */
export interface DownloadProgress {
  readonly guid: string;
  readonly totalBytes: number;
  readonly receivedBytes: number;
  readonly state: 'inProgress' | 'completed' | 'canceled';
  readonly filePath?: string | undefined;
}

/** A browser-level CDP session, as both libraries give one. */
export interface DownloadSession {
  send(method: string, params?: Record<string, unknown>): Promise<unknown>;
  onWillBegin(listener: (event: DownloadWillBegin) => void): void;
  onProgress(listener: (event: DownloadProgress) => void): void;
  detach(): Promise<void>;
}

/** What a transport opens for the downloads: the session, and the CDP id of the driver's context (undefined: the browser's default one). */
export interface OpenedDownloadSession {
  readonly session: DownloadSession;
  readonly browserContextId: string | undefined;
}

/** One download while it runs. */
interface Tracked {
  readonly event: DownloadWillBegin;
  /** Whether it is this driver's context's: decided from its frame, or (undefined) from where its file lands. */
  mine: Promise<boolean | undefined>;
  /** Set once it is reported (or known to be another context's): later events only clean up. */
  ended: boolean;
  /** The guard's refusal or the cap's, decided while it ran. */
  stopped?: { readonly status: 'blocked' | 'too-large'; readonly reason: string; readonly bytes?: number } | undefined;
  /** Each event of the download in turn. */
  queue: Promise<void>;
  readonly finished: Promise<void>;
  finish(): void;
}

/** Checks the `downloads` option of a driver. @throws `ConfigError` naming what is wrong. */
function checkOptions(option: unknown): asserts option is DownloadsOptions | false | undefined {
  if (option === undefined || option === false) return;
  const bad = (message: string, field: string): never => {
    throw new ConfigError(`Option \`${field}\` ${message}`, { field });
  };
  if (typeof option !== 'object' || option === null) bad(`must be { dir, maxBytes? } or false, got ${JSON.stringify(option)}.`, 'downloads');
  const { dir, maxBytes } = option as { dir?: unknown; maxBytes?: unknown };
  if (typeof dir !== 'string' || dir.trim() === '') bad(`must be the path of a folder, got ${JSON.stringify(dir)}.`, 'downloads.dir');
  if (maxBytes !== undefined && (typeof maxBytes !== 'number' || !Number.isInteger(maxBytes) || maxBytes <= 0)) {
    bad(`must be a positive whole number of bytes, got ${JSON.stringify(maxBytes)}.`, 'downloads.maxBytes');
  }
}

/**
 * The downloads of one driver. Chromium saves each download of the context under its GUID in a
 * staging folder of the driver's (outside the app's folder, so the app never sees a partial file);
 * when it completes, it is moved into the app's folder under a safe, unique name.
 *
 * `Browser.setDownloadBehavior` applies to one browser context, which covers every tab the context
 * opens, and its events come from the download manager itself, which covers `blob:` and `data:`
 * URLs and a tab that closes as its download starts. The events reach every session that asked for
 * them, whatever context: a download is the driver's when its frame is a target of the driver's
 * context, or, when that cannot be told (a frame inside a page, a tab already gone), when its file
 * lands in the driver's staging folder.
 */
export class ChromiumDownloads {
  readonly dir: string;
  readonly maxBytes: number;
  /** Whether the driver made `dir` (the default), so it is removed on close. */
  private readonly ownsDir: boolean;
  private readonly staging: string;
  private readonly listeners = new Set<(download: DownloadReport) => void>();
  private readonly running = new Map<string, Tracked>();
  private guard: NavigationGuard | undefined;
  /** URLs the guard was told of lately (by the enforcers or here), with when: a blocked download is not told twice. */
  private readonly reported = new Map<string, number>();
  private session: DownloadSession | undefined;
  private browserContextId: string | undefined;
  /** Whether every download of the browser is this driver's (it launched the browser for itself). */
  private readonly exclusive: boolean;
  private disposed = false;

  private constructor(options: DownloadsOptions | undefined, exclusive: boolean) {
    this.exclusive = exclusive;
    this.maxBytes = options?.maxBytes ?? defaultMaxDownloadBytes;
    this.ownsDir = options === undefined;
    this.dir = options ? resolve(options.dir) : mkdtempSync(join(tmpdir(), 'plannav-downloads-'));
    this.staging = mkdtempSync(join(tmpdir(), 'plannav-downloading-'));
    try {
      mkdirSync(this.dir, { recursive: true });
      // The folder's real path, so the paths reported and the containment check agree (macOS's /var is /private/var).
      this.dir = realpathSync(this.dir);
    } catch (error) {
      this.removeFolders();
      throw new ConfigError(`Option \`downloads.dir\` names a folder that cannot be made: ${(error as Error).message}.`, { field: 'downloads.dir' });
    }
  }

  /**
   * The downloads of a driver, or undefined with `downloads: false`. `exclusive` when the driver
   * launched its browser for itself. @throws `ConfigError` for a bad option.
   */
  static create(option: unknown, exclusive: boolean): ChromiumDownloads | undefined {
    checkOptions(option);
    if (option === false) return undefined;
    return new ChromiumDownloads(option, exclusive);
  }

  /** Starts catching the context's downloads through the session `open` gives. */
  async start(open: () => Promise<OpenedDownloadSession>): Promise<void> {
    const { session, browserContextId } = await open();
    this.session = session;
    this.browserContextId = browserContextId;
    session.onWillBegin((event) => this.willBegin(event));
    session.onProgress((event) => this.progress(event));
    try {
      await session.send('Browser.setDownloadBehavior', {
        behavior: 'allowAndName',
        downloadPath: this.staging,
        eventsEnabled: true,
        ...(browserContextId === undefined ? {} : { browserContextId }),
      });
    } catch (error) {
      this.session = undefined;
      await session.detach().catch(() => undefined);
      throw error;
    }
  }

  /**
   * The guard downloads are checked against from now on (the driver's navigation guard), wrapped:
   * the driver installs the wrapper, which notes the URLs the guard's enforcers report, so a
   * blocked download is reported to the guard (kind `download`) only when they did not stop it already.
   */
  watchGuard(guard: NavigationGuard | undefined): NavigationGuard | undefined {
    this.guard = guard;
    if (!guard) return undefined;
    return {
      check: (url) => guard.check(url),
      blocked: (navigation) => {
        this.noteReported(navigation.url);
        guard.blocked(navigation);
      },
      ...(guard.scope === undefined ? {} : { scope: guard.scope }),
      ...(guard.rules === undefined ? {} : { rules: guard.rules }),
    };
  }

  onDownload(listener: (download: DownloadReport) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Resolves once no download of the driver's runs, or after `timeout` milliseconds. */
  async settled(timeout: number, signal?: AbortSignal): Promise<void> {
    const end = Date.now() + timeout;
    while (this.running.size > 0 && Date.now() < end && !signal?.aborted) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<void>((done) => (timer = setTimeout(done, Math.max(0, end - Date.now()))));
      await Promise.race([Promise.all([...this.running.values()].map((tracked) => tracked.finished)), late]);
      clearTimeout(timer);
    }
  }

  /**
   * Writes `bytes` into the folder under a safe, unique name made from `wanted` (with `extension`
   * added when it lacks it). @throws `BrowserError` when the file cannot be written.
   */
  writeFile(bytes: Uint8Array, wanted: string, extension: string): SavedFile {
    let name = safeFileName(wanted, `page${extension}`);
    if (!name.toLowerCase().endsWith(extension)) name = safeFileName(`${name}${extension}`);
    const path = this.reserve(name);
    const handle = openSync(path, 'w');
    try {
      writeSync(handle, bytes);
    } finally {
      closeSync(handle);
    }
    return { path, bytes: bytes.byteLength, mimeType: mediaTypeOf(path, bytes.subarray(0, 8)) };
  }

  /**
   * The bytes of a file of the downloads folder. @throws `BrowserError` (for the model) when the
   * path is not a file inside the folder, or the file is over the size cap.
   */
  readFile(path: string): Uint8Array {
    const refuse = (why: string): never => {
      throw new BrowserError(`Cannot read ${path}: ${why}. Give the path of a file the task downloaded, as its download result says.`);
    };
    if (!isAbsolute(path)) refuse('it is not an absolute path');
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      return refuse('there is no such file');
    }
    if (!real.startsWith(this.dir + sep)) refuse(`only files of the downloads folder ${this.dir} can be read`);
    const stat = statSync(real);
    if (!stat.isFile()) refuse('it is not a file');
    if (stat.size > this.maxBytes) refuse(`it is over the download size cap of ${this.maxBytes} bytes`);
    return new Uint8Array(readFileSync(real));
  }

  /** Stops catching downloads (the browser's own behaviour is back once the session detaches) and removes the driver's folders. Idempotent. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    for (const tracked of this.running.values()) tracked.finish();
    this.running.clear();
    this.listeners.clear();
    await this.session?.detach().catch(() => undefined);
    this.session = undefined;
    this.removeFolders();
  }

  private removeFolders(): void {
    rmSync(this.staging, { recursive: true, force: true, maxRetries: 3 });
    if (this.ownsDir) rmSync(this.dir, { recursive: true, force: true, maxRetries: 3 });
  }

  private willBegin(event: DownloadWillBegin): void {
    if (this.disposed || this.running.has(event.guid)) return;
    let finish = (): void => undefined;
    const finished = new Promise<void>((done) => (finish = done));
    const tracked: Tracked = { event, mine: this.isMine(event.frameId), ended: false, queue: Promise.resolve(), finished, finish };
    this.running.set(event.guid, tracked);
    this.enqueue(tracked, async () => {
      const mine = await tracked.mine;
      if (mine === false) return this.forget(tracked);
      // Decided as soon as the download is known to be the driver's; one whose owner shows only at its end is decided then.
      if (mine) await this.checkUrl(tracked);
    });
  }

  private progress(event: DownloadProgress): void {
    const tracked = this.running.get(event.guid);
    if (!tracked) return;
    this.enqueue(tracked, async () => {
      if (tracked.ended) return event.state === 'inProgress' ? undefined : this.removeStaged(event);
      let mine = await tracked.mine;
      if (mine === undefined && event.state === 'completed') mine = this.landedHere(event);
      if (mine === false || (mine === undefined && event.state !== 'inProgress')) return this.forget(tracked);
      if (mine === undefined) return;
      if (event.state === 'inProgress') {
        if (tracked.stopped) return;
        const over = Math.max(event.totalBytes, event.receivedBytes) > this.maxBytes;
        if (over) {
          tracked.stopped = { status: 'too-large', reason: this.tooLarge(event), bytes: event.receivedBytes };
          await this.cancel(tracked);
        }
        return;
      }
      if (!tracked.stopped) await this.checkUrl(tracked);
      if (!tracked.stopped && event.state === 'completed' && event.receivedBytes > this.maxBytes) {
        tracked.stopped = { status: 'too-large', reason: this.tooLarge(event), bytes: event.receivedBytes };
      }
      if (tracked.stopped) {
        this.removeStaged(event);
        return this.end(tracked, { status: tracked.stopped.status, reason: tracked.stopped.reason, bytes: tracked.stopped.bytes });
      }
      if (event.state === 'canceled') {
        this.removeStaged(event);
        return this.end(tracked, { status: 'failed', reason: 'the download was cancelled or interrupted (by the page, the server or the network)' });
      }
      this.end(tracked, this.keep(tracked, event));
    });
  }

  /** Runs `step` after the download's earlier events: each event sees what the earlier ones decided. */
  private enqueue(tracked: Tracked, step: () => Promise<void> | void): void {
    tracked.queue = tracked.queue.then(step).catch(() => undefined);
  }

  /** Whether the frame that started a download is of the driver's context; undefined when that cannot be told. */
  private async isMine(frameId: string): Promise<boolean | undefined> {
    if (this.exclusive || this.browserContextId === undefined || !this.session) return true;
    try {
      const { targetInfo } = (await this.session.send('Target.getTargetInfo', { targetId: frameId })) as { targetInfo: { browserContextId?: string } };
      return targetInfo.browserContextId === undefined ? undefined : targetInfo.browserContextId === this.browserContextId;
    } catch {
      return undefined;
    }
  }

  /** Whether a completed download's file is in the driver's staging folder (so its context is the driver's). */
  private landedHere(event: DownloadProgress): boolean {
    const path = event.filePath ?? join(this.staging, event.guid);
    return resolve(path).startsWith(this.staging + sep) && existsSync(path);
  }

  /** Stops a download the URL policy denies (once: later events only clean up). */
  private async checkUrl(tracked: Tracked): Promise<void> {
    if (tracked.stopped || !this.guard) return;
    const checked = urlToCheck(tracked.event.url);
    if (checked === undefined) return;
    const decision = guardVerdict(this.guard, checked);
    if (decision.allowed) return;
    tracked.stopped = { status: 'blocked', reason: decision.reason };
    await this.cancel(tracked);
  }

  private async cancel(tracked: Tracked): Promise<void> {
    const params = { guid: tracked.event.guid, ...(this.browserContextId === undefined ? {} : { browserContextId: this.browserContextId }) };
    await this.session?.send('Browser.cancelDownload', params).catch(() => undefined);
  }

  private tooLarge(event: DownloadProgress): string {
    const size = Math.max(event.totalBytes, event.receivedBytes);
    return `the file is over the size cap of ${this.maxBytes} bytes (downloads.maxBytes)${size > 0 ? `: ${size} bytes or more` : ''}`;
  }

  /** Moves a completed download into the folder; what it reports. */
  private keep(tracked: Tracked, event: DownloadProgress): Omit<DownloadReport, 'url' | 'suggestedFilename'> {
    const staged = event.filePath ?? join(this.staging, event.guid);
    try {
      if (!resolve(staged).startsWith(this.staging + sep) || !lstatSync(staged).isFile()) throw new Error('the browser reported no file');
      const name = safeFileName(tracked.event.suggestedFilename, safeFileName(lastSegment(tracked.event.url)));
      const path = this.reserve(name);
      moveFile(staged, path);
      const bytes = statSync(path).size;
      return { status: 'saved', path, bytes, mimeType: mediaTypeOf(path, readHead(path)) };
    } catch (error) {
      this.removeStaged(event);
      return { status: 'failed', reason: `the file could not be saved in ${this.dir}: ${(error as Error).message}` };
    }
  }

  /** Creates an empty file under the first free candidate of `name`, so no two downloads take one name. */
  private reserve(name: string): string {
    for (let attempt = 0; attempt < 10_000; attempt++) {
      const path = join(this.dir, numberedName(name, attempt));
      try {
        closeSync(openSync(path, 'wx'));
        return path;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    throw new BrowserError(`No free file name like ${name} is left in ${this.dir}.`);
  }

  private removeStaged(event: DownloadProgress): void {
    for (const path of [event.filePath, join(this.staging, event.guid), join(this.staging, `${event.guid}.crdownload`)]) {
      if (path !== undefined && resolve(path).startsWith(this.staging + sep)) rmSync(path, { force: true });
    }
  }

  private forget(tracked: Tracked): void {
    tracked.ended = true;
    this.running.delete(tracked.event.guid);
    tracked.finish();
  }

  /** Notes that the guard was told of `url` now. */
  private noteReported(url: string): void {
    if (this.reported.size >= 256) this.reported.delete(this.reported.keys().next().value as string);
    this.reported.set(url, Date.now());
  }

  /** Tells the guard of a download it denied, unless it was told of that URL lately (the navigation guard stopped its request). */
  private reportBlocked(url: string, reason: string): void {
    const told = this.reported.get(url);
    if (!this.guard || (told !== undefined && Date.now() - told < reportMemoryMs)) return;
    this.noteReported(url);
    try {
      this.guard.blocked({ url, reason, kind: 'download' });
    } catch {
      // A reporting hook that throws must not keep the download from ending.
    }
  }

  private end(tracked: Tracked, outcome: Omit<DownloadReport, 'url' | 'suggestedFilename'>): void {
    tracked.ended = true;
    const report: DownloadReport = { url: tracked.event.url, suggestedFilename: tracked.event.suggestedFilename, ...outcome };
    if (outcome.status === 'blocked') this.reportBlocked(report.url, outcome.reason ?? 'the URL policy does not allow it');
    for (const listener of [...this.listeners]) {
      try {
        listener(report);
      } catch {
        // A listener that throws must not keep the others from hearing, nor the download from ending.
      }
    }
    this.running.delete(tracked.event.guid);
    tracked.finish();
  }
}

/**
 * The URL the guard decides a download on: a `blob:` URL by the origin that made it (its data is that
 * page's, as a URL policy denies every `blob:` URL itself); none for a `data:` URL, which fetches
 * nothing (its bytes are in the page that started it, which the guard checked).
 */
export function urlToCheck(url: string): string | undefined {
  if (/^data:/i.test(url)) return undefined;
  if (!/^blob:/i.test(url)) return url;
  try {
    const origin = new URL(url.slice('blob:'.length)).origin;
    return origin === 'null' ? url : `${origin}/`;
  } catch {
    return url;
  }
}

/** The last path segment of a URL, decoded, for a download that suggested no name. */
function lastSegment(url: string): string {
  try {
    const segment = new URL(url).pathname.split('/').pop() ?? '';
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}

/** The first bytes of a file, to tell its type. */
function readHead(path: string): Uint8Array {
  const handle = openSync(path, 'r');
  try {
    const head = new Uint8Array(8);
    const read = readSync(handle, head, 0, 8, 0);
    return head.subarray(0, read);
  } finally {
    closeSync(handle);
  }
}

/** Moves a file onto `target` (an empty placeholder), across file systems too. */
function moveFile(from: string, target: string): void {
  try {
    renameSync(from, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    copyFileSync(from, target);
    unlinkSync(from);
  }
}
