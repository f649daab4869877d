// readCollectionRecords against a real redis-server: a collection's records as its commits left
// them (staged here as the commit script writes them), in order, across several round trips.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../test/helpers/redis-server';
import type { CollectedRecord } from '../collect/store';
import { keysOf } from './protocol';
import { readCollectionRecords } from './records';

let redis: RedisServer;

beforeAll(async () => {
  redis = await startRedis();
}, 20_000);

afterAll(async () => {
  await redis?.stop();
});

/** A collection's run key and `count` records, as a coordinator leaves them. */
async function stage(name: string, count: number): Promise<void> {
  const client = new Redis(redis.url);
  try {
    const keys = keysOf(name);
    await client.hset(keys.run, 'collectionId', 'staged');
    const pipeline = client.pipeline();
    for (let id = 1; id <= count; id++) {
      const record: CollectedRecord<{ id: number }> = { data: { id }, source: 'https://site.test/', collectedAt: new Date(0).toISOString(), key: String(id) };
      pipeline.xadd(keys.records, '*', 'record', JSON.stringify(record));
    }
    await pipeline.exec();
  } finally {
    client.disconnect();
  }
}

async function readAll(name: string, batchSize?: number): Promise<number[]> {
  const ids: number[] = [];
  for await (const record of readCollectionRecords<{ id: number }>({ connection: redis.url, name, batchSize })) ids.push(record.data.id);
  return ids;
}

describe('readCollectionRecords', () => {
  it('yields every committed record once, in commit order, over several round trips', async () => {
    await stage('reader-many', 1203);
    const ids = await readAll('reader-many', 100);
    expect(ids).toEqual(Array.from({ length: 1203 }, (_, index) => index + 1));
  });

  it('a batch size that divides the count exactly, and a collection with no record yet', async () => {
    await stage('reader-exact', 10);
    expect(await readAll('reader-exact', 5)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    await stage('reader-empty', 0);
    expect(await readAll('reader-empty')).toEqual([]);
  });

  it('a name Redis holds no collection of: a CONFIG_ERROR that says why', async () => {
    await expect(readAll('never-ran')).rejects.toMatchObject({ code: 'CONFIG_ERROR', message: expect.stringMatching(/holds no collection named "never-ran"/) });
  });

  it('a signal aborted: the iteration throws its reason', async () => {
    await stage('reader-abort', 3);
    const controller = new AbortController();
    controller.abort(new Error('enough'));
    const reading = (async () => {
      const read: unknown[] = [];
      for await (const record of readCollectionRecords({ connection: redis.url, name: 'reader-abort', signal: controller.signal })) read.push(record);
    })();
    await expect(reading).rejects.toThrow('enough');
  });
});
