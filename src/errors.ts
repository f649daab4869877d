// The typed errors of plannav: one base class that users branch on by `code`, `retryable` or a
// static `isInstance`. Nothing here may depend on another module of the package but leaves
// that import nothing themselves (describe-thrown), so every module can import this one.

import { describeThrown } from './util/describe-thrown';

/** Stable machine-readable codes carried by every {@link PlannavError}. @public */
export type PlannavErrorCode =
  | 'CHAT_MODEL_ERROR'
  | 'CHAT_MODEL_AUTH'
  | 'CHAT_MODEL_BAD_REQUEST'
  | 'CHAT_MODEL_CONTEXT_LENGTH'
  | 'CHAT_MODEL_FORBIDDEN'
  | 'CHAT_MODEL_RATE_LIMIT'
  | 'CHAT_MODEL_SERVER'
  | 'CHAT_MODEL_NETWORK'
  | 'CHAT_MODEL_TIMEOUT'
  | 'CHAT_MODEL_OUTPUT'
  | 'REQUEST_CANCELLED'
  | 'TIMEOUT'
  | 'URL_NOT_ALLOWED'
  | 'MAX_STEPS_REACHED'
  | 'MAX_FAILURES_REACHED'
  | 'ACTION_ERROR'
  | 'ACTION_UNKNOWN'
  | 'ACTION_INVALID_PARAMS'
  | 'ACTION_UNAVAILABLE'
  | 'ACTION_TIMEOUT'
  | 'ACTION_REFUSED'
  | 'BROWSER_ERROR'
  | 'BROWSER_DISCONNECTED'
  | 'BROWSER_TIMEOUT'
  // A persistent profile (userDataDir) that a running browser holds (issue 24).
  | 'PROFILE_IN_USE'
  | 'CONFIG_ERROR'
  | 'CASSETTE_ERROR'
  | 'CASSETTE_MISMATCH'
  | 'HISTORY_INVALID'
  | 'HISTORY_VERSION'
  | 'UNEXPECTED_ERROR';

/** Options shared by the constructors of every {@link PlannavError}. @public */
export interface PlannavErrorOptions {
  /** The error that caused this one, kept for debugging. */
  readonly cause?: unknown;
  /** Overrides the class's default retryability. */
  readonly retryable?: boolean | undefined;
}

const markerPrefix = 'plannav.error.';

/** Something a class of {@link PlannavError} can be recognised by across duplicated installs. */
interface ErrorClassLike {
  readonly errorName: string;
}

/**
 * The base class of every error plannav throws or reports.
 *
 * @remarks
 * Use the static `isInstance` of a class rather than `instanceof`: it works across two copies of
 * the package (a bundler realm, a duplicated install).
 *
 * @example
 * ```ts
 * if (ChatModelRateLimitError.isInstance(error)) await sleep(error.retryAfterMs ?? 1000);
 * ```
 * @public
 */
export class PlannavError extends Error {
  /** The class's stable name; also the `name` of its instances. */
  static readonly errorName: string = 'PlannavError';
  /** Stable machine-readable code. */
  readonly code: PlannavErrorCode;
  /** Whether doing the same thing again may succeed (a rate limit, a server hiccup). */
  readonly retryable: boolean;

  /** Creates an error with a code, a message for people, and optionally its cause and retryability. */
  constructor(code: PlannavErrorCode, message: string, options: PlannavErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    const errorClass = new.target as unknown as ErrorClassLike;
    this.name = errorClass.errorName;
    this.code = code;
    this.retryable = options.retryable ?? false;
    // Mark the instance with every class of its chain, so `isInstance` needs no prototype check.
    for (let current: unknown = new.target; current && current !== Function.prototype; current = Object.getPrototypeOf(current)) {
      const name = (current as Partial<ErrorClassLike>).errorName;
      if (typeof name === 'string') {
        Object.defineProperty(this, Symbol.for(markerPrefix + name), { value: true, enumerable: false });
      }
    }
  }

