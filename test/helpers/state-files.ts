// The file site of the download and PDF tests: a page of download links of every kind (an
// attachment, <a download>, a blob, one in a new tab, evil suggested names, an oversized file, one
// on a denied host), and PDFs made by hand here (a valid PDF 1.4 file with text objects, its
// cross-reference offsets counted), so the tests need no PDF library and no file from elsewhere.
import type { ServerResponse } from 'node:http';
import { startRecordingServer, type RecordingServer } from './recording-server';

/** A small valid PDF whose one page shows `lines` in Helvetica, one under the other. */
export function minimalPdf(lines: readonly string[]): Buffer {
  const escape = (text: string) => text.replace(/[\\()]/g, (char) => `\\${char}`);
  const stream = ['BT', '/F1 18 Tf', '72 720 Td', '22 TL', ...lines.map((line) => `(${escape(line)}) '`), 'ET'].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`,
  ];
  let body = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

/** The words of the served PDFs: the tests look for them in what the extraction model was sent. */
export const pdfLines = ['Quarterly statement for Ada Lovelace', 'Closing balance 4217 euros', 'Reference PLANNAV-PDF-93'];
export const downloadedPdfLines = ['Invoice number INV-5521', 'Amount due 318 euros', 'Payable to Analytical Engines'];

/** A body of exactly `bytes` bytes (a CSV-looking text). */
export function bodyOf(bytes: number, seed: string): Buffer {
  const line = `${seed},42.17\n`;
  return Buffer.from(line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes));
}

/** The served files: their path, suggested name, type and body. */
export const files = {
  statement: { path: '/files/statement', name: 'statement-2026-11.csv', type: 'text/csv', body: bodyOf(777, 'date') },
  notes: { path: '/files/notes', name: 'notes.txt', type: 'text/plain', body: bodyOf(555, 'note') },
  tab: { path: '/files/tab-statement', name: 'tab-statement.csv', type: 'text/csv', body: bodyOf(333, 'tabs') },
  traversal: { path: '/files/evil-traversal', name: '../../etc/passwd', type: 'text/plain', body: bodyOf(101, 'trav') },
  control: { path: '/files/evil-control', name: 'bad\r\nname\u0007.txt', type: 'text/plain', body: bodyOf(102, 'ctrl') },
  long: { path: '/files/evil-long', name: `${'L'.repeat(400)}.txt`, type: 'text/plain', body: bodyOf(103, 'long') },
  big: { path: '/files/big', name: 'big.bin', type: 'application/octet-stream', body: bodyOf(300_000, 'bigs') },
  denied: { path: '/files/denied', name: 'denied.csv', type: 'text/csv', body: bodyOf(444, 'deny') },
  invoice: { path: '/files/invoice', name: 'invoice-5521.pdf', type: 'application/pdf', body: minimalPdf(downloadedPdfLines) },
} as const;

/** The blob the page makes and downloads itself. */
export const blobFile = { name: 'blob-report.txt', text: 'blob report body, made in the page\n' };

export interface FileSite {
  readonly origin: string;
  /** The server on another loopback address, whose files the URL policy denies in the tests. */
  readonly denied: RecordingServer;
  readonly server: RecordingServer;
  url(path: string): string;
  close(): Promise<void>;
}

function attachment(response: ServerResponse, file: { name: string; type: string; body: Buffer }): void {
  const ascii = file.name.replace(/[^\x20-\x7e]|"/g, '_');
  response
    .writeHead(200, {
      'content-type': file.type,
      'content-length': String(file.body.length),
      // The raw name goes in filename*, control characters and all: the browser and the driver must make it safe.
      'content-disposition': `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(file.name)}`,
    })
    .end(file.body);
}

/** Starts the file site on 127.0.0.1 and the denied host on 127.0.0.2. */
export async function startFileSite(): Promise<FileSite> {
  const denied = await startRecordingServer('127.0.0.2', (_request, response) =>
    attachment(response, { name: 'denied.csv', type: 'text/csv', body: bodyOf(444, 'deny') }),
  );
  const server = await startRecordingServer('127.0.0.1', (request, response) => {
    const url = new URL(request.url ?? '/', 'http://site');
    const file = Object.values(files).find((item) => item.path === url.pathname);
    if (file === files.notes) return void response.writeHead(200, { 'content-type': file.type, 'content-length': String(file.body.length) }).end(file.body);
    if (file) return attachment(response, file);
    if (url.pathname === '/statement.pdf') {
      const body = minimalPdf(pdfLines);
      return void response.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(body.length) }).end(body);
    }
    if (url.pathname === '/downloads.html') {
      const body = `<!doctype html><title>Downloads</title><h1>Your documents</h1>
        <a href="${files.statement.path}">Statement attachment</a>
        <a href="${files.notes.path}" download="${files.notes.name}">Notes with download attribute</a>
        <button onclick="const link = document.createElement('a'); link.href = URL.createObjectURL(new Blob([${JSON.stringify(blobFile.text)}], { type: 'text/plain' })); link.download = ${JSON.stringify(blobFile.name)}; document.body.append(link); link.click(); link.remove();">Export blob report</button>
        <a href="${files.tab.path}" target="_blank">Statement in a new tab</a>
        <a href="${files.traversal.path}">Evil traversal name</a>
        <a href="${files.control.path}">Evil control name</a>
        <a href="${files.long.path}">Evil long name</a>
        <a href="${files.big.path}">Big file</a>
        <a href="${files.denied.path}" download="${files.denied.name}">Denied same-site file</a>
        <a href="${denied.origin}/files/denied">Denied host file</a>
        <a href="${files.invoice.path}">Invoice PDF</a>
        <a href="/statement.pdf">Statement PDF in the browser</a>
        <p>Quarterly documents of Ada.</p>`;
      return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    }
    response.writeHead(404).end();
  });
  return {
    origin: server.origin,
    denied,
    server,
    url: (path) => `${server.origin}${path}`,
    close: async () => {
      await server.close();
      await denied.close();
    },
  };
}
