// The journal of a run as it happens: one JSON line per task and per finished step, appended the
// moment it ends, so a process killed in the middle of a run leaves every finished step on disk.

import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, HistoryFormatError } from '../errors';
import type { ExecutorEventMap } from '../events';
import { parseHistory } from '../history/schema';
import { historySchemaVersion, type RunHistory, type StepRecord, type TaskRecord } from '../history/types';

/** The journal's own version, in its first line. */
const journalVersion = 1;

/**
 * What {@link recordRun} records: an `Executor`, or anything with its events and history (a
 * replay does too).
 * @public
 */
export interface RecordableRun {
  /** Listens to an event, as `Executor.on`. */
  on(name: 'task-start' | 'step-end' | 'task-end', listener: (event: ExecutorEventMap['task-start' | 'step-end' | 'task-end']) => unknown): unknown;
  /** Stops listening, as `Executor.off`. */
  off(name: 'task-start' | 'step-end' | 'task-end', listener: (event: ExecutorEventMap['task-start' | 'step-end' | 'task-end']) => unknown): unknown;
  /** The session's history so far. */
  readonly history: RunHistory;
}

/** A journal being written. @public */
export interface RunRecording {
  /** The journal file, `<dir>/journal.jsonl`; `loadHistory` reads it (or `dir`). */
  readonly path: string;
  /** The folder of its screenshots, `<dir>/journal.screenshots/`. */
  readonly screenshotDir: string;
  /** Stops recording; what was written stays. Idempotent. */
  stop(): void;
}

/** One line of the journal. */
type JournalLine =
  | { readonly type: 'journal'; readonly journalVersion: number; readonly schemaVersion: number }
  | { readonly type: 'task'; readonly task: TaskRecord }
  | { readonly type: 'step'; readonly step: StepRecord };

/**
 * Checks one step as `parseHistory` checks a saved history, before any of it reaches the disk (its
 * screenshot part becomes a file name: it must be a plain one); the error names the step by its
 * place in the run's history.
 */
function checkStep(step: StepRecord, index: number): void {
  try {
    parseHistory({ schemaVersion: historySchemaVersion, tasks: [], steps: [step] });
  } catch (error) {
    if (!HistoryFormatError.isInstance(error)) throw error;
    const field = error.field?.replace(/^steps\[0\]/, `steps[${index}]`);
    throw new HistoryFormatError(`${error.message.replace('`steps[0]', `\`steps[${index}]`)} The journal does not record it, nor any step after it.`, {
      field,
      cause: error,
    });
  }
}

/**
 * Records a run into `dir` as it goes: `journal.jsonl` gets a line when each task starts and ends
 * and when each step ends (written synchronously, in the event itself), and each screenshot a
 * file of `journal.screenshots/`. Load it with `loadHistory(dir)`, also while the run goes on or
 * after its process died: a last line cut off mid-write is left out. The steps the run had before
 * are not recorded (their tasks' lines would be missing), and the journal's steps are always the
 * run's in order, each once: after a write that failed the next event goes on from that step.
 * A step that is not a valid history step (a screenshot part that is not a plain file name) is not
 * written, nor any after it: the listener throws a `HistoryFormatError` naming the field, which
 * an `Executor` reports as a `LISTENER_ERROR` warning.
 * @throws `ConfigError` (field `dir`) when `dir` already holds a journal: each run gets a folder of its own.
 * @example
 * ```ts
 * const recording = recordRun(executor, 'runs/today');
 * await executor.execute();
 * recording.stop();
 * const history = await loadHistory('runs/today');
 * ```
 * @public
 */
export function recordRun(run: RecordableRun, dir: string): RunRecording {
  const path = join(dir, 'journal.jsonl');
  const screenshotDir = join(dir, 'journal.screenshots');
  // Another run's journal is never appended to nor replaced: its steps would mix with this run's.
  if (existsSync(path)) {
    throw new ConfigError(`${dir} already holds a journal (journal.jsonl): record each run into a folder of its own, or remove that one first.`, {
      field: 'dir',
    });
  }
  mkdirSync(screenshotDir, { recursive: true });
  const write = (line: JournalLine): void => appendFileSync(path, `${JSON.stringify(line)}\n`);
  write({ type: 'journal', journalVersion, schemaVersion: historySchemaVersion });
  // The steps already in the history belong to tasks whose start this journal never saw.
  let written = run.history.steps.length;
  const savedParts = new Set<string>();
  const task = (event: { readonly taskId: string }): void => {
    const record = run.history.tasks.find((item) => item.taskId === event.taskId);
    if (record) write({ type: 'task', task: record });
  };
  const steps = (): void => {
    const history = run.history;
    // Counted line by line: a write that throws leaves `written` at its step, so none is written twice.
    while (written < history.steps.length) {
      const step = history.steps[written] as StepRecord;
      checkStep(step, written);
      const part = step.screenshot?.part;
      const bytes = part === undefined ? undefined : history.screenshots.get(part);
      if (part !== undefined && bytes && !savedParts.has(part)) {
        writeFileSync(join(screenshotDir, part), bytes);
        savedParts.add(part);
      }
      write({ type: 'step', step });
      written++;
    }
  };
  const onTask = (event: { readonly taskId: string }): void => task(event);
  run.on('task-start', onTask);
  run.on('step-end', steps);
  run.on('task-end', onTask);
  let stopped = false;
  return {
    path,
    screenshotDir,
    stop: () => {
      if (stopped) return;
      stopped = true;
      run.off('task-start', onTask);
      run.off('step-end', steps);
      run.off('task-end', onTask);
    },
  };
}

/**
 * The history a journal holds, as JSON for `parseHistory`: the last line of each task wins, steps
 * in order. A last line without its newline (the process died while writing it) is left out.
 */
export function readJournal(text: string, file: string): unknown {
  const lines = text.split('\n');
  if (!text.endsWith('\n')) lines.pop();
  const tasks = new Map<string, unknown>();
  const steps: unknown[] = [];
  let schemaVersion: unknown;
  for (const [index, line] of lines.entries()) {
    if (!line.trim()) continue;
    let entry: { type?: unknown; task?: { taskId?: unknown }; step?: unknown; schemaVersion?: unknown; journalVersion?: unknown };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch (error) {
      throw new HistoryFormatError(`Line ${index + 1} of the journal ${file} is not JSON: ${(error as Error).message}.`, { field: `line ${index + 1}` });
    }
    if (entry.type === 'journal') {
      if (typeof entry.journalVersion === 'number' && entry.journalVersion > journalVersion) {
        throw new HistoryFormatError(
          `The journal ${file} has journal version ${entry.journalVersion}, newer than this release of plannav reads: upgrade plannav.`,
          {
            code: 'HISTORY_VERSION',
            field: 'journalVersion',
          },
        );
      }
      schemaVersion = entry.schemaVersion;
    } else if (entry.type === 'task' && typeof entry.task?.taskId === 'string') {
      tasks.set(entry.task.taskId, entry.task);
    } else if (entry.type === 'step') {
      steps.push(entry.step);
    } else {
      throw new HistoryFormatError(`Line ${index + 1} of the journal ${file} is not a journal entry.`, { field: `line ${index + 1}` });
    }
  }
  if (schemaVersion === undefined) throw new HistoryFormatError(`${file} is not a plannav journal: its first line is no journal header.`, { field: 'line 1' });
  return { schemaVersion, tasks: [...tasks.values()], steps };
}
