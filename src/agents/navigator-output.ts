// What the Navigator's model output is read as: a lenient schema that repairs the usual slips in
// the action list (a JSON string, one object, null entries, several actions in one object), so
// that each action is then judged on its own by the registry.

import { z } from 'zod';
import { normalizeActions } from '../actions/action-list';

const text = z.preprocess((value) => (value === null || value === undefined ? '' : value), z.string());

/** What the Navigator's output is validated against: lenient, so actions are judged one by one. */
export const navigatorOutputSchema = z.object({
  current_state: z
    .object({ evaluation_previous_goal: text, memory: text, next_goal: text })
    .default({ evaluation_previous_goal: '', memory: '', next_goal: '' }),
  action: z.preprocess(
    normalizeActions,
    z.array(z.record(z.string(), z.unknown()), { error: 'action must be a list of {"action_name": {parameters}} objects' }).min(1, 'write at least one action'),
  ),
});

/** The Navigator's output. */
export type NavigatorOutput = z.output<typeof navigatorOutputSchema>;
