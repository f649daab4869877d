// An async iterator fed by pushes: it buffers what the consumer has not read yet and ends when
// ended (after the buffered items) or when the consumer's loop breaks.

/** The feeding side and the iterator of one stream. */
export interface PushStream<T> {
  push(item: T): void;
  end(): void;
  readonly iterator: AsyncIterableIterator<T>;
}

/** Creates a stream; `onClose` runs once when it ends, whichever side ends it. */
export function createPushStream<T>(onClose: () => void): PushStream<T> {
  const buffer: T[] = [];
  let waiters: (() => void)[] = [];
  let ended = false;
  const wake = (): void => {
    const woken = waiters;
    waiters = [];
    for (const resolve of woken) resolve();
  };
  const end = (): void => {
    if (ended) return;
    ended = true;
    onClose();
    wake();
  };
  const iterator: AsyncIterableIterator<T> = {
    async next(): Promise<IteratorResult<T>> {
      while (buffer.length === 0 && !ended) await new Promise<void>((resolve) => waiters.push(resolve));
      if (buffer.length > 0) return { value: buffer.shift() as T, done: false };
      return { value: undefined, done: true };
    },
    async return(): Promise<IteratorResult<T>> {
      end();
      buffer.length = 0;
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return {
    push: (item) => {
      if (ended) return;
      buffer.push(item);
      wake();
    },
    end,
    iterator,
  };
}
