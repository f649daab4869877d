// The wait for a person's answer to `ask_human`: through the host's handler, or through the
// `human-question` event and `executor.respond()`. Bounded by a timeout and ended by cancel.

import type { HumanAnswer } from '../actions/types';
import { raceAbort } from '../util/abort';
import type { HumanInputHandler } from './options';

interface Pending {
  readonly questionId: string;
  readonly resolve: (answer: string | undefined) => void;
}

/** Routes the agent's questions to a person and their answers back. */
export class HumanInputBroker {
  private readonly pending: Pending[] = [];
  private counter = 0;

  constructor(
    private readonly handler: HumanInputHandler | undefined,
    private readonly timeoutMs: number,
  ) {}

  /** A fresh question id. */
  nextQuestionId(): string {
    return `question-${++this.counter}`;
  }

  /**
   * Waits for the answer to a question: from the handler when there is one, else from
   * `respond()`. Resolves `timedOut` when the wait runs out; rejects when `signal` aborts.
   */
  async ask(question: { questionId: string; question: string; taskId: string; step: number }, signal: AbortSignal): Promise<HumanAnswer> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.timeoutMs);
    const onCancel = (): void => timeout.abort();
    signal.addEventListener('abort', onCancel, { once: true });
    let entry: Pending | undefined;
    try {
      const answered = this.handler
        ? this.handler(question, { signal: timeout.signal, timeout: this.timeoutMs })
        : new Promise<string | undefined>((resolve) => {
            entry = { questionId: question.questionId, resolve };
            this.pending.push(entry);
          });
      const timedOut = new Promise<'timeout'>((resolve) => timeout.signal.addEventListener('abort', () => resolve('timeout'), { once: true }));
      const outcome = await raceAbort(Promise.race([answered, timedOut]), signal);
      if (outcome === 'timeout') return { answer: undefined, timedOut: true };
      return { answer: outcome, timedOut: false };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onCancel);
      if (entry) this.pending.splice(this.pending.indexOf(entry), 1);
    }
  }

  /** Answers a waiting question (the oldest one unless `questionId` is given). Returns whether one was waiting. */
  respond(answer: string, questionId?: string): boolean {
    const entry = questionId === undefined ? this.pending[0] : this.pending.find((item) => item.questionId === questionId);
    if (!entry) return false;
    this.pending.splice(this.pending.indexOf(entry), 1);
    entry.resolve(answer);
    return true;
  }
}
