// The `handle_dialog` action: answers the JavaScript dialog the page shows (alert, confirm, prompt,
// beforeunload) and tells the model what it said and what was answered. The dialog's text is the page's.

import { z } from 'zod';
import { defineAction } from '../define-action';
import { driverCannot } from './pointer-actions';
import { quoted } from './element-script';

/** Answers the open dialog. */
export const handleDialogAction = defineAction({
  name: 'handle_dialog',
  description:
    'Answer the JavaScript dialog open in the current tab (shown in the page state): accept (OK) or dismiss (Cancel); for a prompt, text is the answer typed in. The page is blocked until it is answered.',
  schema: z.object({
    accept: z.boolean().describe('true for OK, false for Cancel'),
    text: z.string().max(10_000).optional().describe("A prompt dialog's answer, typed in before accepting"),
  }),
  handler: async ({ accept, text }, context) => {
    const handleDialog = context.driver.handleDialog?.bind(context.driver);
    if (!handleDialog) throw driverCannot('handle_dialog', 'handleDialog', 'answer dialogs');
    const closed = await handleDialog({ accept, ...(text !== undefined ? { text } : {}) }, { signal: context.signal });
    const answer = closed.accepted ? `accepted it${closed.text !== undefined ? ` with ${quoted(closed.text, 200)}` : ''}` : 'dismissed it';
    return {
      extractedContent: `The ${closed.type} dialog said ${quoted(closed.message, 500)}; ${answer}.`,
      includeInMemory: true,
      stopSequence: true,
      data: { dialog: closed },
    };
  },
});
