// ScriptedLLM: an LLMClient that answers from a script, for tests of the loop and of users' own
// apps. It records every request and can inject the failures real providers produce.

import { ChatModelError } from '../errors';
import { chatModelErrorFromStatus } from '../llm/model-errors';
import type { FinishReason, GenerateRequest, GenerateResult, LLMClient, LLMUsage } from '../llm/types';

/** A failure the script injects instead of a reply. @public */
export type ScriptedFailure =
  /** An HTTP error as an adapter reports it (401, 403, 400, 429, 500, …). */
  | { readonly fail: 'status'; readonly status: number; readonly message?: string | undefined; readonly retryAfterMs?: number | undefined }
  /** The call times out (retryable). */
  | { readonly fail: 'timeout' }
  /** The network fails (retryable). */
  | { readonly fail: 'network' }
  /** The call never answers until it is aborted. */
  | { readonly fail: 'hang' }
  /** Throws this error as is. */
  | { readonly fail: 'error'; readonly error: Error };

/**
 * One scripted reply: a string (the reply's text), `{ object }` (an already-parsed structured
 * reply), a full result, or a failure.
 * @public
 */
export type ScriptedResponse =
  | string
  | {
      /** The reply's text. */
      readonly text?: string | undefined;
      /** An already-parsed structured reply, as a provider's tool call returns it. */
      readonly object?: unknown;
      /** The reply's token counts; the client's `usage` option when absent. */
      readonly usage?: LLMUsage | undefined;
      /** Why the model stopped; `stop` when absent. */
      readonly finishReason?: FinishReason | undefined;
    }
  | ScriptedFailure;

/** A request as the script sees it: which agent asked is read from the requested output's name. @public */
export interface ScriptedRequest extends GenerateRequest {
  /** `planner` or `navigator` for the loop's calls; `other` for anything else. */
  readonly agent: 'planner' | 'navigator' | 'validator' | 'other';
  /** 0 for the first call to this client, then 1, 2, … */
  readonly callIndex: number;
  /** The text of the last user message: for the Navigator, the current browser state. */
  readonly lastUserText: string;
}

/** Options of {@link ScriptedLLM}. @public */
export interface ScriptedLLMOptions {
  /** Replies in order; after the last, calls fail with a clear error. */
  readonly responses?: readonly ScriptedResponse[] | undefined;
  /** Computes each reply from the request; used when `responses` is absent or used up. */
  readonly respond?: ((request: ScriptedRequest) => ScriptedResponse | Promise<ScriptedResponse>) | undefined;
  /** The provider name the client reports in events and history. @defaultValue 'scripted' */
  readonly provider?: string | undefined;
  /** The model id the client reports in events and history. @defaultValue 'scripted-model' */
  readonly model?: string | undefined;
  /** Whether the client says it accepts images; set false to test the text-only fallback. @defaultValue true */
  readonly supportsImages?: boolean | undefined;
  /** Milliseconds each reply takes (aborted by the request's signal). @defaultValue 0 */
  readonly latencyMs?: number | undefined;
  /** Usage reported by replies that do not give their own. @defaultValue 100 input and 20 output tokens */
  readonly usage?: LLMUsage | undefined;
  /**
   * The trust-boundary confirmations (the `planner_confirmation` calls of `sensitiveActions`):
   * `'confirm'` answers each with `confirmed: true` without the script (so a script written for the
   * Planner and the Navigator still runs), `'script'` sends them to `responses`/`respond` like any call.
   * Either way they are in {@link ScriptedLLM.requests}.
   * @defaultValue 'confirm'
   */
  readonly confirmations?: 'confirm' | 'script' | undefined;
}

function abortError(signal: AbortSignal): Error {
  const error = new Error('The operation was aborted.', { cause: signal.reason });
  error.name = 'AbortError';
  return error;
}

