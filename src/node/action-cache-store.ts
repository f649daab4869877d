// An ActionCacheStore on disk: one JSON file per entry, written aside and renamed over, so readers
// and other processes see the old entry or the new one, never half of one, and need no lock.

import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ActionCacheEntry, ActionCacheStore } from '../cache/cache-entry';
import { ConfigError } from '../errors';

/** A key as the cache makes them (hex digests); anything else could name a path outside the folder. */
const keyPattern = /^[a-z0-9]{16,128}$/;

function checkKey(key: string): void {
  if (typeof key !== 'string' || !keyPattern.test(key)) {
    throw new ConfigError(`fileActionCacheStore: the key ${JSON.stringify(key).slice(0, 80)} is not a cache key (16 to 128 lower-case letters and digits).`, {
      field: 'key',
    });
  }
}

/**
 * An action cache store in `dir`: one file per entry, `<key>.json`, created with the folder when
 * the first entry is written. Each write goes to a temporary file in the same folder and is renamed
 * over the entry, which is atomic: several processes may share the folder without a lock (the last
 * write of an entry wins), and a crash never leaves half an entry. An entry file that cannot be read
 * or parsed counts as absent. Files are written with mode 0600. Entries hold placeholders for
 * secrets, never their values.
 * @example
 * ```ts
 * import { ActionCache, act } from 'plannav';
 * import { fileActionCacheStore } from 'plannav/node';
 *
 * const cache = new ActionCache({ store: fileActionCacheStore('.plannav/action-cache') });
 * await act(browser, { instruction: 'accept the cookies' }, { llm, cache });
 * ```
 * @throws `ConfigError` when `dir` is not a non-empty string.
 * @public
 */
export function fileActionCacheStore(dir: string): ActionCacheStore & {
  /** The folder of the entry files. */
  readonly dir: string;
} {
  if (typeof dir !== 'string' || dir.trim() === '') throw new ConfigError('fileActionCacheStore() needs a folder path.', { field: 'dir' });
  const pathOf = (key: string): string => {
    checkKey(key);
    return join(dir, `${key}.json`);
  };
  return {
    dir,
    async get(key: string): Promise<ActionCacheEntry | undefined> {
      let text: string;
      try {
        text = await readFile(pathOf(key), 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
      try {
        return JSON.parse(text) as ActionCacheEntry;
      } catch {
        // A file edited by hand or cut short by a full disk: no entry, the model resolves it again.
        return undefined;
      }
    },
    async set(key: string, entry: ActionCacheEntry): Promise<void> {
      const path = pathOf(key);
      await mkdir(dir, { recursive: true });
      const temporary = join(dir, `.${key}.${randomUUID()}.tmp`);
      try {
        await writeFile(temporary, `${JSON.stringify(entry, null, 2)}\n`, { mode: 0o600 });
        await rename(temporary, path);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
    },
    async delete(key: string): Promise<void> {
      await rm(pathOf(key), { force: true });
    },
  };
}
