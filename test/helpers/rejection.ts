// Test helpers: the error a call or a promise failed with, failing the test when there is none.

import { ConfigError } from '../../src/errors';

/** Awaits `promise` and returns what it rejected with (typed as `T` for the caller's convenience). */
export async function rejectionOf<T = unknown>(promise: Promise<unknown>): Promise<T> {
  try {
    await promise;
  } catch (error) {
    return error as T;
  }
  throw new Error('expected the promise to reject');
}

/** Runs `run` and returns the ConfigError it threw, failing the test when it throws nothing or something else. */
export function configErrorOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (ConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}
