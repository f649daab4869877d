// Says in words what was thrown, whatever it was: an Error, a plain object, a string. For error
// messages, events and history; it never throws, and what it writes of a non-Error is bounded.

/** The longest description {@link describeThrown} gives, in characters. */
export const maxThrownDescriptionCharacters = 500;

function cut(text: string): string {
  return text.length <= maxThrownDescriptionCharacters ? text : `${text.slice(0, maxThrownDescriptionCharacters - 1)}\u2026`;
}

/** An Error, also one from another realm (a vm context, an iframe), where `instanceof` fails. */
function isError(value: object): value is Error {
  return value instanceof Error || Object.prototype.toString.call(value) === '[object Error]';
}

/** JSON that a cycle, a big integer or a throwing `toJSON` cannot break; undefined when there is none. */
function safeJson(value: object): string | undefined {
  const ancestors: object[] = [];
  try {
    return JSON.stringify(value, function (this: unknown, _key, current: unknown) {
      if (typeof current === 'bigint') return current.toString();
      if (typeof current !== 'object' || current === null) return current;
      // `this` is the object holding `current`: drop the ancestors that are not on its path.
      while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
      if (ancestors.includes(current)) return '[Circular]';
      ancestors.push(current);
      return current;
    });
  } catch {
    return undefined;
  }
}

/**
 * Describes a thrown value for people: an Error's message (its name when the message is empty),
 * a plain object or array as JSON, a primitive as `String` gives it. Anything but an Error's
 * message is cut to {@link maxThrownDescriptionCharacters}; never `[object Object]` for an
 * object JSON can write.
 */
export function describeThrown(value: unknown): string {
  if (typeof value === 'function') return `[function ${value.name || 'anonymous'}]`;
  if (typeof value !== 'object' || value === null) return cut(String(value));
  // An Error's message is its author's words, kept whole: plannav's own can be long on purpose.
  if (isError(value)) return value.message || value.name || 'Error';
  const prototype = Object.getPrototypeOf(value) as unknown;
  const plain = prototype === Object.prototype || prototype === null || Array.isArray(value);
  // A Map, a Set or a class instance writes as `{}` or loses its meaning: name its kind instead.
  const json = plain || typeof (value as { toJSON?: unknown }).toJSON === 'function' ? safeJson(value) : undefined;
  return cut(json ?? Object.prototype.toString.call(value));
}
