// The listeners of one event source (an Executor, a replay): a listener's exception or rejected
// promise never reaches another listener or the loop; it is handed to `onListenerError`.

import { EventEmitter } from 'eventemitter3';

/** A listener as the untyped emitter stores it; the owners' public methods keep the types. */
export type AnyListener = (event: unknown) => unknown;

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** Named events with guarded listeners. */
export class EventHub {
  private readonly emitter = new EventEmitter<string>();
  /** The wrapper registered for each user listener, so `off` finds it. */
  private readonly guarded = new Map<(event: never) => unknown, AnyListener>();

  /** `onListenerError` hears of each listener that threw or rejected, with the event it was given. */
  constructor(private readonly onListenerError: (error: unknown, event: unknown) => void) {}

  on(name: string, listener: (event: never) => unknown): void {
    this.emitter.on(name, this.guard(listener));
  }

  once(name: string, listener: (event: never) => unknown): void {
    this.emitter.once(name, this.guard(listener));
  }

  off(name: string, listener: (event: never) => unknown): void {
    const wrapper = this.guarded.get(listener);
    if (wrapper) this.emitter.off(name, wrapper);
  }

  /** Adds an internal listener, unguarded (event streams); returns the function that removes it. */
  subscribe(name: string, handler: AnyListener): () => void {
    this.emitter.on(name, handler);
    return () => this.emitter.off(name, handler);
  }

  emit(name: string, event: unknown): void {
    this.emitter.emit(name, event);
  }

  private guard(listener: (event: never) => unknown): AnyListener {
    let wrapper = this.guarded.get(listener);
    if (!wrapper) {
      wrapper = (event) => {
        try {
          const returned = (listener as AnyListener)(event);
          // An async listener's rejection is reported like a throw, never left unhandled.
          if (isThenable(returned)) Promise.resolve(returned).then(undefined, (error: unknown) => this.onListenerError(error, event));
        } catch (error) {
          this.onListenerError(error, event);
        }
      };
      this.guarded.set(listener, wrapper);
    }
    return wrapper;
  }
}
