// The `save_pdf` action: prints the active tab as PDF into the driver's downloads folder, through the
// driver's optional `savePdf` (headless Chromium's Page.printToPDF). It never writes a file itself.

import { z } from 'zod';
import { ActionError } from '../../errors';
import { defineAction } from '../define-action';

/** Saves the current page as a PDF file and reports where. */
export const savePdfAction = defineAction({
  name: 'save_pdf',
  description:
    'Save the current page as a PDF file in the downloads folder (print it), to keep or hand over a receipt, statement or confirmation. Reports the file path.',
  schema: z.object({
    filename: z.string().trim().min(1).max(200).optional().describe('The file name wanted, such as "receipt.pdf"; omit for the page title'),
  }),
  handler: async ({ filename }, context) => {
    const { driver } = context;
    if (!driver.savePdf) throw new ActionError('save_pdf', 'This browser driver cannot save pages as PDF (it has no savePdf).');
    const saved = await driver.savePdf({ filename, signal: context.signal });
    return { extractedContent: `Saved the page as PDF: ${saved.path} (${saved.mimeType}, ${saved.bytes} bytes).`, includeInMemory: true };
  },
});
