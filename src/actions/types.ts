// What an action is: a name, a description the model reads, zod parameters and a handler.
// Types only; the registry and the built-in actions live beside this file.

import type { z } from 'zod';
import type { PageState } from '../browser/page-state';
import type { ElementRef, ResolvedBrowserDriver } from '../browser/types';
import type { LLMClient } from '../llm/types';

/**
 * What an action reports back. The model reads `extractedContent` or `error` in its next step.
 * @public
 */
export interface ActionResult {
  /** What the action found or did, for the model. */
  readonly extractedContent?: string | undefined;
  /** What went wrong, for the model: a recoverable error it may work around. */
  readonly error?: string | undefined;
  /**
   * Keep this result in the conversation for the rest of the session (and across follow-up
   * tasks). When false, the model sees it once, in the next state message.
   * @defaultValue false for a returned object; a handler that returns a string, and every error
   * (unknown action, invalid parameters, a thrown error), is kept in memory.
   */
  readonly includeInMemory?: boolean | undefined;
  /** The action proposes that the task is done (only `done` does this). */
  readonly isDone?: boolean | undefined;
  /** With `isDone`: whether the task succeeded. */
  readonly success?: boolean | undefined;
  /** Structured data for the host, such as the `done` action's result object. */
  readonly data?: unknown;
  /** Skip the remaining actions of this step (the page changed under them). */
  readonly stopSequence?: boolean | undefined;
}

/** A person's answer to `ask_human`. @public */
export interface HumanAnswer {
  /** The answer, or `undefined` when no one answered in time. */
  readonly answer: string | undefined;
  /** True when the wait ran out. */
  readonly timedOut: boolean;
}

/** What an action's handler can use. @public */
export interface ActionContext {
  /** The browser. */
  readonly driver: ResolvedBrowserDriver;
  /** The page state the model saw when it chose this action; absent if none was captured. */
  readonly state: PageState | undefined;
  /** Aborted when the task is cancelled: pass it to every wait. */
  readonly signal: AbortSignal;
  /** The model for extraction tasks (defaults to the Navigator's). */
  readonly extractionLLM: LLMClient;
  /** The running task's id. */
  readonly taskId: string;
  /** The Navigator step number (1-based). */
  readonly step: number;
  /**
   * The element the model means by `index`, from the state it saw.
   * @throws `ActionError` (recoverable) when no such element is in that state.
   */
  element(index: number): ElementRef;
  /** Asks the person using the app a question and waits for the answer (or the timeout). */
  askHuman(question: string): Promise<HumanAnswer>;
  /**
   * Checks a URL against the task's URL policy before the action loads it.
   * @throws `URLNotAllowedError` (recoverable: the model is told) when the policy denies it.
   */
  assertUrlAllowed(url: string): void;
  /**
   * Files and folders the host allows `upload_file` to send (the Executor's `uploadPaths`);
   * a folder allows every file below it.
   */
  readonly uploadPaths: readonly string[];
}

/** An action's parameters: a zod object schema. @public */
export type ActionSchema = z.ZodObject<z.ZodRawShape>;

/** An action the Navigator can choose. Build one with {@link defineAction}. @public */
export interface Action<S extends ActionSchema = ActionSchema> {
  /** The name the model writes, in snake_case. */
  readonly name: string;
  /** What the action does and when to use it, for the model. */
  readonly description: string;
  /** The parameters. */
  readonly schema: S;
  /**
   * Offer the action only on pages whose URL matches one of these patterns (see
   * {@link matchesUrlPattern}): a host (`example.com`, also matching its subdomains), a host glob
   * (`*.example.com`) or a URL glob with a scheme (`https://example.com/admin/*`). Offered
   * everywhere when absent.
   */
  readonly urlPatterns?: readonly string[] | undefined;
  /**
   * Milliseconds the handler may run before it is stopped and the model reads an
   * `ACTION_TIMEOUT` error; `Infinity` for none (as `ask_human`, which waits for a person).
   * @defaultValue the Executor's `browserTimeouts.action`
   */
  readonly timeoutMs?: number | undefined;
  /** Runs the action. A returned string is kept in memory as the result. */
  readonly handler: (params: z.output<S>, context: ActionContext) => Promise<ActionResult | string>;
}