function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError(signal as AbortSignal));
    };
    const timer =
      ms === Number.POSITIVE_INFINITY
        ? undefined
        : setTimeout(() => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function lastUserText(request: GenerateRequest): string {
  for (let index = request.messages.length - 1; index >= 0; index--) {
    const message = request.messages[index];
    if (message?.role !== 'user') continue;
    if (typeof message.content === 'string') return message.content;
    return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  }
  return '';
}

/**
 * A language model that answers from a script. Use it to test code that runs an Executor
 * without a model service.
 *
 * @example
 * ```ts
 * const llm = new ScriptedLLM({
 *   respond: ({ agent }) => agent === 'planner'
 *     ? scriptedPlan({ done: false, nextSteps: 'open the page' })
 *     : scriptedActions([{ done: { text: 'finished' } }]),
 * });
 * ```
 * @public
 */
export class ScriptedLLM implements LLMClient {
  /** The version of the `LLMClient` interface this client implements. */
  readonly specificationVersion = 'v1' as const;
  /** The provider name reported in events and history: the `provider` option, or `scripted`. */
  readonly provider: string;
  /** The model id reported in events and history: the `model` option, or `scripted-model`. */
  readonly model: string;
  /** Whether the client says it accepts images: the `supportsImages` option, or true. */
  readonly supportsImages: boolean;
  /** Every request received, in order. */
  readonly requests: ScriptedRequest[] = [];
  private readonly queue: ScriptedResponse[];

  /** Creates a client that answers from `options.responses`, then from `options.respond`. */
  constructor(private readonly options: ScriptedLLMOptions = {}) {
    this.provider = options.provider ?? 'scripted';
    this.model = options.model ?? 'scripted-model';
    this.supportsImages = options.supportsImages ?? true;
    this.queue = [...(options.responses ?? [])];
  }

  /** How many calls were made. */
  get callCount(): number {
    return this.requests.length;
  }

  /** Requests made by one agent. */
  requestsOf(agent: ScriptedRequest['agent']): ScriptedRequest[] {
    return this.requests.filter((request) => request.agent === agent);
  }

  /** Appends replies to the script. */
  enqueue(...responses: ScriptedResponse[]): void {
    this.queue.push(...responses);
  }

  /**
   * Records the request and answers with the next scripted reply (or the `respond` function's).
   * @throws `ChatModelError` when the script has no reply left, or the error a scripted failure stands for.
   */
  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const name = request.output?.name ?? '';
    const agent = name.startsWith('planner') ? 'planner' : name.startsWith('navigator') ? 'navigator' : name.startsWith('validator') ? 'validator' : 'other';
    const scripted: ScriptedRequest = { ...request, agent, callIndex: this.requests.length, lastUserText: lastUserText(request) };
    this.requests.push(scripted);
    if (request.signal?.aborted) throw abortError(request.signal);
    if (name === 'planner_confirmation' && (this.options.confirmations ?? 'confirm') === 'confirm') {
      return {
        object: { confirmed: true, reason: 'ScriptedLLM confirms every trust-boundary check (option `confirmations`).' },
        usage: this.options.usage ?? { inputTokens: 100, outputTokens: 20 },
        finishReason: 'stop',
      };
    }
    let response = this.queue.shift();
    if (response === undefined && this.options.respond) response = await this.options.respond(scripted);
    if (response === undefined) {
      throw new ChatModelError(`ScriptedLLM has no response left for call ${scripted.callIndex + 1}: add responses or a respond() function.`);
    }
    if (this.options.latencyMs) await wait(this.options.latencyMs, request.signal);
    if (typeof response === 'string') return { text: response, usage: this.options.usage ?? { inputTokens: 100, outputTokens: 20 }, finishReason: 'stop' };
    if ('fail' in response) return this.failWith(response, request.signal);
    return {
      text: response.text,
      object: response.object,
      usage: response.usage ?? this.options.usage ?? { inputTokens: 100, outputTokens: 20 },
      finishReason: response.finishReason ?? 'stop',
    };
  }

  private async failWith(failure: ScriptedFailure, signal: AbortSignal | undefined): Promise<never> {
    switch (failure.fail) {
      case 'status':
        throw chatModelErrorFromStatus({ status: failure.status, message: failure.message, retryAfterMs: failure.retryAfterMs, requestId: 'scripted-request' });
      case 'timeout': {
        const error = new Error('The model call timed out.');
        error.name = 'TimeoutError';
        throw error;
      }
      case 'network':
        throw new TypeError('fetch failed');
      case 'hang':
        await wait(Number.POSITIVE_INFINITY, signal);
        throw new Error('unreachable');
      case 'error':
        throw failure.error;
    }
  }
}

/** The fields of a scripted Planner reply; missing ones are filled in. @public */
export interface ScriptedPlan {
  /** Whether the whole task is complete; a string (such as `'True'`) is written as is, as models sometimes do. @defaultValue false */
  readonly done?: boolean | string | undefined;
  /** Whether the task needs a browser; a string is written as is, as for `done`. @defaultValue true */
  readonly webTask?: boolean | string | undefined;
  /** The next high-level steps for the Navigator. @defaultValue '' */
  readonly nextSteps?: string | undefined;
  /** The answer for the user, when `done`. @defaultValue '' */
  readonly finalAnswer?: string | undefined;
  /** The Planner's view of the current situation. @defaultValue '' */
  readonly observation?: string | undefined;
  /** Obstacles or risks the Planner sees. @defaultValue '' */
  readonly challenges?: string | undefined;
  /** Why the Planner decided what it did. @defaultValue '' */
  readonly reasoning?: string | undefined;
}

/** A Planner reply as a model would write it (JSON text). @public */
export function scriptedPlan(plan: ScriptedPlan = {}): string {
  return JSON.stringify({
    observation: plan.observation ?? '',
    challenges: plan.challenges ?? '',
    done: plan.done ?? false,
    next_steps: plan.nextSteps ?? '',
    final_answer: plan.finalAnswer ?? '',
    reasoning: plan.reasoning ?? '',
    web_task: plan.webTask ?? true,
  });
}

/**
 * A Navigator reply as a model would write it (JSON text): `[{ action_name: params }]`. `state`
 * fills in the Navigator's evaluation of its previous goal, its memory and its next goal.
 * @public
 */
export function scriptedActions(
  actions: readonly Record<string, unknown>[],
  state: { readonly evaluation?: string; readonly memory?: string; readonly nextGoal?: string } = {},
): string {
  return JSON.stringify({
    current_state: {
      evaluation_previous_goal: state.evaluation ?? 'Unknown',
      memory: state.memory ?? '',
      next_goal: state.nextGoal ?? '',
    },
    action: actions,
  });
}
