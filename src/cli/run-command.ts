// `plannav run` (and `plannav demo`): options to a run session, the task through the Executor with
// a person's view of it (or NDJSON), Ctrl-C as cancel, and the run's files and summary at the end.

import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ExecutionResult, Executor } from '../index';
import type { RunConfig, RunFiles } from '../front/index';
import { booleanFlag, choiceFlag, integerFlag, listFlag, parseFlags, stringFlag, type FlagSpec } from './args';
import { followEvents, ndjsonLine } from './events';
import { helpText } from './help';
import { exitCodes, fancyOutput, isTerminal, UsageError, writeLine, type CliIo } from './io';
import { describeEvent, painter, Spinner } from './progress';
import { formatSummary, summaryRecord, type RunSummary } from './summary';
import { KeyControls, LineReader, terminalHumanInput } from './terminal';

/** The flags of `plannav run`. */
export const runFlags: FlagSpec = {
  model: { type: 'string' },
  'planner-model': { type: 'string' },
  'extractor-model': { type: 'string' },
  'start-url': { type: 'string' },
  headed: { type: 'boolean' },
  'cdp-url': { type: 'string' },
  'ws-endpoint': { type: 'string' },
  allow: { type: 'string', multiple: true },
  deny: { type: 'string', multiple: true },
  scope: { type: 'string' },
  'secrets-file': { type: 'string' },
  'max-steps': { type: 'string' },
  vision: { type: 'boolean' },
  'output-schema': { type: 'string' },
  out: { type: 'string' },
  json: { type: 'boolean' },
  demo: { type: 'boolean' },
};

/** Reads `--output-schema`: a JSON file holding a JSON Schema object. */
async function readOutputSchema(path: string): Promise<object> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new UsageError(`--output-schema ${path} could not be read${code === 'ENOENT' ? ': no such file' : ''}`);
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--output-schema ${path} is not JSON: ${(error as Error).message}`);
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) throw new UsageError(`--output-schema ${path} must hold a JSON Schema object`);
  return schema;
}

/** The run options of the flags, as `plannav run` and `plannav mcp` read them. */
export async function runConfigFromFlags(values: Record<string, unknown>, command: string, env: CliIo['env'], demo: boolean): Promise<RunConfig> {
  const flags = values as Parameters<typeof stringFlag>[0];
  const schemaFile = stringFlag(flags, 'output-schema');
  return {
    model: stringFlag(flags, 'model'),
    plannerModel: stringFlag(flags, 'planner-model'),
    extractorModel: stringFlag(flags, 'extractor-model'),
    startUrl: stringFlag(flags, 'start-url'),
    headed: booleanFlag(flags, 'headed') || undefined,
    cdpUrl: stringFlag(flags, 'cdp-url'),
    wsEndpoint: stringFlag(flags, 'ws-endpoint'),
    allow: listFlag(flags, 'allow'),
    deny: listFlag(flags, 'deny'),
    scope: choiceFlag(flags, 'scope', ['navigation', 'all-requests'] as const, command),
    secretsFile: stringFlag(flags, 'secrets-file'),
    maxSteps: integerFlag(flags, 'max-steps', command),
    vision: booleanFlag(flags, 'vision') || undefined,
    outputSchema: schemaFile ? await readOutputSchema(schemaFile) : undefined,
    demo: demo || booleanFlag(flags, 'demo') || undefined,
    env,
  };
}

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
