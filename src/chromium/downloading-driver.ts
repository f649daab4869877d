// The files of a Chromium driver, over the driver core: downloads of every tab caught into the app's
// folder (downloads.ts), the active tab printed as PDF, and PDF text (a tab's or a downloaded file's).
// The core's flows stay in driver-core.ts; this adds only what reads or writes files, all through CDP.

import type { CallOptions, DownloadReport, NavigationGuard, NavigationGuardStatus, PdfSource, PdfText, SavedFile, SavePdfOptions } from '../browser/types';
import { BrowserError } from '../errors';
import { ChromiumActionsCore } from './driver-actions';
import type { CoreOptions, CoreOwnership } from './driver-core';
import { ChromiumDownloads, type DownloadsOptions, type OpenedDownloadSession } from './downloads';
import { pdfText } from './pdf-text';
import type { RuntimeFrame } from './runtime-calls';
import type { ChromiumElement, ChromiumPage, ChromiumTransport } from './transport';

/** A CDP session to one page, for what the library has no call of its own for. */
export interface PageCdpSession {
  send(method: string, params?: Record<string, unknown>): Promise<unknown>;
  detach(): Promise<unknown>;
}

/** What a transport adds for files: a browser-level session for downloads, and a CDP session to a page. */
export interface FileTransport<P> {
  openDownloadSession(): Promise<OpenedDownloadSession>;
  pageSession(page: P): Promise<PageCdpSession>;
}

/** The options of the files, on every way of creating a driver. */
export interface FileOptions extends CoreOptions {
  readonly downloads?: DownloadsOptions | false | undefined;
}

/** How long `waitForDownloads` waits when the caller gives no `timeout`. */
const defaultDownloadWait = 30_000;

/**
 * The Chromium driver core with its actions (driver-actions.ts) and files: downloads, PDFs.
 * @public
 */
export class DownloadingDriverCore<P extends ChromiumPage<F>, F extends RuntimeFrame & object, E extends ChromiumElement> extends ChromiumActionsCore<P, F, E> {
  private readonly files: FileTransport<P>;
  /** Undefined with `downloads: false`. */
  private readonly downloads: ChromiumDownloads | undefined;
  private readonly stopGoneCleanUp: () => void;

  protected constructor(transport: ChromiumTransport<P, F, E> & FileTransport<P>, owned: CoreOwnership, options: FileOptions) {
    super(transport, owned, options);
    this.files = transport;
    // A driver that launched its browser for itself (not a pool's) owns every download of it.
    this.downloads = ChromiumDownloads.create(options.downloads, owned.userDataDir !== undefined && owned.lease === undefined);
    // A browser that goes without close() (crashed, killed, closed elsewhere) leaves no folder of the driver's behind.
    this.stopGoneCleanUp = transport.onGone(() => void this.downloads?.dispose());
  }

  /** The folder downloads and printed PDFs go to; undefined with `downloads: false`. */
  get downloadsFolder(): string | undefined {
    return this.downloads?.dir;
  }

  /**
   * Calls `listener` with each download of any tab once it ended: `saved` (moved into the
   * downloads folder under a safe, unique name), `blocked` by the URL policy of the driver's
   * navigation guard (cancelled, nothing kept), `too-large` (over `downloads.maxBytes`: cancelled,
   * the partial file removed) or `failed`. Returns the function that stops listening.
   */
  onDownload(listener: (download: DownloadReport) => void): () => void {
    return this.downloads?.onDownload(listener) ?? (() => undefined);
  }

  /** Resolves once no download is in progress, or when the call's time is up (30 s by default). */
  async waitForDownloads(options?: CallOptions): Promise<void> {
    await this.downloads?.settled(options?.timeout ?? defaultDownloadWait, options?.signal);
  }

  /**
   * Prints the active tab as PDF (CDP `Page.printToPDF`: headless Chromium only) into the downloads
   * folder, under a safe, unique name made from `filename` (`.pdf` added when missing) or the page's title.
   * @throws `BrowserError` when the browser cannot print (a headed one), or the driver has `downloads: false`.
   */
  async savePdf(options?: SavePdfOptions): Promise<SavedFile> {
    return this.guarded('savePdf()', options, async () => {
      const downloads = this.downloads;
      if (!downloads) throw new BrowserError('This driver saves no files (it was made with `downloads: false`): give it a downloads folder to save PDFs.');
      const page = this.active();
      const session = await this.files.pageSession(page);
      let data: string;
      try {
        ({ data } = (await session.send('Page.printToPDF', { printBackground: true, transferMode: 'ReturnAsBase64' })) as { data: string });
      } catch (error) {
        throw new BrowserError(`The browser cannot print this page as PDF (printing works in headless Chromium only): ${(error as Error).message}`, {
          cause: error,
        });
      } finally {
        void session.detach().catch(() => undefined);
      }
      const title = await this.activeTab(options).then(
        (tab) => tab.title,
        () => '',
      );
      return downloads.writeFile(fromBase64(data), options?.filename ?? (title.trim() || 'page'), '.pdf');
    });
  }

  /**
   * The text of a PDF: the document the active tab shows (`{ tab: 'active' }`), or a file of the
   * downloads folder (`{ path }`; no other path is read). Needs the optional peer `pdfjs-dist`.
   * @throws `BrowserError` when the tab shows no PDF, the path is not a downloaded file, or the
   * bytes are no readable PDF; `ConfigError` when `pdfjs-dist` is not installed.
   */
  async readPdfText(source: PdfSource, options?: CallOptions): Promise<PdfText> {
    return this.guarded('readPdfText()', options, async () => {
      if ('path' in source) {
        if (!this.downloads) throw new BrowserError('This driver has no downloads folder (`downloads: false`), so it reads no downloaded file.');
        return pdfText(this.downloads.readFile(source.path));
      }
      return pdfText(await this.shownDocument(this.active()));
    });
  }

  override async setNavigationGuard(guard: NavigationGuard | undefined, options?: CallOptions): Promise<NavigationGuardStatus> {
    // The downloads see what the guard's enforcers report, so a download they stopped is not reported twice.
    return super.setNavigationGuard(this.downloads ? this.downloads.watchGuard(guard) : guard, options);
  }

  override async close(): Promise<void> {
    try {
      await super.close();
    } finally {
      this.stopGoneCleanUp();
      await this.downloads?.dispose();
    }
  }

  /** Starts the core (tabs, start URL), then catches the context's downloads. */
  protected override async start(startUrl?: string, preferred?: P): Promise<void> {
    await super.start(startUrl, preferred);
    await this.downloads?.start(() => this.files.openDownloadSession());
  }

  /** The bytes of the PDF a tab shows, as the browser received them (CDP `Page.getResourceContent`). */
  private async shownDocument(page: P): Promise<Uint8Array> {
    const session = await this.files.pageSession(page);
    try {
      await session.send('Page.enable');
      const { frameTree } = (await session.send('Page.getFrameTree')) as { frameTree: { frame: { id: string; url: string; mimeType?: string } } };
      const { frame } = frameTree;
      if (frame.mimeType !== 'application/pdf') {
        throw new BrowserError(`The tab shows ${frame.url}, which is not a PDF (${frame.mimeType ?? 'no type'}).`);
      }
      const content = (await session.send('Page.getResourceContent', { frameId: frame.id, url: frame.url })) as { content: string; base64Encoded: boolean };
      return content.base64Encoded ? fromBase64(content.content) : new TextEncoder().encode(content.content);
    } finally {
      void session.detach().catch(() => undefined);
    }
  }
}

function fromBase64(data: string): Uint8Array {
  const buffer = Buffer.from(data, 'base64');
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}
