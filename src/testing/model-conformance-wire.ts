// What the model-client conformance kit needs from a wire format: answers described once (an
// object, a cut-off reply, an HTTP error, a hang, a dropped connection) written in the format, and
// the requests a client made read back in one shape. Formats live beside this file; no checks here.

import { navigatorSystemPrompt } from '../prompts/navigator-system';
import { plannerSystemPrompt } from '../prompts/planner-system';
import type { RecordedRequest, ServerReply } from './model-conformance-server';

/** The wire formats the kit's servers speak. @public */
export type ModelWireFormat = 'openai' | 'anthropic' | 'gemini';

/** Token counts an answer reports, in plannav's terms; each format writes them its own way. */
export interface UsageSpec {
  readonly input: number;
  readonly output: number;
  readonly cached: number;
  readonly reasoning: number;
}

/** One answer of the server, described independently of the wire format. */
export type Answer =
  | { readonly object: unknown; readonly usage?: UsageSpec | undefined; readonly reasoning?: string | undefined }
  /** A reply cut off by the output token limit. */
  | { readonly truncated: string }
  | { readonly status: number; readonly message: string; readonly retryAfter?: string | undefined; readonly contextLength?: boolean | undefined }
  | { readonly hang: true }
  | { readonly network: true };

/** A request a client made, read back from its wire format. */
export interface WireCall {
  /** Which agent of plannav made the call, told by its system prompt; `other` for direct calls. */
  readonly agent: 'planner' | 'navigator' | 'other';
  /** The text of the last user message. */
  readonly lastUserText: string;
  /** Base64 data of every image sent, in order. */
  readonly images: string[];
  /** Every text the request carries (system, messages), joined. */
  readonly allText: string;
  /** The request as received. */
  readonly request: RecordedRequest;
}

/** A wire format as the kit uses it: how to read requests and write answers, and how to explain them. */
export interface WireFormatSpec {
  readonly name: ModelWireFormat;
  /** The API version path a client puts after the origin: `/v1`, `/v1beta`. */
  readonly basePath: string;
  /** The request id the server sends with every response. */
  readonly requestId: string;
  /** Whether the format reports reasoning tokens apart from the other output tokens. */
  readonly reportsReasoning: boolean;
  read(request: RecordedRequest): WireCall;
  write(answer: Answer, request: RecordedRequest): ServerReply;
  /** For fix messages: how the format's fields map to plannav's. */
  readonly hints: {
    readonly usage: string;
    readonly reasoning: string;
    readonly images: string;
    readonly truncated: string;
  };
}

// The first sentence of each agent's system prompt tells its requests apart in any wire format
// (each call carries one agent's system prompt). Taken from the prompts, so they stay in step.
const plannerMarker = firstSentence(plannerSystemPrompt());
const navigatorMarker = firstSentence(navigatorSystemPrompt({ maxActionsPerStep: 1, actionList: '' }));

function firstSentence(text: string): string {
  return text.slice(0, text.indexOf('.'));
}

/** The agent whose system prompt a request carries. */
export function agentOf(request: RecordedRequest): WireCall['agent'] {
  const text = typeof request.body === 'string' ? request.body : JSON.stringify(request.body ?? '');
  if (text.includes(plannerMarker)) return 'planner';
  if (text.includes(navigatorMarker)) return 'navigator';
  return 'other';
}

/** The text of a message content: a string, or the `textKey` fields of its parts joined. */
export function textOfContent(content: unknown, textKey = 'text'): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => {
      const value = typeof part === 'object' && part !== null ? (part as Record<string, unknown>)[textKey] : undefined;
      return typeof value === 'string' ? value : '';
    })
    .join('\n');
}

/** The `retry-after` header of an error answer, when it has one. */
export function retryAfterHeaders(answer: { readonly retryAfter?: string | undefined }): Record<string, string> {
  return answer.retryAfter ? { 'retry-after': answer.retryAfter } : {};
}
