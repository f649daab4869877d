// Turns any thrown value into the plain error data that events and history carry. It must not
// throw, and its message must say something useful even for a value that is not an Error.

import { PlannavError } from '../errors';
import type { ErrorInfo } from '../events';
import { describeThrown } from '../util/describe-thrown';

/**
 * The errors JavaScript itself raises when code meets a value it did not expect (reading a
 * property of null, calling what is not a function). Nobody throws them on purpose: in the
 * loop they mean that a driver, a model client or an action answered with a value of the wrong
 * shape, or that plannav has a bug.
 */
const engineErrors = new Set(['TypeError', 'RangeError', 'ReferenceError', 'SyntaxError']);

/**
 * The plain data of an error, for events and history. A plannav error keeps its code; an
 * engine error (a `TypeError` and its kin) is `UNEXPECTED_ERROR` with a message saying what it
 * most likely means; anything else thrown is `UNKNOWN`, described by {@link describeThrown}.
 */
export function toErrorInfo(error: unknown): ErrorInfo {
  if (PlannavError.isInstance(error)) {
    return { name: error.name, code: error.code, message: error.message, retryable: error.retryable };
  }
  if (error instanceof Error && engineErrors.has(error.name)) {
    const message = describeThrown(error).replace(/\.$/, '');
    return {
      name: error.name,
      code: 'UNEXPECTED_ERROR',
      message: `Unexpected ${error.name}: ${message}. A driver, model client or action probably returned a value of the wrong shape; if not, it is a bug in plannav.`,
      retryable: false,
    };
  }
  if (error instanceof Error) return { name: error.name, code: 'UNKNOWN', message: describeThrown(error), retryable: false };
  return { name: 'Error', code: 'UNKNOWN', message: describeThrown(error), retryable: false };
}
