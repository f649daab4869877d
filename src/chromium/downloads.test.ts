import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BlockedNavigation, DownloadReport, NavigationGuard } from '../browser/types';
import { ConfigError } from '../errors';
import { ChromiumDownloads, urlToCheck, type DownloadProgress, type DownloadSession, type DownloadWillBegin } from './downloads';

/** A browser-level session that plays Chromium's download events; files land in the staging folder it was given. */
class FakeSession implements DownloadSession {
  readonly sent: { method: string; params?: Record<string, unknown> | undefined }[] = [];
  staging = '';
  private willBegin: ((event: DownloadWillBegin) => void) | undefined;
  private progress: ((event: DownloadProgress) => void) | undefined;

  constructor(private readonly contexts: Record<string, string> = {}) {}

  async send(method: string, params?: Record<string, unknown>): Promise<unknown> {
    this.sent.push({ method, params });
    if (method === 'Browser.setDownloadBehavior') this.staging = String(params?.['downloadPath']);
    if (method === 'Target.getTargetInfo') {
      const context = this.contexts[String(params?.['targetId'])];
      if (context === undefined) throw new Error('No target with given id found');
      return { targetInfo: { browserContextId: context } };
    }
    return {};
  }
  onWillBegin(listener: (event: DownloadWillBegin) => void): void {
    this.willBegin = listener;
  }
  onProgress(listener: (event: DownloadProgress) => void): void {
    this.progress = listener;
  }
  async detach(): Promise<void> {}

  begin(guid: string, url: string, suggestedFilename: string, frameId = 'frame-1'): void {
    this.willBegin?.({ frameId, guid, url, suggestedFilename });
  }
  /** Writes the staged file and reports the download completed. */
  complete(guid: string, body: string): void {
    const filePath = join(this.staging, guid);
    writeFileSync(filePath, body);
    const size = Buffer.byteLength(body);
    this.progress?.({ guid, totalBytes: size, receivedBytes: size, state: 'completed', filePath });
  }
  step(guid: string, receivedBytes: number, totalBytes = 0): void {
    writeFileSync(join(this.staging, guid), 'x'.repeat(receivedBytes));
    this.progress?.({ guid, totalBytes, receivedBytes, state: 'inProgress' });
  }
  cancel(guid: string): void {
    this.progress?.({ guid, totalBytes: 0, receivedBytes: 0, state: 'canceled' });
  }
  cancelsSent(): unknown[] {
    return this.sent.filter((item) => item.method === 'Browser.cancelDownload').map((item) => item.params?.['guid']);
  }
}

/** A guard that denies URLs holding `denied`, recording what it was told. */
function denyingGuard(): NavigationGuard & { told: BlockedNavigation[] } {
  const told: BlockedNavigation[] = [];
  return {
    told,
    check: (url) => (url.includes('denied') ? { allowed: false, reason: 'host denied.example is on the deny list' } : { allowed: true, reason: '' }),
    blocked: (navigation) => told.push(navigation),
  };
}

let root: string;
let dir: string;
let downloads: ChromiumDownloads | undefined;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'plannav-downloads-unit-'));
  dir = join(root, 'downloads');
});

afterEach(async () => {
  await downloads?.dispose();
  downloads = undefined;
  rmSync(root, { recursive: true, force: true });
});

async function started(options: { maxBytes?: number; exclusive?: boolean; contextId?: string; contexts?: Record<string, string> } = {}) {
  const catcher = ChromiumDownloads.create({ dir, maxBytes: options.maxBytes }, options.exclusive ?? true);
  if (!catcher) throw new Error('no downloads');
  downloads = catcher;
  const session = new FakeSession(options.contexts);
  await catcher.start(async () => ({ session, browserContextId: options.contextId }));
  const reports: DownloadReport[] = [];
  catcher.onDownload((report) => reports.push(report));
  return { session, reports, downloads: catcher };
}

/** Lets the queued event handlers run. */
const drain = async (): Promise<void> => {
  for (let round = 0; round < 20; round++) await new Promise((done) => setImmediate(done));
};

