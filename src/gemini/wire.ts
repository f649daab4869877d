// The Gemini generateContent wire format: building a request (systemInstruction, contents with
// inlineData images, a response schema) and reading a response (thought parts left out). No HTTP.

import type { FinishReason, GenerateRequest, LLMUsage } from '../llm/types';
import { splitConversation } from '../providers/conversation';
import type { ProviderErrorDetail } from '../providers/http';
import { toGeminiSchema } from './schema';

/** What shapes one request body, besides the conversation. */
export interface GeminiBodySettings {
  readonly supportsImages: boolean;
  readonly thinkingBudget: number | undefined;
  readonly generationConfig: Readonly<Record<string, unknown>> | undefined;
  readonly schemaField: 'responseSchema' | 'responseJsonSchema';
}

/** The JSON body of one generateContent request. */
export function buildGeminiBody(request: GenerateRequest, settings: GeminiBodySettings): Record<string, unknown> {
  const { system, turns } = splitConversation(request.messages, { keepImages: settings.supportsImages });
  const body: Record<string, unknown> = {
    contents: turns.map((turn) => ({
      role: turn.role === 'assistant' ? 'model' : 'user',
      parts: turn.parts.map((part) => (part.type === 'text' ? { text: part.text } : { inlineData: { mimeType: part.mediaType, data: part.data } })),
    })),
  };
  if (system.length > 0) body.systemInstruction = { parts: [{ text: system.join('\n\n') }] };
  const generationConfig: Record<string, unknown> = {};
  if (request.temperature !== undefined) generationConfig.temperature = request.temperature;
  if (request.maxOutputTokens !== undefined) generationConfig.maxOutputTokens = request.maxOutputTokens;
  if (settings.thinkingBudget !== undefined) generationConfig.thinkingConfig = { thinkingBudget: settings.thinkingBudget };
  if (request.output) {
    generationConfig.responseMimeType = 'application/json';
    // responseJsonSchema (Gemini 2.5+) takes JSON Schema as is; responseSchema wants the OpenAPI subset.
    if (settings.schemaField === 'responseJsonSchema') generationConfig.responseJsonSchema = request.output.schema;
    else generationConfig.responseSchema = toGeminiSchema(request.output.schema);
  }
  Object.assign(generationConfig, settings.generationConfig);
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
  return body;
}

/** The parts of a generateContent response plannav reads. */
export interface GeminiResponse {
  readonly responseId?: string;
  readonly candidates?: ReadonlyArray<{
    readonly content?: { readonly parts?: ReadonlyArray<{ readonly text?: string; readonly thought?: boolean }> };
    readonly finishReason?: string;
  }>;
  readonly promptFeedback?: { readonly blockReason?: string };
  readonly usageMetadata?: {
    readonly promptTokenCount?: number;
    readonly candidatesTokenCount?: number;
    readonly thoughtsTokenCount?: number;
    readonly cachedContentTokenCount?: number;
  };
}

/** Maps Gemini's `finishReason` to plannav's. */
export function geminiFinishReason(reason: string | undefined): FinishReason {
  switch (reason) {
    case 'STOP':
      return 'stop';
    case 'MAX_TOKENS':
      return 'length';
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
      return 'content-filter';
    case 'MALFORMED_FUNCTION_CALL':
      return 'error';
    default:
      return 'other';
  }
}

/**
 * Maps Gemini's usage to plannav's. Gemini counts thinking apart from the answer
 * (`thoughtsTokenCount`); both are output tokens, as OpenAI counts them.
 */
export function geminiUsage(usage: GeminiResponse['usageMetadata']): LLMUsage | undefined {
  if (!usage) return undefined;
  const thoughts = usage.thoughtsTokenCount ?? 0;
  return {
    inputTokens: usage.promptTokenCount,
    outputTokens: (usage.candidatesTokenCount ?? 0) + thoughts,
    cachedInputTokens: usage.cachedContentTokenCount,
    reasoningTokens: usage.thoughtsTokenCount,
  };
}

/** The answer of a response: the first candidate's text parts, thought parts left out. */
export function readGeminiAnswer(response: GeminiResponse): { text: string; finishReason: FinishReason } {
  const candidate = response.candidates?.[0];
  if (!candidate) return { text: '', finishReason: response.promptFeedback?.blockReason ? 'content-filter' : 'other' };
  const text = (candidate.content?.parts ?? [])
    .filter((part) => part.thought !== true && typeof part.text === 'string')
    .map((part) => part.text)
    .join('');
  return { text, finishReason: geminiFinishReason(candidate.finishReason) };
}

function parseDuration(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(\d+(?:\.\d+)?)s$/.exec(value.trim());
  return match ? Math.ceil(Number.parseFloat(match[1] as string) * 1000) : undefined;
}

/**
 * Reads Google's error body `{ error: { code, message, status, details } }`. An invalid API key
 * comes as a 400 with reason `API_KEY_INVALID`: it is reported as the auth failure it is. A 429's
 * `RetryInfo` gives the wait when no `Retry-After` header does.
 */
export function readGeminiError(body: unknown): ProviderErrorDetail {
  if (typeof body === 'string') return { message: body.trim().slice(0, 500) || undefined };
  const error = (body as { error?: { message?: unknown; status?: unknown; details?: unknown } } | null)?.error;
  if (!error) return {};
  const details = Array.isArray(error.details) ? (error.details as Array<Record<string, unknown>>) : [];
  const reasons = details.map((detail) => detail.reason).filter((reason): reason is string => typeof reason === 'string');
  const retryAfterMs = details.map((detail) => parseDuration(detail.retryDelay)).find((delay) => delay !== undefined);
  return {
    message: typeof error.message === 'string' ? error.message : undefined,
    code: reasons[0] ?? (typeof error.status === 'string' ? error.status : undefined),
    status: reasons.includes('API_KEY_INVALID') ? 401 : undefined,
    retryAfterMs,
  };
}
