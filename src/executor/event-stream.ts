// An async iterator over an Executor's events, for streaming to a UI: it buffers what the
// consumer has not read yet and ends when its subscriber ends it, on abort, or when the loop breaks.
// It only reads events: subscribeToEvents picks a stream's events, the Executor opens and closes it.

import type { ExecutorEvent, ExecutorEventMap, ExecutorEventName } from '../events';

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

/** Where {@link subscribeToEvents} listens: the Executor's event hub. */
export interface EventSource {
  subscribe<K extends ExecutorEventName>(name: K, handler: (event: ExecutorEventMap[K]) => void): () => void;
}

/**
 * Subscribes `listener` to every event of `source`, each tagged with its `type`. With `taskId`
 * (a task-scoped stream), only that task's events: none sent between tasks, and `end` is called
 * after its `task-end`. Returns the function that unsubscribes.
 */
export function subscribeToEvents(source: EventSource, taskId: string | undefined, listener: (event: ExecutorEvent) => void, end: () => void): () => void {
  const taskScoped = taskId !== undefined;
  const names = Object.keys(eventNames) as ExecutorEventName[];
  const handlers = names.map((type) => {
    const handler = (event: ExecutorEventMap[ExecutorEventName]): void => {
      if (taskScoped && (event as { betweenTasks?: boolean }).betweenTasks === true) return;
      listener({ type, ...(event as object) } as ExecutorEvent);
      if (taskScoped && type === 'task-end' && event.taskId === taskId) end();
    };
    return source.subscribe(type, handler);
  });
  return () => handlers.forEach((remove) => remove());
}

/** Every event name, for subscribing to all of them. */
const eventNames: Record<ExecutorEventName, true> = {
  'task-start': true,
  'task-end': true,
  'task-pause': true,
  'task-resume': true,
  'task-cancel': true,
  'step-start': true,
  'step-end': true,
  'plan-end': true,
  'validation-end': true,
  'navigator-output': true,
  'action-start': true,
  'action-end': true,
  'model-call-start': true,
  'model-call-end': true,
  'model-retry': true,
  'model-fallback': true,
  'human-question': true,
  'human-answer': true,
  'url-blocked': true,
  'injection-detected': true,
  'sensitive-action': true,
  warning: true,
  'replay-step': true,
  // Downloads (issue 24).
  download: true,
};
