// The Gemini generateContent wire format for the conformance kit's server: replies, and requests
// read back. Only the fields plannav's contract touches; no HTTP here.

import type { RecordedRequest, ServerReply } from './model-conformance-server';
import { agentOf, retryAfterHeaders, textOfContent, type Answer, type WireCall, type WireFormatSpec } from './model-conformance-wire';

/** The usage fields of a generateContent response. */
export interface GeminiUsageFields {
  readonly promptTokenCount?: number;
  readonly candidatesTokenCount?: number;
  readonly thoughtsTokenCount?: number;
  readonly cachedContentTokenCount?: number;
}

const defaultUsage: GeminiUsageFields = { promptTokenCount: 100, candidatesTokenCount: 20 };
const requestId = 'req_gemini_123';
const requestHeaders = { 'x-goog-request-id': requestId };

/** A candidate with text parts; a `thought` part comes first when given. */
export function geminiText(text: string, options: { finishReason?: string; usage?: GeminiUsageFields; thought?: string } = {}): ServerReply {
  const parts: Record<string, unknown>[] = [];
  if (options.thought !== undefined) parts.push({ text: options.thought, thought: true });
  parts.push({ text });
  const usage = options.usage ?? defaultUsage;
  return {
    headers: requestHeaders,
    json: {
      candidates: [{ content: { parts, role: 'model' }, finishReason: options.finishReason ?? 'STOP', index: 0 }],
      usageMetadata: { ...usage, totalTokenCount: (usage.promptTokenCount ?? 0) + (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0) },
      modelVersion: 'gemini-mock',
      responseId: 'resp_gemini_1',
    },
  };
}

/** An error response with Google's error body. */
export function geminiError(
  status: number,
  message: string,
  options: { status?: string; details?: unknown[]; headers?: Record<string, string> } = {},
): ServerReply {
  return {
    status,
    headers: { ...requestHeaders, ...options.headers },
    json: { error: { code: status, message, status: options.status ?? 'INVALID_ARGUMENT', ...(options.details ? { details: options.details } : {}) } },
  };
}

function errorStatus(status: number): string {
  if (status === 429) return 'RESOURCE_EXHAUSTED';
  if (status === 401) return 'UNAUTHENTICATED';
  if (status === 403) return 'PERMISSION_DENIED';
  return status >= 500 ? 'UNAVAILABLE' : 'INVALID_ARGUMENT';
}

type Content = { role?: unknown; parts?: Array<{ text?: unknown; inlineData?: { data?: unknown } }> };

function read(request: RecordedRequest): WireCall {
  const contents: Content[] = Array.isArray(request.body?.contents) ? request.body.contents : [];
  const partsOf = (content: Content | undefined) => (Array.isArray(content?.parts) ? content.parts : []);
  const lastUser = [...contents].reverse().find((content) => content.role === 'user');
  return {
    agent: agentOf(request),
    lastUserText: textOfContent(partsOf(lastUser)),
    images: contents.flatMap((content) =>
      partsOf(content).flatMap((part) => (part?.inlineData ? [typeof part.inlineData.data === 'string' ? part.inlineData.data : ''] : [])),
    ),
    allText: [textOfContent(request.body?.systemInstruction?.parts), ...contents.map((content) => textOfContent(partsOf(content)))].join('\n'),
    request,
  };
}

function write(answer: Answer): ServerReply {
  if ('hang' in answer) return { hang: true };
  if ('network' in answer) return { destroy: true };
  if ('status' in answer) {
    if (answer.contextLength) return geminiError(400, 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).');
    return geminiError(answer.status, answer.message, { status: errorStatus(answer.status), headers: retryAfterHeaders(answer) });
  }
  if ('truncated' in answer) return geminiText(answer.truncated, { finishReason: 'MAX_TOKENS' });
  const usage = answer.usage
    ? {
        promptTokenCount: answer.usage.input,
        candidatesTokenCount: answer.usage.output - answer.usage.reasoning,
        thoughtsTokenCount: answer.usage.reasoning,
        cachedContentTokenCount: answer.usage.cached,
      }
    : undefined;
  return geminiText(JSON.stringify(answer.object), { ...(usage ? { usage } : {}), ...(answer.reasoning ? { thought: answer.reasoning } : {}) });
}

/** The Gemini generateContent format, for the kit. */
export const geminiWireFormat: WireFormatSpec = {
  name: 'gemini',
  basePath: '/v1beta',
  requestId,
  reportsReasoning: true,
  read,
  write,
  hints: {
    usage:
      'inputTokens = usageMetadata.promptTokenCount, outputTokens = candidatesTokenCount + thoughtsTokenCount (Gemini counts thoughts apart), cachedInputTokens = cachedContentTokenCount, reasoningTokens = thoughtsTokenCount',
    reasoning: 'the server sends the reasoning as parts with thought: true; leave them out of `text`',
    images: 'send each image part as { inlineData: { mimeType, data } }',
    truncated: 'map finishReason "MAX_TOKENS" to finishReason "length"',
  },
};
