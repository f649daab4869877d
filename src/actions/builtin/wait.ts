// The `wait` action: gives a slow page time. The wait ends at once when the task is cancelled.

import { z } from 'zod';
import { sleep } from '../../util/abort';
import { defineAction } from '../define-action';

/** Waits a few seconds, for pages that load slowly. */
export const waitAction = defineAction({
  name: 'wait',
  description: 'Wait for the page to finish loading or changing. Use only when the page is visibly not ready.',
  schema: z.object({ seconds: z.number().int().min(1).max(60).default(3).describe('How long to wait, 1 to 60 seconds') }),
  handler: async ({ seconds }, context) => {
    await sleep(seconds * 1000, context.signal);
    return `Waited ${seconds} seconds.`;
  },
});
