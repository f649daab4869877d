// The `ask_human` action: asks the person using the app and waits for the answer, for what only
// they know or can do (a login, a captcha, a choice).

import { z } from 'zod';
import { defineAction } from '../define-action';

/** Asks the user a question and waits for the answer. */
export const askHumanAction = defineAction({
  name: 'ask_human',
  description:
    'Ask the user a question and wait for the answer: for information only they have, a choice only they can make, or a step only they can do (sign-in, captcha).',
  schema: z.object({ question: z.string().min(1).describe('The question, clear and self-contained') }),
  // A person may take long to answer: the question has its own wait, humanTimeoutMs.
  timeoutMs: Number.POSITIVE_INFINITY,
  handler: async ({ question }, context) => {
    const reply = await context.askHuman(question);
    if (reply.timedOut || reply.answer === undefined) {
      return { extractedContent: `No one answered the question "${question}". Continue without the answer or finish with done.`, includeInMemory: true };
    }
    return { extractedContent: `The user answered "${question}": ${reply.answer}`, includeInMemory: true };
  },
});
