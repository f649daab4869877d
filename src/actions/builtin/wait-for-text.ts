// The `wait_for_text` action: waits, within a bound, until a text shows in the page (or, with `gone`,
// no longer shows), polling every frame's rendered text through the page runtime. Running out of time
// is a result the model reads, never a hang.

import { z } from 'zod';
import { callRuntime } from '../../dom/page-runtime';
import { ActionError } from '../../errors';
import { sleep } from '../../util/abort';
import { defineAction } from '../define-action';
import type { ActionContext } from '../types';
import { quoted } from './element-script';

/** How long the wait lasts when the model gives no time, and at most. */
const defaultWaitMs = 10_000;
const maxWaitMs = 60_000;
/** How often the page is read again. */
const pollMs = 150;

/** Whether the text shows in any frame of the active tab now; a frame that cannot answer (a navigation) shows nothing. */
async function shownNow(context: ActionContext, text: string): Promise<boolean> {
  const frames = await context.driver.frames({ signal: context.signal });
  const answers = await Promise.all(
    frames.map((frame) =>
      callRuntime(context.driver, frame.id, 'textShown', { text }, { signal: context.signal }).then(
        (shown: unknown) => shown === true,
        () => false,
      ),
    ),
  );
  return answers.includes(true);
}

/** Waits for a text to appear or disappear. */
export const waitForTextAction = defineAction({
  name: 'wait_for_text',
  description:
    'Wait until a text shows in the page (or, with gone: true, until it no longer shows): results that load late, a spinner or "Saving…" that must go. Fails when the time runs out.',
  schema: z.object({
    text: z.string().min(1).max(500).describe('The text to wait for, as the page shows it (case and spacing do not matter)'),
    gone: z.boolean().optional().describe('Wait until the text no longer shows instead'),
    timeoutMs: z.number().int().positive().max(maxWaitMs).optional().describe(`Milliseconds to wait at most (default ${defaultWaitMs})`),
  }),
  handler: async ({ text, gone, timeoutMs }, context) => {
    const waitMs = timeoutMs ?? defaultWaitMs;
    const started = Date.now();
    const deadline = started + waitMs;
    const wanted = gone !== true;
    for (let read = 0; read < Math.ceil(maxWaitMs / pollMs) + 1; read++) {
      let shown: boolean | undefined;
      try {
        shown = await shownNow(context, text);
      } catch (error) {
        // The tab went between reads (a navigation, a dialog): read again, until the time runs out.
        if (context.signal.aborted) throw error;
      }
      if (shown === wanted) {
        const waited = Date.now() - started;
        return { extractedContent: `${quoted(text)} ${wanted ? 'shows' : 'no longer shows'} in the page (after ${waited} ms).`, includeInMemory: true };
      }
      if (Date.now() >= deadline) break;
      await sleep(Math.min(pollMs, Math.max(0, deadline - Date.now())), context.signal);
    }
    throw new ActionError(
      'wait_for_text',
      `${quoted(text)} ${wanted ? 'did not show in the page' : 'still shows in the page'} after ${waitMs} ms. Read the page again: it may need an action, or another text.`,
      { retryable: true },
    );
  },
});
