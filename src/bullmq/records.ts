// Reading a BullMQ collection's records from Redis, by anyone (a coordinator running or not): the
// stream its commits appended to, in commit order. It writes nothing and starts no run.

import { Redis, type RedisOptions } from 'ioredis';
import type { CollectedRecord, RejectedRecord } from '../collect/store';
import { ConfigError, PlannavError } from '../errors';
import { checkName, keysOf, type RedisConnection } from './protocol';

/**
 * Options of {@link readCollectionRecords}.
 * @public
 */
export interface ReadCollectionRecordsOptions {
  /**
   * Where Redis is: the coordinator's connection.
   * @example `'redis://10.0.0.5:6379'`
   */
  readonly connection: RedisConnection;
  /** The collection's name, as given to its coordinator. */
  readonly name: string;
  /** Records fetched per round trip to Redis. @defaultValue 500 */
  readonly batchSize?: number | undefined;
  /** Stops the reading: the iteration throws the signal's reason. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Reads every record a BullMQ collection committed, in commit order, from Redis: what its
 * coordinators kept (each record once, de-duplicated by key), whether a coordinator runs now or not.
 * The iteration ends at the last record committed when it gets there; records committed later are
 * read by a later call. Throws a `CONFIG_ERROR` when Redis holds no collection of that name (never
 * run, or its state was lost), and the connection's error when Redis cannot be reached.
 * @example
 * ```ts
 * for await (const { data, source } of readCollectionRecords<Job>({ connection: 'redis://10.0.0.5:6379', name: 'jobs' }))
 *   console.log(data.title, source);
 * ```
 * @public
 */
export async function* readCollectionRecords<TRecord = unknown>(
  options: ReadCollectionRecordsOptions,
): AsyncGenerator<CollectedRecord<TRecord>, void, undefined> {
  yield* readStream<CollectedRecord<TRecord>>(options, 'records', 'record');
}

/**
 * Reads every record a BullMQ collection rejected, in commit order, from Redis: those the schema
 * rejected (with `details`, after their own page was read, or could not be), each with the reason,
 * the page it was listed on and its own page. Otherwise like {@link readCollectionRecords}: the same
 * options, the same errors, the end at the last reject committed when it gets there.
 * @example
 * ```ts
 * for await (const { data, reason } of readCollectionRejects({ connection: 'redis://10.0.0.5:6379', name: 'jobs' }))
 *   console.log(reason, data);
 * ```
 * @public
 */
export async function* readCollectionRejects(options: ReadCollectionRecordsOptions): AsyncGenerator<RejectedRecord, void, undefined> {
  yield* readStream<RejectedRecord>(options, 'rejects', 'reject');
}

/** Reads one of a collection's streams (its records, its rejects) in order: the JSON of `field` of each entry. */
async function* readStream<T>(options: ReadCollectionRecordsOptions, stream: 'records' | 'rejects', field: string): AsyncGenerator<T, void, undefined> {
  const name = checkName(options.name);
  const batchSize = options.batchSize ?? 500;
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new ConfigError(`Option \`batchSize\` must be a positive integer, got ${String(batchSize)}.`, { field: 'batchSize' });
  const keys = keysOf(name);
  // A reader fails rather than waits while Redis is away: a few tries per command, then the error.
  const settings: RedisOptions = { maxRetriesPerRequest: 2, lazyConnect: true };
  const { connection } = options;
  const redis = typeof connection === 'string' ? new Redis(connection, settings) : new Redis({ ...settings, ...connection });
  // ioredis prints the errors of a connection nobody listens to; here they reach the caller as the command's rejection.
  redis.on('error', () => undefined);
  try {
    options.signal?.throwIfAborted();
    if ((await redis.hexists(keys.run, 'collectionId')) === 0)
      throw new PlannavError(
        'CONFIG_ERROR',
        `Redis holds no collection named "${name}": no coordinator of that name ran on this Redis, or Redis lost its state (a restart without persistence, a flush).`,
        { retryable: false },
      );
    let start = '-';
    for (;;) {
      options.signal?.throwIfAborted();
      const entries = await redis.xrange(keys[stream], start, '+', 'COUNT', batchSize);
      for (const [, fields] of entries) {
        const json = fields[fields.indexOf(field) + 1];
        if (json !== undefined) yield JSON.parse(json) as T;
      }
      const last = entries.at(-1);
      if (!last || entries.length < batchSize) return;
      start = `(${last[0]}`;
    }
  } finally {
    redis.disconnect();
  }
}
