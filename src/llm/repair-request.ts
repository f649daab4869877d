// The request that asks a model to fix an unusable reply: the conversation, the reply quoted
// back and what was wrong with it. However long the reply was, the request must fit the budget.

import type { ChatMessage } from './types';

/**
 * The token budget of a repair request when the caller gives none: the Executor's default
 * `maxInputTokens`.
 */
export const defaultRepairInputTokens = 128_000;

/**
 * The most of an unusable reply that a repair request quotes, in characters. The model only
 * needs to see what went wrong; its whole reply can be megabytes of a repeated character.
 */
export const maxRepairQuoteCharacters = 20_000;

/** The most of the problem description that is sent (a validation error can list many options). */
const maxProblemCharacters = 4_000;

/** Below this many characters of room, a quote would show too little to help: a note stands in for it. */
const minQuoteCharacters = 200;

// The same estimate as the conversation's MessageManager (its defaults): a repair request it
// would count as over budget is one the provider may refuse.
const charactersPerToken = 3;
const messageOverheadTokens = 4;
const imageTokens = 800;

/** Writes 10000000 as "10,000,000" without depending on the runtime's locale data. */
function groupDigits(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** The estimated tokens of a conversation, counted the way the MessageManager counts them. */
export function estimateTokens(messages: readonly ChatMessage[]): number {
  let tokens = 0;
  for (const message of messages) {
    tokens += messageOverheadTokens;
    if (typeof message.content === 'string') tokens += Math.ceil(message.content.length / charactersPerToken);
    else for (const part of message.content) tokens += part.type === 'text' ? Math.ceil(part.text.length / charactersPerToken) : imageTokens;
  }
  return tokens;
}

/**
 * `text` cut to at most `limit` characters: its start and its end, with a marker between them
 * that says how much was cut. Undefined when too little of it would fit to be worth quoting.
 */
function quoteWithin(text: string, limit: number): string | undefined {
  if (text.length <= limit) return text;
  // The marker's length is bounded by the digits of the two numbers in it; reserve that much.
  const markerRoom = `\n[... ${groupDigits(text.length)} of ${groupDigits(text.length)} characters cut ...]\n`.length;
  const room = limit - markerRoom;
  if (room < minQuoteCharacters) return undefined;
  // Most of what is kept is the start, where a reply usually goes wrong; a little of the end shows how it stopped.
  const tail = Math.floor(room / 4);
  const head = room - tail;
  const marker = `\n[... ${groupDigits(text.length - head - tail)} of ${groupDigits(text.length)} characters cut ...]\n`;
  return text.slice(0, head) + marker + (tail > 0 ? text.slice(text.length - tail) : '');
}

/** What {@link repairRequest} needs. */
export interface RepairRequestArgs {
  /** The conversation of the call that produced the reply. */
  readonly messages: readonly ChatMessage[];
  /** The model's unusable reply, whole. */
  readonly reply: string;
  /** What was wrong with it, for the model. */
  readonly problem: string;
  /** The token budget of the whole request. @defaultValue {@link defaultRepairInputTokens} */
  readonly maxInputTokens?: number | undefined;
}

/**
 * The conversation that asks the model to reply again: the original messages, the reply quoted
 * back (cut to {@link maxRepairQuoteCharacters} and to what the budget leaves, with a marker
 * saying how much was cut, or a note when no useful part fits) and the problem. The original
 * messages are never cut: they were sent once already, within the budget. The request stays
 * within the budget whenever they and the problem leave a few tokens for the note.
 */
export function repairRequest(args: RepairRequestArgs): ChatMessage[] {
  const budget = args.maxInputTokens ?? defaultRepairInputTokens;
  const problem = args.problem.length > maxProblemCharacters ? `${args.problem.slice(0, maxProblemCharacters)} [...]` : args.problem;
  const instruction: ChatMessage = {
    role: 'user',
    content: `${problem}\nReply again with exactly one JSON object that follows the required schema, and nothing else.`,
  };
  const left = budget - estimateTokens(args.messages) - estimateTokens([instruction]) - messageOverheadTokens;
  const limit = Math.min(maxRepairQuoteCharacters, Math.max(0, left) * charactersPerToken);
  const reply = args.reply || '(empty reply)';
  const note = `(a reply of ${groupDigits(reply.length)} characters, left out to stay within the token budget)`;
  const quote = quoteWithin(reply, limit) ?? (note.length <= limit ? note : '(left out)');
  return [...args.messages, { role: 'assistant', content: quote }, instruction];
}
