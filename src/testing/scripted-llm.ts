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
      readonly text?: string | undefined;
      readonly object?: unknown;
      readonly usage?: LLMUsage | undefined;
      readonly finishReason?: FinishReason | undefined;
    }
  | ScriptedFailure;

/** A request as the script sees it: which agent asked is read from the requested output's name. @public */
export interface ScriptedRequest extends GenerateRequest {
  /** `planner` or `navigator` for the loop's calls; `other` for anything else. */
  readonly agent: 'planner' | 'navigator' | 'other';
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
  /** @defaultValue 'scripted' */
  readonly provider?: string | undefined;
  /** @defaultValue 'scripted-model' */
  readonly model?: string | undefined;
  /** @defaultValue true */
  readonly supportsImages?: boolean | undefined;
  /** Milliseconds each reply takes (aborted by the request's signal). @defaultValue 0 */
  readonly latencyMs?: number | undefined;
  /** Usage reported by replies that do not give their own. @defaultValue 100 input and 20 output tokens */
  readonly usage?: LLMUsage | undefined;
}

function abortError(signal: AbortSignal): Error {
  const error = new Error('The operation was aborted.', { cause: signal.reason });
  error.name = 'AbortError';
  return error;
}

function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const timer = ms === Number.POSITIVE_INFINITY ? undefined : setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(abortError(signal));
      },
      { once: true },
    );
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
  readonly specificationVersion = 'v1' as const;
  readonly provider: string;
  readonly model: string;
  readonly supportsImages: boolean;
  /** Every request received, in order. */
  readonly requests: ScriptedRequest[] = [];
  private readonly queue: ScriptedResponse[];

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

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const name = request.output?.name ?? '';
    const agent = name.startsWith('planner') ? 'planner' : name.startsWith('navigator') ? 'navigator' : 'other';
    const scripted: ScriptedRequest = { ...request, agent, callIndex: this.requests.length, lastUserText: lastUserText(request) };
    this.requests.push(scripted);
    if (request.signal?.aborted) throw abortError(request.signal);
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
  readonly done?: boolean | string | undefined;
  readonly webTask?: boolean | string | undefined;
  readonly nextSteps?: string | undefined;
  readonly finalAnswer?: string | undefined;
  readonly observation?: string | undefined;
  readonly challenges?: string | undefined;
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

/** A Navigator reply as a model would write it (JSON text): `[{ action_name: params }]`. @public */
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
