// recordRun on a hand-driven run (no Executor, no child process): what it writes when, and what it
// refuses. The test of a process killed mid-run is test/node/journal.test.ts.
import { access, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HistoryFormatError } from '../errors';
import type { RunHistory, StepRecord, TaskRecord } from '../history/types';
import { emptyUsage } from '../llm/usage';
import { loadHistory } from './history-files';
import { recordRun, type RecordableRun } from './journal';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'plannav-journal-unit-'));
  dirs.push(dir);
  return dir;
}

function task(taskId: string): TaskRecord {
  return { taskId, task: `Task ${taskId}`, startedAt: 1, endedAt: undefined, status: undefined, finalAnswer: undefined };
}

function step(taskId: string, number: number, overrides: Partial<StepRecord> = {}): StepRecord {
  return {
    taskId,
    taskIndex: 0,
    step: number,
    actor: 'navigator',
    startedAt: 0,
    endedAt: 1,
    durationMs: 1,
    browser: undefined,
    modelOutput: {},
    plan: undefined,
    actions: [],
    error: undefined,
    usage: emptyUsage,
    modelCalls: [],
    ...overrides,
  };
}

type EventName = 'task-start' | 'step-end' | 'task-end';

/** A run driven by hand: its history is edited in place, its events fired by `emit`. */
class HandRun implements RecordableRun {
  readonly history: { schemaVersion: 2; tasks: TaskRecord[]; steps: StepRecord[]; screenshots: Map<string, Uint8Array> } = {
    schemaVersion: 2,
    tasks: [],
    steps: [],
    screenshots: new Map(),
  };
  private readonly listeners = new Map<EventName, ((event: never) => unknown)[]>();

  on(name: EventName, listener: (event: never) => unknown): void {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), listener]);
  }

  off(name: EventName, listener: (event: never) => unknown): void {
    this.listeners.set(
      name,
      (this.listeners.get(name) ?? []).filter((item) => item !== listener),
    );
  }

  /** Fires an event; a listener's exception reaches the caller. */
  emit(name: EventName, taskId = 'task-1'): void {
    for (const listener of this.listeners.get(name) ?? []) listener({ taskId } as never);
  }
}

const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 0xff, 0xd9]);

async function journalSteps(dir: string): Promise<RunHistory['steps']> {
  return (await loadHistory(dir)).steps;
}

describe('recordRun', () => {
  it('writes only the steps that end after it starts: the earlier ones have no task line in the journal', async () => {
    const dir = await folder();
    const run = new HandRun();
    run.history.tasks.push({ ...task('task-1'), endedAt: 2, status: 'ok' });
    run.history.steps.push(step('task-1', 1), step('task-1', 2));

    const recording = recordRun(run, dir);
    run.history.tasks.push(task('task-2'));
    run.emit('task-start', 'task-2');
    run.history.steps.push(step('task-2', 1));
    run.emit('step-end');
    recording.stop();

    const history = await loadHistory(dir);
    expect(history.tasks.map((item) => item.taskId)).toEqual(['task-2']);
    expect(history.steps.map((item) => [item.taskId, item.step])).toEqual([['task-2', 1]]);
  });

  it('writes each step once: after a failed write it goes on from the step that failed, not from the last event', async () => {
    const dir = await folder();
    const run = new HandRun();
    const recording = recordRun(run, dir);
    run.history.tasks.push(task('task-1'));
    run.emit('task-start');
    // Two steps end before the listener hears of them; the second one's screenshot cannot be written.
    run.history.steps.push(step('task-1', 1), step('task-1', 2, { screenshot: { part: 'step-2.jpg', mediaType: 'image/jpeg' } }));
    run.history.screenshots.set('step-2.jpg', jpeg);
    const blocker = join(recording.screenshotDir, 'step-2.jpg');
    await mkdir(blocker);
    expect(() => run.emit('step-end')).toThrow();
    expect((await journalSteps(dir)).map((item) => item.step)).toEqual([1]);

    await rm(blocker, { recursive: true });
    run.history.steps.push(step('task-1', 3));
    run.emit('step-end');
    recording.stop();
    expect((await journalSteps(dir)).map((item) => item.step)).toEqual([1, 2, 3]);
    expect([...(await readFile(blocker))]).toEqual([...jpeg]);
  });

  it('refuses a step whose screenshot part is not a plain file name: nothing is written outside its folder, nor the step', async () => {
    const dir = await folder();
    const run = new HandRun();
    const recording = recordRun(run, join(dir, 'run'));
    run.history.tasks.push(task('task-1'));
    run.emit('task-start');
    run.history.steps.push(step('task-1', 1), step('task-1', 2, { screenshot: { part: '../../escaped.jpg', mediaType: 'image/jpeg' } }));
    run.history.screenshots.set('../../escaped.jpg', jpeg);

    let error: unknown;
    try {
      run.emit('step-end');
    } catch (caught) {
      error = caught;
    }
    recording.stop();
    expect(HistoryFormatError.isInstance(error)).toBe(true);
    expect((error as HistoryFormatError).field).toBe('steps[1].screenshot.part');
    await expect(access(join(dir, 'escaped.jpg'))).rejects.toMatchObject({ code: 'ENOENT' });
    // The journal stays a history that loads: the steps before the refused one.
    expect((await journalSteps(join(dir, 'run'))).map((item) => item.step)).toEqual([1]);
  });
});
