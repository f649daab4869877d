// One typed event hub for every producer (the Executor, the replay, the Collector): generic over
// the producer's own event map, so each emits only its own events with their payloads. The
// listeners are guarded: one that throws or rejects reaches no other listener and not the
// producer, but `onListenerError`.

import { EventHub } from '../util/event-hub';

/** An event map: event name -> payload (an interface such as `ExecutorEventMap`). */
export type EventMap<M> = { readonly [K in keyof M]: object };

/** The names of `M`'s events. */
export type EventName<M> = keyof M & string;

/** A listener of event `K` of `M`; it may be async (its rejection is reported, never left unhandled). */
export type EventListener<M, K extends EventName<M>> = (event: M[K]) => unknown;

/** Named, typed events with guarded listeners. */
export class TypedEventHub<M extends EventMap<M>> {
  private readonly hub: EventHub;

  /** `onListenerError` hears of each listener that threw or rejected, with the event it was given. */
  constructor(onListenerError: (error: unknown, event: M[EventName<M>]) => void) {
    this.hub = new EventHub((error, event) => onListenerError(error, event as M[EventName<M>]));
  }

  on<K extends EventName<M>>(name: K, listener: EventListener<M, K>): void {
    this.hub.on(name, listener);
  }

  once<K extends EventName<M>>(name: K, listener: EventListener<M, K>): void {
    this.hub.once(name, listener);
  }

  off<K extends EventName<M>>(name: K, listener: EventListener<M, K>): void {
    this.hub.off(name, listener);
  }

  /** Adds an internal listener, unguarded (event streams, the producer's own reactions); returns the function that removes it. */
  subscribe<K extends EventName<M>>(name: K, handler: (event: M[K]) => void): () => void {
    return this.hub.subscribe(name, handler as (event: unknown) => unknown);
  }

  emit<K extends EventName<M>>(name: K, event: M[K]): void {
    this.hub.emit(name, event);
  }
}
