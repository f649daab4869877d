// extract_content on PDFs and save_pdf, against a fake driver with the optional PDF members: what the
// extraction model is sent, which source is read, and what a driver without the members says.
import { describe, expect, it } from 'vitest';
import { testActionContext } from '../../../test/helpers/action-context';
import type { CallOptions, FrameInfo, PageScript, PdfSource, PdfText, SavedFile, SavePdfOptions } from '../../browser/types';
import { FakeBrowserDriver } from '../../testing/fake-browser-driver';
import { ScriptedLLM } from '../../testing/scripted-llm';
import { ActionRegistry } from '../registry';
import { extractContentAction } from './extract-content';
import { savePdfAction } from './save-pdf';

/** A fake browser showing a document of `contentType`, with readPdfText and savePdf. */
class PdfDriver extends FakeBrowserDriver {
  readonly read: PdfSource[] = [];
  readonly saved: (SavePdfOptions | undefined)[] = [];

  constructor(private readonly contentType: string) {
    super({ startUrl: 'https://bank.test/statement.pdf' });
  }

  override async frames(): Promise<FrameInfo[]> {
    return [{ id: 'top', url: 'https://bank.test/statement.pdf' }];
  }

  override async evaluate<TArg, TResult>(frameId: string, script: PageScript<TArg, TResult>, arg: TArg, options?: CallOptions): Promise<TResult> {
    if (script.id === 'plannav.pdf/document-type') return this.contentType as TResult;
    return super.evaluate(frameId, script, arg, options);
  }

  async readPdfText(source: PdfSource): Promise<PdfText> {
    this.read.push(source);
    return { text: 'path' in source ? 'Invoice INV-5521\nAmount due 318 euros' : 'Closing balance 4217 euros', pages: 1, truncated: false };
  }

  async savePdf(options?: SavePdfOptions): Promise<SavedFile> {
    this.saved.push(options);
    return { path: `/downloads/${options?.filename ?? 'page.pdf'}`, bytes: 1234, mimeType: 'application/pdf' };
  }
}

const answer = (text: string): ScriptedLLM => new ScriptedLLM({ responses: [JSON.stringify({ extracted: text })] });
const sent = (llm: ScriptedLLM): string => llm.requests.map((request) => request.lastUserText).join('\n');

async function run(driver: FakeBrowserDriver, name: string, params: Record<string, unknown>, llm = answer('read')) {
  const registry = new ActionRegistry([extractContentAction(), savePdfAction]);
  const result = await registry.run(name, params, testActionContext({ driver, extractionLLM: llm }));
  return { result, llm };
}

describe('extract_content on PDFs', () => {
  it('reads the PDF the tab shows as its text', async () => {
    const driver = new PdfDriver('application/pdf');
    const { result, llm } = await run(driver, 'extract_content', { goal: 'the balance' }, answer('4217 euros'));
    expect(result.error).toBeUndefined();
    expect(driver.read).toEqual([{ tab: 'active' }]);
    expect(sent(llm)).toContain('Closing balance 4217 euros');
    expect(result.extractedContent).toContain('4217 euros');
  });

  it('reads a downloaded PDF by its path instead of the page', async () => {
    const driver = new PdfDriver('text/html');
    const { result, llm } = await run(driver, 'extract_content', { goal: 'the amount', file: '/downloads/invoice.pdf' });
    expect(result.error).toBeUndefined();
    expect(driver.read).toEqual([{ path: '/downloads/invoice.pdf' }]);
    expect(sent(llm)).toContain('Amount due 318 euros');
  });

  it('reads an HTML page as before, and says a driver without readPdfText cannot read a file', async () => {
    const driver = new PdfDriver('text/html');
    await run(driver, 'extract_content', { goal: 'anything' }).catch(() => undefined);
    expect(driver.read).toEqual([]);
    const plain = new FakeBrowserDriver();
    const { result } = await run(plain, 'extract_content', { goal: 'the amount', file: '/downloads/invoice.pdf' });
    expect(result.error).toMatch(/cannot read downloaded files/);
  });
});

describe('save_pdf', () => {
  it('saves through the driver and reports the path', async () => {
    const driver = new PdfDriver('text/html');
    const { result } = await run(driver, 'save_pdf', { filename: 'receipt.pdf' });
    expect(result.error).toBeUndefined();
    expect(driver.saved[0]?.filename).toBe('receipt.pdf');
    expect(result.extractedContent).toBe('Saved the page as PDF: /downloads/receipt.pdf (application/pdf, 1234 bytes).');
  });

  it('says so when the driver cannot print', async () => {
    const { result } = await run(new FakeBrowserDriver(), 'save_pdf', {});
    expect(result.error).toMatch(/cannot save pages as PDF/);
  });
});
