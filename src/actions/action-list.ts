// The action list as models write it, repaired before it is validated: the Navigator's output and
// act()'s answer share it.

/**
 * Repairs the action list the way models get it wrong: a JSON string, a single object, null
 * entries, or several actions in one object.
 */
export function normalizeActions(value: unknown): unknown {
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
