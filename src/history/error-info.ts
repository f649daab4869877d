// Turns any thrown value into the plain error data that events and history carry.

import { PlannavError } from '../errors';
import type { ErrorInfo } from '../events';

/** The plain data of an error, for events and history. */
export function toErrorInfo(error: unknown): ErrorInfo {
  if (PlannavError.isInstance(error)) {
    return { name: error.name, code: error.code, message: error.message, retryable: error.retryable };
  }
  if (error instanceof Error) return { name: error.name, code: 'UNKNOWN', message: error.message, retryable: false };
  return { name: 'Error', code: 'UNKNOWN', message: String(error), retryable: false };
}
