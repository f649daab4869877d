// What extract_content reads when the page is a PDF, or when the Navigator names a downloaded file:
// the PDF's text through the driver's optional `readPdfText` (the PDF library lives with the drivers,
// never in the core), guarded as any page text is. It reads no file itself.

import type { PdfText } from '../../browser/types';
import { definePageScript } from '../../dom/page-runtime';
import { ActionError, isFatalError, RequestCancelledError } from '../../errors';
import { guardText, mergeFindings } from '../../security/injection-guard';
import { reportInjection } from '../../security/injection-report';
import type { ActionContext } from '../types';

/** A PDF's text in the shape extract_content reads a page in (its `PdfPage`). */
export interface PdfPage {
  readonly url: string;
  readonly title: string;
  readonly markdown: string;
  readonly truncated: boolean;
  readonly unreadFrames: number;
}

/** The media type of the top frame's document: `application/pdf` for a PDF the browser shows. */
const documentType = definePageScript<undefined, string>('plannav.pdf/document-type', () => document.contentType);

/** A PDF's text as a page's: guarded (our tags escaped, injection phrases flagged) and reported once. */
function asPage(context: ActionContext, url: string, title: string, pdf: PdfText): PdfPage {
  const guarded = guardText(pdf.text);
  reportInjection(context, { url, source: 'extraction', findings: mergeFindings([guarded.findings, guardText(title).findings]) });
  return { url, title: guardText(title).text, markdown: guarded.text, truncated: pdf.truncated, unreadFrames: 0 };
}

/**
 * The text of a file the task downloaded (a PDF), by the path its download result gave.
 * @throws `ActionError` when the driver cannot read files, or the file is no readable PDF of the downloads folder.
 */
export async function readDownloadedPdf(context: ActionContext, actionName: string, path: string): Promise<PdfPage> {
  const { driver } = context;
  if (!driver.readPdfText)
    throw new ActionError(actionName, 'This browser driver cannot read downloaded files (it has no readPdfText): read the page instead.');
  let pdf: PdfText;
  try {
    pdf = await driver.readPdfText({ path }, { signal: context.signal });
  } catch (error) {
    if (isFatalError(error) || RequestCancelledError.isInstance(error) || context.signal.aborted) throw error;
    throw new ActionError(actionName, `Could not read ${path}: ${(error as Error).message}`, { cause: error });
  }
  const name = path.split(/[\\/]/).pop() ?? path;
  return asPage(context, `file://${path}`, name, pdf);
}

/**
 * The text of the PDF the active tab shows, or undefined when it shows none (or the driver cannot
 * read PDFs: the page is then read as HTML, as before).
 */
export async function readShownPdf(context: ActionContext): Promise<PdfPage | undefined> {
  const { driver } = context;
  if (!driver.readPdfText) return undefined;
  const options = { signal: context.signal };
  const top = (await context.driver.frames(options))[0];
  if (!top) return undefined;
  const type = await context.driver.evaluate(top.id, documentType, undefined, options).catch((error: unknown) => {
    if (context.signal.aborted) throw error;
    return undefined;
  });
  if (type !== 'application/pdf') return undefined;
  const pdf = await driver.readPdfText({ tab: 'active' }, options);
  const name = decodeURIComponent(new URL(top.url).pathname.split('/').pop() ?? '') || top.url;
  return asPage(context, top.url, name, pdf);
}
