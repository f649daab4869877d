// Replies in the Gemini generateContent wire format, for the mock server.

import type { ServerReply } from './mock-server';

export interface GeminiUsageFields {
  readonly promptTokenCount?: number;
  readonly candidatesTokenCount?: number;
  readonly thoughtsTokenCount?: number;
  readonly cachedContentTokenCount?: number;
}

const defaultUsage: GeminiUsageFields = { promptTokenCount: 100, candidatesTokenCount: 20 };
const requestHeaders = { 'x-goog-request-id': 'req_gemini_123' };

/** A candidate with text parts; `thought` parts come first when given. */
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
