// What a collection run tells the outside, shared by the Collector and the BullMQ coordinator: its
// typed events (with the common base) and the streams of records and rejects. It decides nothing.

import { describeThrown } from '../util/describe-thrown';
import { EventHub } from '../util/event-hub';
import type { CollectorEventBase, CollectorEventMap, CollectorEventName, CollectorListener } from './events';
import { createPushStream, type PushStream } from './record-stream';
import type { CollectedRecord, RejectedRecord } from './store';

/** A new run's id. */
export function newCollectionId(): string {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  return crypto?.randomUUID?.() ?? `collect-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/** The payload of an event without its base. */
export type EventPayload<K extends CollectorEventName, TRecord> = Omit<CollectorEventMap<TRecord>[K], keyof CollectorEventBase>;

/** The run's events and record streams. */
export class CollectionOutput<TRecord> {
  private readonly hub: EventHub;
  private readonly recordStreams = new Set<PushStream<CollectedRecord<TRecord>>>();
  private readonly rejectStreams = new Set<PushStream<RejectedRecord>>();

  /**
   * @param collectionId - the run's id (a resumed BullMQ run takes up its earlier id)
   * @param options.redactDeep - applied to each event as a whole (the Collector's secrets)
   * @param options.warnListenerErrors - a listener that throws becomes a `LISTENER_ERROR` warning; else it is ignored
   */
  constructor(
    public collectionId: string,
    private readonly options: { readonly redactDeep?: (<T>(value: T) => T) | undefined; readonly warnListenerErrors: boolean },
  ) {
    this.hub = new EventHub((error, event) => {
      if (!options.warnListenerErrors || (event as { code?: unknown }).code === 'LISTENER_ERROR') return;
      this.emit('collect-warning', { code: 'LISTENER_ERROR', message: `A collection event listener threw: ${describeThrown(error)}` });
    });
  }

  on<K extends CollectorEventName>(name: K, listener: CollectorListener<K, TRecord>): void {
    this.hub.on(name, listener);
  }

  once<K extends CollectorEventName>(name: K, listener: CollectorListener<K, TRecord>): void {
    this.hub.once(name, listener);
  }

  off<K extends CollectorEventName>(name: K, listener: CollectorListener<K, TRecord>): void {
    this.hub.off(name, listener);
  }

  emit<K extends CollectorEventName>(name: K, payload: EventPayload<K, TRecord>): void {
    const event = { collectionId: this.collectionId, timestamp: Date.now(), ...payload };
    this.hub.emit(name, this.options.redactDeep ? this.options.redactDeep(event) : event);
  }

  warn(code: string, message: string): void {
    this.emit('collect-warning', { code, message });
  }

  /** A stream of the records kept from now on; an ended one when the run is over. */
  records(ended: boolean): AsyncIterableIterator<CollectedRecord<TRecord>> {
    return this.open(this.recordStreams, ended);
  }

  /** A stream of the records rejected from now on; an ended one when the run is over. */
  rejects(ended: boolean): AsyncIterableIterator<RejectedRecord> {
    return this.open(this.rejectStreams, ended);
  }

  /** Announces the records kept and rejected by one page, and feeds them to the streams. */
  publish(kept: readonly CollectedRecord<TRecord>[], rejects: readonly RejectedRecord[]): void {
    for (const record of kept) {
      this.emit('collect-record', { record });
      for (const stream of this.recordStreams) stream.push(record);
    }
    for (const reject of rejects) {
      this.emit('collect-reject', { reject });
      for (const stream of this.rejectStreams) stream.push(reject);
    }
  }

  /** Ends every stream (the run is over). */
  end(): void {
    for (const stream of [...this.recordStreams]) stream.end();
    for (const stream of [...this.rejectStreams]) stream.end();
  }

  private open<T>(streams: Set<PushStream<T>>, ended: boolean): AsyncIterableIterator<T> {
    const stream = createPushStream<T>(() => streams.delete(stream));
    if (ended) stream.end();
    else streams.add(stream);
    return stream.iterator;
  }
}
