// The one conversation the Planner and the Navigator share, and its token budget: when it grows
// past maxInputTokens the oldest turns go first; the system prompt, tasks and latest state stay.

import type { ChatMessage, ContentPart } from '../llm/types';

/** What a message of the conversation is, which decides whether compaction may drop it. */
export type MessageKind = 'system' | 'task' | 'plan' | 'state' | 'model-output' | 'action-result' | 'compaction';

interface ManagedMessage {
  readonly message: ChatMessage;
  readonly kind: MessageKind;
  readonly tokens: number;
}

/** How the conversation counts and bounds its tokens. */
export interface MessageManagerSettings {
  readonly maxInputTokens: number;
  /** Characters per token in the estimate. @defaultValue 3 */
  readonly charactersPerToken?: number | undefined;
  /** Tokens counted per image. @defaultValue 800 */
  readonly imageTokens?: number | undefined;
}

const messageOverhead = 4;

function textOf(message: ChatMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** The note that stands in for the turns compaction removed. */
function compactionNote(removedCount: number): ChatMessage {
  return {
    role: 'user',
    content: `[${removedCount} earlier messages were removed to stay within the token budget. Rely on your memory field for what happened before.]`,
  };
}

/** Wraps the user's request so the model can tell it from page content. */
export function wrapUserRequest(task: string, followUp: boolean): string {
  const lead = followUp ? 'Your new task follows the previous ones: take all of the earlier context into account and finish this task.' : 'Your task:';
  return `<user_request>\n${lead}\n${task}\n</user_request>`;
}

/** The shared conversation of one session (a task and its follow-ups). */
export class MessageManager {
  private history: ManagedMessage[] = [];
  private readonly charactersPerToken: number;
  private readonly imageTokens: number;
  private removedCount = 0;

  constructor(private readonly settings: MessageManagerSettings) {
    this.charactersPerToken = settings.charactersPerToken ?? 3;
    this.imageTokens = settings.imageTokens ?? 800;
  }

  /** Estimates the tokens of one message. */
  estimateTokens(message: ChatMessage): number {
    let tokens = messageOverhead;
    if (typeof message.content === 'string') return tokens + Math.ceil(message.content.length / this.charactersPerToken);
    for (const part of message.content) {
      tokens += part.type === 'text' ? Math.ceil(part.text.length / this.charactersPerToken) : this.imageTokens;
    }
    return tokens;
  }

  /** The token budget the conversation is kept within; a model call's repair request must fit it too. */
  get maxInputTokens(): number {
    return this.settings.maxInputTokens;
  }

  /** The estimated tokens of the whole conversation. */
  get totalTokens(): number {
    return this.history.reduce((sum, entry) => sum + entry.tokens, 0);
  }

  /** Starts the conversation: the system prompt and the first task. */
  initTask(systemPrompt: string, task: string): void {
    this.history = [];
    this.removedCount = 0;
    this.push({ role: 'system', content: systemPrompt }, 'system');
    this.push({ role: 'user', content: wrapUserRequest(task, false) }, 'task');
  }

  /** Adds a follow-up task to the same conversation. */
  addNewTask(task: string): void {
    this.removeStateMessage();
    this.push({ role: 'user', content: wrapUserRequest(task, true) }, 'task');
  }

  /** Adds the Planner's output, before the current state message when there is one. */
  addPlan(plan: string): void {
    const entry = this.entry({ role: 'assistant', content: `<plan>\n${plan}\n</plan>` }, 'plan');
    const stateIndex = this.history.findIndex((item) => item.kind === 'state');
    if (stateIndex === -1) this.history.push(entry);
    else this.history.splice(stateIndex, 0, entry);
  }

  /** Sets the current browser state message, replacing the previous one. */
  addStateMessage(content: string | readonly ContentPart[]): void {
    this.removeStateMessage();
    this.push({ role: 'user', content }, 'state');
  }

  /** Whether a state message is in the conversation. */
  hasStateMessage(): boolean {
    return this.history.some((item) => item.kind === 'state');
  }

  /** Removes the state message: it is transient and replaced by the next one. */
  removeStateMessage(): void {
    this.history = this.history.filter((item) => item.kind !== 'state');
  }

  /** Records the Navigator's output. */
  addModelOutput(output: string): void {
    this.push({ role: 'assistant', content: output }, 'model-output');
  }

  /** Records an action result that stays in memory. */
  addActionResult(text: string): void {
    this.push({ role: 'user', content: text }, 'action-result');
  }

  /**
   * The conversation to send, within the token budget. With `systemPrompt`, the first message is
   * replaced (the Planner has its own). Compaction drops the oldest turns for good and leaves a
   * note saying so; if the protected messages alone are over budget, the state message's images
   * go, then its text is cut.
   */
  messages(systemPrompt?: string): ChatMessage[] {
    const system = systemPrompt === undefined ? undefined : this.entry({ role: 'system', content: systemPrompt }, 'system');
    const systemDelta = system ? system.tokens - (this.history[0]?.tokens ?? 0) : 0;
    const budget = this.settings.maxInputTokens - systemDelta;
    this.compact(budget);
    const result = this.history.map((item) => item.message);
    if (system) result[0] = system.message;
    return result;
  }

  private compact(budget: number): void {
    // The note that replaces dropped turns costs tokens too: reserve room for it while dropping.
    const existingNote = this.history.find((item) => item.kind === 'compaction')?.tokens ?? 0;
    const noteReserve = this.estimateTokens(compactionNote(Number.MAX_SAFE_INTEGER));
    let total = this.totalTokens - existingNote;
    let removed = 0;
    while (total + (this.removedCount + removed > 0 ? noteReserve : 0) > budget) {
      // Old plans and model outputs go first; kept results (cached findings, answers) only after.
      let index = this.history.findIndex((item) => item.kind === 'plan' || item.kind === 'model-output');
      if (index === -1) index = this.history.findIndex((item) => item.kind === 'action-result');
      if (index === -1) break;
      total -= (this.history[index] as ManagedMessage).tokens;
      this.history.splice(index, 1);
      removed++;
    }
    if (removed > 0) this.noteRemoval(removed);
    if (this.totalTokens > budget) this.shrinkState(budget);
  }

  private noteRemoval(removed: number): void {
    this.removedCount += removed;
    this.history = this.history.filter((item) => item.kind !== 'compaction');
    const lastTask = this.history.map((item) => item.kind).lastIndexOf('task');
    this.history.splice(lastTask + 1, 0, this.entry(compactionNote(this.removedCount), 'compaction'));
  }

  private shrinkState(budget: number): void {
    const index = this.history.findIndex((item) => item.kind === 'state');
    const state = this.history[index];
    if (!state) return;
    // Images go first; the text is cut only if that is not enough.
    const text = textOf(state.message);
    this.history[index] = this.entry({ role: 'user', content: text }, 'state');
    const excess = this.totalTokens - budget;
    if (excess <= 0) return;
    const marker = '\n[... the rest of the page was cut to fit the token budget ...]';
    const keep = Math.max(0, text.length - excess * this.charactersPerToken - marker.length);
    // The page's elements give way; what follows them (the step count, the last results) stays.
    const pageEnd = text.lastIndexOf('\n</untrusted_content>');
    const tail = pageEnd === -1 ? '' : text.slice(pageEnd);
    const content = tail && tail.length < keep ? text.slice(0, keep - tail.length) + marker + tail : text.slice(0, keep) + marker;
    this.history[index] = this.entry({ role: 'user', content }, 'state');
  }

  private entry(message: ChatMessage, kind: MessageKind): ManagedMessage {
    return { message, kind, tokens: this.estimateTokens(message) };
  }

  private push(message: ChatMessage, kind: MessageKind): void {
    this.history.push(this.entry(message, kind));
  }
}
