// The typed events a collection emits, as one map from event name to payload, in the Executor's
// style: structured payloads with a common base, `noun-verb` names, no bare 'error' event.

import type { ErrorInfo } from '../events';
import type { TokenUsage } from '../llm/usage';
import type { CollectedRecord, CollectionCheckRecord, CollectionCounters, RejectedRecord } from './store';

/**
 * How a collection ended: `done` (nothing left to read), `max-pages`, `max-records`, `stopped` by
 * a progress check, `cancelled`, `timed-out`, or `failed` (an error no page can route around: a
 * rejected model key, a store that cannot write).
 * @public
 */
export type CollectionEndReason = 'done' | 'max-pages' | 'max-records' | 'stopped' | 'cancelled' | 'timed-out' | 'failed';

/** Fields every collection event carries. @public */
export interface CollectorEventBase {
  /** The id of the run. */
  readonly collectionId: string;
  /** Milliseconds since the epoch. */
  readonly timestamp: number;
}

/**
 * The final summary of a run.
 * @public
 */
export interface CollectionSummary extends CollectionCounters {
  /** Why it ended. */
  readonly reason: CollectionEndReason;
  /** With `stopped`: the check's reason; with `failed`, `cancelled` or `timed-out`: what happened. */
  readonly message: string | undefined;
  /** The error that ended it, with `failed`, `cancelled` or `timed-out`. */
  readonly error: ErrorInfo | undefined;
  /** Failures of pages in all (`pagesFailed`), and batches given up after `maxFailures` in a row. */
  readonly batchesAbandoned: number;
  /** Pages still queued when it ended (a resumed run reads them). */
  readonly pagesQueued: number;
  /** Tokens of every model call (and `costUsd` with `prices`), resumed runs included. */
  readonly usage: TokenUsage;
  /** How long this run took, in milliseconds. */
  readonly durationMs: number;
}

/**
 * Every collection event by name.
 * @public
 */
export interface CollectorEventMap<TRecord = unknown> {
  /** The run starts (or resumes: `resumed` is true and `queued` holds what is left). */
  'collect-start': CollectorEventBase & { readonly queued: number; readonly resumed: boolean };
  /** A page starts loading. */
  'collect-page-start': CollectorEventBase & {
    readonly url: string;
    readonly batch: string;
    /** 1 for the first attempt, more for a retry. */
    readonly attempt?: number | undefined;
  };
  /** An attempt of a page failed for a reason that may pass: it is tried again after `delayMs`. */
  'collect-retry': CollectorEventBase & {
    readonly url: string;
    readonly batch: string;
    /** The attempt that failed. */
    readonly attempt: number;
    readonly delayMs: number;
    readonly error: ErrorInfo;
  };
  /** A page was read to the end. */
  'collect-page': CollectorEventBase & {
    readonly url: string;
    readonly batch: string;
    /** Records kept from it. */
    readonly records: number;
    readonly duplicates: number;
    readonly invalid: number;
    /** Pages it added to the queue. */
    readonly enqueued: number;
    /** "Load more" clicks and scrolls made. */
    readonly loadMore: number;
    /** The short Navigator task that got it ready, when one ran: what it was for. */
    readonly interaction: string | undefined;
    readonly durationMs: number;
    /** Attempts it took. */
    readonly attempts?: number | undefined;
    /** Model surveys of the page: 0 when what was learnt of its template held. */
    readonly surveys?: number | undefined;
  };
  /** A record was kept (after validation and de-duplication). */
  'collect-record': CollectorEventBase & { readonly record: CollectedRecord<TRecord> };
  /** A record failed its schema (after its own page, with `details`): kept in the rejects with the reason. */
  'collect-reject': CollectorEventBase & { readonly reject: RejectedRecord };
  /** A page failed; with `abandoned`, its batch was given up and `dropped` queued pages with it. */
  'collect-failure': CollectorEventBase & {
    readonly url: string;
    readonly batch: string;
    readonly error: ErrorInfo;
    /** Failures in a row in this batch, this one included. */
    readonly consecutiveFailures: number;
    readonly abandoned: boolean;
    readonly dropped: number;
    /** Attempts made. */
    readonly attempts?: number | undefined;
  };
  /** A progress check decided. */
  'collect-check': CollectorEventBase & CollectionCheckRecord;
  /** A model call ended (any role), with its usage. */
  'collect-model-call': CollectorEventBase & {
    readonly role: 'planner' | 'navigator' | 'extraction';
    readonly provider: string;
    readonly model: string;
    readonly usage: TokenUsage;
    readonly durationMs: number;
    readonly error: ErrorInfo | undefined;
  };
  /** Something worth knowing that changes nothing (a link the policy denied, a listener that threw). */
  'collect-warning': CollectorEventBase & { readonly code: string; readonly message: string };
  'collect-pause': CollectorEventBase;
  'collect-resume': CollectorEventBase;
  'collect-cancel': CollectorEventBase & { readonly reason: string };
  /** The run ended. */
  'collect-end': CollectorEventBase & { readonly summary: CollectionSummary };
}

/** A collection event's name. @public */
export type CollectorEventName = keyof CollectorEventMap;

/** A listener of one collection event. @public */
export type CollectorListener<K extends CollectorEventName, TRecord = unknown> = (event: CollectorEventMap<TRecord>[K]) => void | Promise<void>;
