// The model cassette's file format and the normalised form of a request that replay matches on:
// what is kept of a call, what is left out as volatile, and the checks of a file read back. No IO.

import { z } from 'zod';
import { CassetteError } from '../errors';
import type { FinishReason, GenerateRequest, GenerateResult, LLMUsage } from '../llm/types';

/** The version of the cassette format this plannav writes, and the newest it reads. */
export const cassetteVersion = 1;

/** What stands in for a volatile part of a request's text. */
export const ignoredText = '(ignored)';

/**
 * Text of plannav's own prompts that changes from one run to the next, left out of matching.
 * Tab ids (`tab-1`, …) are counted from 1 in each run and task ids never reach the model, so
 * only the state message's date and time needs a rule.
 */
const builtinVolatileText: readonly RegExp[] = [/(?<=Current date and time: )\d{4}-\d{2}-\d{2} \d{2}:\d{2}/g];

/** A part of a message, images by a hash of their data. */
export type CassettePart = { readonly type: 'text'; readonly text: string } | { readonly type: 'image'; readonly mediaType: string; readonly sha256: string };

/** A message of a recorded request. */
export interface CassetteMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly parts: readonly CassettePart[];
}

/** A recorded request, normalised: what replay matches on. */
export interface CassetteRequest {
  readonly messages: readonly CassetteMessage[];
  readonly output?: { readonly name: string; readonly description?: string | undefined; readonly schemaSha256: string } | undefined;
  readonly temperature?: number | undefined;
  readonly maxOutputTokens?: number | undefined;
}

/** A recorded answer: never the provider's raw response, its headers or request id. */
export interface CassetteResponse {
  readonly text?: string | undefined;
  readonly object?: unknown;
  readonly usage?: LLMUsage | undefined;
  readonly finishReason?: FinishReason | undefined;
}

/** One recorded call. */
export interface CassetteCall {
  readonly request: CassetteRequest;
  readonly response: CassetteResponse;
}

/** A cassette in memory. */
export interface Cassette {
  readonly provider: string;
  readonly model: string;
  readonly supportsImages?: boolean | undefined;
  readonly calls: readonly CassetteCall[];
}

/** Hashes text to a short hex digest (SHA-256, cut to 16 characters). */
export type ShortHash = (text: string) => Promise<string>;

/** Each volatile part of `text` replaced by {@link ignoredText}: plannav's own, then the caller's `ignore` patterns. */
export function normalizeText(text: string, ignore: readonly RegExp[]): string {
  let result = text;
  for (const pattern of [...builtinVolatileText, ...ignore]) {
    // A pattern without the g flag would replace only its first match.
    const global = pattern.global ? pattern : new RegExp(pattern.source, `${pattern.flags}g`);
    result = result.replace(global, ignoredText);
  }
  return result;
}

/** JSON with object keys sorted, so that two equal schemas hash the same whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item: unknown) => canonicalJson(item ?? null)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The normalised form of a request as a caller made it. */
export async function normalizeRequest(request: GenerateRequest, ignore: readonly RegExp[], hash: ShortHash): Promise<CassetteRequest> {
  const messages = await Promise.all(
    request.messages.map(async (message): Promise<CassetteMessage> => {
      const content = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
      return {
        role: message.role,
        parts: await Promise.all(
          content.map(async (part): Promise<CassettePart> =>
            part.type === 'text'
              ? { type: 'text', text: normalizeText(part.text, ignore) }
              : { type: 'image', mediaType: part.mediaType, sha256: await hash(part.data) },
          ),
        ),
      };
    }),
  );
  const output = request.output;
  return {
    messages,
    ...(output
      ? {
          output: {
            name: output.name,
            ...(output.description === undefined ? {} : { description: output.description }),
            schemaSha256: await hash(canonicalJson(output.schema)),
          },
        }
      : {}),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.maxOutputTokens === undefined ? {} : { maxOutputTokens: request.maxOutputTokens }),
  };
}

/** A recorded request normalised again with the replay's own `ignore` patterns (normalising twice changes nothing more). */
export function renormalizeRequest(request: CassetteRequest, ignore: readonly RegExp[]): CassetteRequest {
  return {
    ...request,
    messages: request.messages.map((message) => ({
      role: message.role,
      parts: message.parts.map((part) => (part.type === 'text' ? { type: 'text', text: normalizeText(part.text, ignore) } : part)),
    })),
  };
}

/** The matching key of a normalised request; image data is left out when `matchImageData` is false. */
export function requestKey(request: CassetteRequest, matchImageData: boolean): string {
  return JSON.stringify([
    request.messages.map((message) => [
      message.role,
      message.parts.map((part) => (part.type === 'text' ? ['text', part.text] : ['image', part.mediaType, matchImageData ? part.sha256 : ''])),
    ]),
    request.output ? [request.output.name, request.output.description ?? null, request.output.schemaSha256] : null,
    request.temperature ?? null,
    request.maxOutputTokens ?? null,
  ]);
}

/** What is kept of an answer, in a fixed key order. */
export function recordedResponse(result: GenerateResult): CassetteResponse {
  const usage = result.usage;
  return {
    ...(result.text === undefined ? {} : { text: result.text }),
    ...(result.object === undefined ? {} : { object: result.object }),
    ...(usage
      ? {
          usage: {
            ...(usage.inputTokens === undefined ? {} : { inputTokens: usage.inputTokens }),
            ...(usage.outputTokens === undefined ? {} : { outputTokens: usage.outputTokens }),
            ...(usage.cachedInputTokens === undefined ? {} : { cachedInputTokens: usage.cachedInputTokens }),
            ...(usage.reasoningTokens === undefined ? {} : { reasoningTokens: usage.reasoningTokens }),
          },
        }
      : {}),
    ...(result.finishReason === undefined ? {} : { finishReason: result.finishReason }),
  };
}

