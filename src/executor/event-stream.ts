// An async iterator over an Executor's events, for streaming to a UI: it buffers what the
// consumer has not read yet and ends after the task ends, on abort, or when the loop breaks.

import type { ExecutorEvent } from '../events';

/** Where the stream subscribes; returns the unsubscribe function. */
export type EventSubscriber = (listener: (event: ExecutorEvent) => void) => () => void;

/** Creates the iterator. */
export function createEventStream(subscribe: EventSubscriber, signal?: AbortSignal): AsyncIterableIterator<ExecutorEvent> {
  const buffer: ExecutorEvent[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  const end = (): void => {
    ended = true;
    unsubscribe();
    signal?.removeEventListener('abort', end);
    wake?.();
  };
  const unsubscribe = subscribe((event) => {
    if (ended) return;
    buffer.push(event);
    if (event.type === 'task-end') {
      ended = true;
      unsubscribe();
    }
    wake?.();
  });
  if (signal?.aborted) end();
  else signal?.addEventListener('abort', end, { once: true });

  const iterator: AsyncIterableIterator<ExecutorEvent> = {
    async next(): Promise<IteratorResult<ExecutorEvent>> {
      while (buffer.length === 0 && !ended) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
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
