// Reshapes plannav's conversation for APIs that keep the system prompt apart and want turns that
// alternate user/assistant (Anthropic, Gemini). Pure functions; no provider format here.

import type { ChatMessage, ContentPart } from '../llm/types';

/** One turn of an alternating conversation. */
export interface Turn {
  readonly role: 'user' | 'assistant';
  readonly parts: ContentPart[];
}

/** A conversation split into its system prompt and its alternating turns. */
export interface SplitConversation {
  /** The leading system messages' texts, in order. */
  readonly system: string[];
  /** The rest, with consecutive messages of one role merged into one turn. */
  readonly turns: Turn[];
}

/** Placeholder for a turn that would otherwise be empty: providers reject empty text blocks. */
const emptyTurnText = '(empty)';

function partsOf(message: ChatMessage, keepImages: boolean): ContentPart[] {
  const parts: ContentPart[] =
    typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content.filter((part) => keepImages || part.type !== 'image');
  return parts.filter((part) => part.type !== 'text' || part.text.length > 0);
}

/**
 * Splits off the leading system messages and merges consecutive messages of one role. A system
 * message later in the conversation becomes user text (it is context the model must read at that
 * point). The first turn is a user turn: a conversation that would start with the assistant gets a
 * short user turn first.
 */
export function splitConversation(messages: readonly ChatMessage[], options: { readonly keepImages: boolean }): SplitConversation {
  const system: string[] = [];
  const turns: Turn[] = [];
  let leading = true;
  for (const message of messages) {
    if (message.role === 'system' && leading) {
      if (message.content) system.push(message.content);
      continue;
    }
    leading = false;
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const parts = partsOf(message, options.keepImages);
    const last = turns[turns.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else turns.push({ role, parts });
  }
  if (turns[0]?.role === 'assistant') turns.unshift({ role: 'user', parts: [{ type: 'text', text: 'Continue.' }] });
  for (const turn of turns) if (turn.parts.length === 0) turn.parts.push({ type: 'text', text: emptyTurnText });
  return { system, turns };
}