  /**
   * Whether `error` is an instance of this class (or a subclass), even from another copy of the
   * package.
   */
  static isInstance<T extends abstract new (...args: never[]) => PlannavError>(this: T & ErrorClassLike, error: unknown): error is InstanceType<T> {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[Symbol.for(markerPrefix + this.errorName)] === true;
  }
}

/** Details a model service gave about a failed call. @public */
export interface ChatModelErrorOptions extends PlannavErrorOptions {
  /** HTTP status code of the failed response, if any. */
  readonly statusCode?: number | undefined;
  /** The provider's request id, for support tickets. */
  readonly requestId?: string | undefined;
  /** The body of the failed response, if any, cut to a readable length. */
  readonly responseBody?: string | undefined;
}

/**
 * A language-model call failed. Subclasses say why; `retryable` says whether the call may succeed
 * if made again (rate limits, server errors, network errors and timeouts are retryable).
 * @public
 */
export class ChatModelError extends PlannavError {
  /** The stable name of this error class; also the `name` of its instances. */
  static override readonly errorName: string = 'ChatModelError';
  /** HTTP status code of the failed response, if any. */
  readonly statusCode: number | undefined;
  /** The provider's request id, for support tickets. */
  readonly requestId: string | undefined;
  /** The body of the failed response, if any. */
  readonly responseBody: string | undefined;

  /** Creates a model error; `options.code` gives a more specific code than `CHAT_MODEL_ERROR`. */
  constructor(message: string, options: ChatModelErrorOptions & { readonly code?: PlannavErrorCode } = {}) {
    super(options.code ?? 'CHAT_MODEL_ERROR', message, options);
    this.statusCode = options.statusCode;
    this.requestId = options.requestId;
    this.responseBody = options.responseBody;
  }
}

/** The model service rejected the credentials (HTTP 401). Ends a task at once. @public */
export class ChatModelAuthError extends ChatModelError {
  /** The stable name of this error class; also the `name` of its instances. */
  static override readonly errorName: string = 'ChatModelAuthError';
  /** Creates the error; it is never retryable. */
  constructor(message: string, options: ChatModelErrorOptions = {}) {
    super(message, { ...options, code: 'CHAT_MODEL_AUTH', retryable: false });
  }
}

/** The model service refused the request as malformed (HTTP 400/422). Ends a task at once. @public */
export class ChatModelBadRequestError extends ChatModelError {
  /** The stable name of this error class; also the `name` of its instances. */
  static override readonly errorName: string = 'ChatModelBadRequestError';
  /** Creates the error; it is never retryable. */
  constructor(message: string, options: ChatModelErrorOptions = {}) {
    super(message, { ...options, code: 'CHAT_MODEL_BAD_REQUEST', retryable: false });
  }
}

/**
 * The prompt is longer than the model's context window. A bad request that retrying cannot fix:
 * shorten the conversation (a lower `maxInputTokens`) or use a model with a larger window.
 * @public
 */
export class ChatModelContextLengthError extends ChatModelBadRequestError {
  /** The stable name of this error class; also the `name` of its instances. */
  static override readonly errorName: string = 'ChatModelContextLengthError';
  /** Always `CHAT_MODEL_CONTEXT_LENGTH`. */
  override readonly code: PlannavErrorCode = 'CHAT_MODEL_CONTEXT_LENGTH';
  /** Creates the error; it is never retryable. */
  constructor(message: string, options: ChatModelErrorOptions = {}) {
    super(message, options);
  }
}

/** The credentials lack permission for this model or endpoint (HTTP 403). Ends a task at once. @public */
export class ChatModelForbiddenError extends ChatModelError {
  /** The stable name of this error class; also the `name` of its instances. */
  static override readonly errorName: string = 'ChatModelForbiddenError';
  /** Creates the error; it is never retryable. */
  constructor(message: string, options: ChatModelErrorOptions = {}) {
    super(message, { ...options, code: 'CHAT_MODEL_FORBIDDEN', retryable: false });
  }
}

