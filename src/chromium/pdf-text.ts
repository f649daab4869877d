// The text of a PDF, for the drivers' readPdfText: pdf.js (the `pdfjs-dist` optional peer, its legacy
// build, which runs on Node 20 too), loaded only when a PDF is read. It never renders, runs a PDF's
// scripts or loads fonts: text only.

import type { PdfText } from '../browser/types';
import { BrowserError, ConfigError } from '../errors';

/** The most characters of text kept from one PDF: more than any extraction reads. */
const maxTextChars = 3_000_000;

/** The part of pdf.js's API read here. */
interface PdfJs {
  getDocument(source: Record<string, unknown>): { promise: Promise<PdfDocument>; destroy(): Promise<void> };
}
interface PdfDocument {
  readonly numPages: number;
  getPage(number: number): Promise<{ getTextContent(): Promise<{ items: readonly { str?: string; hasEOL?: boolean }[] }>; cleanup(): void }>;
  destroy(): Promise<void>;
}

let loading: Promise<PdfJs> | undefined;

/** pdf.js, once. @throws `ConfigError` saying how to install it when it is not there. */
async function loadPdfJs(): Promise<PdfJs> {
  loading ??= (import('pdfjs-dist/legacy/build/pdf.mjs') as Promise<unknown>).then(
    (loaded) => loaded as PdfJs,
    (error: unknown) => {
      loading = undefined;
      throw new ConfigError(
        `Reading a PDF needs the optional peer dependency pdfjs-dist (version 5.6 or later; 5.6 runs on Node 20): npm install pdfjs-dist. (${(error as Error).message})`,
        { field: 'pdfjs-dist', cause: error },
      );
    },
  );
  return loading;
}

/**
 * The text of a PDF's pages, in the order the file stores it, each page's lines joined by line
 * breaks and pages by blank lines; at most 3,000,000 characters (`truncated` then).
 * @throws `BrowserError` (for the model) when the bytes are not a PDF pdf.js can read;
 * `ConfigError` when pdfjs-dist is not installed.
 */
export async function pdfText(bytes: Uint8Array): Promise<PdfText> {
  const pdfjs = await loadPdfJs();
  const task = pdfjs.getDocument({
    // pdf.js takes the buffer over: give it a copy.
    data: new Uint8Array(bytes),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    enableXfa: false,
    stopAtErrors: false,
    verbosity: 0,
  });
  let document: PdfDocument;
  try {
    document = await task.promise;
  } catch (error) {
    await task.destroy().catch(() => undefined);
    throw new BrowserError(`The file is not a PDF that can be read: ${(error as Error).message}`, { cause: error });
  }
  try {
    const pages: string[] = [];
    let length = 0;
    let truncated = false;
    for (let number = 1; number <= document.numPages; number++) {
      const page = await document.getPage(number);
      const { items } = await page.getTextContent();
      page.cleanup();
      const text = items
        .map((item) => `${item.str ?? ''}${item.hasEOL ? '\n' : ''}`)
        .join('')
        .replace(/[ \t]+\n/g, '\n')
        .trim();
      pages.push(text);
      length += text.length + 2;
      if (length > maxTextChars) {
        truncated = number < document.numPages || length > maxTextChars;
        break;
      }
    }
    const text = pages.join('\n\n').slice(0, maxTextChars);
    return { text, pages: document.numPages, truncated };
  } finally {
    await document.destroy().catch(() => undefined);
  }
}
