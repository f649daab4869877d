// What the Navigator's model output is read as: a lenient schema that repairs the usual slips in
// the action list (a JSON string, one object, null entries, several actions in one object), so
// that each action is then judged on its own by the registry.

import { z } from 'zod';

const text = z.preprocess((value) => (value === null || value === undefined ? '' : value), z.string());

/**
 * Repairs the action list the way models get it wrong: a JSON string, a single object, null
 * entries, or several actions in one object.
 */
function normalizeActions(value: unknown): unknown {
  let list = value;
  if (typeof list === 'string') {
    try {
      list = JSON.parse(list) as unknown;
    } catch {
      return list;
    }
  }
  if (list !== null && typeof list === 'object' && !Array.isArray(list)) list = [list];
  if (!Array.isArray(list)) return list;
  return list.flatMap((item: unknown) => {
    if (item === null || item === undefined) return [];
    if (typeof item !== 'object' || Array.isArray(item)) return [item];
    return Object.entries(item as Record<string, unknown>).map(([name, params]) => ({ [name]: params }));
  });
}

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