/** A recorded answer as a fresh result, so a caller that changes it cannot change later replays. */
export function replayedResult(response: CassetteResponse): GenerateResult {
  return {
    ...(response.text === undefined ? {} : { text: response.text }),
    ...(response.object === undefined ? {} : { object: structuredClone(response.object) }),
    ...(response.usage === undefined ? {} : { usage: { ...response.usage } }),
    ...(response.finishReason === undefined ? {} : { finishReason: response.finishReason }),
  };
}

// The file: text as arrays of lines, so a changed line of a prompt is one changed line of a diff.

const lines = z.array(z.string());
const role = z.enum(['system', 'user', 'assistant']);
const filePart = z.union([
  z.object({ type: z.literal('text'), text: lines }),
  z.object({ type: z.literal('image'), mediaType: z.string(), sha256: z.string() }),
]);
const fileMessage = z.union([z.object({ role, text: lines }), z.object({ role, parts: z.array(filePart) })]);
const count = z.number().int().nonnegative();
const fileSchema = z.object({
  cassetteVersion: z.literal(cassetteVersion),
  provider: z.string(),
  model: z.string(),
  supportsImages: z.boolean().optional(),
  calls: z.array(
    z.object({
      request: z.object({
        messages: z.array(fileMessage),
        output: z.object({ name: z.string(), description: z.string().optional(), schemaSha256: z.string() }).optional(),
        temperature: z.number().optional(),
        maxOutputTokens: z.number().optional(),
      }),
      response: z.object({
        text: z.string().optional(),
        object: z.unknown().optional(),
        usage: z
          .object({
            inputTokens: count.optional(),
            outputTokens: count.optional(),
            cachedInputTokens: count.optional(),
            reasoningTokens: count.optional(),
          })
          .optional(),
        finishReason: z.enum(['stop', 'length', 'tool-calls', 'content-filter', 'error', 'other']).optional(),
      }),
    }),
  ),
});

function fileMessageOf(message: CassetteMessage): unknown {
  const [first] = message.parts;
  if (message.parts.length === 1 && first?.type === 'text') return { role: message.role, text: first.text.split('\n') };
  return {
    role: message.role,
    parts: message.parts.map((part) => (part.type === 'text' ? { type: 'text', text: part.text.split('\n') } : part)),
  };
}

/** The cassette as the file's text: pretty-printed JSON, one entry per call, keys in a fixed order. */
export function serializeCassette(cassette: Cassette): string {
  const file = {
    cassetteVersion,
    provider: cassette.provider,
    model: cassette.model,
    ...(cassette.supportsImages === undefined ? {} : { supportsImages: cassette.supportsImages }),
    calls: cassette.calls.map((call) => ({
      request: {
        messages: call.request.messages.map(fileMessageOf),
        ...(call.request.output ? { output: call.request.output } : {}),
        ...(call.request.temperature === undefined ? {} : { temperature: call.request.temperature }),
        ...(call.request.maxOutputTokens === undefined ? {} : { maxOutputTokens: call.request.maxOutputTokens }),
      },
      response: call.response,
    })),
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}

function pathText(path: readonly PropertyKey[]): string {
  return path.map((key, position) => (typeof key === 'number' ? `[${key}]` : `${position === 0 ? '' : '.'}${String(key)}`)).join('') || 'the top level';
}

/** Reads a cassette file's text; a file that is not JSON, not a cassette, malformed or of a newer version fails with a `CassetteError`. */
export function parseCassette(text: string, file: string): Cassette {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new CassetteError(`The cassette ${file} is not valid JSON (${(error as Error).message}). Record it again.`, { file, cause: error });
  }
  const version = typeof data === 'object' && data !== null ? (data as { cassetteVersion?: unknown }).cassetteVersion : undefined;
  if (version === undefined) {
    throw new CassetteError(`The file ${file} has no cassetteVersion field: it is not a model cassette. Record it with recordModelCalls.`, { file });
  }
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new CassetteError(`The cassette ${file} is malformed: cassetteVersion must be a positive integer, got ${JSON.stringify(version)}.`, { file });
  }
  if (version > cassetteVersion) {
    throw new CassetteError(
      `The cassette ${file} has cassetteVersion ${version}, newer than this version of plannav reads (${cassetteVersion}): update plannav, or record the cassette again.`,
      { file },
    );
  }
  const parsed = fileSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CassetteError(
      `The cassette ${file} is malformed at ${pathText(issue?.path ?? [])}: ${issue?.message ?? 'unexpected content'}. Record it again, or fix the file.`,
      { file, cause: parsed.error },
    );
  }
  const content = parsed.data;
  return {
    provider: content.provider,
    model: content.model,
    ...(content.supportsImages === undefined ? {} : { supportsImages: content.supportsImages }),
    calls: content.calls.map((call) => ({
      request: {
        messages: call.request.messages.map((message) => ({
          role: message.role,
          parts:
            'text' in message
              ? [{ type: 'text', text: message.text.join('\n') }]
              : message.parts.map((part) => (part.type === 'text' ? { type: 'text', text: part.text.join('\n') } : part)),
        })),
        ...(call.request.output ? { output: call.request.output } : {}),
        ...(call.request.temperature === undefined ? {} : { temperature: call.request.temperature }),
        ...(call.request.maxOutputTokens === undefined ? {} : { maxOutputTokens: call.request.maxOutputTokens }),
      },
      response: recordedResponse(call.response),
    })),
  };
}
