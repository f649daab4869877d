import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ActionCacheEntry } from '../cache/cache-entry';
import { ConfigError } from '../errors';
import { fileActionCacheStore } from './action-cache-store';

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'plannav-cache-store-'));
  folders.push(dir);
  return join(dir, 'store');
}

const key = 'a'.repeat(64);
const entry: ActionCacheEntry = {
  version: 1,
  kind: 'extract',
  instruction: 'the total',
  url: 'https://shop.example/cart',
  pageHash: 'p',
  signature: 's',
  createdAt: 1,
  updatedAt: 2,
  data: { total: 12 },
};

describe('fileActionCacheStore', () => {
  it('writes one JSON file per entry (mode 0600), reads it back and deletes it; no temporary file stays', async () => {
    const dir = await folder();
    const store = fileActionCacheStore(dir);
    expect(store.dir).toBe(dir);
    expect(await store.get(key)).toBeUndefined(); // no folder yet
    await store.set(key, entry);
    expect(await readdir(dir)).toEqual([`${key}.json`]);
    expect(JSON.parse(await readFile(join(dir, `${key}.json`), 'utf8'))).toEqual(entry);
    if (process.platform !== 'win32') expect((await stat(join(dir, `${key}.json`))).mode & 0o777).toBe(0o600);
    expect(await store.get(key)).toEqual(entry);

    // Another store over the same folder (another process) sees it, and a replacement whole.
    const other = fileActionCacheStore(dir);
    await other.set(key, { ...entry, data: { total: 13 } });
    expect(await store.get(key)).toEqual({ ...entry, data: { total: 13 } });
    await store.delete(key);
    await store.delete(key); // idempotent
    expect(await other.get(key)).toBeUndefined();
    expect(await readdir(dir)).toEqual([]);
  });

  it('reads a file that is not JSON as no entry', async () => {
    const dir = await folder();
    const store = fileActionCacheStore(dir);
    await store.set(key, entry);
    await writeFile(join(dir, `${key}.json`), '{ cut sho');
    expect(await store.get(key)).toBeUndefined();
  });

  it('refuses a key that could name a path outside its folder, and a missing folder', async () => {
    const store = fileActionCacheStore(await folder());
    for (const bad of ['../../etc/passwd', 'ABC', 'short', `${key}/x`]) {
      await expect(store.get(bad)).rejects.toThrow(ConfigError);
      await expect(store.set(bad, entry)).rejects.toThrow(/is not a cache key/);
    }
    expect(() => fileActionCacheStore('')).toThrow('fileActionCacheStore() needs a folder path.');
  });
});
