// `plannav run` (and `plannav demo`): options to a run session, the task through the Executor with
// a person's view of it (or NDJSON), Ctrl-C as cancel, and the run's files and summary at the end.

import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ExecutionResult, Executor } from '../index';
import type { RunFiles } from '../front/index';
import { runConfigFromFlags, runFlagOptions } from '../front/flags';
import { booleanFlag, parseFlags, stringFlag, type FlagSpec } from './args';
import { followEvents, ndjsonLine } from './events';
import { helpText } from './help';
import { exitCodes, fancyOutput, isTerminal, UsageError, writeLine, type CliIo } from './io';
import { describeEvent, painter, Spinner } from './progress';
import { formatSummary, summaryRecord, type RunSummary } from './summary';
import { KeyControls, LineReader, terminalHumanInput } from './terminal';

/** The flags of `plannav run`: the run flags every command shares, and its own. */
export const runFlags: FlagSpec = {
  ...runFlagOptions,
  'start-url': { type: 'string' },
  'output-schema': { type: 'string' },
  out: { type: 'string' },
  json: { type: 'boolean' },
};

/** The exit code of a task's result. */
export function exitCodeOf(status: string, success: boolean): number {
  if (status === 'cancelled') return exitCodes.cancelled;
  return status === 'ok' && success ? exitCodes.ok : exitCodes.failed;
}

/** The summary of a task's result and files. */
export function taskSummary(result: ExecutionResult, files: Partial<RunFiles>): RunSummary {
  return {
    status: result.status,
    success: result.success,
    finalAnswer: result.finalAnswer,
    data: result.data,
    error: result.error?.message,
    steps: result.steps,
    modelCalls: result.usage.calls,
    usage: result.usage,
    durationMs: result.durationMs,
    files: { history: files.historyFile, gif: files.gifFile, report: files.reportFile },
  };
}

/** `plannav run`, or `plannav demo` when `demo` is set. */
export async function runCommand(args: string[], io: CliIo, demo = false): Promise<number> {
  const command = demo ? 'demo' : 'run';
  const { values, positionals } = parseFlags(command, args, runFlags);
  if (values.help) {
    writeLine(io.stdout, helpText[command]);
    return exitCodes.ok;
  }
  const config = await runConfigFromFlags(values, command, io.env, demo);
  const task = positionals.join(' ').trim();
  if (!task && !config.demo) throw new UsageError('run needs a task: plannav run "<task>" --model provider:model (or --demo for the demo task)');
  const json = booleanFlag(values, 'json');
  const outFlag = stringFlag(values, 'out');

  // The library is loaded once the command line is known to be good: usage errors and --help stay quick.
  const [{ Executor }, { openRunSession }] = await Promise.all([import('../index'), import('../front/index')]);
  const session = await openRunSession(config, io.signal);
  const colour = !json && fancyOutput(io.stdout, io.env);
  const paint = painter(colour);
  // Human text goes to stdout, or to stderr with --json (stdout then carries NDJSON only).
  const human = json ? io.stderr : io.stdout;
  const spinner = new Spinner(io.stderr, fancyOutput(io.stderr, io.env) && !json);
  const reader = new LineReader(io.stdin);
  let executor: Executor | undefined;
  const keys = new KeyControls(io.stdin, isTerminal(io.stdin) && isTerminal(io.stderr) && !json, {
    pause: () => executor?.pause(),
    resume: () => executor?.resume(),
  });
  const say = (line: string): void => spinner.around(() => writeLine(human, line));
  const onInterrupt = (): void => {
    say(paint('yellow', 'Cancelling the task (Ctrl-C again to quit at once)…'));
    executor?.cancel('Cancelled with Ctrl-C.');
  };
  io.signal?.addEventListener('abort', onInterrupt, { once: true });
  try {
    // The demo task when none is given; the start URL (--start-url, the demo shop) in the words, so the agent opens it as a recorded step.
    const taskText = session.taskFor(task);
    executor = new Executor(session.executorOptions(taskText, { humanInput: terminalHumanInput(reader, io.stderr, keys, (write) => spinner.around(write)) }));
    followEvents(executor, (event) => {
      if (json) io.stdout.write(ndjsonLine(event));
      if (event.type === 'model-call-start') spinner.start(`${event.actor} thinking`);
      else if (event.type === 'model-call-end') spinner.stop();
      const line = json ? undefined : describeEvent(event, paint);
      if (line !== undefined) say(line);
    });
    if (!json && keys.enabled) say(paint('dim', 'Keys: p pause, r resume, Ctrl-C cancel.'));
    keys.start();
    // A Ctrl-C before the executor existed cancels the task at once.
    const result = await executor.execute(io.signal?.aborted ? { signal: io.signal } : undefined);
    keys.stop();
    spinner.stop();
    const outDir = outFlag ? resolve(outFlag) : await mkdtemp(join(tmpdir(), 'plannav-run-'));
    const files = await session.saveRun(executor, outDir);
    for (const warning of files.warnings) writeLine(io.stderr, `plannav: ${warning}`);
    const summary = taskSummary(result, files);
    if (json) io.stdout.write(ndjsonLine(summaryRecord(summary)));
    else writeLine(io.stdout, `\n${formatSummary(summary, paint)}`);
    return exitCodeOf(result.status, result.success);
  } finally {
    io.signal?.removeEventListener('abort', onInterrupt);
    keys.stop();
    spinner.stop();
    reader.close();
    await executor?.close();
    await session.close();
  }
}
