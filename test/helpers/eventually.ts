/**
 * Polls `condition` every 25 ms until it holds or `timeoutMs` has passed; returns whether it held.
 *
 * The default wait is long (15 s) because it only costs time when the test is failing anyway: on a loaded machine a
 * browser takes seconds to close a tab or end a process, and a short wait turns that into a failure.
 */
export async function eventually(condition: () => boolean, timeoutMs = 15_000): Promise<boolean> {
  for (const end = Date.now() + timeoutMs; Date.now() < end; await new Promise((done) => setTimeout(done, 25))) {
    if (condition()) return true;
  }
  return condition();
}
