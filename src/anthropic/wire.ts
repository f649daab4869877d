// The Anthropic Messages API wire format: building a request from plannav's conversation (system
// apart, alternating turns, base64 images, cache markers) and reading a response. No HTTP here.

import type { FinishReason, GenerateRequest, LLMUsage } from '../llm/types';
import { splitConversation, type Turn } from '../providers/conversation';

/** Extended thinking: the model reasons before answering, within a token budget. @public */
export interface AnthropicThinkingOptions {
  /** Tokens the model may spend thinking (at least 1024); added to the output token limit. */
  readonly budgetTokens: number;
}

/** What shapes one request body, besides the conversation. */
export interface AnthropicBodySettings {
  readonly model: string;
  readonly supportsImages: boolean;
  readonly defaultMaxOutputTokens: number;
  readonly promptCaching: boolean;
  readonly thinking: AnthropicThinkingOptions | undefined;
}

type Block =
  | { type: 'text'; text: string; cache_control?: { type: 'ephemeral' } }
  | { type: 'image'; source: { type: 'base64'; media_type: string; data: string }; cache_control?: { type: 'ephemeral' } };

const ephemeral = { type: 'ephemeral' } as const;

function toBlocks(turn: Turn): Block[] {
  return turn.parts.map((part) =>
    part.type === 'text' ? { type: 'text', text: part.text } : { type: 'image', source: { type: 'base64', media_type: part.mediaType, data: part.data } },
  );
}

function markLastBlock(blocks: Block[]): void {
  const last = blocks[blocks.length - 1];
  if (last) last.cache_control = ephemeral;
}

/**
 * The JSON body of one Messages request. With prompt caching, cache breakpoints go on the stable
 * prefix: the system prompt, the first user turn (the task) and the turn before the latest one
 * (the history so far), so each step reads the previous steps from the cache. At most 3 of the
 * API's 4 breakpoints are used.
 */
export function buildAnthropicBody(request: GenerateRequest, settings: AnthropicBodySettings): Record<string, unknown> {
  const { system, turns } = splitConversation(request.messages, { keepImages: settings.supportsImages });
  const output = request.output;
  const systemTexts = [...system];
  if (output && settings.thinking) systemTexts.push(`Give your answer by calling the tool ${output.name}, once.`);
  const body: Record<string, unknown> = { model: settings.model };
  if (systemTexts.length > 0) {
    const systemBlock: Block = { type: 'text', text: systemTexts.join('\n\n') };
    if (settings.promptCaching) systemBlock.cache_control = ephemeral;
    body.system = [systemBlock];
  }
  const messages = turns.map((turn) => ({ role: turn.role, content: toBlocks(turn) }));
  if (settings.promptCaching) {
    const marked = new Set([0, messages.length - 2].filter((index) => index >= 0 && index < messages.length - 1));
    for (const index of marked) markLastBlock(messages[index]?.content ?? []);
  }
  body.messages = messages;
  const maxOutputTokens = request.maxOutputTokens ?? settings.defaultMaxOutputTokens;
  if (settings.thinking) {
    body.thinking = { type: 'enabled', budget_tokens: settings.thinking.budgetTokens };
    body.max_tokens = maxOutputTokens + settings.thinking.budgetTokens;
  } else {
    body.max_tokens = maxOutputTokens;
    // Anthropic's range is 0 to 1; callers used to OpenAI's 0 to 2 are clamped, not refused.
    if (request.temperature !== undefined) body.temperature = Math.min(1, Math.max(0, request.temperature));
  }
  if (output) {
    body.tools = [{ name: output.name, ...(output.description ? { description: output.description } : {}), input_schema: output.schema }];
    // Extended thinking does not allow a forced tool; the system prompt asks for the call instead.
    body.tool_choice = settings.thinking ? { type: 'auto' } : { type: 'tool', name: output.name };
  }
  return body;
}

/** The parts of a Messages response plannav reads. */
export interface AnthropicResponse {
  readonly id?: string;
  readonly content?: ReadonlyArray<{ readonly type?: string; readonly text?: string; readonly name?: string; readonly input?: unknown }>;
  readonly stop_reason?: string | null;
  readonly usage?: {
    readonly input_tokens?: number;
    readonly output_tokens?: number;
    readonly cache_creation_input_tokens?: number | null;
    readonly cache_read_input_tokens?: number | null;
  };
}

/** Maps Anthropic's `stop_reason` to plannav's. */
export function anthropicFinishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool-calls';
    case 'refusal':
      return 'content-filter';
    default:
      return 'other';
  }
}

/**
 * Maps Anthropic's usage to plannav's. Anthropic counts cached and cache-writing input apart from
 * `input_tokens`; plannav's `inputTokens` is the whole prompt, `cachedInputTokens` the part read
 * from the cache.
 */
export function anthropicUsage(usage: AnthropicResponse['usage']): LLMUsage | undefined {
  if (!usage) return undefined;
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  return {
    inputTokens: (usage.input_tokens ?? 0) + cacheRead + cacheWrite,
    outputTokens: usage.output_tokens,
    cachedInputTokens: cacheRead,
  };
}

/** The answer of a response: text blocks (thinking left out) or the forced tool call's input. */
export function readAnthropicAnswer(
  response: AnthropicResponse,
  toolName: string | undefined,
): { text: string | undefined; object: unknown; finishReason: FinishReason } {
  const blocks = response.content ?? [];
  const finishReason = anthropicFinishReason(response.stop_reason);
  const tool = blocks.find((block) => block.type === 'tool_use' && (toolName === undefined || block.name === toolName));
  if (tool) {
    const text = JSON.stringify(tool.input ?? {});
    // A call cut off by max_tokens carries partial input: the core reports it as cut off.
    return finishReason === 'length' ? { text, object: undefined, finishReason } : { text, object: tool.input, finishReason: 'tool-calls' };
  }
  const text = blocks
    .filter((block) => block.type === 'text')
    .map((block) => block.text ?? '')
    .join('');
  return { text, object: undefined, finishReason };
}
