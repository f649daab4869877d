import { describe, expect, it } from 'vitest';
import { minimalPdf } from '../../test/helpers/state-files';
import { BrowserError } from '../errors';
import { pdfText } from './pdf-text';

describe('pdfText', () => {
  it('reads the text of a PDF, line by line', async () => {
    const text = await pdfText(new Uint8Array(minimalPdf(['Invoice number INV-5521', 'Amount due (incl. tax) 318 euros'])));
    expect(text.pages).toBe(1);
    expect(text.truncated).toBe(false);
    expect(text.text.split('\n').map((line) => line.trim())).toEqual(['Invoice number INV-5521', 'Amount due (incl. tax) 318 euros']);
  });

  it('rejects bytes that are no PDF with a BrowserError for the model', async () => {
    await expect(pdfText(new TextEncoder().encode('<html>not a pdf</html>'))).rejects.toBeInstanceOf(BrowserError);
  });
});
