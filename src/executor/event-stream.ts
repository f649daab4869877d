// An async iterator over an Executor's events, for streaming to a UI: it buffers what the
// consumer has not read yet and ends when its subscriber ends it, on abort, or when the loop breaks.

import type { ExecutorEvent } from '../events';

/**
 * Where the stream subscribes: `listener` takes each event, `end` ends the stream after the
 * events delivered so far (they are still read). Returns the unsubscribe function.
 */
export type EventSubscriber = (listener: (event: ExecutorEvent) => void, end: () => void) => () => void;

/** Creates the iterator. */
export function createEventStream(subscribe: EventSubscriber, signal?: AbortSignal): AsyncIterableIterator<ExecutorEvent> {
  const buffer: ExecutorEvent[] = [];
  const waiters: (() => void)[] = [];
  let ended = false;
  const wakeAll = (): void => {
    for (const wake of waiters.splice(0)) wake();
  };
  let unsubscribe: (() => void) | undefined;
  const end = (): void => {
    if (ended) return;
    ended = true;
    unsubscribe?.();
    signal?.removeEventListener('abort', end);
    wakeAll();
  };
  const listener = (event: ExecutorEvent): void => {
    if (ended) return;
    buffer.push(event);
    wakeAll();
  };
  unsubscribe = subscribe(listener, end);
  // The subscriber may have ended the stream before it returned its unsubscribe function.
  if (ended) unsubscribe();
  if (signal?.aborted) end();
  else signal?.addEventListener('abort', end, { once: true });

  const iterator: AsyncIterableIterator<ExecutorEvent> = {
    async next(): Promise<IteratorResult<ExecutorEvent>> {
      while (buffer.length === 0 && !ended) await new Promise<void>((resolve) => waiters.push(resolve));
      const event = buffer.shift();
      return event ? { value: event, done: false } : { value: undefined, done: true };
    },
    async return(): Promise<IteratorResult<ExecutorEvent>> {
      end();
      buffer.length = 0;
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