describe('ChromiumDownloads', () => {
  it('asks Chromium to save the context’s downloads into a staging folder outside the app’s, with events', async () => {
    const { session } = await started({ contextId: 'ctx-1', exclusive: false });
    const behaviour = session.sent.find((item) => item.method === 'Browser.setDownloadBehavior');
    expect(behaviour?.params).toMatchObject({ behavior: 'allowAndName', eventsEnabled: true, browserContextId: 'ctx-1' });
    expect(session.staging.startsWith(dir)).toBe(false);
  });

  it('moves a completed download into the folder under its safe name, a second one under a numbered name', async () => {
    const { session, reports } = await started();
    session.begin('g1', 'https://bank.example/statement', '../../statement.csv');
    session.complete('g1', 'date,amount\n');
    session.begin('g2', 'https://bank.example/statement', '../../statement.csv');
    session.complete('g2', 'date,amount\n1,2\n');
    await drain();
    expect(reports.map((report) => report.status)).toEqual(['saved', 'saved']);
    expect(reports[0]).toMatchObject({ path: join(dir, 'statement.csv'), bytes: 12, mimeType: 'text/csv', suggestedFilename: '../../statement.csv' });
    expect(reports[1]?.path).toBe(join(dir, 'statement (1).csv'));
    expect(readFileSync(join(dir, 'statement (1).csv'), 'utf8')).toBe('date,amount\n1,2\n');
    expect(readdirSync(session.staging)).toEqual([]);
  });

  it('names a download without a suggested name after its URL, and types it by its first bytes', async () => {
    const { session, reports } = await started();
    session.begin('g1', 'https://bank.example/files/invoice', '');
    session.complete('g1', '%PDF-1.4 …');
    await drain();
    expect(reports[0]).toMatchObject({ status: 'saved', path: join(dir, 'invoice'), mimeType: 'application/pdf' });
  });

  it('cancels a download the guard denies, keeps nothing and tells the guard once, as a download', async () => {
    const { session, reports, downloads: catcher } = await started();
    const guard = denyingGuard();
    catcher.watchGuard(guard);
    session.begin('g1', 'https://denied.example/file.csv', 'file.csv');
    await drain();
    expect(session.cancelsSent()).toEqual(['g1']);
    session.cancel('g1');
    await drain();
    expect(reports).toEqual([
      { url: 'https://denied.example/file.csv', suggestedFilename: 'file.csv', status: 'blocked', reason: 'host denied.example is on the deny list' },
    ]);
    expect(guard.told).toEqual([{ url: 'https://denied.example/file.csv', reason: 'host denied.example is on the deny list', kind: 'download' }]);
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
  });

  it('does not tell the guard again of a download its enforcers stopped already', async () => {
    const { session, reports, downloads: catcher } = await started();
    const guard = denyingGuard();
    const installed = catcher.watchGuard(guard) as NavigationGuard;
    // The navigation guard stops the request and reports it through the guard the driver installed.
    installed.blocked({ url: 'https://denied.example/a.csv', reason: 'denied', kind: 'navigation' });
    session.begin('g1', 'https://denied.example/a.csv', 'a.csv');
    session.cancel('g1');
    await drain();
    expect(reports.map((report) => report.status)).toEqual(['blocked']);
    expect(guard.told.map((item) => item.kind)).toEqual(['navigation']);
  });

  it('a blocked download that completed before its cancel still leaves no file', async () => {
    const { session, reports, downloads: catcher } = await started();
    catcher.watchGuard(denyingGuard());
    session.begin('g1', 'https://denied.example/tiny.txt', 'tiny.txt');
    session.complete('g1', 'tiny');
    await drain();
    expect(reports.map((report) => report.status)).toEqual(['blocked']);
    expect(readdirSync(dir)).toEqual([]);
    expect(readdirSync(session.staging)).toEqual([]);
  });

  it('stops a download over the cap as it runs, removes its partial file and reports too-large', async () => {
    const { session, reports } = await started({ maxBytes: 1000 });
    session.begin('g1', 'https://bank.example/big.bin', 'big.bin');
    session.step('g1', 600, 5000);
    await drain();
    expect(session.cancelsSent()).toEqual(['g1']);
    session.cancel('g1');
    await drain();
    expect(reports[0]).toMatchObject({ status: 'too-large', url: 'https://bank.example/big.bin' });
    expect(reports[0]?.reason).toContain('1000 bytes');
    expect(readdirSync(dir)).toEqual([]);
    expect(readdirSync(session.staging)).toEqual([]);
  });

  it('reports too-large for a file over the cap that completed before any progress said so', async () => {
    const { session, reports } = await started({ maxBytes: 10 });
    session.begin('g1', 'https://bank.example/quick.bin', 'quick.bin');
    session.complete('g1', 'more than ten bytes');
    await drain();
    expect(reports.map((report) => report.status)).toEqual(['too-large']);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('reports a download the page or server cancelled as failed', async () => {
    const { session, reports } = await started();
    session.begin('g1', 'https://bank.example/file', 'file.txt');
    session.cancel('g1');
    await drain();
    expect(reports[0]).toMatchObject({ status: 'failed' });
  });

  it('leaves another context’s downloads alone, even one the guard denies', async () => {
    const {
      session,
      reports,
      downloads: catcher,
    } = await started({ exclusive: false, contextId: 'mine', contexts: { 'frame-mine': 'mine', 'frame-other': 'other' } });
    catcher.watchGuard(denyingGuard());
    session.begin('g1', 'https://denied.example/x.csv', 'x.csv', 'frame-other');
    await drain();
    session.complete('g1', 'theirs');
    session.begin('g2', 'https://bank.example/y.csv', 'y.csv', 'frame-mine');
    session.complete('g2', 'mine');
    await drain();
    expect(session.cancelsSent()).toEqual([]);
    expect(reports.map((report) => report.suggestedFilename)).toEqual(['y.csv']);
  });

  it('takes a download whose frame cannot be looked up as its own when its file lands in its staging folder', async () => {
    const { session, reports } = await started({ exclusive: false, contextId: 'mine' });
    session.begin('g1', 'https://bank.example/in-frame.csv', 'in-frame.csv', 'inner-frame');
    session.complete('g1', 'body');
    await drain();
    expect(reports.map((report) => [report.status, report.path])).toEqual([['saved', join(dir, 'in-frame.csv')]]);
  });

  it('waits for running downloads within a bound', async () => {
    const { session, downloads: catcher } = await started();
    session.begin('g1', 'https://bank.example/slow', 'slow.txt');
    await drain();
    const waiting = catcher.settled(5000);
    let done = false;
    void waiting.then(() => (done = true));
    await drain();
    expect(done).toBe(false);
    session.complete('g1', 'finally');
    await waiting;
    expect(done).toBe(true);
    // Nothing running: at once; something that never ends: after the bound.
    await catcher.settled(5000);
    session.begin('g2', 'https://bank.example/never', 'never.txt');
    await drain();
    await catcher.settled(20);
  });

  it('writes a printed PDF under a safe, unique .pdf name', async () => {
    const { downloads: catcher } = await started();
    const pdf = new TextEncoder().encode('%PDF-1.7 page');
    const first = catcher.writeFile(pdf, '../../outside', '.pdf');
    const second = catcher.writeFile(pdf, 'outside.pdf', '.pdf');
    expect(first).toEqual({ path: join(dir, 'outside.pdf'), bytes: pdf.byteLength, mimeType: 'application/pdf' });
    expect(second.path).toBe(join(dir, 'outside (1).pdf'));
    expect(existsSync(join(root, 'outside.pdf'))).toBe(false);
  });

  it('reads only files of its folder', async () => {
    const { downloads: catcher } = await started({ maxBytes: 100 });
    writeFileSync(join(dir, 'ok.pdf'), 'pdf');
    writeFileSync(join(root, 'secret.txt'), 'secret');
    symlinkSync(join(root, 'secret.txt'), join(dir, 'link.pdf'));
    writeFileSync(join(dir, 'big.pdf'), 'x'.repeat(200));
    expect(new TextDecoder().decode(catcher.readFile(join(dir, 'ok.pdf')))).toBe('pdf');
    expect(() => catcher.readFile(join(root, 'secret.txt'))).toThrow(/only files of the downloads folder/);
    expect(() => catcher.readFile(join(dir, 'link.pdf'))).toThrow(/only files of the downloads folder/);
    expect(() => catcher.readFile(join(dir, '..', 'secret.txt'))).toThrow(/only files of the downloads folder/);
    expect(() => catcher.readFile('ok.pdf')).toThrow(/not an absolute path/);
    expect(() => catcher.readFile(join(dir, 'missing.pdf'))).toThrow(/no such file/);
    expect(() => catcher.readFile(join(dir, 'big.pdf'))).toThrow(/size cap/);
  });

  it('keeps the app’s folder on dispose and removes a folder of its own', async () => {
    const { downloads: catcher } = await started();
    writeFileSync(join(dir, 'kept.txt'), 'kept');
    await catcher.dispose();
    expect(existsSync(join(dir, 'kept.txt'))).toBe(true);
    const own = ChromiumDownloads.create(undefined, true) as ChromiumDownloads;
    expect(existsSync(own.dir)).toBe(true);
    await own.dispose();
    expect(existsSync(own.dir)).toBe(false);
  });

  it('checks a blob download by the origin that made it, and lets a data: download through', async () => {
    expect(urlToCheck('blob:https://bank.example/6505bc8d')).toBe('https://bank.example/');
    expect(urlToCheck('blob:null/6505bc8d')).toBe('blob:null/6505bc8d');
    expect(urlToCheck('data:text/csv,a,b')).toBeUndefined();
    expect(urlToCheck('https://bank.example/x')).toBe('https://bank.example/x');
    const { session, reports, downloads: catcher } = await started();
    catcher.watchGuard(denyingGuard());
    session.begin('g1', 'blob:https://bank.example/6505bc8d', 'export.csv');
    session.complete('g1', 'a,b');
    session.begin('g2', 'blob:https://denied.example/77', 'evil.csv');
    session.cancel('g2');
    await drain();
    expect(reports.map((report) => [report.suggestedFilename, report.status])).toEqual([
      ['export.csv', 'saved'],
      ['evil.csv', 'blocked'],
    ]);
  });

  it('checks its option', () => {
    expect(ChromiumDownloads.create(false, true)).toBeUndefined();
    for (const bad of [{ dir: '' }, { dir: 'x', maxBytes: 0 }, { dir: 'x', maxBytes: 1.5 }, 'folder', null]) {
      expect(() => ChromiumDownloads.create(bad, true)).toThrow(ConfigError);
    }
    expect(() => ChromiumDownloads.create({ dir: 'x', maxBytes: -1 }, true)).toThrow(/downloads\.maxBytes/);
  });
});
