import { mkdtempSync, readFileSync, appendFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CollectionCheckpoint } from '../collect/store';
import { emptyUsage } from '../llm/usage';
import { fileCollectionStore } from './collect-store';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'plannav-collect-'));
  dirs.push(dir);
  return join(dir, 'run');
}

function checkpoint(finished: string[]): CollectionCheckpoint {
  return {
    version: 1,
    queue: [],
    seenUrls: finished,
    seenKeys: [],
    finished,
    batches: {},
    counters: { pagesDone: finished.length, pagesFailed: 0, pagesEmpty: 0, records: 0, duplicates: 0, invalid: 0, pagesAbandoned: 0 },
    pagesStarted: finished.length,
    instruction: 'x',
    checks: [],
    usage: emptyUsage,
  };
}

const record = (id: number) => ({ data: { id }, source: 'https://a.test/', collectedAt: '2025-01-01T00:00:00.000Z', key: String(id) });

describe('fileCollectionStore', () => {
  it('writes records as JSON Lines and gives the checkpoint back to a new store on the same folder', async () => {
    const dir = folder();
    const store = fileCollectionStore(dir);
    expect(await store.load()).toBeUndefined();
    await store.commit({
      records: [record(1), record(2)],
      page: { url: 'https://a.test/1', batch: 'b', status: 'done', records: 2 },
      checkpoint: checkpoint(['https://a.test/1']),
    });
    await store.commit({
      records: [record(3)],
      page: { url: 'https://a.test/2', batch: 'b', status: 'done', records: 1 },
      checkpoint: checkpoint(['https://a.test/1', 'https://a.test/2']),
    });
    const lines = readFileSync(join(dir, 'records.jsonl'), 'utf8').trim().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { key: string }).key)).toEqual(['1', '2', '3']);
    const again = fileCollectionStore(dir);
    expect((await again.load())?.finished).toEqual(['https://a.test/1', 'https://a.test/2']);
    const read: unknown[] = [];
    for await (const item of again.records()) read.push(item);
    expect(read).toEqual([record(1), record(2), record(3)]);
  });

  it('cuts off the lines of a commit whose checkpoint never landed (a kill mid-commit)', async () => {
    const dir = folder();
    const store = fileCollectionStore(dir);
    await store.load();
    await store.commit({
      records: [record(1)],
      page: { url: 'https://a.test/1', batch: 'b', status: 'done', records: 1 },
      checkpoint: checkpoint(['https://a.test/1']),
    });
    // A second commit that wrote its record, then died before the checkpoint.
    appendFileSync(join(dir, 'records.jsonl'), `${JSON.stringify(record(2))}\n`);
    const resumed = fileCollectionStore(dir);
    expect((await resumed.load())?.finished).toEqual(['https://a.test/1']);
    expect(readFileSync(join(dir, 'records.jsonl'), 'utf8').trim().split('\n')).toHaveLength(1);
    await resumed.commit({ records: [record(2)], checkpoint: checkpoint(['https://a.test/1', 'https://a.test/2']) });
    const read: unknown[] = [];
    for await (const item of resumed.records()) read.push(item);
    expect(read).toEqual([record(1), record(2)]);
  });
});
