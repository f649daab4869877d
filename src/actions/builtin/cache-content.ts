// The `cache_content` action: the Navigator's notebook. What it writes stays in memory, so
// findings survive scrolling and navigation, and are the last turns compaction drops.

import { z } from 'zod';
import { defineAction } from '../define-action';

/** Saves findings to memory before moving on. */
export const cacheContentAction = defineAction({
  name: 'cache_content',
  description: 'Save findings you will need later (before scrolling or leaving the page). Do not combine with other actions.',
  schema: z.object({ content: z.string().min(1).describe('The findings to remember, verbatim and complete') }),
  handler: async ({ content }) => ({ extractedContent: `Cached findings: ${content}`, includeInMemory: true }),
});
