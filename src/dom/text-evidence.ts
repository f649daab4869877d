// Reads what the answer check compares an answer with (security/answer-evidence.ts): the active
// tab's text split by who can read it (the page runtime's textEvidence), and every tab's title and
// address, which the agent is shown but the page does not show.

import { z } from 'zod';
import type { CallOptions, ResolvedBrowserDriver } from '../browser/types';
import { callRuntime } from './page-runtime';

/** Characters read of each kind per frame. */
const maxChars = 200_000;

const evidenceSchema = z.object({ seen: z.string(), unseen: z.string() });

/**
 * Reads the evidence from the browser: the text of the active tab's frames, split by who can
 * read it, and every tab's title and address (shown to the agent, not on the page).
 */
export async function readTextEvidence(driver: ResolvedBrowserDriver, options: CallOptions): Promise<{ seen: string; unseen: string }> {
  const seen: string[] = [];
  const unseen: string[] = [];
  for (const tab of await driver.tabs(options)) unseen.push(tab.title, tab.url);
  for (const frame of await driver.frames(options)) {
    try {
      const answer = evidenceSchema.parse(await callRuntime(driver, frame.id, 'textEvidence', { maxChars }, options));
      seen.push(answer.seen);
      unseen.push(answer.unseen);
    } catch (error) {
      // The top frame must answer; a child frame that went away is skipped.
      if (frame.parentId === undefined) throw error;
    }
  }
  return { seen: seen.join('\n'), unseen: unseen.join('\n') };
}