/** The model service is rate limiting (HTTP 429). Retryable; honours `retryAfterMs`. @public */
export class ChatModelRateLimitError extends ChatModelError {
  /** The stable name of this error class; also the `name` of its instances. */
  static override readonly errorName: string = 'ChatModelRateLimitError';
  /** How long the service asked to wait before the next call (from `Retry-After`), if it said. */
  readonly retryAfterMs: number | undefined;
  /** Creates the error, always retryable; `options.retryAfterMs` is the wait the service asked for, in milliseconds. */
  constructor(message: string, options: ChatModelErrorOptions & { readonly retryAfterMs?: number | undefined } = {}) {
    super(message, { ...options, code: 'CHAT_MODEL_RATE_LIMIT', retryable: true });
    this.retryAfterMs = options.retryAfterMs;
  }
}

/**
 * The model answered, but its output could not be used: not JSON, not of the required shape,
 * or cut off by the output token limit.
 * @public
 */
export class ChatModelOutputError extends ChatModelError {
  /** The stable name of this error class; also the `name` of its instances. */
  static override readonly errorName: string = 'ChatModelOutputError';
  /** The model's raw text, when there was one. */
  readonly text: string | undefined;
  /** Creates the error, never retryable; `options.text` keeps the model's raw reply. */
  constructor(message: string, options: ChatModelErrorOptions & { readonly text?: string | undefined } = {}) {
    super(message, { ...options, code: 'CHAT_MODEL_OUTPUT', retryable: false });
    this.text = options.text;
  }
}

/** The task, a model call or an action was cancelled (by `cancel()` or the caller's signal). @public */
export class RequestCancelledError extends PlannavError {
  /** The stable name of this error class; also the `name` of its instances. */
  static override readonly errorName: string = 'RequestCancelledError';
  /** Creates the error; it is never retryable. `options.code` gives a more specific code than `REQUEST_CANCELLED`. */
  constructor(message = 'The request was cancelled.', options: PlannavErrorOptions & { readonly code?: PlannavErrorCode } = {}) {
    super(options.code ?? 'REQUEST_CANCELLED', message, { ...options, retryable: false });
  }
}

/**
 * A task or call ran past the `timeout` its caller gave (`execute({ timeout })`, `observe`, `act`,
 * `extract`). It is a kind of cancel: what was in flight was aborted, and nothing is retried.
 * @public
 */
export class TimeoutError extends RequestCancelledError {
  /** The stable name of this error class; also the `name` of its instances. */
  static override readonly errorName: string = 'TimeoutError';
  /** The timeout that ran out, in milliseconds. */
  readonly timeoutMs: number;
  /** Creates the error for the `timeoutMs` that ran out; `what` names what timed out, such as `The task`. */
  constructor(timeoutMs: number, what = 'The call', options: PlannavErrorOptions = {}) {
    super(`${what} did not finish within its timeout of ${timeoutMs} ms. Give it a longer \`timeout\`, or none.`, { ...options, code: 'TIMEOUT' });
    this.timeoutMs = timeoutMs;
  }
}

/** A browser-side failure: a page that would not load, a driver call that failed. @public */
export class BrowserError extends PlannavError {
  /** The stable name of this error class; also the `name` of its instances. */
  static override readonly errorName: string = 'BrowserError';
  /** Creates a browser error; `options.code` gives a more specific code than `BROWSER_ERROR`. */
  constructor(message: string, options: PlannavErrorOptions & { readonly code?: PlannavErrorCode } = {}) {
    super(options.code ?? 'BROWSER_ERROR', message, options);
  }
}

/**
 * The browser is gone: its process ended, the connection to it dropped, or the driver was closed.
 * No retry and no other action can help, so it ends a task at once; open a new driver.
 * @public
 */
export class BrowserDisconnectedError extends BrowserError {
  /** The stable name of this error class; also the `name` of its instances. */
  static override readonly errorName: string = 'BrowserDisconnectedError';
  /** Creates the error; it is never retryable. */
  constructor(message = 'The browser is gone (closed, or its connection dropped): open a new driver.', options: PlannavErrorOptions = {}) {
    super(message, { ...options, code: 'BROWSER_DISCONNECTED', retryable: false });
  }
}

