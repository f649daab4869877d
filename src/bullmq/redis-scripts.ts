// The two Lua scripts of a BullMQ collection's coordinator, and their calls: one page's result
// committed all or nothing, and one queued page of an abandoned batch given up once.

import type { Redis } from 'ioredis';
import type { CollectedRecord, QueuedPage, RejectedRecord } from '../collect/store';
import { pageJobId, type CommittedOutcome, type keysOf } from './protocol';

/**
 * Commits one page's result, all or nothing: nothing if the page (its job id) was committed before;
 * else each record whose key is new (SET NX) is appended to the records stream, each reject to the
 * rejects stream, each record's own page not enqueued before to the enqueued hash (one enqueued before
 * is a duplicate: the record was listed twice), and the page outcome to the pages stream, with its
 * records and duplicates counted here. KEYS: committed set, records stream, pages stream, rejects
 * stream, enqueued hash, then one key per record. ARGV: job id, outcome JSON (without `records` and
 * `duplicates`), most records to keep (-1: no limit), most own pages to enqueue (-1: no limit), the
 * numbers of records, rejects and own pages, then each record's JSON, each reject's JSON, and each
 * own page's job id and queued page JSON.
 * Returns the duplicates, 1 if the own-page limit left some out (else 0), the number of records kept,
 * their 0-based indices, then the 0-based indices of the own pages enqueued; or -1 for a page
 * committed before. Past `maxRecords` the page's other records are neither kept nor duplicates, as in the Collector.
 */
const commitScript = `
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return -1 end
local limit = tonumber(ARGV[3])
local pageLimit = tonumber(ARGV[4])
local recordCount = tonumber(ARGV[5])
local rejectCount = tonumber(ARGV[6])
local pageCount = tonumber(ARGV[7])
local kept = {}
local duplicates = 0
for i = 1, recordCount do
  if limit >= 0 and #kept >= limit then break end
  if redis.call('SET', KEYS[5 + i], ARGV[1], 'NX') then
    redis.call('XADD', KEYS[2], '*', 'record', ARGV[7 + i])
    kept[#kept + 1] = i - 1
  else
    duplicates = duplicates + 1
  end
end
for i = 1, rejectCount do
  redis.call('XADD', KEYS[4], '*', 'reject', ARGV[7 + recordCount + i])
end
local queued = {}
local skipped = 0
local base = 7 + recordCount + rejectCount
for i = 1, pageCount do
  local id = ARGV[base + 2 * i - 1]
  if redis.call('HEXISTS', KEYS[5], id) == 1 then
    duplicates = duplicates + 1
  elseif pageLimit >= 0 and #queued >= pageLimit then
    skipped = 1
  else
    redis.call('HSET', KEYS[5], id, ARGV[base + 2 * i])
    queued[#queued + 1] = i - 1
  end
end
local outcome = cjson.decode(ARGV[2])
outcome['records'] = #kept
outcome['duplicates'] = duplicates
redis.call('XADD', KEYS[3], '*', 'page', cjson.encode(outcome), 'job', ARGV[1])
local reply = {duplicates, skipped, #kept}
for _, index in ipairs(kept) do reply[#reply + 1] = index end
for _, index in ipairs(queued) do reply[#reply + 1] = index end
return reply
`;

/**
 * Gives up one queued page of an abandoned batch, once. KEYS: dropped set, pages stream. ARGV: job
 * id, the `abandoned` outcome JSON. Returns 1, or 0 for a page given up before.
 */
const abandonScript = `
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('XADD', KEYS[2], '*', 'page', ARGV[2], 'job', ARGV[1])
return 1
`;

/** What one commit wrote: nothing for a page committed before (`fresh` false). */
export interface CommitReply<TRecord> {
  readonly fresh: boolean;
  readonly duplicates: number;
  /** Whether the own-page limit (`maxPages`) left some own pages out. */
  readonly skipped: boolean;
  readonly kept: CollectedRecord<TRecord>[];
  /** The records' own pages the commit enqueued. */
  readonly queuedOwn: QueuedPage[];
}

/** Runs {@link commitScript} for one page; `recordLimit` and `pageLimit` are -1 for no limit. */
export async function commitPageResult<TRecord>(
  redis: Redis,
  keys: ReturnType<typeof keysOf>,
  page: {
    readonly jobId: string;
    readonly outcome: Omit<CommittedOutcome, 'records' | 'duplicates'>;
    readonly candidates: readonly CollectedRecord<TRecord>[];
    readonly rejects: readonly RejectedRecord[];
    readonly ownPages: readonly QueuedPage[];
    readonly recordLimit: number;
    readonly pageLimit: number;
  },
): Promise<CommitReply<TRecord>> {
  const { candidates, rejects, ownPages } = page;
  const reply = (await redis.eval(
    commitScript,
    5 + candidates.length,
    keys.committed,
    keys.records,
    keys.pages,
    keys.rejects,
    keys.enqueued,
    ...candidates.map((record) => keys.record(record.key)),
    page.jobId,
    JSON.stringify(page.outcome),
    String(page.recordLimit),
    String(page.pageLimit),
    String(candidates.length),
    String(rejects.length),
    String(ownPages.length),
    ...candidates.map((record) => JSON.stringify(record)),
    ...rejects.map((reject) => JSON.stringify(reject)),
    ...ownPages.flatMap((own) => [pageJobId(own.url), JSON.stringify(own)]),
  )) as number | number[];
  if (reply === -1) return { fresh: false, duplicates: 0, skipped: false, kept: [], queuedOwn: [] };
  const [duplicates = 0, skipped = 0, keptCount = 0, ...indices] = reply as number[];
  return {
    fresh: true,
    duplicates,
    skipped: skipped === 1,
    kept: indices.slice(0, keptCount).map((index) => candidates[index] as CollectedRecord<TRecord>),
    queuedOwn: indices.slice(keptCount).map((index) => ownPages[index] as QueuedPage),
  };
}

/** Runs {@link abandonScript}: gives up a queued page with its `abandoned` outcome; returns whether it was given up now. */
export async function abandonPage(redis: Redis, keys: ReturnType<typeof keysOf>, jobId: string, outcome: CommittedOutcome): Promise<boolean> {
  return (await redis.eval(abandonScript, 2, keys.dropped, keys.pages, jobId, JSON.stringify(outcome))) === 1;
}
