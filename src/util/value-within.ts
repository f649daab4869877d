// A bound on a wait that must never fail: the value of a call into code we do not control, or
// nothing once the bound has passed or the call failed.

/** Resolves with `work`'s value, or with undefined when it rejects or has not settled within `ms`. */
export async function valueWithin<T>(work: Promise<T | undefined>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([work.catch(() => undefined), expired]);
  } finally {
    clearTimeout(timer);
  }
}
