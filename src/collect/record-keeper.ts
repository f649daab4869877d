// The Collector's de-duplication of records by key, and the redaction of what it keeps and rejects:
// no secret value reaches the store, a listener or the progress check.

import type { SecretStore } from '../security/secrets';
import type { CollectionEngine } from './collection-engine';
import type { CollectedRecord, PageOutcome, RejectedRecord } from './store';

export /** What a page read to the end gave, for its commit and its event. */
interface FinishedPage<TRecord> {
  readonly kept: readonly CollectedRecord<TRecord>[];
  readonly duplicates: number;
  /** Records' own pages found again from another listing: records listed twice. */
  readonly listedTwice: number;
  readonly rejects: readonly RejectedRecord[];
  readonly abandoned: readonly PageOutcome[];
  readonly attempts: number;
  readonly durationMs: number;
  readonly enqueued: number;
  readonly loadMore: number;
  readonly interaction: string | undefined;
  readonly surveys: number;
}

/** The keys of every record kept, and the records as they are kept or rejected. */
export class RecordKeeper<TRecord> {
  /** The keys of every record kept (a resumed run starts from the checkpoint's). */
  readonly seenKeys = new Set<string>();

  constructor(
    private readonly keyOf: (record: TRecord) => string,
    private readonly secrets: SecretStore,
    private readonly engine: CollectionEngine,
  ) {}

  /** Keeps the records whose key is new, in order, up to `maxRecords`; returns them and how many were duplicates. */
  keep(records: readonly TRecord[], source: string): { kept: CollectedRecord<TRecord>[]; duplicates: number } {
    const kept: CollectedRecord<TRecord>[] = [];
    let duplicates = 0;
    const collectedAt = new Date().toISOString();
    const left = this.engine.recordsLeft();
    for (const raw of records) {
      if (kept.length >= left) break;
      const key = this.key(raw);
      if (this.seenKeys.has(key)) {
        duplicates++;
        continue;
      }
      this.seenKeys.add(key);
      kept.push({ data: this.secrets.redactDeep(raw), source, collectedAt, key });
    }
    for (const record of kept) this.engine.keepSample(record.data);
    return { kept, duplicates };
  }

  /** Whether every one of these records was kept before. */
  allSeen(records: readonly TRecord[]): boolean {
    return records.every((record) => this.seenKeys.has(this.key(record)));
  }

  reject(data: unknown, reason: string, source: string, detail?: string): RejectedRecord {
    return this.secrets.redactDeep({ data, reason, source, detail, rejectedAt: new Date().toISOString() });
  }

  private key(record: TRecord): string {
    return this.secrets.redact(this.keyOf(record));
  }
}
