// A CollectionStore on disk: records and page outcomes as JSON Lines, the checkpoint as one JSON
// file replaced atomically. A commit whose checkpoint never landed is cut off on the next load.

import { mkdir, open, readFile, rename, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CollectedRecord, CollectionCheckpoint, CollectionCommit, CollectionStore } from '../collect/store';
import { ConfigError } from '../errors';

/** The checkpoint file: the run's checkpoint and how far the JSON Lines files are committed. */
interface CheckpointFile {
  readonly storeVersion: 1;
  /** Bytes of `records.jsonl` that belong to committed pages. */
  readonly recordsBytes: number;
  /** Bytes of `pages.jsonl` that belong to committed pages. */
  readonly pagesBytes: number;
  readonly checkpoint: CollectionCheckpoint;
}

/**
 * A collection store in `dir`: `records.jsonl` (one record a line, as the collection yields them),
 * `pages.jsonl` (one finished page a line) and `checkpoint.json`. Give the same folder to a new run
 * to resume: it skips finished pages, and a page whose commit was cut short by a kill is read
 * again without its records being written twice.
 * @example
 * ```ts
 * const collector = new Collector({ ...options, store: fileCollectionStore('./out/jobs') });
 * ```
 * @public
 */
export function fileCollectionStore<TRecord = unknown>(
  dir: string,
): CollectionStore<TRecord> & {
  /** The JSON Lines file of the records. */
  readonly recordsPath: string;
} {
  if (typeof dir !== 'string' || dir.trim() === '') throw new ConfigError('fileCollectionStore() needs a folder path.', { field: 'dir' });
  const recordsPath = join(dir, 'records.jsonl');
  const pagesPath = join(dir, 'pages.jsonl');
  const checkpointPath = join(dir, 'checkpoint.json');
  let committed = { recordsBytes: 0, pagesBytes: 0 };
  let loaded = false;

  const sizeOf = async (path: string): Promise<number> => (await stat(path).catch(() => undefined))?.size ?? 0;

  /** Appends `text` and flushes it to disk before the checkpoint says it is there. */
  const append = async (path: string, text: string): Promise<void> => {
    if (text === '') return;
    const handle = await open(path, 'a');
    try {
      await handle.write(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
  };

  const load = async (): Promise<CollectionCheckpoint | undefined> => {
    await mkdir(dir, { recursive: true });
    let file: CheckpointFile | undefined;
    try {
      file = JSON.parse(await readFile(checkpointPath, 'utf8')) as CheckpointFile;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new ConfigError(`The checkpoint ${checkpointPath} cannot be read: ${(error as Error).message}. Remove the folder to start afresh.`, {
          field: 'store',
          cause: error,
        });
      }
    }
    committed = { recordsBytes: file?.recordsBytes ?? 0, pagesBytes: file?.pagesBytes ?? 0 };
    // Lines past the checkpoint come from a commit that was cut short: its page is read again.
    for (const [path, bytes] of [
      [recordsPath, committed.recordsBytes],
      [pagesPath, committed.pagesBytes],
    ] as const) {
      if ((await sizeOf(path)) > bytes) await truncate(path, bytes);
    }
    loaded = true;
    return file?.checkpoint;
  };

  return {
    recordsPath,
    load,
    commit: async (commit: CollectionCommit<TRecord>) => {
      if (!loaded) await load();
      const records = commit.records.map((record) => `${JSON.stringify(record)}\n`).join('');
      const page = commit.page ? `${JSON.stringify(commit.page)}\n` : '';
      await append(recordsPath, records);
      await append(pagesPath, page);
      const next = {
        recordsBytes: committed.recordsBytes + Buffer.byteLength(records),
        pagesBytes: committed.pagesBytes + Buffer.byteLength(page),
      };
      const file: CheckpointFile = { storeVersion: 1, ...next, checkpoint: commit.checkpoint };
      // Written aside and renamed over: a reader sees the old checkpoint or the new one, never half.
      const temporary = `${checkpointPath}.tmp`;
      await writeFile(temporary, JSON.stringify(file));
      await rename(temporary, checkpointPath);
      committed = next;
    },
    records: async function* (): AsyncGenerator<CollectedRecord<TRecord>> {
      const text = await readFile(recordsPath, 'utf8').catch(() => '');
      const bytes = Buffer.from(text)
        .subarray(0, loaded ? committed.recordsBytes : undefined)
        .toString('utf8');
      for (const line of bytes.split('\n')) if (line.trim()) yield JSON.parse(line) as CollectedRecord<TRecord>;
    },
    close: async () => undefined,
  };
}
