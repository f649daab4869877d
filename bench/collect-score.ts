// How the collect bench scores a crawl of the collect corpus, the same way for every crawler: records against the
// truth (recall, precision, duplicates) and pages from the corpus server's own log. No browser, no crawler here.
import { z } from 'zod';
import { isPermanent, type SiteModel } from '../test/fixtures/collect-corpus/generate';
import type { CorpusRecord, CorpusTruth, RequestLogEntry } from '../test/fixtures/collect-corpus/index';

/** The schema of one record the Collector is given: every field of the corpus's records. */
export const CorpusRecordSchema = z.object({
  id: z.string(),
  title: z.string(),
  seller: z.string(),
  price: z.string(),
  location: z.string(),
  link: z.string(),
});

const FIELDS = ['id', 'title', 'seller', 'price', 'location', 'link'] as const;

/** A crawl's records against the truth. */
export interface RecordScore {
  /** Records the crawler gave, duplicates included. */
  readonly emitted: number;
  /** Distinct ids among them. */
  readonly distinct: number;
  /** `emitted − distinct`: records given more than once. */
  readonly duplicates: number;
  /** Reachable records given with all six fields equal to the truth (once each, however often given). */
  readonly right: number;
  /** Distinct ids given that are not a reachable record with all fields right (a field wrong or missing, a sponsored card). */
  readonly wrong: number;
  /** `right / reachable`. */
  readonly recall: number;
  /** `right / distinct`. */
  readonly precision: number;
  /** Reachable records not given right, by listing style. */
  readonly missingByStyle: Readonly<Record<string, number>>;
  /**
   * The reachable records whose listing card is complete (listed on a reachable listing page of a style without
   * `truth.detailOnlyFields`), and how many of them were given right: what a crawler that reads no detail page can get.
   */
  readonly cardComplete: { readonly reachable: number; readonly right: number; readonly recall: number };
}

/**
 * The reachable records listed on a reachable listing page of a style whose cards have every field (no
 * `truth.detailOnlyFields`): the same walk over the page graph as the truth's (a page broken for good gives no
 * records and no links), over the site model the corpus was generated from.
 */
export function cardCompleteIds(model: SiteModel, truth: CorpusTruth): ReadonlySet<string> {
  const reachable = new Set(truth.reachable.map((record) => record.id));
  const ids = new Set<string>();
  const seen = new Set<string>();
  const queue = model.startPaths.map((start) => start.path);
  while (queue.length > 0) {
    const key = queue.shift() as string;
    if (seen.has(key)) continue;
    seen.add(key);
    const page = model.pageByKey.get(key);
    if (page === undefined || isPermanent(model.faults.get(key))) continue;
    if (truth.detailOnlyFields[page.style].length === 0) for (const card of page.cards) if (card.kind === 'record' && reachable.has(card.id)) ids.add(card.id);
    queue.push(...page.links.filter((link) => !seen.has(link)));
  }
  return ids;
}

/** Scores `records` (any shape: fields may be missing) against `truth.reachable`. */
export function scoreRecords(
  records: readonly Partial<Record<keyof CorpusRecord, string>>[],
  truth: CorpusTruth,
  /** {@link cardCompleteIds} of the site. */
  complete: ReadonlySet<string>,
): RecordScore {
  const reachable = new Map(truth.reachable.map((record) => [record.id, record]));
  const distinct = new Set(records.map((record) => record.id ?? JSON.stringify(record)));
  const right = new Set<string>();
  for (const record of records) {
    const expected = reachable.get(record.id ?? '');
    if (expected !== undefined && FIELDS.every((field) => expected[field] === record[field])) right.add(expected.id);
  }
  const styleOf = new Map<string, string>();
  for (const page of truth.listingPages) for (const id of page.recordIds) if (!styleOf.has(id)) styleOf.set(id, page.style);
  const missingByStyle: Record<string, number> = {};
  for (const id of reachable.keys()) {
    if (right.has(id)) continue;
    const style = styleOf.get(id) ?? '?';
    missingByStyle[style] = (missingByStyle[style] ?? 0) + 1;
  }
  const completeRight = [...complete].filter((id) => right.has(id)).length;
  return {
    emitted: records.length,
    distinct: distinct.size,
    duplicates: records.length - distinct.size,
    right: right.size,
    wrong: distinct.size - right.size,
    recall: right.size / reachable.size,
    precision: distinct.size === 0 ? 0 : right.size / distinct.size,
    missingByStyle,
    cardComplete: { reachable: complete.size, right: completeRight, recall: complete.size === 0 ? 0 : completeRight / complete.size },
  };
}

/** What the corpus server answered during one crawl. */
export interface ServedPages {
  /** Distinct pages, fragments (a Next button's or a scroll's fetch) and POST pages answered 2xx: listing side. */
  readonly listing: number;
  /** Distinct detail pages (`/item/<id>`) answered 2xx. */
  readonly detail: number;
  /** Every request, failed attempts and repeats included (the thumbnail image left out). */
  readonly requests: number;
}

/** Counts `log` (the corpus server's requests during one crawl) by the server's own fault keys. */
export function servedPages(log: readonly RequestLogEntry[]): ServedPages {
  const listing = new Set<string>();
  const detail = new Set<string>();
  let requests = 0;
  for (const entry of log) {
    if (entry.path.startsWith('/static/') || entry.path === '/favicon.ico') continue;
    requests++;
    if (entry.status < 200 || entry.status >= 300) continue;
    (entry.path.startsWith('/item/') ? detail : listing).add(entry.key);
  }
  return { listing: listing.size, detail: detail.size, requests };
}
