// An async iterator over an Executor's events, for streaming to a UI: it buffers what the
// consumer has not read yet and ends after the task ends, on abort, or when the loop breaks.

import type { ExecutorEvent } from '../events';

/** Where the stream subscribes; returns the unsubscribe function. */
export type EventSubscriber = (listener: (event: ExecutorEvent) => void) => () => void;

/** Creates the iterator. */
export function createEventStream(subscribe: EventSubscriber, signal?: AbortSignal): AsyncIterableIterator<ExecutorEvent> {
  const buffer: ExecutorEvent[] = [];
  const waiters: (() => void)[] = [];
  let ended = false;
  const wakeAll = (): void => {
    for (const wake of waiters.splice(0)) wake();
  };
  const end = (): void => {
    if (ended) return;
    ended = true;
    unsubscribe();
    signal?.removeEventListener('abort', end);
    wakeAll();
  };
  const unsubscribe = subscribe((event) => {
    if (ended) return;
    buffer.push(event);
    // The task-end event is still delivered: `next()` drains the buffer before it reports done.
    if (event.type === 'task-end') end();
    else wakeAll();
  });
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