/** A navigation was refused by the URL policy. The model is told and may try something else. @public */
export class URLNotAllowedError extends BrowserError {
  /** The stable name of this error class; also the `name` of its instances. */
  static override readonly errorName: string = 'URLNotAllowedError';
  /** The URL that was refused. */
  readonly url: string;
  /** Creates the error for the refused `url`; the default message names it. */
  constructor(url: string, message = `Navigation to ${url} is not allowed by the URL policy.`, options: PlannavErrorOptions = {}) {
    super(message, { ...options, code: 'URL_NOT_ALLOWED', retryable: false });
    this.url = url;
  }
}

/** The task used up `maxSteps` without the Planner declaring it done. @public */
export class MaxStepsReachedError extends PlannavError {
  /** The stable name of this error class; also the `name` of its instances. */
  static override readonly errorName: string = 'MaxStepsReachedError';
  /** The cap that was reached. */
  readonly maxSteps: number;
  /** Creates the error for the `maxSteps` cap that was reached; the message suggests what to do. */
  constructor(maxSteps: number) {
    super('MAX_STEPS_REACHED', `The task did not finish within maxSteps (${maxSteps}). Raise maxSteps or split the task.`);
    this.maxSteps = maxSteps;
  }
}

/** `maxFailures` steps failed in a row. `cause` holds the last failure. @public */
export class MaxFailuresReachedError extends PlannavError {
  /** The stable name of this error class; also the `name` of its instances. */
  static override readonly errorName: string = 'MaxFailuresReachedError';
  /** How many failures in a row ended the task. */
  readonly failures: number;
  /** Creates the error from the number of failed steps in a row and the last failure, kept as `cause`. */
  constructor(failures: number, cause: unknown) {
    const detail = cause === undefined ? '' : `: ${describeThrown(cause)}`;
    super('MAX_FAILURES_REACHED', `The task stopped after ${failures} failed steps in a row${detail}`, { cause });
    this.failures = failures;
  }
}

/**
 * An action could not run: an unknown name (`ACTION_UNKNOWN`), invalid parameters
 * (`ACTION_INVALID_PARAMS`), an action not offered on this page (`ACTION_UNAVAILABLE`), one that
 * ran past its deadline (`ACTION_TIMEOUT`, retryable), one the `sensitiveActions` policy did not let
 * run (`ACTION_REFUSED`; for the final answer, the task ends with it after repeated refusals), or
 * a failure inside it (`ACTION_ERROR`).
 * @public
 */
export class ActionError extends PlannavError {
  /** The stable name of this error class; also the `name` of its instances. */
  static override readonly errorName: string = 'ActionError';
  /** The action's name. */
  readonly action: string;
  /** Creates the error for the named action; the message is what the model reads. `options.code` gives a more specific code than `ACTION_ERROR`. */
  constructor(action: string, message: string, options: PlannavErrorOptions & { readonly code?: PlannavErrorCode } = {}) {
    super(options.code ?? 'ACTION_ERROR', message, options);
    this.action = action;
  }
}

/** Details of a {@link CassetteError}. @public */
export interface CassetteErrorOptions extends PlannavErrorOptions {
  /** The cassette file at fault. */
  readonly file: string;
}

/**
 * A model cassette (`recordModelCalls`, `replayModelCalls` of `plannav/testing`) could not be
 * used: its file is missing, unreadable, malformed or of a newer version, or could not be written.
 * Never retryable; it ends a task at once.
 * @public
 */
export class CassetteError extends PlannavError {
  /** The stable name of this error class; also the `name` of its instances. */
  static override readonly errorName: string = 'CassetteError';
  /** The cassette file at fault. */
  readonly file: string;
  /** Creates the error for `options.file`; `options.code` gives a more specific code than `CASSETTE_ERROR`. */
  constructor(message: string, options: CassetteErrorOptions & { readonly code?: PlannavErrorCode }) {
    super(options.code ?? 'CASSETTE_ERROR', message, { ...options, retryable: false });
    this.file = options.file;
  }
}

