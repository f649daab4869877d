// The `done` action: the Navigator's proposal that the task is finished. The Planner checks it
// before the task ends, so `done` never ends a task on its own.

import { z } from 'zod';
import { defineAction } from '../define-action';
import type { Action } from '../types';

/**
 * Builds the `done` action. With `dataSchema`, the model must also return structured data of
 * that shape, validated before the step is accepted.
 */
export function doneAction(dataSchema?: z.ZodType): Action {
  const base = {
    text: z.string().describe('The complete answer or summary for the user, with every finding.'),
    success: z.boolean().default(true).describe('false when the task could not be completed'),
  };
  const schema = dataSchema
    ? z.object({ ...base, data: dataSchema.describe('The structured result the user asked for') })
    : z.object({ ...base, data: z.unknown().optional().describe('Optional structured result') });
  return defineAction({
    name: 'done',
    description: 'Finish the task: report the result to the user. Use it alone, as the last action.',
    schema,
    handler: async ({ text, success, data }) => ({
      isDone: true,
      success,
      extractedContent: text,
      data,
      includeInMemory: true,
      stopSequence: true,
    }),
  });
}
