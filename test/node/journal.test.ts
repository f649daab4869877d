// recordRun's promise: a process killed in the middle of a run leaves every finished step on disk.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Executor } from '../../src/index';
import { loadHistory, recordRun } from '../../src/node/index';
import { FakeBrowserDriver, ScriptedLLM } from '../../src/testing/index';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('recordRun', () => {
  it('leaves every finished step on disk when the process is killed mid-run', { timeout: 60_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'plannav-journal-'));
    dirs.push(dir);
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/node/journal-child.ts', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += String(chunk)));
    // Killed hard (no exit handlers run) once it reported its 6th finished step.
    const reported = await new Promise<number>((resolve, reject) => {
      let seen = 0;
      let buffer = '';
      child.stdout.on('data', (chunk: Buffer) => {
        buffer += String(chunk);
        seen = (buffer.match(/^STEP \d+$/gm) ?? []).length;
        if (seen >= 6 && child.exitCode === null) child.kill('SIGKILL');
      });
      child.on('exit', (code, signal) =>
        signal === 'SIGKILL' ? resolve(seen) : reject(new Error(`the child ended (${code}) before it was killed: ${stderr}`)),
      );
    });
    expect(reported).toBeGreaterThanOrEqual(6);

    const history = await loadHistory(dir);
    expect(history.steps.length).toBeGreaterThanOrEqual(reported);
    expect(history.steps.filter((step) => step.actor === 'navigator').length).toBeGreaterThanOrEqual(4);
    expect(history.steps.every((step) => step.taskId === history.tasks[0]?.taskId)).toBe(true);
    // The task started and never ended.
    expect(history.tasks[0]?.task).toBe('Look at mugs for ever');
    expect(history.tasks[0]?.startedAt).toBeGreaterThan(0);
    expect(history.tasks[0]?.status).toBeUndefined();
    expect(history.steps.find((step) => step.actor === 'navigator')?.actions[0]?.name).toBe('click_element');

    // A line the process was writing when it died is left out, not an error.
    const journal = join(dir, 'journal.jsonl');
    const text = await readFile(journal, 'utf8');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(journal, `${text}{"type":"step","step":{"taskId":`);
    expect((await loadHistory(journal)).steps).toHaveLength(history.steps.length);

    // That folder is that run's: another run is not recorded into it, and the journal is kept.
    const another = new Executor({ sensitiveActions: false, task: 'x', llm: new ScriptedLLM({ responses: [] }), browser: new FakeBrowserDriver() });
    expect(() => recordRun(another, dir)).toThrow(/already holds a journal/);
    expect(await readFile(journal, 'utf8')).toContain('Look at mugs for ever');
  });
});