/** Details of a {@link CassetteMismatchError}. @public */
export interface CassetteMismatchErrorOptions extends CassetteErrorOptions {
  /** The position in the cassette of the recorded call closest to the request, if there is any. */
  readonly closestCall?: number | undefined;
  /** Where the request first differs from that call, as the message shows it. */
  readonly difference?: string | undefined;
}

/**
 * A replayed model call found no answer in its cassette: the request differs from every
 * recorded one, or was made more often than recorded. The message shows the closest recorded
 * call and the first difference. Never retryable; it ends a task at once. Record the cassette
 * again, or find what made the request change.
 * @public
 */
export class CassetteMismatchError extends CassetteError {
  /** The stable name of this error class; also the `name` of its instances. */
  static override readonly errorName: string = 'CassetteMismatchError';
  /** The position in the cassette (from 0) of the recorded call closest to the request, if there is any. */
  readonly closestCall: number | undefined;
  /** Where the request first differs from the closest recorded call. */
  readonly difference: string | undefined;
  /** Creates the error; it is never retryable. */
  constructor(message: string, options: CassetteMismatchErrorOptions) {
    super(message, { ...options, code: 'CASSETTE_MISMATCH' });
    this.closestCall = options.closestCall;
    this.difference = options.difference;
  }
}

/**
 * Whether no retry and no other action can fix `error`: a cancel, a browser that is gone, or a
 * model call refused for its credentials (401), permissions (403) or request (400/422, context
 * length included), or a model cassette that cannot answer (`CassetteError`). Such errors end
 * a task at once.
 * @public
 */
export function isFatalError(error: unknown): boolean {
  return (
    RequestCancelledError.isInstance(error) ||
    BrowserDisconnectedError.isInstance(error) ||
    ChatModelAuthError.isInstance(error) ||
    ChatModelBadRequestError.isInstance(error) ||
    ChatModelForbiddenError.isInstance(error) ||
    CassetteError.isInstance(error)
  );
}

/** An option or argument is invalid. The message names the field and what it must be. @public */
export class ConfigError extends PlannavError {
  /** The stable name of this error class; also the `name` of its instances. */
  static override readonly errorName: string = 'ConfigError';
  /** The option's path, such as `maxSteps` or `planner.temperature`, when one field is at fault. */
  readonly field: string | undefined;
  /** Creates the error; `options.field` names the option at fault, when there is one. */
  constructor(message: string, options: PlannavErrorOptions & { readonly field?: string | undefined } = {}) {
    super('CONFIG_ERROR', message, options);
    this.field = options.field;
  }
}

/**
 * A saved history (or journal) could not be read: code `HISTORY_VERSION` when a newer release of
 * plannav wrote it (upgrade plannav to read it), `HISTORY_INVALID` when a field is missing or of
 * the wrong type (`field` names it, such as `steps[3].actions[0].name`). Never retryable.
 * @public
 */
export class HistoryFormatError extends PlannavError {
  /** The stable name of this error class; also the `name` of its instances. */
  static override readonly errorName: string = 'HistoryFormatError';
  /** The path of the field at fault, such as `steps[3].actions[0].name`, when one is. */
  readonly field: string | undefined;
  /** The schema version the file declared, when it declared one. */
  readonly schemaVersion: number | undefined;
  /** Creates the error; `options.code` is `HISTORY_VERSION` for a file of a newer schema. */
  constructor(
    message: string,
    options: PlannavErrorOptions & {
      readonly code?: 'HISTORY_INVALID' | 'HISTORY_VERSION' | undefined;
      readonly field?: string | undefined;
      readonly schemaVersion?: number | undefined;
    } = {},
  ) {
    super(options.code ?? 'HISTORY_INVALID', message, { ...options, retryable: false });
    this.field = options.field;
    this.schemaVersion = options.schemaVersion;
  }
}
