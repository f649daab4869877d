// Test helper: the value a promise rejects with, failing the test when it resolves instead.

/** Awaits `promise` and returns what it rejected with (typed as `T` for the caller's convenience). */
export async function rejectionOf<T = unknown>(promise: Promise<unknown>): Promise<T> {
  try {
    await promise;
  } catch (error) {
    return error as T;
  }
  throw new Error('expected the promise to reject');
}
