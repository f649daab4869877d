// `npm run collect-demo` on one machine end to end: the local job board, headless Chromium, the
// Collector and the scripted model. What was collected is checked against the site's own truth and
// the JSON Lines file on disk, never only against what the demo printed.
import { readFile, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCollectDemo } from '../../examples/collect';

const folders: string[] = [];
afterAll(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

describe('npm run collect-demo', () => {
  it('collects every reachable posting once, prints a progress line per page and the summary, writes the JSON Lines file', { timeout: 90_000 }, async () => {
    const lines: string[] = [];
    const run = await runCollectDemo({ log: (line) => lines.push(line) });
    folders.push(dirname(run.recordsFile));

    // 12 pages, page 7 broken (500): 11 done, 1 failed, the other 220 postings each once.
    expect(run.summary).toMatchObject({ reason: 'done', pagesDone: 11, pagesFailed: 1, records: 220, duplicates: 0, invalid: 0, pagesQueued: 0 });
    const ids = run.records.map((job) => job.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([...run.reachableIds].sort());
    expect(run.reachableIds).toHaveLength(220);
    // No listing page but the first (the cookie wall, then the same page after consent) was loaded twice, except
    // the broken page 7: its 500 may pass, so it was tried three times (the default attempts) before it failed.
    for (const [path, count] of Object.entries(run.hits))
      if (path.startsWith('/jobs?page=') && path !== '/jobs?page=1') expect(count, path).toBe(path === '/jobs?page=7' ? 3 : 1);

    const stored = (await readFile(run.recordsFile, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { data: { id: string }; source: string });
    expect(stored.map((record) => record.data.id).sort()).toEqual([...run.reachableIds].sort());
    expect(stored.every((record) => record.source.includes('/jobs?page='))).toBe(true);

    expect(lines[0]).toMatch(/^Collecting http:\/\/127\.0\.0\.1:\d+\/jobs\?page=1 on this machine: 1 page\(s\) at a time/);
    const progress = lines.filter((line) => /^\[\s*[\d.]+ s\] \d+ of \d+ pages done, \d+ records, \d+ pages\/min, \d+ records\/min, \d+ failed/.test(line));
    expect(progress).toHaveLength(12);
    expect(progress.at(-1)).toMatch(/\] 12 of 12 pages done, 220 records, \d+ pages\/min, \d+ records\/min, 1 failed /);
    expect(progress.filter((line) => line.includes('/jobs?page=7 failed: '))).toHaveLength(1);
    expect(lines).toContain('Pages: 11 done, 1 failed, 0 empty, 0 abandoned, 0 still queued');
    expect(lines).toContain('Records: 220 kept, 0 duplicates dropped, 0 invalid');
    expect(lines).toContain(`Records file: ${run.recordsFile}`);
    expect(lines.some((line) => /^Ended: done after [\d.]+ s$/.test(line))).toBe(true);
  });
});
